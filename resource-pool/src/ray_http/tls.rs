//! https to a dashboard behind an ingress or a managed Ray: rustls (no OpenSSL), the
//! operating system's trust store by default, or the certificate authorities of a PEM file.
//!
//! The system store is read by `rustls-platform-verifier` (ureq's `platform-verifier`
//! feature): on Linux that is the distribution's bundle (`/etc/ssl/certs`, or the files
//! `SSL_CERT_FILE`/`SSL_CERT_DIR` name), on macOS and Windows their own verifiers. ureq's
//! default would be Mozilla's roots compiled into the binary (webpki-roots), which ignores
//! a CA the machine's administrator installed; hence the platform verifier. A CA file
//! replaces the system store (as `curl --cacert` does): only its certificates are trusted.
//! Verification is never turned off, and an https URL is never retried over http.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ureq::tls::{Certificate, PemItem, RootCerts, TlsConfig};

use super::RayHttpError;

/// The environment variable naming a CA file (PEM), as `--ca-cert` does.
pub const CA_CERT_ENV_VAR: &str = "RESOURCE_POOL_CA_CERT";

/// The largest CA file read.
const MAX_CA_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// Whom an https dashboard's certificate must be signed by.
#[derive(Clone, Debug, Default)]
pub enum TrustRoots {
    /// The operating system's trust store.
    #[default]
    System,
    /// Only these certificate authorities (from a PEM file).
    Authorities {
        /// The file they came from, for messages.
        origin: PathBuf,
        /// The CA certificates read from the file.
        certificates: Arc<Vec<Certificate<'static>>>,
    },
}

impl TrustRoots {
    /// The certificate authorities of a PEM file (one or more `CERTIFICATE` blocks; other
    /// blocks are ignored).
    pub fn from_pem_file(path: impl AsRef<Path>) -> Result<TrustRoots, RayHttpError> {
        use std::io::Read;
        let path = path.as_ref();
        let bad = |problem: String| RayHttpError::BadCaCert {
            path: path.to_path_buf(),
            problem,
        };
        let file = std::fs::File::open(path).map_err(|e| bad(format!("cannot be read: {e}")))?;
        let mut pem = Vec::new();
        file.take(MAX_CA_FILE_BYTES + 1)
            .read_to_end(&mut pem)
            .map_err(|e| bad(format!("cannot be read: {e}")))?;
        if pem.len() as u64 > MAX_CA_FILE_BYTES {
            return Err(bad(format!("is larger than {MAX_CA_FILE_BYTES} bytes")));
        }
        let mut certificates = Vec::new();
        for item in ureq::tls::parse_pem(&pem) {
            match item {
                Ok(PemItem::Certificate(certificate)) => certificates.push(certificate),
                Ok(_) => {}
                Err(e) => return Err(bad(format!("is not valid PEM: {e}"))),
            }
        }
        if certificates.is_empty() {
            return Err(bad(
                "holds no PEM certificate (`-----BEGIN CERTIFICATE-----`)".to_owned(),
            ));
        }
        Ok(TrustRoots::Authorities {
            origin: path.to_path_buf(),
            certificates: Arc::new(certificates),
        })
    }

    /// The roots named by [`CA_CERT_ENV_VAR`], else the system's.
    pub fn from_env() -> Result<TrustRoots, RayHttpError> {
        match std::env::var_os(CA_CERT_ENV_VAR).filter(|v| !v.is_empty()) {
            Some(path) => TrustRoots::from_pem_file(path),
            None => Ok(TrustRoots::System),
        }
    }

    /// Who was asked, in words, for messages.
    pub fn describe(&self) -> String {
        match self {
            TrustRoots::System => "the system's trust store".to_owned(),
            TrustRoots::Authorities { origin, .. } => {
                format!("the CA file `{}`", origin.display())
            }
        }
    }

    /// The CA file, when the roots came from one.
    pub fn ca_file(&self) -> Option<&Path> {
        match self {
            TrustRoots::System => None,
            TrustRoots::Authorities { origin, .. } => Some(origin),
        }
    }

    pub(super) fn tls_config(&self) -> TlsConfig {
        let roots = match self {
            TrustRoots::System => RootCerts::PlatformVerifier,
            TrustRoots::Authorities { certificates, .. } => {
                RootCerts::Specific(Arc::clone(certificates))
            }
        };
        TlsConfig::builder().root_certs(roots).build()
    }
}

/// What was wrong with a TLS connection.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, thiserror::Error)]
#[serde(rename_all = "snake_case", tag = "kind", content = "detail")]
pub enum TlsProblem {
    /// Signed by an authority not trusted here.
    #[error("its certificate is signed by an authority that is not trusted")]
    UnknownIssuer,
    /// Made out for other names: the DNS names and IP addresses it holds, as written.
    #[error("its certificate is not valid for this host name{}", presented_suffix(.0))]
    WrongName(Vec<String>),
    /// Past its end date.
    #[error("its certificate has expired")]
    Expired,
    /// Before its start date.
    #[error("its certificate is not valid yet")]
    NotValidYet,
    /// Another certificate problem, in rustls' words.
    #[error("its certificate was refused: {0}")]
    BadCertificate(String),
    /// The server answered something that is not TLS (often: plain http on that port).
    #[error("it does not speak TLS ({0}); is the dashboard plain http on this port?")]
    NotTls(String),
    /// Another TLS failure, in rustls' words.
    #[error("the TLS handshake failed: {0}")]
    Handshake(String),
}

fn presented_suffix(names: &[String]) -> String {
    if names.is_empty() {
        String::new()
    } else {
        format!(" (it names {})", names.join(", "))
    }
}

impl TlsProblem {
    /// What to do about it.
    pub fn help(&self, roots: &TrustRoots) -> String {
        match self {
            TlsProblem::UnknownIssuer => match roots.ca_file() {
                None => format!(
                    "it was checked against {}; if the dashboard's certificate comes from a private CA, pass that CA's certificate (PEM) with --ca-cert FILE or {CA_CERT_ENV_VAR}",
                    roots.describe()
                ),
                // The user gave a CA file already: the file is what is wrong.
                Some(file) => format!(
                    "the CA file `{}` does not hold the CA that signed the dashboard's certificate: give the file of that CA (the issuer is shown by `openssl s_client -connect HOST:PORT -showcerts`), or no CA file to use the system's trust store",
                    file.display()
                ),
            },
            TlsProblem::WrongName(_) => {
                "use the host name the certificate names in the URL (not its IP address, unless the certificate lists it)".to_owned()
            }
            TlsProblem::Expired | TlsProblem::NotValidYet => {
                "renew the dashboard's certificate, or check this machine's clock".to_owned()
            }
            TlsProblem::NotTls(_) => {
                "use `http://` if the dashboard is not behind TLS (nothing is retried over http by itself)".to_owned()
            }
            TlsProblem::BadCertificate(_) | TlsProblem::Handshake(_) => format!(
                "check the certificate the ingress serves (`openssl s_client -connect HOST:PORT`); it was checked against {}",
                roots.describe()
            ),
        }
    }
}

/// The TLS problem inside an I/O error of ureq, if it is one.
pub(super) fn tls_problem(error: &std::io::Error) -> Option<TlsProblem> {
    let inner = error.get_ref()?.downcast_ref::<rustls::Error>()?;
    Some(match inner {
        rustls::Error::InvalidCertificate(certificate) => certificate_problem(certificate),
        rustls::Error::InvalidMessage(message) => TlsProblem::NotTls(format!("{message:?}")),
        other => TlsProblem::Handshake(other.to_string()),
    })
}

fn certificate_problem(error: &rustls::CertificateError) -> TlsProblem {
    use rustls::CertificateError as E;
    match error {
        E::UnknownIssuer => TlsProblem::UnknownIssuer,
        E::NotValidForName => TlsProblem::WrongName(Vec::new()),
        E::NotValidForNameContext { presented, .. } => {
            TlsProblem::WrongName(presented.iter().filter_map(|n| plain_name(n)).collect())
        }
        E::Expired | E::ExpiredContext { .. } => TlsProblem::Expired,
        E::NotValidYet | E::NotValidYetContext { .. } => TlsProblem::NotValidYet,
        other => TlsProblem::BadCertificate(format!("{other:?}")),
    }
}

/// A name of a certificate as rustls gives it (webpki's `Debug` of the subject alternative
/// name: `DnsName("ray.example.com")`, `IpAddress(10.0.0.1)`,
/// `UniformResourceIdentifier("...")`), as a person writes it; `None` for the kinds that
/// name no host (`DirectoryName`, `Unsupported(0x01)`). A form not known here is kept whole.
fn plain_name(presented: &str) -> Option<String> {
    let inner = |prefix: &str| {
        presented
            .strip_prefix(prefix)?
            .strip_prefix('(')?
            .strip_suffix(')')
    };
    if let Some(name) = inner("DnsName").or_else(|| inner("UniformResourceIdentifier")) {
        return Some(name.trim_matches('"').to_owned());
    }
    if let Some(address) = inner("IpAddress") {
        return Some(address.to_owned());
    }
    if presented == "DirectoryName" || presented.starts_with("Unsupported(") {
        return None;
    }
    Some(presented.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn certificate_names_are_printed_plainly() {
        let names = [
            r#"DnsName("ray.example.com")"#,
            r#"DnsName("*.example.com")"#,
            "IpAddress(10.0.0.1)",
            "IpAddress(fe80::1)",
            r#"UniformResourceIdentifier("spiffe://ray/head")"#,
            "DirectoryName",
            "Unsupported(0x01)",
            "something new",
        ];
        let plain: Vec<_> = names.iter().filter_map(|n| plain_name(n)).collect();
        assert_eq!(
            plain,
            [
                "ray.example.com",
                "*.example.com",
                "10.0.0.1",
                "fe80::1",
                "spiffe://ray/head",
                "something new"
            ]
        );
        let problem = certificate_problem(&rustls::CertificateError::NotValidForNameContext {
            expected: rustls::pki_types::ServerName::try_from("localhost")
                .expect("name")
                .to_owned(),
            presented: vec![
                r#"DnsName("ray.example.com")"#.into(),
                "IpAddress(10.0.0.1)".into(),
            ],
        });
        assert_eq!(
            problem.to_string(),
            "its certificate is not valid for this host name (it names ray.example.com, 10.0.0.1)"
        );
    }

    #[test]
    fn an_unknown_issuer_with_a_ca_file_blames_the_file() {
        let file = TrustRoots::Authorities {
            origin: PathBuf::from("tls/other-ca.pem"),
            certificates: Arc::new(Vec::new()),
        };
        let help = TlsProblem::UnknownIssuer.help(&file);
        assert!(
            help.starts_with("the CA file `tls/other-ca.pem` does not hold the CA that signed"),
            "{help}"
        );
        assert!(!help.contains("--ca-cert FILE"), "{help}");
        let system = TlsProblem::UnknownIssuer.help(&TrustRoots::System);
        assert!(system.contains("--ca-cert FILE"), "{system}");
    }
}
