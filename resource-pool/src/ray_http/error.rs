//! Why a dashboard could not be read (how ureq's errors and HTTP statuses become that:
//! [`super::attempt`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::secret::TokenSource;
use super::tls::TlsProblem;

/// How the caller of a [`RaySource`](super::RaySource) sets the budget of a load: the
/// words the timeout's help names it by, in the front end's own terms
/// ([`RaySource::with_timeout_setting`](super::RaySource::with_timeout_setting)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum TimeoutSetting {
    /// Rust code: [`RaySource::with_timeout`](super::RaySource::with_timeout).
    #[default]
    Builder,
    /// The command line: `--ray-timeout-ms`.
    Flag,
    /// Python: the `timeout=` argument, in seconds.
    PythonArgument,
}

impl std::fmt::Display for TimeoutSetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TimeoutSetting::Builder => "`RaySource::with_timeout`",
            TimeoutSetting::Flag => "`--ray-timeout-ms`",
            TimeoutSetting::PythonArgument => "`timeout=`, in seconds",
        })
    }
}

/// Why the dashboard could not be read.
#[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum RayHttpError {
    /// The URL is not an `http(s)://host:port` URL.
    #[error("`{url}` is not a Ray dashboard URL: {problem}")]
    #[diagnostic(
        code(resource_pool::ray::bad_url),
        help(
            "give the dashboard's address, such as `http://HEAD:8265` or `https://ray.example.com` behind an ingress (not the GCS port 6379 nor a `ray://` client address)"
        )
    )]
    BadUrl {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        problem: String,
    },
    /// The token is unusable.
    #[error("{origin} {problem}")]
    #[diagnostic(
        code(resource_pool::ray::bad_token),
        help(
            "put the dashboard's token (`ray get-auth-token` on the head) in RESOURCE_POOL_RAY_TOKEN or in a file named by RESOURCE_POOL_RAY_TOKEN_FILE"
        )
    )]
    BadToken {
        /// Where it came from (a variable or file name, never the token).
        origin: String,
        /// What is wrong with it.
        problem: String,
    },
    /// Nothing answers at the address (cluster down, wrong host or port, a host name that
    /// does not resolve).
    #[error("cannot reach the Ray dashboard at {url}: {}{detail}", reason.prefix())]
    #[diagnostic(code(resource_pool::ray::unreachable), help("{help}"))]
    Unreachable {
        /// The URL requested.
        url: String,
        /// Why, by kind.
        reason: UnreachableReason,
        /// The system's reason.
        detail: String,
        /// What to do.
        #[serde(skip)] // prose: the JSON has it as `help`
        help: String,
    },
    /// The dashboard did not answer in time.
    #[error("the Ray dashboard at {url} did not answer within {budget:?} ({phase})")]
    #[diagnostic(
        code(resource_pool::ray::timeout),
        help(
            "the head may be overloaded or the address may be filtered by a firewall; retry, or raise the timeout ({setting})"
        )
    )]
    Timeout {
        /// The URL requested.
        url: String,
        /// The timeout that ran out.
        budget: Duration,
        /// What was going on: connecting, reading, the whole load.
        phase: String,
        /// How the caller sets the budget, for the help's words.
        #[serde(skip)]
        setting: TimeoutSetting,
    },
    /// The dashboard wants a token, or refused the one sent.
    #[error(
        "the Ray dashboard at {url} refused the request ({status}, {}): {detail}",
        token_sent(token_source.as_deref())
    )]
    #[diagnostic(code(resource_pool::ray::unauthorized), help("{help}"))]
    Unauthorized {
        /// The URL requested.
        url: String,
        /// 401 or 403.
        status: u16,
        /// The start of the answer's body.
        detail: String,
        /// Where the token sent came from (never the token); `null` when none was sent.
        token_source: Option<Box<TokenSource>>,
        /// The other token variables that were set but not used (the one of
        /// `token_source` comes first).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        unused_token_sources: Vec<String>,
        /// What to do.
        #[serde(skip)] // prose: the JSON has it as `help`
        help: String,
    },
    /// Another HTTP status than 200.
    #[error(
        "the Ray dashboard at {url} answered HTTP {status}{}: {detail}",
        redirect_clause(location.as_deref())
    )]
    #[diagnostic(code(resource_pool::ray::http_status), help("{help}"))]
    HttpStatus {
        /// The URL requested.
        url: String,
        /// The HTTP status the dashboard answered with.
        status: u16,
        /// The start of the answer's body.
        detail: String,
        /// Where a redirect (3xx) points: its `Location` header, made absolute; absent
        /// when there is none.
        #[serde(skip_serializing_if = "Option::is_none")]
        location: Option<String>,
        /// What to do.
        #[serde(skip)] // prose: the JSON has it as `help`
        help: String,
    },
    /// A body larger than the limit.
    #[error("the answer of {url} is larger than the limit of {limit} bytes")]
    #[diagnostic(
        code(resource_pool::ray::too_large),
        help("raise the limit (--ray-max-body) if the cluster really is that large")
    )]
    TooLarge {
        /// The URL requested.
        url: String,
        /// The limit in bytes.
        limit: u64,
    },
    /// The connection broke, or the HTTP exchange was malformed (the server at the port
    /// does not speak HTTP).
    #[error("{}", transport_message(url, *kind, detail))]
    #[diagnostic(code(resource_pool::ray::transport), help("{help}"))]
    Transport {
        /// The URL requested.
        url: String,
        /// What went wrong, by kind.
        kind: TransportKind,
        /// What went wrong, in the system's words.
        detail: String,
        /// What to do.
        #[serde(skip)] // prose: the JSON has it as `help`
        help: String,
    },
    /// An https dashboard whose certificate is not accepted. Nothing is retried over http.
    #[error("cannot connect securely to the Ray dashboard at {url} (host {host}): {problem}")]
    #[diagnostic(code(resource_pool::ray::tls), help("{help}"))]
    Tls {
        /// The URL requested.
        url: String,
        /// The host the certificate was checked for.
        host: String,
        /// What was wrong.
        problem: TlsProblem,
        /// The CA file the certificate was checked against (`--ca-cert`,
        /// `RESOURCE_POOL_CA_CERT`); absent for the system's trust store.
        // As text: serde refuses a path that is not UTF-8, which would cost the JSON its
        // whole `data`.
        #[serde(skip_serializing_if = "Option::is_none", serialize_with = "lossy_path")]
        ca_file: Option<Box<Path>>, // boxed: a smaller error (clippy::result_large_err)
        /// What to do, naming the trust store that was used.
        #[serde(skip)] // prose: the JSON has it as `help`
        help: String,
    },
    /// A CA file (`--ca-cert`, `RESOURCE_POOL_CA_CERT`) that cannot be used.
    #[error("the CA file `{}` {problem}", path.display())]
    #[diagnostic(
        code(resource_pool::ray::bad_ca_cert),
        help(
            "give a PEM file of the certificate authority that signed the dashboard's certificate (`-----BEGIN CERTIFICATE-----` blocks)"
        )
    )]
    BadCaCert {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        problem: String,
    },
}

/// Why nothing answered at the address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum UnreachableReason {
    /// The host name does not resolve (no such host).
    NoSuchHost,
    /// The host refused the connection: nothing listens on the port.
    Refused,
    /// No route to the host or its network.
    NoRoute,
    /// The connection failed for another reason.
    Failed,
}

impl UnreachableReason {
    fn prefix(self) -> &'static str {
        match self {
            UnreachableReason::NoSuchHost => "no such host: ",
            _ => "",
        }
    }
}

/// What went wrong in an exchange that began.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TransportKind {
    /// The server closed or reset the connection before answering: a transient failure, or a
    /// port that speaks TLS asked in plain http.
    ClosedBeforeAnswer,
    /// What came back is not HTTP: the port is not the dashboard's (the GCS port, a TLS
    /// port asked in plain http, another service).
    NotHttp,
    /// The connection broke in the middle of an answer, or another failure.
    Other,
}

fn transport_message(url: &str, kind: TransportKind, detail: &str) -> String {
    match kind {
        TransportKind::ClosedBeforeAnswer => {
            format!("the server at {url} closed the connection without answering: {detail}")
        }
        TransportKind::NotHttp => format!("the server at {url} does not answer in HTTP: {detail}"),
        TransportKind::Other => {
            format!("the exchange with the Ray dashboard at {url} failed: {detail}")
        }
    }
}

/// `, a redirect to X`, when there is a target.
fn redirect_clause(location: Option<&str>) -> String {
    location.map_or_else(String::new, |l| format!(", a redirect to {l}"))
}

/// Which token was sent, by its source (never the token).
fn token_sent(source: Option<&TokenSource>) -> String {
    match source {
        None => "no token sent".to_owned(),
        Some(TokenSource::Given) => "with the token given".to_owned(),
        Some(source) => format!("with the token from {source}"),
    }
}

/// A path as text, any bytes that are not UTF-8 replaced (`U+FFFD`).
fn lossy_path<S: serde::Serializer>(
    path: &Option<Box<Path>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match path {
        Some(path) => serializer.serialize_str(&path.to_string_lossy()),
        None => serializer.serialize_none(),
    }
}
