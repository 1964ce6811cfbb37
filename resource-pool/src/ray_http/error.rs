//! Why a dashboard could not be read, and how ureq's errors and HTTP statuses become that.

use std::path::PathBuf;
use std::time::Duration;

use super::tls::{TlsProblem, TrustRoots, tls_problem};

/// Why the dashboard could not be read.
#[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[serde(untagged)]
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
    /// Nothing answers at the address (cluster down, wrong host or port).
    #[error("cannot reach the Ray dashboard at {url}: {detail}")]
    #[diagnostic(
        code(resource_pool::ray::unreachable),
        help(
            "is the cluster up (`ray status` on the head)? The dashboard listens on port 8265 by default; it needs `ray[default]` and `ray start --head --include-dashboard=true`, and `--dashboard-host=0.0.0.0` to be reached from another machine"
        )
    )]
    Unreachable {
        /// The URL requested.
        url: String,
        /// The system's reason.
        detail: String,
    },
    /// The dashboard did not answer in time.
    #[error("the Ray dashboard at {url} did not answer within {budget:?} ({phase})")]
    #[diagnostic(
        code(resource_pool::ray::timeout),
        help(
            "the head may be overloaded or the address may be filtered by a firewall; retry, or raise the timeout (--ray-timeout-ms)"
        )
    )]
    Timeout {
        /// The URL requested.
        url: String,
        /// The timeout that ran out.
        budget: Duration,
        /// What was going on: connecting, reading, the whole load.
        phase: String,
    },
    /// The dashboard wants a token, or refused the one sent.
    #[error("the Ray dashboard at {url} refused the request ({status}): {detail}")]
    #[diagnostic(code(resource_pool::ray::unauthorized), help("{help}"))]
    Unauthorized {
        /// The URL requested.
        url: String,
        /// 401 or 403.
        status: u16,
        /// The start of the answer's body.
        detail: String,
        /// What to do.
        #[serde(skip)] // prose: the JSON has it as `help`
        help: String,
    },
    /// Another HTTP status than 200.
    #[error("the Ray dashboard at {url} answered HTTP {status}: {detail}")]
    #[diagnostic(code(resource_pool::ray::http_status), help("{help}"))]
    HttpStatus {
        /// The URL requested.
        url: String,
        /// The HTTP status the dashboard answered with.
        status: u16,
        /// The start of the answer's body.
        detail: String,
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
    /// The connection broke or the HTTP exchange was malformed.
    #[error("the exchange with the Ray dashboard at {url} failed: {detail}")]
    #[diagnostic(
        code(resource_pool::ray::transport),
        help(
            "retry; if it persists, check that the address is the dashboard's and that no proxy in between cuts the connection"
        )
    )]
    Transport {
        /// The URL requested.
        url: String,
        /// What went wrong.
        detail: String,
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

/// What a request knew when it failed, to say what went wrong.
pub(super) struct Attempt<'a> {
    pub url: &'a str,
    pub host: &'a str,
    pub has_token: bool,
    pub trust: &'a TrustRoots,
    pub connect_timeout: Duration,
    pub read_timeout: Duration,
    pub timeout: Duration,
}

impl Attempt<'_> {
    /// The error of an HTTP status other than 200.
    pub fn status_error(&self, status: u16, detail: String) -> RayHttpError {
        let url = self.url.to_owned();
        let help = |text: &str| text.to_owned();
        match status {
            401 | 403 => RayHttpError::Unauthorized {
                url,
                status,
                detail,
                help: help(auth_help(self.has_token, status)),
            },
            404 => RayHttpError::HttpStatus {
                url,
                status,
                detail,
                help: help(
                    "this is not a Ray 2.x dashboard, or it runs without the state API: check the port (8265 by default) and that the head runs `ray[default]`",
                ),
            },
            300..=399 => RayHttpError::HttpStatus {
                url,
                status,
                detail,
                help: help(
                    "the address redirects, and redirects are not followed (a token must not follow one): give the final address",
                ),
            },
            _ => RayHttpError::HttpStatus {
                url,
                status,
                detail,
                help: help(
                    "the dashboard failed: retry in a moment, and look at its log (`/tmp/ray/session_latest/logs/dashboard.log` on the head) if it persists",
                ),
            },
        }
    }

    /// The error of a failed exchange.
    pub fn map_error(&self, error: ureq::Error) -> RayHttpError {
        use std::io::ErrorKind;
        let url = self.url.to_owned();
        let timeout = |phase: &str, budget: Duration| RayHttpError::Timeout {
            url: url.clone(),
            budget,
            phase: phase.to_owned(),
        };
        match error {
            ureq::Error::Timeout(which) => {
                let (phase, budget) = match which {
                    ureq::Timeout::Connect | ureq::Timeout::Resolve => {
                        ("connecting", self.connect_timeout)
                    }
                    ureq::Timeout::PerRead => ("waiting for a read", self.read_timeout),
                    _ => ("the whole load", self.timeout),
                };
                timeout(phase, budget)
            }
            ureq::Error::BodyExceedsLimit(limit) => RayHttpError::TooLarge { url, limit },
            ureq::Error::HostNotFound => RayHttpError::Unreachable {
                url,
                detail: "the host name does not resolve".to_owned(),
            },
            ureq::Error::ConnectionFailed => RayHttpError::Unreachable {
                url,
                detail: "the connection failed".to_owned(),
            },
            ureq::Error::Io(io) => {
                if let Some(problem) = tls_problem(&io) {
                    return self.tls_error(problem);
                }
                match io.kind() {
                    ErrorKind::ConnectionRefused
                    | ErrorKind::AddrNotAvailable
                    | ErrorKind::HostUnreachable
                    | ErrorKind::NetworkUnreachable
                    | ErrorKind::NotFound => RayHttpError::Unreachable {
                        url,
                        detail: io.to_string(),
                    },
                    ErrorKind::TimedOut | ErrorKind::WouldBlock => {
                        timeout("waiting for a read", self.read_timeout)
                    }
                    _ => RayHttpError::Transport {
                        url,
                        detail: io.to_string(),
                    },
                }
            }
            ureq::Error::Rustls(error) => {
                let io = std::io::Error::new(std::io::ErrorKind::InvalidData, error);
                match tls_problem(&io) {
                    Some(problem) => self.tls_error(problem),
                    None => RayHttpError::Transport {
                        url,
                        detail: io.to_string(),
                    },
                }
            }
            other => RayHttpError::Transport {
                url,
                detail: other.to_string(),
            },
        }
    }

    fn tls_error(&self, problem: TlsProblem) -> RayHttpError {
        RayHttpError::Tls {
            url: self.url.to_owned(),
            host: self.host.to_owned(),
            help: problem.help(self.trust),
            problem,
        }
    }
}

/// What to do about a 401 or 403, by whether a token was sent: 401 is "not
/// authenticated" (no token, or one the dashboard does not recognise), 403 is "forbidden"
/// (Ray's answer to a wrong token; or a proxy in front that refuses this client).
fn auth_help(has_token: bool, status: u16) -> &'static str {
    match (has_token, status) {
        (false, 401) => {
            "the dashboard requires a token: set RESOURCE_POOL_RAY_TOKEN (or RAY_AUTH_TOKEN), or RESOURCE_POOL_RAY_TOKEN_FILE to a file holding it"
        }
        (false, _) => {
            "the dashboard forbids requests without a token: set RESOURCE_POOL_RAY_TOKEN (or RAY_AUTH_TOKEN), or RESOURCE_POOL_RAY_TOKEN_FILE; if it needs none, a proxy in front of it refuses this client"
        }
        (true, 401) => {
            "the token sent was not recognised: check it against `ray get-auth-token` on the head, and that a proxy in front passes the Authorization header on"
        }
        (true, _) => {
            "the token sent was refused: check it against `ray get-auth-token` on the head (this cluster's, not another's)"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auth_help_depends_on_the_token_and_the_status() {
        let all =
            [(false, 401), (false, 403), (true, 401), (true, 403)].map(|(t, s)| auth_help(t, s));
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                assert_ne!(a, b);
            }
        }
        assert!(all[0].contains("requires a token"));
        assert!(all[1].contains("forbids"));
        assert!(all[2].contains("not recognised"));
        assert!(all[3].contains("refused"));
    }
}
