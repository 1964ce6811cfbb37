//! The name of a Ray resource, cheap to compare in the placement check's hot loops.
//!
//! Every node and every node-slot carries a handful of resource names, and the check
//! compares them once per node. Ray's own names (`CPU`, `GPU`, `NPU`, `memory`,
//! `object_store_memory`) are therefore kept as references to one shared static string:
//! comparing two of them is comparing two pointers, and reading one touches no memory of
//! the node's own. Any other name (`accelerator_type:H100`, a custom resource) is stored
//! once behind an `Arc`, so copying a [`Resources`](super::Resources) never copies text.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

use super::resources::names;

/// The names kept as shared statics.
const WELL_KNOWN: [&str; 5] = [
    names::CPU,
    names::GPU,
    names::NPU,
    names::MEMORY,
    names::OBJECT_STORE_MEMORY,
];

/// The name of a Ray resource, exactly as Ray spells it (`GPU`, `CPU`, `NPU`,
/// `accelerator_type:H100`, `my_custom`). Compares, orders and hashes as its text.
#[derive(Clone)]
pub struct ResourceName(Repr);

#[derive(Clone)]
enum Repr {
    /// One of [`WELL_KNOWN`], by reference: equal names are equal pointers.
    Known(&'static str),
    /// Any other name.
    Other(Arc<str>),
}

impl ResourceName {
    /// The name's text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Known(name) => name,
            Repr::Other(name) => name,
        }
    }

    fn known(name: &str) -> Option<&'static str> {
        WELL_KNOWN.iter().copied().find(|known| *known == name)
    }
}

impl From<&str> for ResourceName {
    fn from(name: &str) -> ResourceName {
        match ResourceName::known(name) {
            Some(known) => ResourceName(Repr::Known(known)),
            None => ResourceName(Repr::Other(Arc::from(name))),
        }
    }
}

impl From<String> for ResourceName {
    fn from(name: String) -> ResourceName {
        match ResourceName::known(&name) {
            Some(known) => ResourceName(Repr::Known(known)),
            None => ResourceName(Repr::Other(Arc::from(name))),
        }
    }
}

impl From<&String> for ResourceName {
    fn from(name: &String) -> ResourceName {
        ResourceName::from(name.as_str())
    }
}

impl From<&ResourceName> for ResourceName {
    fn from(name: &ResourceName) -> ResourceName {
        name.clone()
    }
}

impl From<ResourceName> for String {
    fn from(name: ResourceName) -> String {
        name.as_str().to_owned()
    }
}

impl Deref for ResourceName {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for ResourceName {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for ResourceName {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for ResourceName {
    fn eq(&self, other: &ResourceName) -> bool {
        match (&self.0, &other.0) {
            // Well-known names are interned: equal exactly when the same static.
            (Repr::Known(a), Repr::Known(b)) => std::ptr::eq(*a, *b),
            // A name is well known or not by its text alone, so these never match.
            (Repr::Known(_), Repr::Other(_)) | (Repr::Other(_), Repr::Known(_)) => false,
            (Repr::Other(a), Repr::Other(b)) => Arc::ptr_eq(a, b) || a == b,
        }
    }
}

impl Eq for ResourceName {}

impl PartialEq<str> for ResourceName {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for ResourceName {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialOrd for ResourceName {
    fn partial_cmp(&self, other: &ResourceName) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ResourceName {
    fn cmp(&self, other: &ResourceName) -> Ordering {
        if self == other {
            Ordering::Equal
        } else {
            self.as_str().cmp(other.as_str())
        }
    }
}

impl Hash for ResourceName {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Display for ResourceName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for ResourceName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_compare_as_their_text() {
        let gpu = ResourceName::from("GPU");
        let gpu_again = ResourceName::from(String::from("GPU"));
        let h100 = ResourceName::from("accelerator_type:H100");
        let h100_again = ResourceName::from("accelerator_type:H100");
        assert_eq!(gpu, gpu_again);
        assert_eq!(h100, h100_again);
        assert_ne!(gpu, h100);
        assert_eq!(gpu, "GPU");
        // Ordered by text, whichever way each is stored.
        let mut all: Vec<ResourceName> = ["memory", "NPU", "a_custom", "CPU", "GPUx"]
            .into_iter()
            .map(ResourceName::from)
            .collect();
        all.sort();
        let text: Vec<&str> = all.iter().map(ResourceName::as_str).collect();
        assert_eq!(text, ["CPU", "GPUx", "NPU", "a_custom", "memory"]);
        assert_eq!(format!("{gpu} {h100:?}"), "GPU \"accelerator_type:H100\"");
    }

    #[test]
    fn equal_names_hash_equally() {
        use std::collections::hash_map::DefaultHasher;
        let hash = |name: &ResourceName| {
            let mut h = DefaultHasher::new();
            name.hash(&mut h);
            h.finish()
        };
        let mut h = DefaultHasher::new();
        "CPU".hash(&mut h);
        assert_eq!(hash(&ResourceName::from("CPU")), h.finish());
        assert_eq!(
            hash(&ResourceName::from("x")),
            hash(&ResourceName::from(String::from("x")))
        );
    }
}
