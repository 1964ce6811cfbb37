//! The role names a config's `[mapping]` may use.

use crate::verl_roles::VERL_ROLES;

/// One role and every name it goes by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KnownRole {
    /// The name a report calls it by.
    pub canonical: String,
    /// Every accepted spelling, the canonical one included.
    pub names: Vec<String>,
}

/// The roles a `[mapping]` may name; names outside it are warned about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RoleSet {
    /// Any name is a role.
    Any,
    /// Only these.
    Known(Vec<KnownRole>),
}

impl Default for RoleSet {
    fn default() -> RoleSet {
        RoleSet::verl()
    }
}

impl RoleSet {
    /// verl's nine roles ([`VERL_ROLES`]), by their strings (`ref`, `rm`) and by their
    /// enum names in snake_case (`ref_policy`, `reward_model`).
    pub fn verl() -> RoleSet {
        RoleSet::Known(
            VERL_ROLES
                .iter()
                .map(|role| KnownRole {
                    canonical: role.name.to_owned(),
                    names: std::iter::once(role.name)
                        .chain(role.aliases.iter().copied())
                        .map(str::to_owned)
                        .collect(),
                })
                .collect(),
        )
    }

    /// The role a name stands for; `None` when unknown. Under [`RoleSet::Any`] every name
    /// is its own role.
    pub fn resolve<'a>(&'a self, name: &'a str) -> Option<&'a str> {
        match self {
            RoleSet::Any => Some(name),
            RoleSet::Known(roles) => roles
                .iter()
                .find(|r| r.names.iter().any(|n| n == name))
                .map(|r| r.canonical.as_str()),
        }
    }

    /// Every accepted spelling.
    pub fn all_names(&self) -> Vec<&str> {
        match self {
            RoleSet::Any => Vec::new(),
            RoleSet::Known(roles) => roles
                .iter()
                .flat_map(|r| r.names.iter().map(String::as_str))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verl_roles_go_by_both_names() {
        let roles = RoleSet::verl();
        assert_eq!(roles.resolve("ref"), Some("ref"));
        assert_eq!(roles.resolve("ref_policy"), Some("ref"));
        assert_eq!(roles.resolve("reward_model"), Some("rm"));
        assert_eq!(roles.resolve("refpolicy"), None);
        assert_eq!(RoleSet::Any.resolve("anything"), Some("anything"));
    }
}
