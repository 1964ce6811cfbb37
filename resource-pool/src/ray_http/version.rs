//! The Ray version a dashboard runs (`GET /api/version`), and the versions this reader is
//! verified against.
//!
//! The dashboard's endpoints and bodies differ across Ray versions; the live tests
//! (`scripts/ray-tests.sh`) run a real cluster of each version in [`VERIFIED_RAY_VERSIONS`]
//! and check the inventory node by node against Ray's own view. A dashboard outside the
//! range from the oldest to the newest (by major and minor version) is read the same way,
//! with a warning ([`UnverifiedRayVersion`]).

use serde::{Deserialize, Serialize};

/// The Ray versions the live tests run against: verl's lowest supported Ray
/// (`ray[default]>=2.41.0`) and the newest verified. `scripts/ray-tests.sh` runs these (a
/// test checks that they agree).
pub const VERIFIED_RAY_VERSIONS: [&str; 2] = ["2.60.0", "2.41.0"];

/// What `/api/version` says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RayVersion {
    /// `ray_version`, such as `2.41.0`.
    pub ray_version: String,
    /// `ray_commit`, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ray_commit: Option<String>,
}

impl RayVersion {
    /// Parses the body of `/api/version`; `None` when it is not that shape.
    pub fn parse(body: &[u8]) -> Option<RayVersion> {
        serde_json::from_slice::<RayVersion>(body)
            .ok()
            .filter(|v| !v.ray_version.trim().is_empty())
    }

    /// `(major, minor)` of the version, when it reads as `MAJOR.MINOR[.…]`.
    pub fn major_minor(&self) -> Option<(u64, u64)> {
        major_minor(&self.ray_version)
    }

    /// Whether it lies in the verified range (by major and minor version).
    pub fn is_verified(&self) -> bool {
        let (oldest, newest) = verified_range();
        self.major_minor()
            .is_some_and(|v| oldest <= v && v <= newest)
    }
}

fn major_minor(version: &str) -> Option<(u64, u64)> {
    let mut parts = version.trim().split('.');
    let major = parts.next()?.parse().ok()?;
    let minor: String = parts
        .next()?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    Some((major, minor.parse().ok()?))
}

/// The oldest and the newest verified `(major, minor)`.
pub fn verified_range() -> ((u64, u64), (u64, u64)) {
    let versions = VERIFIED_RAY_VERSIONS.iter().filter_map(|v| major_minor(v));
    let oldest = versions.clone().min().unwrap_or((0, 0));
    let newest = versions.max().unwrap_or((0, 0));
    (oldest, newest)
}

/// The warning for a dashboard whose version is outside the verified range or unknown;
/// `None` when it is verified.
pub fn check_version(version: Option<&RayVersion>) -> Option<UnverifiedRayVersion> {
    if version.is_some_and(RayVersion::is_verified) {
        return None;
    }
    let ((a, b), (c, d)) = verified_range();
    Some(UnverifiedRayVersion {
        version: version.map(|v| v.ray_version.clone()),
        oldest: format!("{a}.{b}"),
        newest: format!("{c}.{d}"),
    })
}

/// The dashboard runs a Ray version the reader was not verified against.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error, miette::Diagnostic)]
#[error(
    "the dashboard runs Ray {}, outside the verified range (Ray {oldest} to {newest})",
    version.as_deref().unwrap_or("of an unknown version (`/api/version` did not answer)")
)]
#[diagnostic(
    code(resource_pool::ray::unverified_version),
    severity(Warning),
    help(
        "the inventory was read as for the verified versions, whose dashboard answers were tested against a real cluster; compare it with `ray status` on the head"
    )
)]
pub struct UnverifiedRayVersion {
    /// What the dashboard said, when it said.
    pub version: Option<String>,
    /// The oldest verified `MAJOR.MINOR`.
    pub oldest: String,
    /// The newest verified `MAJOR.MINOR`.
    pub newest: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(text: &str) -> RayVersion {
        RayVersion {
            ray_version: text.to_owned(),
            ray_commit: None,
        }
    }

    #[test]
    fn the_recorded_versions_parse() {
        for (dir, expected) in [("ray-2.41", "2.41.0"), ("ray-2.60", "2.60.0")] {
            let path = format!(
                "{}/tests/data/{dir}/idle_api_version.json",
                env!("CARGO_MANIFEST_DIR")
            );
            let body = std::fs::read(&path).unwrap_or_default();
            let parsed = RayVersion::parse(&body).unwrap_or_else(|| version("?"));
            assert_eq!(parsed.ray_version, expected, "{path}");
            assert!(parsed.ray_commit.is_some());
            assert!(parsed.is_verified());
            assert_eq!(check_version(Some(&parsed)), None);
        }
        assert_eq!(RayVersion::parse(b"<html>"), None);
        assert_eq!(RayVersion::parse(br#"{"ray_version": ""}"#), None);
    }

    #[test]
    fn the_range_is_by_major_and_minor() {
        assert_eq!(verified_range(), ((2, 41), (2, 60)));
        for ok in ["2.41.0", "2.41.3", "2.50.1", "2.60.0", "2.60.7rc1"] {
            assert!(version(ok).is_verified(), "{ok}");
        }
        for outside in ["2.40.0", "2.61.0", "3.0.0.dev0", "1.13.0", "nightly", ""] {
            assert!(!version(outside).is_verified(), "{outside}");
        }
        let warning = check_version(Some(&version("2.61.0"))).map(|w| w.to_string());
        assert_eq!(
            warning.as_deref(),
            Some("the dashboard runs Ray 2.61.0, outside the verified range (Ray 2.41 to 2.60)")
        );
        let unknown = check_version(None)
            .map(|w| w.to_string())
            .unwrap_or_default();
        assert!(unknown.contains("unknown version"), "{unknown}");
    }

    #[test]
    fn the_live_script_runs_the_verified_versions() {
        let script = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../scripts/ray-tests.sh"
        ))
        .unwrap_or_default();
        let default = format!("RP_RAY_VERSIONS:-{}}}", VERIFIED_RAY_VERSIONS.join(" "));
        assert!(
            script.contains(&default),
            "scripts/ray-tests.sh should default to {default}"
        );
    }
}
