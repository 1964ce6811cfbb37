//! A live Ray cluster as an inventory, read over the dashboard's HTTP API.
//!
//! [`RaySource`] asks the dashboard for its Ray version (`/api/version`, see
//! [`version`]) and three endpoints (see [`ray_json::Endpoint`]), and joins their answers
//! with [`ray_json::assemble`]. It needs no Python at run time.
//!
//! - Timeouts: a connect timeout, a budget for the whole load (all requests together), and
//!   a read timeout (the longest wait for any read). Defaults: 3 s, 10 s, and for a read
//!   what is left of the budget: a larger budget lets a slow head answer.
//! - Size: each body is read up to a limit (64 MiB by default); past it, an error.
//! - Auth: a bearer token ([`Secret`], never printed: its `Debug` is redacted), from
//!   [`token_from_env`] or given.
//! - `http://` and `https://` (rustls; the system's trust store by default, or the CAs of a
//!   file: see [`tls`]); no proxy from the environment (dashboards are cluster-internal or
//!   behind their own ingress) and no redirects (a token must not follow one).

mod attempt;
mod error;
mod secret;
pub mod tls;
pub mod version;

use std::time::{Duration, Instant};

use resource_pool_inventory::ray_json::{self, DEFAULT_LIMIT, Endpoint};
use resource_pool_inventory::{Inventory, InventoryError, InventorySource};

use self::attempt::{Attempt, Phase};
pub use self::error::{RayHttpError, TimeoutSetting, TransportKind, UnreachableReason};
pub use self::secret::{
    Secret, TOKEN_ENV_VARS, TOKEN_FILE_ENV_VARS, TokenSource, token_from_env, token_from_lookup,
};
pub use self::tls::{CA_CERT_ENV_VAR, TlsProblem, TrustRoots};
pub use self::version::{RayVersion, UnverifiedRayVersion, VERIFIED_RAY_VERSIONS};

/// The dashboard's default port, used when an `http://` URL names none.
pub const DEFAULT_DASHBOARD_PORT: u16 = 8265;

/// The port of an `https://` URL that names none (an ingress in front of the dashboard).
pub const DEFAULT_HTTPS_PORT: u16 = 443;

/// The raw bodies of the endpoints, as one load read them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RayBodies {
    /// `/api/version`; `None` when the dashboard answered 404 (it has no such endpoint).
    pub version: Option<Vec<u8>>,
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
/// use resource_pool_inventory::InventorySource;
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
    host: String,
    trust: TrustRoots,
    connect_timeout: Duration,
    /// `None`: each read may take what is left of the load's budget.
    read_timeout: Option<Duration>,
    timeout: Duration,
    timeout_setting: TimeoutSetting,
    token: Option<Secret>,
    max_body_bytes: u64,
    limit: usize,
}

impl RaySource {
    /// Default connect timeout.
    pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
    /// Default budget of a whole load (all requests).
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
    /// Default body size limit: 64 MiB.
    pub const DEFAULT_MAX_BODY_BYTES: u64 = 64 * 1024 * 1024;

    /// A source for the dashboard at `url`: `http://host:port` or `https://host:port`
    /// with an optional path prefix (behind a reverse proxy); `host:port` alone means
    /// `http://`; the port defaults to 8265 for http and 443 for https. No token (add one
    /// with [`RaySource::with_token`]); https trusts the system's store (see
    /// [`RaySource::with_trust_roots`]).
    pub fn new(url: &str) -> Result<RaySource, RayHttpError> {
        let (base_url, host) = normalize_url(url)?;
        Ok(RaySource {
            base_url,
            host,
            trust: TrustRoots::System,
            connect_timeout: Self::DEFAULT_CONNECT_TIMEOUT,
            read_timeout: None,
            timeout: Self::DEFAULT_TIMEOUT,
            timeout_setting: TimeoutSetting::default(),
            token: None,
            max_body_bytes: Self::DEFAULT_MAX_BODY_BYTES,
            limit: DEFAULT_LIMIT,
        })
    }

    /// [`RaySource::new`] with the token of [`token_from_env`], if any, and the CA file
    /// named by [`CA_CERT_ENV_VAR`], if set.
    pub fn from_env(url: &str) -> Result<RaySource, RayHttpError> {
        Ok(RaySource::new(url)?
            .with_token(token_from_env()?)
            .with_trust_roots(TrustRoots::from_env()?))
    }

    /// Sets whom an https dashboard's certificate must be signed by (default: the
    /// system's trust store).
    pub fn with_trust_roots(mut self, trust: TrustRoots) -> RaySource {
        self.trust = trust;
        self
    }

    /// The normalized base URL (`http(s)://host:port[/prefix]`).
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// Sets the connect timeout.
    pub fn with_connect_timeout(mut self, timeout: Duration) -> RaySource {
        self.connect_timeout = timeout;
        self
    }

    /// Sets the read timeout: the longest wait for any read of an answer. By default a read
    /// may wait for what is left of the load's budget ([`RaySource::with_timeout`]), so a
    /// larger budget lets a slow head answer.
    pub fn with_read_timeout(mut self, timeout: Duration) -> RaySource {
        self.read_timeout = Some(timeout);
        self
    }

    /// Sets the budget of a whole [`load`](InventorySource::load): every request of it
    /// together finishes within it, or the load fails with
    /// [`RayHttpError::Timeout`].
    pub fn with_timeout(mut self, timeout: Duration) -> RaySource {
        self.timeout = timeout;
        self
    }

    /// Sets how the caller names the budget of [`RaySource::with_timeout`] (its flag, its
    /// argument), for the help of [`RayHttpError::Timeout`]; by default the builder itself.
    pub fn with_timeout_setting(mut self, setting: TimeoutSetting) -> RaySource {
        self.timeout_setting = setting;
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

    /// Reads the bodies without parsing them beyond the page counts (for snapshots and
    /// bug reports).
    pub fn fetch_bodies(&self) -> Result<RayBodies, RayHttpError> {
        let deadline = Instant::now() + self.timeout;
        let version = match self.get("/api/version", deadline) {
            Ok(body) => Some(body),
            Err(RayHttpError::HttpStatus { status: 404, .. }) => None,
            Err(error) => return Err(error),
        };
        Ok(RayBodies {
            version,
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
                setting: self.timeout_setting,
            });
        }
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .tls_config(self.trust.tls_config())
            .timeout_global(Some(remaining))
            .timeout_connect(Some(self.connect_timeout.min(remaining)))
            .timeout_per_read(Some(self.read_timeout().min(remaining)))
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
        let attempt = self.attempt(&url, deadline);
        let mut response = request
            .call()
            .map_err(|e| attempt.map_error(e, Phase::Request))?;
        let status = response.status().as_u16();
        if status != 200 {
            let location = response
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .map(ToOwned::to_owned);
            let snippet = response
                .body_mut()
                .with_config()
                .limit(4096)
                .read_to_vec()
                .map(|b| snippet(&b))
                .unwrap_or_default();
            return Err(attempt.status_error(status, snippet, location.as_deref()));
        }
        response
            .body_mut()
            .with_config()
            .limit(self.max_body_bytes)
            .read_to_vec()
            .map_err(|e| attempt.map_error(e, Phase::Body))
    }

    /// The longest wait for one read: as set, or the load's whole budget.
    fn read_timeout(&self) -> Duration {
        self.read_timeout.unwrap_or(self.timeout)
    }

    fn attempt<'a>(&'a self, url: &'a str, deadline: Instant) -> Attempt<'a> {
        Attempt {
            deadline,
            base_url: &self.base_url,
            url,
            host: &self.host,
            token: self.token.as_ref(),
            trust: &self.trust,
            connect_timeout: self.connect_timeout,
            read_timeout: self.read_timeout(),
            timeout: self.timeout,
            timeout_setting: self.timeout_setting,
        }
    }

    /// Reads the cluster and the Ray version the dashboard runs, with the warning for a
    /// version outside [`VERIFIED_RAY_VERSIONS`]' range.
    pub fn load_with_version(&self) -> Result<RayInventory, InventoryError> {
        let bodies = self.fetch_bodies().map_err(InventoryError::source)?;
        let inventory = ray_json::parse_inventory(
            &bodies.nodes,
            &bodies.cluster_status,
            &bodies.placement_groups,
        )?;
        let version = bodies.version.as_deref().and_then(RayVersion::parse);
        let unverified = version::check_version(version.as_ref());
        Ok(RayInventory {
            inventory,
            version,
            unverified,
        })
    }
}

impl InventorySource for RaySource {
    fn name(&self) -> String {
        format!("Ray dashboard at {}", self.base_url)
    }

    fn load(&self) -> Result<Inventory, InventoryError> {
        self.load_with_version().map(|read| read.inventory)
    }
}

/// A live cluster as one load read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RayInventory {
    /// The nodes and what the source noticed.
    pub inventory: Inventory,
    /// What `/api/version` said, when it answered.
    pub version: Option<RayVersion>,
    /// The warning when that version is outside the verified range (or unknown).
    pub unverified: Option<UnverifiedRayVersion>,
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

/// `http(s)://host:port[/prefix]` from what a user typed, and the host.
fn normalize_url(url: &str) -> Result<(String, String), RayHttpError> {
    let bad = |problem: &str| RayHttpError::BadUrl {
        url: url.to_owned(),
        problem: problem.to_owned(),
    };
    let trimmed = url.trim();
    let (scheme, default_port, rest) = match trimmed.split_once("://") {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("http") => {
            ("http", DEFAULT_DASHBOARD_PORT, rest)
        }
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("https") => {
            ("https", DEFAULT_HTTPS_PORT, rest)
        }
        Some((scheme, _)) => {
            return Err(bad(&format!("the scheme `{scheme}` is not http or https")));
        }
        None => ("http", DEFAULT_DASHBOARD_PORT, trimmed),
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
    let (host, authority) = if has_port {
        let (host, port) = authority.rsplit_once(':').unwrap_or_default();
        if host.is_empty() {
            return Err(bad("the host is missing"));
        }
        if port.parse::<u16>().map_or(true, |p| p == 0) {
            return Err(bad("the port is not a number from 1 to 65535"));
        }
        (host, authority.to_owned())
    } else {
        (authority, format!("{authority}:{default_port}"))
    };
    let host = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    let base = format!("{scheme}://{authority}{}", path.trim_end_matches('/'));
    Ok((base, host))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_may_take_the_whole_budget_unless_cut_shorter() {
        let source = RaySource::new("http://head:8265").unwrap();
        assert_eq!(source.read_timeout(), RaySource::DEFAULT_TIMEOUT);
        // `--ray-timeout-ms 60000`, Python's `timeout=60`: a head slow to send its first
        // byte is waited for.
        let patient = source.with_timeout(Duration::from_secs(60));
        assert_eq!(patient.read_timeout(), Duration::from_secs(60));
        let cut = patient.with_read_timeout(Duration::from_secs(2));
        assert_eq!(cut.read_timeout(), Duration::from_secs(2));
    }

    #[test]
    fn urls_are_normalized() {
        let ok = |u: &str| normalize_url(u).unwrap().0;
        assert_eq!(ok("http://127.0.0.1:8265"), "http://127.0.0.1:8265");
        assert_eq!(ok("http://head:8265/"), "http://head:8265");
        assert_eq!(ok("head"), "http://head:8265");
        assert_eq!(ok("HTTP://[::1]"), "http://[::1]:8265");
        assert_eq!(ok("[::1]:9000/ray/"), "http://[::1]:9000/ray");
        assert_eq!(
            ok("https://ray.example.com/"),
            "https://ray.example.com:443"
        );
        assert_eq!(ok("HTTPS://h:8443/ray"), "https://h:8443/ray");
        assert_eq!(normalize_url("https://[::1]:9").unwrap().1, "::1");
        assert_eq!(normalize_url("h:1").unwrap().1, "h");
        for bad in [
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
    fn snippets_are_short_and_single_line() {
        assert_eq!(snippet(b"a\n b"), "a b");
        assert_eq!(snippet(b""), "(empty body)");
        assert_eq!(snippet(&[b'x'; 500]).chars().count(), 201);
    }
}
