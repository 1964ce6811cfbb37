//! A verl version (`--verl-version`, Python's `verl_version=verl.__version__`) read as a
//! release of the [key set](super::key_set).
//!
//! verl installed from git carries the version of the release it leads to
//! (`0.9.2.dev0` after 0.9.1 is out), and a release newer than resource-pool is none of the
//! key set's. Both read as the newest release of the key set that is not newer than them
//! in PEP 440's order: `0.9.2.dev0` and `0.9.5` as 0.9.1; `0.7.0.dev0` and `0.7.0rc1` as
//! 0.6.1, since a build before 0.7.0 may lack what 0.7.0 added (and a key it has that
//! 0.6.1 lacks is at worst a warning); `0.9.1.post1` and `0.9.1+cu124` as 0.9.1. A version
//! older than every release, or not a PEP 440 version at all, reads as none.

use super::key_set::key_set;
use super::releases::{ReleaseRules, newest, release};

/// The release of the key set that `version` is judged as: itself when it is one (as
/// written, or equal in PEP 440: `0.9.1.0`, `v0.9.1`), else the newest one not newer than
/// it; `None` for a malformed version or one older than every release.
pub fn release_for(version: &str) -> Option<&'static str> {
    let set = key_set();
    if let Some(known) = set.version_names().find(|v| *v == version) {
        return Some(known);
    }
    let wanted = Pep440::parse(version)?;
    set.version_names()
        .filter(|known| Pep440::parse(known).is_some_and(|k| k <= wanted))
        .max_by(|a, b| Pep440::parse(a).cmp(&Pep440::parse(b)))
}

/// Whether `version` reads as `release` only by approximation: not the release itself, nor
/// a post-release or local build of it (`0.9.1.post1`, `0.9.1+cu124`: its keys).
pub fn is_approximate(version: &str, release: &str) -> bool {
    match (Pep440::parse(version), Pep440::parse(release)) {
        (Some(version), Some(release)) => {
            version.epoch != release.epoch
                || version.release != release.release
                || version.pre != Rank::Above
        }
        _ => true,
    }
}

/// The rules for a launch line's `--verl-version`: [`rules_for`]'s, except that a verl
/// older than every release known is no error but the third value (the launch is then
/// not judged: [`VerlOptions::older_release`](crate::VerlOptions::older_release)).
pub fn rules_for_launch(
    version: Option<&str>,
) -> Result<(ReleaseRules, Option<ReleaseRead>, Option<String>), UnknownVersion> {
    match rules_for(version) {
        Ok((rules, read)) => Ok((rules, read, None)),
        Err(_) if version.is_some_and(is_older_than_known) => {
            Ok((ReleaseRules::newest(), None, version.map(str::to_owned)))
        }
        Err(unknown) => Err(unknown),
    }
}

/// Whether `version` is a PEP 440 version older than every release known (a fork of verl
/// 0.1-0.4): not an error for a launch line, whose launch is then not judged.
pub fn is_older_than_known(version: &str) -> bool {
    let oldest = key_set().version_names().filter_map(Pep440::parse).min();
    matches!((Pep440::parse(version), oldest), (Some(v), Some(o)) if v < o)
}

/// The release of the key set a `--verl-version` (or Python's `verl_version=`) is judged
/// as (itself, or the newest release not newer than it: `0.9.2.dev0` as 0.9.1), or the
/// error for one that is no PEP 440 version or older than every release.
pub fn verl_release(version: &str) -> Result<ReleaseRead, UnknownVersion> {
    let known = || key_set().version_names().collect::<Vec<_>>().join(", ");
    // An empty value (`--verl-version ''`, `verl_version=""`) names no version at all.
    if version.trim().is_empty() {
        return Err(UnknownVersion::Empty {
            version: version.to_owned(),
            known: known(),
            span: None,
        });
    }
    match release_for(version) {
        Some(release) => Ok(ReleaseRead {
            version: version.to_owned(),
            release,
            approximate: is_approximate(version, release),
        }),
        None => Err(UnknownVersion::NotKnown {
            version: version.to_owned(),
            known: known(),
            span: None,
        }),
    }
}

/// `--verl-version` names no release the key set holds.
#[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[serde(untagged)]
pub enum UnknownVersion {
    /// A release the key set does not hold.
    #[error("verl {version} is not in resource-pool's key set; it knows verl {known}")]
    #[diagnostic(
        code(resource_pool::verl::unknown_version),
        help(
            "pass a PEP 440 version from the oldest release listed on (a newer one, or a build from source such as 0.9.2.dev0, is judged as the newest release before it), or leave --verl-version out to judge keys against all"
        )
    )]
    NotKnown {
        /// The version as given.
        version: String,
        /// The releases known.
        known: String,
        /// Where it was written (a config's `verl_version`), when in a file.
        #[label("no release known")]
        #[serde(skip)]
        span: Option<miette::SourceSpan>,
    },
    /// An empty or blank value.
    #[error("the verl version is empty; resource-pool knows verl {known}")]
    #[diagnostic(
        code(resource_pool::verl::empty_version),
        help(
            "pass the version of the verl you launch, such as 0.9.1, or leave --verl-version out to judge keys against every release known"
        )
    )]
    Empty {
        /// The value as given (empty, or blanks only).
        version: String,
        /// The releases known.
        known: String,
        /// Where it was written (a config's `verl_version`), when in a file.
        #[label("empty")]
        #[serde(skip)]
        span: Option<miette::SourceSpan>,
    },
}

impl UnknownVersion {
    /// The same, pointing at where the version was written.
    pub fn at(mut self, at: miette::SourceSpan) -> UnknownVersion {
        match &mut self {
            UnknownVersion::NotKnown { span, .. } | UnknownVersion::Empty { span, .. } => {
                *span = Some(at);
            }
        }
        self
    }
}

/// A `--verl-version` read as a release of the key set; a warning when it is not that
/// release itself.
#[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[error(
    "verl {version} is not in resource-pool's key set: its pools and keys are judged as verl {release}'s"
)]
#[diagnostic(
    code(resource_pool::verl::version_approximated),
    severity(Warning),
    help(
        "verl {release} is the newest release resource-pool knows that is not newer than {version}: a key or pool rule verl added after it is not known (such a key is reported as unknown)"
    )
)]
pub struct ReleaseRead {
    /// The version as given.
    pub version: String,
    /// The release of the key set it is judged as.
    pub release: &'static str,
    /// Whether that release is not the version itself.
    #[serde(skip)]
    pub approximate: bool,
}

/// The rules a check follows for `version` (`--verl-version`, a config's `verl_version`,
/// Python's `verl_version=`): its release's, with the warning that says which release
/// stands in for a version that is none; the newest release's without a version.
///
/// # Errors
///
/// A version that is no PEP 440 version, or older than every release.
pub fn rules_for(
    version: Option<&str>,
) -> Result<(ReleaseRules, Option<ReleaseRead>), UnknownVersion> {
    let Some(version) = version else {
        return Ok((ReleaseRules::newest(), None));
    };
    let read = verl_release(version)?;
    let rules = ReleaseRules {
        release: release(read.release).unwrap_or_else(newest),
        assumed: false,
    };
    Ok((rules, read.approximate.then_some(read)))
}

/// A PEP 440 version as its sort key: epoch, release (trailing zeros dropped: `0.9` is
/// `0.9.0`), pre-release, post-release, dev release, and whether it has a local label.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Pep440 {
    epoch: u64,
    release: Vec<u64>,
    /// `(phase, n)` (a, b, rc); below them a dev release of the release itself, above
    /// them none.
    pre: Rank,
    post: Rank,
    dev: Rank,
    local: bool,
}

/// A segment's place in the order: below every number, a number, or above every number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Rank {
    Below,
    At(u64, u64),
    Above,
}

impl Pep440 {
    /// PEP 440's permissive form: case and surrounding spaces ignored, a `v` before it,
    /// `-`, `_` or `.` between the parts, the alternative spellings of pre/post.
    fn parse(text: &str) -> Option<Pep440> {
        let text = text.trim().to_ascii_lowercase();
        let text = text.strip_prefix('v').unwrap_or(&text);
        let (public, local) = match text.split_once('+') {
            Some((public, label)) => {
                let valid = label.split(['.', '-', '_']).all(|part| {
                    !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric())
                });
                if !valid {
                    return None;
                }
                (public, true)
            }
            None => (text, false),
        };
        let mut rest = public;
        let epoch = match rest.split_once('!') {
            Some((epoch, after)) => {
                rest = after;
                epoch.parse().ok()?
            }
            None => 0,
        };
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        // The release ends at the last digit: `0.9.2.dev0`'s release is `0.9.2`.
        let digits = rest[..digits].trim_end_matches('.').len();
        let mut release: Vec<u64> = rest[..digits]
            .split('.')
            .map(|n| n.parse().ok())
            .collect::<Option<_>>()?;
        while release.len() > 1 && release.last() == Some(&0) {
            release.pop();
        }
        let mut rest = &rest[digits..];
        let pre = [
            ("alpha", 0),
            ("beta", 1),
            ("preview", 2),
            ("pre", 2),
            ("rc", 2),
            ("a", 0),
            ("b", 1),
            ("c", 2),
        ]
        .iter()
        .find_map(|&(word, phase)| segment(&mut rest, word).map(|n| Rank::At(phase, n)));
        let post = if let Some(n) = rest.strip_prefix('-').and_then(leading_number) {
            rest = &rest[1 + n.1..];
            Some(n.0)
        } else {
            ["post", "rev", "r"]
                .iter()
                .find_map(|word| segment(&mut rest, word))
        };
        let dev = segment(&mut rest, "dev");
        if !rest.is_empty() {
            return None;
        }
        Some(Pep440 {
            epoch,
            release,
            // A dev release with neither pre nor post comes before the pre-releases.
            pre: match (pre, post, dev) {
                (Some(pre), ..) => pre,
                (None, None, Some(_)) => Rank::Below,
                (None, ..) => Rank::Above,
            },
            post: post.map_or(Rank::Below, |n| Rank::At(0, n)),
            dev: dev.map_or(Rank::Above, |n| Rank::At(0, n)),
            local,
        })
    }
}

/// `word` and its number at the start of `rest` (`.dev0`, `-rc.1`, `post`: 0 when no
/// number follows), consumed.
fn segment(rest: &mut &str, word: &str) -> Option<u64> {
    let after = rest.strip_prefix(['.', '-', '_']).unwrap_or(rest);
    let after = after.strip_prefix(word)?;
    let number = after.strip_prefix(['.', '-', '_']).unwrap_or(after);
    match leading_number(number) {
        Some((n, len)) => {
            *rest = &number[len..];
            Some(n)
        }
        None => {
            *rest = after;
            Some(0)
        }
    }
}

/// The number at the start of `text` and its length.
fn leading_number(text: &str) -> Option<(u64, usize)> {
    let len = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    Some((text[..len].parse().ok()?, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_release_of_the_key_set_reads_as_itself() {
        for known in key_set().version_names() {
            assert_eq!(release_for(known), Some(known));
            assert!(!is_approximate(known, known));
        }
        assert_eq!(release_for("0.9.1.0"), Some("0.9.1"));
        assert_eq!(release_for("v0.9.1"), Some("0.9.1"));
        assert!(!is_approximate("v0.9.1", "0.9.1"));
    }

    #[test]
    fn a_build_from_source_reads_as_the_newest_release_before_it() {
        let newest = key_set().version_names().last().unwrap();
        assert_eq!(
            newest, "0.9.1",
            "the cases below assume the key set ends at 0.9.1"
        );
        for (version, release) in [
            ("0.9.2.dev0", "0.9.1"),
            ("0.9.2.dev", "0.9.1"),
            ("0.10.0", "0.9.1"),
            ("1.0.0rc1", "0.9.1"),
            ("0.7.0.dev", "0.6.1"),
            ("0.7.0.dev0", "0.6.1"),
            ("0.7.0rc1", "0.6.1"),
            ("0.7.0-rc.1", "0.6.1"),
            ("0.6.5", "0.6.1"),
            ("1!0.1", "0.9.1"),
        ] {
            assert_eq!(release_for(version), Some(release), "{version}");
            assert!(is_approximate(version, release), "{version}");
        }
        // A post-release or a local build of a release has its keys: no approximation.
        for (version, release) in [
            ("0.7.0.post1", "0.7.0"),
            ("0.7.0-1", "0.7.0"),
            ("0.7.0.post1.dev2", "0.7.0"),
            ("0.7.0+cu124", "0.7.0"),
        ] {
            assert_eq!(release_for(version), Some(release), "{version}");
            assert!(!is_approximate(version, release), "{version}");
        }
    }

    #[test]
    fn a_malformed_or_too_old_version_reads_as_none() {
        for version in [
            "",
            "0.1",
            "0.4.9",
            "0.5.0.dev0",
            "0.5.0rc1",
            "latest",
            "0.9.x",
            "0.9.1 dev",
            "0.9.1+",
            "0.9..1",
            ".9.1",
            "0.9.1.dev0.dev1",
            "0.9.1+a b",
        ] {
            assert_eq!(release_for(version), None, "{version:?}");
        }
    }

    #[test]
    fn pep_440_order() {
        let order = [
            "0.9.dev0",
            "0.9a1",
            "0.9b2.dev1",
            "0.9rc1",
            "0.9",
            "0.9+local",
            "0.9.post1.dev0",
            "0.9.post1",
            "0.9.1",
        ];
        let keys: Vec<Pep440> = order.iter().map(|v| Pep440::parse(v).unwrap()).collect();
        for pair in keys.windows(2) {
            assert!(pair[0] < pair[1], "{pair:?}");
        }
    }
}
