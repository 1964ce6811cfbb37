//! A live Ray cluster as an inventory, read over the dashboard's HTTP API.
//!
//! [`RaySource`] asks three endpoints of the dashboard (see
//! [`ray_json::Endpoint`]) and joins
//! their answers with [`ray_json::assemble`]. It needs no Python at run time.
//!
//! - Timeouts: a connect timeout, a read timeout (the longest wait for any read), and a
//!   budget for the whole load, all three requests together. Defaults: 3 s, 5 s, 10 s.
//! - Size: each body is read up to a limit (64 MiB by default); past it, an error.
//! - Auth: a bearer token ([`Secret`], never printed: its `Debug` is redacted), from
//!   [`token_from_env`] or given.
//! - Plain `http://` only (this build carries no TLS stack); no proxy from the
//!   environment (dashboards are cluster-internal) and no redirects (a token must not
//!   follow one).

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use resource_pool_core::inventory::ray_json::{self, DEFAULT_LIMIT, Endpoint};
use resource_pool_core::inventory::{Inventory, InventoryError, InventorySource};

/// The dashboard's default port, used when a URL names none.
pub const DEFAULT_DASHBOARD_PORT: u16 = 8265;

/// Environment variables read for a token, in order: ours, then Ray's own.
pub const TOKEN_ENV_VARS: [&str; 2] = ["RESOURCE_POOL_RAY_TOKEN", "RAY_AUTH_TOKEN"];

/// Environment variables naming a token file, in order: ours, then Ray's own.
pub const TOKEN_FILE_ENV_VARS: [&str; 2] = ["RESOURCE_POOL_RAY_TOKEN_FILE", "RAY_AUTH_TOKEN_PATH"];

/// The largest token file read.
const MAX_TOKEN_FILE_BYTES: u64 = 64 * 1024;

/// A secret (the dashboard's auth token). Its `Debug` prints `Secret(<redacted>)`, and it
/// has no `Display`: it is only ever written into the `Authorization` header.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// A secret from its text (surrounding whitespace trimmed). Refuses an empty token and
    /// characters an HTTP header cannot carry.
    pub fn new(token: impl Into<String>) -> Result<Secret, RayHttpError> {
        let token = token.into();
        let trimmed = token.trim();
        if trimmed.is_empty() {
            return Err(RayHttpError::BadToken {
                origin: "the given token".to_owned(),
                problem: "is empty".to_owned(),
            });
        }
        if !trimmed.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(RayHttpError::BadToken {
                origin: "the given token".to_owned(),
                problem: "contains spaces or characters an HTTP header cannot carry".to_owned(),
            });
        }
        Ok(Secret(trimmed.to_owned()))
    }

    /// A secret read from a file (at most 64 KiB, whitespace trimmed).
    pub fn from_file(path: impl AsRef<Path>) -> Result<Secret, RayHttpError> {
        use std::io::Read;
        let path = path.as_ref();
        let origin = format!("token file `{}`", path.display());
        let bad = |problem: String| RayHttpError::BadToken {
            origin: origin.clone(),
            problem,
        };
        let file = std::fs::File::open(path).map_err(|e| bad(format!("cannot be read: {e}")))?;
        let mut text = String::new();
        file.take(MAX_TOKEN_FILE_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(|e| bad(format!("cannot be read as text: {e}")))?;
        if text.len() as u64 > MAX_TOKEN_FILE_BYTES {
            return Err(bad(format!("is larger than {MAX_TOKEN_FILE_BYTES} bytes")));
        }
        Secret::new(text).map_err(|e| match e {
            RayHttpError::BadToken { problem, .. } => bad(problem),
            other => other,
        })
    }

    fn bearer(&self) -> String {
        format!("Bearer {}", self.0)
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// The token from the environment: the first set of [`TOKEN_ENV_VARS`], else the file
/// named by the first set of [`TOKEN_FILE_ENV_VARS`], else Ray's default
/// `~/.ray/auth_token` when `RAY_AUTH_MODE=token`. `None` when there is none.
pub fn token_from_env() -> Result<Option<Secret>, RayHttpError> {
    token_from_lookup(|name| std::env::var(name).ok())
}

/// [`token_from_env`] with another way to read variables (for tests and embedding).
pub fn token_from_lookup(
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<Option<Secret>, RayHttpError> {
    for var in TOKEN_ENV_VARS {
        if let Some(value) = lookup(var).filter(|v| !v.trim().is_empty()) {
            return Secret::new(value).map(Some).map_err(|e| match e {
                RayHttpError::BadToken { problem, .. } => RayHttpError::BadToken {
                    origin: format!("`{var}`"),
                    problem,
                },
                other => other,
            });
        }
    }
    for var in TOKEN_FILE_ENV_VARS {
        if let Some(path) = lookup(var).filter(|v| !v.is_empty()) {
            return Secret::from_file(path).map(Some);
        }
    }
    if lookup("RAY_AUTH_MODE").as_deref() == Some("token")
        && let Some(home) = lookup("HOME")
    {
        let path = PathBuf::from(home).join(".ray").join("auth_token");
        if path.is_file() {
            return Secret::from_file(path).map(Some);
        }
    }
    Ok(None)
}

/// Why the dashboard could not be read.
#[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[serde(untagged)]
pub enum RayHttpError {
    /// The URL is not an `http://host:port` URL.
    #[error("`{url}` is not a Ray dashboard URL: {problem}")]
    #[diagnostic(
        code(resource_pool::ray::bad_url),
        help(
            "give the dashboard's HTTP address, such as `http://HEAD:8265` (not the GCS port 6379 nor a `ray://` client address)"
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
        /// The status.
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
}

/// The raw bodies of the three endpoints, as one load read them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RayBodies {
    /// `/api/v0/nodes?detail=1&limit=N`.
    pub nodes: Vec<u8>,
    /// `/api/cluster_status`.
    pub cluster_status: Vec<u8>,
    /// `/api/v0/placement_groups?detail=1&limit=N`.
    pub placement_groups: Vec<u8>,
}

/// A live Ray cluster, read through its dashboard.
///
/// ```no_run
/// use std::time::Duration;
/// use resource_pool::ray_http::{RaySource, token_from_env};
/// use resource_pool_core::inventory::InventorySource;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let source = RaySource::new("http://127.0.0.1:8265")?
///     .with_timeout(Duration::from_secs(5))
///     .with_token(token_from_env()?);
/// let inventory = source.load()?;
/// println!("{} alive nodes", inventory.cluster.nodes.len());
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct RaySource {
    base_url: String,
    connect_timeout: Duration,
    read_timeout: Duration,
    timeout: Duration,
    token: Option<Secret>,
    max_body_bytes: u64,
    limit: usize,
}

impl RaySource {
    /// Default connect timeout.
    pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
    /// Default read timeout (the longest wait for any one read).
    pub const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(5);
    /// Default budget of a whole load (all requests).
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
    /// Default body size limit: 64 MiB.
    pub const DEFAULT_MAX_BODY_BYTES: u64 = 64 * 1024 * 1024;

    /// A source for the dashboard at `url`: `http://host:port` with an optional path
    /// prefix (behind a reverse proxy); `host:port` alone means `http://`; the port
    /// defaults to 8265. No token: add one with [`RaySource::with_token`].
    pub fn new(url: &str) -> Result<RaySource, RayHttpError> {
        Ok(RaySource {
            base_url: normalize_url(url)?,
            connect_timeout: Self::DEFAULT_CONNECT_TIMEOUT,
            read_timeout: Self::DEFAULT_READ_TIMEOUT,
            timeout: Self::DEFAULT_TIMEOUT,
            token: None,
            max_body_bytes: Self::DEFAULT_MAX_BODY_BYTES,
            limit: DEFAULT_LIMIT,
        })
    }

    /// [`RaySource::new`] with the token of [`token_from_env`], if any.
    pub fn from_env(url: &str) -> Result<RaySource, RayHttpError> {
        Ok(RaySource::new(url)?.with_token(token_from_env()?))
    }

    /// The normalized base URL (`http://host:port[/prefix]`).
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// Sets the connect timeout.
    pub fn with_connect_timeout(mut self, timeout: Duration) -> RaySource {
        self.connect_timeout = timeout;
        self
    }

    /// Sets the read timeout: the longest wait for any read of an answer.
    pub fn with_read_timeout(mut self, timeout: Duration) -> RaySource {
        self.read_timeout = timeout;
        self
    }

    /// Sets the budget of a whole [`load`](InventorySource::load): every request of it
    /// together finishes within it, or the load fails with
    /// [`RayHttpError::Timeout`].
    pub fn with_timeout(mut self, timeout: Duration) -> RaySource {
        self.timeout = timeout;
        self
    }

    /// Sets (or clears) the bearer token.
    pub fn with_token(mut self, token: Option<Secret>) -> RaySource {
        self.token = token;
        self
    }

    /// Sets the largest body read per request.
    pub fn with_max_body_bytes(mut self, limit: u64) -> RaySource {
        self.max_body_bytes = limit;
        self
    }

    /// Sets the page size asked for (`limit=`) of the nodes and placement groups
    /// endpoints; default 10,000 (Ray's own maximum). A truncated answer is asked again
    /// once with a page as large as Ray's count.
    pub fn with_limit(mut self, limit: usize) -> RaySource {
        self.limit = limit.max(1);
        self
    }

    /// Reads the three bodies without parsing them beyond the page counts (for
    /// snapshots and bug reports).
    pub fn fetch_bodies(&self) -> Result<RayBodies, RayHttpError> {
        let deadline = Instant::now() + self.timeout;
        Ok(RayBodies {
            nodes: self.get_list(Endpoint::Nodes, deadline)?,
            cluster_status: self.get(&Endpoint::ClusterStatus.path(self.limit), deadline)?,
            placement_groups: self.get_list(Endpoint::PlacementGroups, deadline)?,
        })
    }

    /// A list endpoint, asked again with a larger page when the first is truncated.
    fn get_list(&self, endpoint: Endpoint, deadline: Instant) -> Result<Vec<u8>, RayHttpError> {
        let body = self.get(&endpoint.path(self.limit), deadline)?;
        let Some(total) = list_total(&body) else {
            return Ok(body);
        };
        match usize::try_from(total) {
            Ok(total) if total > self.limit => self.get(&endpoint.path(total), deadline),
            _ => Ok(body),
        }
    }

    fn get(&self, path_and_query: &str, deadline: Instant) -> Result<Vec<u8>, RayHttpError> {
        let url = format!("{}{}", self.base_url, path_and_query);
        let remaining = deadline.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            return Err(RayHttpError::Timeout {
                url,
                budget: self.timeout,
                phase: "the whole load".to_owned(),
            });
        }
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(remaining))
            .timeout_connect(Some(self.connect_timeout.min(remaining)))
            .timeout_per_read(Some(self.read_timeout))
            .http_status_as_error(false)
            .max_redirects(0)
            .max_redirects_will_error(false)
            .proxy(None)
            .user_agent(concat!("resource-pool/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        let mut request = agent.get(&url).header("Accept", "application/json");
        if let Some(token) = &self.token {
            request = request.header("Authorization", token.bearer());
        }
        let mut response = request.call().map_err(|e| self.map_error(&url, e))?;
        let status = response.status().as_u16();
        if status != 200 {
            let snippet = response
                .body_mut()
                .with_config()
                .limit(4096)
                .read_to_vec()
                .map(|b| snippet(&b))
                .unwrap_or_default();
            return Err(self.status_error(url, status, snippet));
        }
        response
            .body_mut()
            .with_config()
            .limit(self.max_body_bytes)
            .read_to_vec()
            .map_err(|e| self.map_error(&url, e))
    }

    fn status_error(&self, url: String, status: u16, detail: String) -> RayHttpError {
        match status {
            401 | 403 => {
                let help = match (&self.token, status) {
                    (None, _) => "the dashboard requires a token: set RESOURCE_POOL_RAY_TOKEN (or RAY_AUTH_TOKEN), or RESOURCE_POOL_RAY_TOKEN_FILE to a file holding it".to_owned(),
                    (Some(_), _) => "the token sent was refused: check it against `ray get-auth-token` on the head".to_owned(),
                };
                RayHttpError::Unauthorized { url, status, detail, help }
            }
            404 => RayHttpError::HttpStatus {
                url,
                status,
                detail,
                help: "this is not a Ray 2.x dashboard, or it runs without the state API: check the port (8265 by default) and that the head runs `ray[default]`".to_owned(),
            },
            300..=399 => RayHttpError::HttpStatus {
                url,
                status,
                detail,
                help: "the address redirects, and redirects are not followed (a token must not follow one): give the final address".to_owned(),
            },
            _ => RayHttpError::HttpStatus {
                url,
                status,
                detail,
                help: "the dashboard failed: retry in a moment, and look at its log (`/tmp/ray/session_latest/logs/dashboard.log` on the head) if it persists".to_owned(),
            },
        }
    }

    fn map_error(&self, url: &str, error: ureq::Error) -> RayHttpError {
        use std::io::ErrorKind;
        let url = url.to_owned();
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
            ureq::Error::Io(io) => match io.kind() {
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
            },
            other => RayHttpError::Transport {
                url,
                detail: other.to_string(),
            },
        }
    }
}

impl InventorySource for RaySource {
    fn name(&self) -> String {
        format!("Ray dashboard at {}", self.base_url)
    }

    fn load(&self) -> Result<Inventory, InventoryError> {
        let bodies = self.fetch_bodies().map_err(InventoryError::source)?;
        Ok(ray_json::parse_inventory(
            &bodies.nodes,
            &bodies.cluster_status,
            &bodies.placement_groups,
        )?)
    }
}

/// `data.result.total` of a list body, when it parses.
fn list_total(body: &[u8]) -> Option<u64> {
    #[derive(serde::Deserialize)]
    struct Outer {
        data: Data,
    }
    #[derive(serde::Deserialize)]
    struct Data {
        result: Page,
    }
    #[derive(serde::Deserialize)]
    struct Page {
        total: u64,
        result: Vec<serde::de::IgnoredAny>,
    }
    let outer: Outer = serde_json::from_slice(body).ok()?;
    let page = outer.data.result;
    (page.total > page.result.len() as u64).then_some(page.total)
}

/// The first 200 characters of a body, on one line.
fn snippet(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: String = line.chars().take(200).collect();
    if line.chars().count() > 200 {
        out.push('…');
    }
    if out.is_empty() {
        out.push_str("(empty body)");
    }
    out
}

/// `http://host:port[/prefix]` from what a user typed.
fn normalize_url(url: &str) -> Result<String, RayHttpError> {
    let bad = |problem: &str| RayHttpError::BadUrl {
        url: url.to_owned(),
        problem: problem.to_owned(),
    };
    let trimmed = url.trim();
    let rest = match trimmed.split_once("://") {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("http") => rest,
        Some((scheme, _)) if scheme.eq_ignore_ascii_case("https") => {
            return Err(bad(
                "https is not supported by this build; reach the dashboard over http (for example through `ssh -L 8265:localhost:8265 HEAD`)",
            ));
        }
        Some((scheme, _)) => return Err(bad(&format!("the scheme `{scheme}` is not http"))),
        None => trimmed,
    };
    let (authority, path) = match rest.find(['/', '?', '#']) {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    if path.contains(['?', '#']) {
        return Err(bad("a query or fragment is not allowed"));
    }
    if authority.is_empty() {
        return Err(bad("the host is missing"));
    }
    if authority.contains('@') {
        return Err(bad(
            "credentials in the URL are not allowed; use a token (RESOURCE_POOL_RAY_TOKEN)",
        ));
    }
    if authority
        .chars()
        .any(|c| c.is_whitespace() || c.is_control())
    {
        return Err(bad("the host contains spaces"));
    }
    let has_port = match authority.rfind(':') {
        Some(i) => !authority[i..].contains(']'),
        None => false,
    };
    let authority = if has_port {
        let (host, port) = authority.rsplit_once(':').unwrap_or_default();
        if host.is_empty() {
            return Err(bad("the host is missing"));
        }
        if port.parse::<u16>().map_or(true, |p| p == 0) {
            return Err(bad("the port is not a number from 1 to 65535"));
        }
        authority.to_owned()
    } else {
        format!("{authority}:{DEFAULT_DASHBOARD_PORT}")
    };
    Ok(format!("http://{authority}{}", path.trim_end_matches('/')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_normalized() {
        let ok = |u: &str| normalize_url(u).unwrap();
        assert_eq!(ok("http://127.0.0.1:8265"), "http://127.0.0.1:8265");
        assert_eq!(ok("http://head:8265/"), "http://head:8265");
        assert_eq!(ok("head"), "http://head:8265");
        assert_eq!(ok("HTTP://[::1]"), "http://[::1]:8265");
        assert_eq!(ok("[::1]:9000/ray/"), "http://[::1]:9000/ray");
        for bad in [
            "https://head:8265",
            "ray://head:10001",
            "http://:8265",
            "http://h:0",
            "http://h:x",
            "http://u:p@h:1",
            "http://h:1/?x",
        ] {
            assert!(
                matches!(normalize_url(bad), Err(RayHttpError::BadUrl { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn secrets_are_never_printed() {
        let secret = Secret::new(" abc123 ").unwrap();
        assert_eq!(format!("{secret:?}"), "Secret(<redacted>)");
        let source = RaySource::new("h:1").unwrap().with_token(Some(secret));
        assert!(!format!("{source:?}").contains("abc123"));
        assert!(Secret::new("  ").is_err());
        assert!(Secret::new("a b").is_err());
    }

    #[test]
    fn tokens_come_from_the_environment() {
        let dir = std::env::temp_dir().join(format!("rp-token-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("token");
        std::fs::write(&file, "from-file\n").unwrap();
        let file_str = file.to_string_lossy().into_owned();
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert_eq!(token_from_lookup(env(&[])).unwrap(), None);
        assert_eq!(
            token_from_lookup(env(&[
                ("RAY_AUTH_TOKEN", "t2"),
                ("RESOURCE_POOL_RAY_TOKEN", "t1")
            ]))
            .unwrap(),
            Some(Secret("t1".into()))
        );
        let lookup = |k: &str| (k == "RESOURCE_POOL_RAY_TOKEN_FILE").then(|| file_str.clone());
        assert_eq!(
            token_from_lookup(lookup).unwrap(),
            Some(Secret("from-file".into()))
        );
        let missing =
            |k: &str| (k == "RAY_AUTH_TOKEN_PATH").then(|| "/nonexistent/token".to_owned());
        let error = token_from_lookup(missing).unwrap_err();
        assert!(matches!(error, RayHttpError::BadToken { .. }));
        assert!(error.to_string().contains("/nonexistent/token"));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn snippets_are_short_and_single_line() {
        assert_eq!(snippet(b"a\n b"), "a b");
        assert_eq!(snippet(b""), "(empty body)");
        assert_eq!(snippet(&[b'x'; 500]).chars().count(), 201);
    }
}
