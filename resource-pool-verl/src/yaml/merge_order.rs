//! Where PyYAML's releases disagree: a pool key that a `<<` list sets one way under the
//! PyYAML OmegaConf reads with and another way under PyYAML 6.0.4, which merges a list's
//! mappings in the other order ([`super::anchors::Contested`]).

use std::collections::{BTreeMap, BTreeSet};

use super::anchors::{Contested, Item, Path};
use super::frames::{MAX_KNOWN_KEY, joined};
use crate::keys::{KEYS, KeyId};

/// A pool key whose value from a `<<` list depends on PyYAML's release: the value the
/// reading takes (`None`: the key is not set that way), the one PyYAML 6.0.4 takes, and
/// where the first of those is written (chars).
pub(super) struct MergeOrderChars {
    pub key: KeyId,
    pub used: Option<String>,
    pub newer: Option<String>,
    pub chars: (usize, usize),
}

/// The pool keys `items` (paths relative to `base`) set: each value as a message shows it
/// (`'8'` when quoted), and where it is written (chars).
fn pool_values(base: &str, items: &[(Path, Item)]) -> BTreeMap<KeyId, (String, (usize, usize))> {
    let mut out = BTreeMap::new();
    for (path, item) in items {
        let more = path.iter().map(|k| Some(k.as_str()));
        let Some(full) = joined(base.to_owned(), more, MAX_KNOWN_KEY) else {
            continue;
        };
        let Some(key) = KEYS.iter().position(|k| k.path == full) else {
            continue;
        };
        let shown = match item {
            Item::Scalar((text, Some(_), chars)) => (format!("'{text}'"), *chars),
            Item::Scalar((text, None, chars)) => (text.clone(), *chars),
            Item::Container(chars) => ("a mapping or list".to_owned(), *chars),
            Item::Key(_) => continue,
        };
        out.insert(key, shown);
    }
    out
}

/// The pool keys of the mapping at `base` whose value `contested` gives one way under the
/// reading and another under PyYAML 6.0.4.
pub(super) fn contested_keys(base: &str, contested: &Contested) -> Vec<MergeOrderChars> {
    let (used, newer) = (
        pool_values(base, &contested.used),
        pool_values(base, &contested.newer),
    );
    let keys: BTreeSet<KeyId> = used.keys().chain(newer.keys()).copied().collect();
    let mut out = Vec::new();
    for key in keys {
        let (a, b) = (used.get(&key), newer.get(&key));
        if a.map(|v| &v.0) == b.map(|v| &v.0) {
            continue;
        }
        let Some(&(_, chars)) = a.or(b) else {
            continue;
        };
        out.push(MergeOrderChars {
            key,
            used: a.map(|v| v.0.clone()),
            newer: b.map(|v| v.0.clone()),
            chars,
        });
    }
    out
}
