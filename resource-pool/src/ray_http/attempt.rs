//! How a failed request becomes a [`RayHttpError`]: ureq's typed errors first, then the
//! I/O error's kind, with what the request knew (the address, the token's source, the trust
//! roots, the timeouts) to say what to do. A failure that a retry will not fix (no such
//! host, a port that is not HTTP) is told apart from one that it may (a reset, a timeout).

use std::io::ErrorKind;
use std::time::{Duration, Instant};

use super::error::{RayHttpError, TransportKind, UnreachableReason};
use super::secret::Secret;
use super::tls::{TlsProblem, TrustRoots, tls_problem};

/// Where in an exchange a failure happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    /// Connecting, sending the request, or reading the answer's head.
    Request,
    /// Reading the answer's body.
    Body,
}

/// What a request knew when it failed, to say what went wrong.
pub(super) struct Attempt<'a> {
    /// The normalized base URL (`http(s)://host:port[/prefix]`).
    pub base_url: &'a str,
    /// The URL requested (the base and a path).
    pub url: &'a str,
    pub host: &'a str,
    pub token: Option<&'a Secret>,
    pub trust: &'a TrustRoots,
    pub connect_timeout: Duration,
    pub read_timeout: Duration,
    pub timeout: Duration,
    pub timeout_setting: super::TimeoutSetting,
    /// When the whole read must end: a look-up made to word an error keeps to it too.
    pub deadline: Instant,
}

/// The longest `Location` shown.
const MAX_LOCATION_CHARS: usize = 500;

impl Attempt<'_> {
    /// The error of an HTTP status other than 200; `location` is the answer's `Location`
    /// header, if it has one.
    pub fn status_error(
        &self,
        status: u16,
        detail: String,
        location: Option<&str>,
    ) -> RayHttpError {
        let url = self.url.to_owned();
        match status {
            401 | 403 => RayHttpError::Unauthorized {
                url,
                status,
                detail,
                token_source: self.token.map(|t| Box::new(t.source().clone())),
                unused_token_sources: self
                    .token
                    .map(|t| t.unused_sources().to_vec())
                    .unwrap_or_default(),
                help: self.auth_help(status),
            },
            404 => RayHttpError::HttpStatus {
                url,
                status,
                detail,
                location: None,
                help: "this is not a Ray 2.x dashboard, or it runs without the state API: check the port (8265 by default) and that the head runs `ray[default]`".to_owned(),
            },
            300..=399 => {
                let location = location.and_then(|l| absolute_location(self.url, l));
                let help = self.redirect_help(location.as_deref());
                RayHttpError::HttpStatus {
                    url,
                    status,
                    detail,
                    location,
                    help,
                }
            }
            _ => RayHttpError::HttpStatus {
                url,
                status,
                detail,
                location: None,
                help: "the dashboard failed: retry in a moment, and look at its log (`/tmp/ray/session_latest/logs/dashboard.log` on the head) if it persists".to_owned(),
            },
        }
    }

    /// What to do about a 401 or 403: by whether a token was sent, and naming the other
    /// token variables set when the one sent shadowed them.
    fn auth_help(&self, status: u16) -> String {
        let mut help = auth_help(self.token.is_some(), status).to_owned();
        if let Some(token) = self.token
            && !token.unused_sources().is_empty()
        {
            let unused = token.unused_sources();
            help.push_str(&format!(
                "; {} {} set too, but not used: {} comes first",
                unused.join(" and "),
                resource_pool_core::words::verb(unused.len(), "is", "are"),
                token.source()
            ));
        }
        help
    }

    /// What to do about a redirect to `location`.
    fn redirect_help(&self, location: Option<&str>) -> String {
        const NOT_FOLLOWED: &str = "redirects are not followed (a token must not follow one)";
        // The request's path after the base: a redirect that keeps it names the base to give.
        let asked = self.url.strip_prefix(self.base_url).unwrap_or_default();
        let base = location
            .and_then(|l| l.strip_suffix(asked).filter(|_| !asked.is_empty()))
            .map(|b| b.trim_end_matches('/'))
            .filter(|b| b.contains("://") && *b != self.base_url);
        match (base, location) {
            (Some(base), _) => format!(
                "{NOT_FOLLOWED}: give the address it redirects to, `{base}`, in place of `{}`",
                self.base_url
            ),
            (None, Some(location)) => format!(
                "it redirects to `{location}`, and {NOT_FOLLOWED}: give the dashboard's final address"
            ),
            (None, None) => format!("{NOT_FOLLOWED}: give the final address"),
        }
    }

    /// The error of a failed exchange.
    pub fn map_error(&self, error: ureq::Error, phase: Phase) -> RayHttpError {
        let url = self.url.to_owned();
        let timeout = |phase: &str, budget: Duration| RayHttpError::Timeout {
            url: url.clone(),
            budget,
            phase: phase.to_owned(),
            setting: self.timeout_setting,
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
            ureq::Error::HostNotFound => self.unreachable(
                UnreachableReason::NoSuchHost,
                "the host name resolves to no address".to_owned(),
            ),
            ureq::Error::ConnectionFailed => self.unreachable(
                UnreachableReason::Failed,
                "the connection failed".to_owned(),
            ),
            // Before the answer's body, a protocol error is an answer head that is not HTTP
            // (the request is ours and well formed); in the body, a malformed chunk.
            ureq::Error::Protocol(_) if phase == Phase::Request => {
                self.transport(TransportKind::NotHttp, error.to_string())
            }
            ureq::Error::Io(io) => {
                if let Some(problem) = tls_problem(&io) {
                    return self.tls_error(problem);
                }
                match io.kind() {
                    ErrorKind::ConnectionRefused => {
                        self.unreachable(UnreachableReason::Refused, io.to_string())
                    }
                    ErrorKind::AddrNotAvailable
                    | ErrorKind::HostUnreachable
                    | ErrorKind::NetworkUnreachable => {
                        self.unreachable(UnreachableReason::NoRoute, io.to_string())
                    }
                    ErrorKind::NotFound => {
                        self.unreachable(UnreachableReason::Failed, io.to_string())
                    }
                    ErrorKind::TimedOut | ErrorKind::WouldBlock => {
                        timeout("waiting for a read", self.read_timeout)
                    }
                    ErrorKind::ConnectionReset
                    | ErrorKind::ConnectionAborted
                    | ErrorKind::BrokenPipe
                    | ErrorKind::UnexpectedEof
                        if phase == Phase::Request =>
                    {
                        self.transport(TransportKind::ClosedBeforeAnswer, io.to_string())
                    }
                    // std's failed name lookup (getaddrinfo) has no kind of its own: look the
                    // host up again to tell it apart.
                    _ if phase == Phase::Request
                        && lookup_fails(
                            self.host,
                            self.connect_timeout
                                .min(self.deadline.saturating_duration_since(Instant::now())),
                        ) =>
                    {
                        self.unreachable(UnreachableReason::NoSuchHost, io.to_string())
                    }
                    _ => self.transport(TransportKind::Other, io.to_string()),
                }
            }
            ureq::Error::Rustls(error) => {
                let io = std::io::Error::new(ErrorKind::InvalidData, error);
                match tls_problem(&io) {
                    Some(problem) => self.tls_error(problem),
                    None => self.transport(TransportKind::Other, io.to_string()),
                }
            }
            other => self.transport(TransportKind::Other, other.to_string()),
        }
    }

    fn unreachable(&self, reason: UnreachableReason, detail: String) -> RayHttpError {
        let help = match reason {
            UnreachableReason::NoSuchHost => format!(
                "check the host name `{}`: it does not resolve on this machine (`getent hosts {}`); the dashboard runs on the head node, port 8265 by default",
                self.host, self.host
            ),
            _ => "is the cluster up (`ray status` on the head)? The dashboard listens on port 8265 by default; it needs `ray[default]` and `ray start --head --include-dashboard=true`, and `--dashboard-host=0.0.0.0` to be reached from another machine".to_owned(),
        };
        RayHttpError::Unreachable {
            url: self.url.to_owned(),
            reason,
            detail,
            help,
        }
    }

    fn transport(&self, kind: TransportKind, detail: String) -> RayHttpError {
        // The same address over TLS, for a plain-http URL whose port may speak TLS.
        let https = self
            .base_url
            .strip_prefix("http://")
            .map(|rest| format!("https://{rest}"));
        let help = match (kind, https) {
            (TransportKind::ClosedBeforeAnswer, Some(https)) => format!(
                "if this port serves https (a TLS dashboard or ingress), use `{https}`; otherwise retry, and if it persists, check that the address is the dashboard's and that no proxy in between cuts the connection"
            ),
            (TransportKind::NotHttp, https) => format!(
                "this port is not the dashboard's: the dashboard listens on port 8265 by default (not the GCS port, 6379 by default, that `ray start` prints){}",
                https.map_or_else(String::new, |https| format!(
                    "; if this port serves https, use `{https}`"
                ))
            ),
            _ => "retry; if it persists, check that the address is the dashboard's and that no proxy in between cuts the connection".to_owned(),
        };
        RayHttpError::Transport {
            url: self.url.to_owned(),
            kind,
            detail,
            help,
        }
    }

    fn tls_error(&self, problem: TlsProblem) -> RayHttpError {
        RayHttpError::Tls {
            url: self.url.to_owned(),
            host: self.host.to_owned(),
            help: problem.help(self.trust),
            ca_file: self.trust.ca_file().map(Box::from),
            problem,
        }
    }
}

/// Whether `host` does not resolve now, looked up within `wait` (`false` for an IP
/// address, a name that resolves, and a lookup that does not finish in time).
fn lookup_fails(host: &str, wait: Duration) -> bool {
    use std::net::ToSocketAddrs;
    if host.parse::<std::net::IpAddr>().is_ok() {
        return false;
    }
    let (sender, receiver) = std::sync::mpsc::sync_channel(1);
    let name = host.to_owned();
    // A thread, as ureq's own resolver does: a lookup has no timeout of its own.
    std::thread::spawn(move || {
        let resolved = (name.as_str(), 0).to_socket_addrs().map(|mut a| a.next());
        let _ = sender.send(resolved);
    });
    matches!(receiver.recv_timeout(wait), Ok(Err(_) | Ok(None)))
}

/// A `Location` header as an absolute URL, resolved against the URL requested; `None` when
/// it is empty or not printable.
fn absolute_location(url: &str, location: &str) -> Option<String> {
    let location = location.trim();
    if location.is_empty() || !location.chars().all(|c| c.is_ascii_graphic()) {
        return None;
    }
    let (scheme, rest) = url.split_once("://")?;
    let origin_end = rest.find('/').unwrap_or(rest.len());
    let origin = &url[..scheme.len() + 3 + origin_end];
    let absolute = if location.contains("://") {
        location.to_owned()
    } else if let Some(rest) = location.strip_prefix("//") {
        format!("{scheme}://{rest}")
    } else if location.starts_with('/') {
        format!("{origin}{location}")
    } else {
        let directory = url
            .rfind('/')
            .filter(|&i| i >= origin.len())
            .map_or(origin, |i| &url[..i]);
        format!("{directory}/{location}")
    };
    let mut shown: String = absolute.chars().take(MAX_LOCATION_CHARS).collect();
    if absolute.chars().count() > MAX_LOCATION_CHARS {
        shown.push('…');
    }
    Some(shown)
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
mod tests;
