//! `RaySource` over https, against a TLS dashboard of the test's own: a rustls server on
//! 127.0.0.1 whose certificates are made in the test (rcgen), serving the recorded Ray
//! 2.60 answers. A trusted CA reads the cluster; an unknown CA, a certificate for another
//! name and a plain-http port are each one clear diagnostic; the token is never printed.

use std::io::Write;
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use resource_pool::ray_http::{RaySource, Secret, TrustRoots};
use resource_pool_inventory::InventorySource;

use super::{FakeDashboard, Reply, Seen, code, fixtures, help, serve_stream};

/// A certificate authority and a server certificate it signed.
struct Pki {
    ca_pem: String,
    chain: Vec<rustls::pki_types::CertificateDer<'static>>,
    key: Vec<u8>,
}

/// A CA named `ca_name` and a leaf for `names` (DNS names or IP addresses).
fn pki(ca_name: &str, names: &[&str]) -> Pki {
    let ca_key = rcgen::KeyPair::generate().expect("CA key");
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("CA params");
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, ca_name);
    let ca = ca_params.self_signed(&ca_key).expect("CA");
    let key = rcgen::KeyPair::generate().expect("key");
    let names: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
    let params = rcgen::CertificateParams::new(names).expect("params");
    let issuer = rcgen::Issuer::new(ca_params, &ca_key);
    let leaf = params.signed_by(&key, &issuer).expect("leaf");
    Pki {
        ca_pem: ca.pem(),
        chain: vec![leaf.der().clone()],
        key: key.serialize_der(),
    }
}

/// A file of the test's own, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, text: &str) -> TempFile {
        let dir = std::env::temp_dir().join(format!("rp-tls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write");
        TempFile(path)
    }
    fn path(&self) -> &str {
        self.0.to_str().expect("UTF-8 path")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A TLS dashboard: every connection is a TLS session, then one HTTP exchange.
struct TlsDashboard {
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
    handshakes_failed: Arc<Mutex<usize>>,
}

impl TlsDashboard {
    fn start(pki: &Pki, handler: impl Fn(&Seen) -> Reply + Send + Sync + 'static) -> TlsDashboard {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("versions")
            .with_no_client_auth()
            .with_single_cert(
                pki.chain.clone(),
                rustls::pki_types::PrivateKeyDer::Pkcs8(pki.key.clone().into()),
            )
            .expect("server config");
        let config = Arc::new(config);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let failed = Arc::new(Mutex::new(0));
        let (log, fails, handler) = (Arc::clone(&seen), Arc::clone(&failed), Arc::new(handler));
        thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                let (config, log, fails, handler) = (
                    Arc::clone(&config),
                    Arc::clone(&log),
                    Arc::clone(&fails),
                    Arc::clone(&handler),
                );
                thread::spawn(move || {
                    let Ok(connection) = rustls::ServerConnection::new(config) else {
                        return;
                    };
                    let mut tls = rustls::StreamOwned::new(connection, stream);
                    if tls.conn.complete_io(&mut tls.sock).is_err() {
                        if let Ok(mut n) = fails.lock() {
                            *n += 1;
                        }
                        return;
                    }
                    serve_stream(&mut tls, &*handler, &log);
                    tls.conn.send_close_notify();
                    let _ = tls.flush();
                });
            }
        });
        TlsDashboard {
            port,
            seen,
            handshakes_failed: failed,
        }
    }

    fn url(&self, host: &str) -> String {
        format!("https://{host}:{}", self.port)
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

fn source(url: &str) -> RaySource {
    RaySource::new(url)
        .expect("url")
        .with_timeout(Duration::from_secs(5))
        .with_connect_timeout(Duration::from_secs(1))
}

const TOKEN: &str = "tls-s3cret-token";

/// Serves the recorded cluster to a bearer of [`TOKEN`].
fn guarded(seen: &Seen) -> Reply {
    match seen.header("Authorization") {
        Some(value) if value == format!("Bearer {TOKEN}") => fixtures("idle")(seen),
        _ => Reply::Status(401, "Unauthorized"),
    }
}

#[test]
fn a_trusted_ca_reads_the_cluster_over_https() {
    let pki = pki("resource-pool test CA", &["localhost", "127.0.0.1"]);
    let server = TlsDashboard::start(&pki, guarded);
    let ca = TempFile::new("trusted-ca.pem", &pki.ca_pem);
    let roots = TrustRoots::from_pem_file(ca.path()).expect("CA file");
    for host in ["127.0.0.1", "localhost"] {
        let inventory = source(&server.url(host))
            .with_trust_roots(roots.clone())
            .with_token(Some(Secret::new(TOKEN).expect("token")))
            .load()
            .expect("load over https");
        assert_eq!(inventory.cluster.nodes.len(), 3, "{host}");
    }
    assert!(
        server
            .seen()
            .iter()
            .all(|s| s.header("Authorization").is_some())
    );
}

#[test]
fn an_unknown_ca_is_a_clear_diagnostic_and_the_token_stays_secret() {
    let ours = pki("resource-pool test CA", &["127.0.0.1"]);
    let server = TlsDashboard::start(&ours, guarded);
    let token = Some(Secret::new(TOKEN).expect("token"));

    // The system's store does not know the test's CA.
    let error = source(&server.url("127.0.0.1"))
        .with_token(token.clone())
        .load()
        .expect_err("unknown CA");
    assert_eq!(code(&error), "resource_pool::ray::tls", "{error}");
    let text = error.to_string();
    assert!(
        text.contains("127.0.0.1") && text.contains("not trusted"),
        "{text}"
    );
    assert!(help(&error).contains("--ca-cert") && help(&error).contains("system"));

    // Another CA's file: refused too, and the help names that file.
    let other = pki("another CA", &["127.0.0.1"]);
    let other_ca = TempFile::new("other-ca.pem", &other.ca_pem);
    let error = source(&server.url("127.0.0.1"))
        .with_trust_roots(TrustRoots::from_pem_file(other_ca.path()).expect("CA file"))
        .with_token(token)
        .load()
        .expect_err("another CA");
    assert_eq!(code(&error), "resource_pool::ray::tls", "{error}");
    // The file was given: it is the file that lacks the CA, not a flag to pass.
    assert!(
        help(&error).starts_with(&format!(
            "the CA file `{}` does not hold the CA that signed the dashboard's certificate",
            other_ca.path()
        )),
        "{}",
        help(&error)
    );
    let data = serde_json::to_value(&error).expect("json");
    assert_eq!(data["ca_file"], other_ca.path(), "{data}");

    for shown in [error.to_string(), format!("{error:?}"), help(&error)] {
        assert!(!shown.contains(TOKEN), "{shown}");
    }
    // The handshake failed before any request: nothing was sent, the token included.
    // (The server counts its failed handshakes on its own threads: wait for them a little.)
    let failed = || *server.handshakes_failed.lock().expect("lock");
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while failed() < 2 && std::time::Instant::now() < deadline {
        thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(failed(), 2);
    assert!(server.seen().is_empty());
}

#[test]
fn a_certificate_for_another_name_is_refused() {
    let pki = pki("resource-pool test CA", &["dashboard.example", "10.1.2.3"]);
    let server = TlsDashboard::start(&pki, fixtures("idle"));
    let ca = TempFile::new("name-ca.pem", &pki.ca_pem);
    let error = source(&server.url("127.0.0.1"))
        .with_trust_roots(TrustRoots::from_pem_file(ca.path()).expect("CA file"))
        .load()
        .expect_err("wrong name");
    assert_eq!(code(&error), "resource_pool::ray::tls", "{error}");
    // The names as written, not rustls' Debug (`DnsName("dashboard.example")`).
    assert!(
        error
            .to_string()
            .ends_with("not valid for this host name (it names dashboard.example, 10.1.2.3)"),
        "{error}"
    );
    let data = serde_json::to_value(&error).expect("json");
    assert_eq!(
        data["problem"],
        serde_json::json!({"kind": "wrong_name", "detail": ["dashboard.example", "10.1.2.3"]})
    );
}

#[test]
fn plain_http_to_a_tls_port_suggests_https() {
    let pki = pki("resource-pool test CA", &["127.0.0.1"]);
    let server = TlsDashboard::start(&pki, fixtures("idle"));
    let plain = format!("http://127.0.0.1:{}", server.port);
    let error = source(&plain).load().expect_err("TLS port");
    assert_eq!(code(&error), "resource_pool::ray::transport", "{error}");
    // The TLS server answers a plain request with an alert (not HTTP) or a reset (closed
    // before answering), as the race between its alert and its close goes.
    let data = serde_json::to_value(&error).expect("json");
    assert!(
        ["not_http", "closed_before_answer"].contains(&data["kind"].as_str().unwrap_or_default()),
        "{data}"
    );
    let https = format!("use `https://127.0.0.1:{}`", server.port);
    assert!(help(&error).contains(&https), "{}", help(&error));
}

#[test]
fn https_to_a_plain_http_port_never_falls_back() {
    let plain = FakeDashboard::start(fixtures("idle"));
    let https = plain.url.replacen("http://", "https://", 1);
    let error = source(&https).load().expect_err("not TLS");
    assert_eq!(code(&error), "resource_pool::ray::tls", "{error}");
    assert!(help(&error).contains("http://"), "{}", help(&error));
    // What reached the plain server was a TLS hello, never an HTTP request of ours.
    let seen = plain.seen();
    assert!(
        !seen.is_empty() && seen.iter().all(|s| s.target == "<a TLS hello>"),
        "{seen:?}"
    );
}

#[test]
fn a_ca_file_without_certificates_is_refused() {
    let empty = TempFile::new("empty.pem", "not a certificate\n");
    let error = TrustRoots::from_pem_file(empty.path()).expect_err("no certificate");
    let code = miette::Diagnostic::code(&error).map(|c| c.to_string());
    assert_eq!(code.as_deref(), Some("resource_pool::ray::bad_ca_cert"));
    assert!(error.to_string().contains("empty.pem"), "{error}");
    let missing = TrustRoots::from_pem_file("/nonexistent/ca.pem").expect_err("missing");
    assert!(missing.to_string().contains("/nonexistent/ca.pem"));
}

/// The command line over https: `--ca-cert`, `RESOURCE_POOL_CA_CERT`, and the system store
/// (which `SSL_CERT_FILE` points at a file of the test's own here).
#[test]
fn the_cli_reads_https_dashboards() {
    let pki = pki("resource-pool test CA", &["127.0.0.1"]);
    let server = TlsDashboard::start(&pki, guarded);
    let ca = TempFile::new("cli-ca.pem", &pki.ca_pem);
    let url = server.url("127.0.0.1");
    let config = "examples/configs/single_node.toml";
    let run = |extra: &[&str], env: &[(&str, &str)]| {
        let mut command = crate::common::resource_pool();
        command
            .args(["check", config, "--ray", &url, "--format", "json"])
            .args(extra)
            .env("RESOURCE_POOL_RAY_TOKEN", TOKEN)
            .env_remove("SSL_CERT_FILE")
            .env_remove("SSL_CERT_DIR");
        for (name, value) in env {
            command.env(name, value);
        }
        command.output().expect("the binary runs")
    };
    for output in [
        run(&["--ca-cert", ca.path()], &[]),
        run(&[], &[("RESOURCE_POOL_CA_CERT", ca.path())]),
        run(&[], &[("SSL_CERT_FILE", ca.path())]),
    ] {
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{stderr}");
        let value = crate::common::json(&output);
        assert_eq!(value["ray_version"], "2.60.0", "{value}");
    }
    let refused = run(&[], &[]);
    assert_eq!(refused.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&refused.stdout);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stdout.contains("resource_pool::ray::tls") || stderr.contains("resource_pool::ray::tls"),
        "{stdout}{stderr}"
    );
    assert!(!stdout.contains(TOKEN) && !stderr.contains(TOKEN));
}
