//! Roles: the parts of a trainer (actor, critic, reference policy, ...) that live in pools.

use std::borrow::Cow;
use std::fmt::{Debug, Display};
use std::hash::Hash;

/// Anything a [`ResourcePoolManager`](super::ResourcePoolManager) can map to a pool: a
/// closed role enum (see [`Role`]) or an open set of names ([`RoleName`]).
pub trait RoleKey: Clone + Eq + Hash + Debug + Display + Send + Sync + 'static {
    /// Every role of a closed set, in declaration order; `None` for an open set. A manager
    /// over a closed set maps every one of them, so lookups cannot fail.
    fn closed_set() -> Option<&'static [Self]> {
        None
    }

    /// The role's name as users write it in files.
    fn key_name(&self) -> Cow<'_, str>;
}

/// A closed set of roles, usually an enum with `#[derive(Role)]`.
///
/// Implementations guarantee that `ALL` lists every value exactly once and that
/// `name` is distinct per value.
pub trait Role: RoleKey + Copy {
    /// Every role, in declaration order.
    const ALL: &'static [Self];

    /// The role's name (as `rename`/`rename_all` spell it).
    fn name(self) -> &'static str;

    /// The role's position in [`Role::ALL`].
    fn index(self) -> usize;
}

/// A role known only by its name, as the CLI reads it from a config's `[mapping]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RoleName(pub String);

impl RoleName {
    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Display for RoleName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for RoleName {
    fn from(name: &str) -> RoleName {
        RoleName(name.to_owned())
    }
}

impl RoleKey for RoleName {
    fn key_name(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.0)
    }
}
