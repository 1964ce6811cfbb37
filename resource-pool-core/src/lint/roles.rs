//! The role names a config's `[mapping]` may use: any, or a set a front end gives (the
//! verl crate's table of verl's roles).

/// One role and every name it goes by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KnownRole {
    /// The name a report calls it by.
    pub canonical: String,
    /// Every accepted spelling, the canonical one included.
    pub names: Vec<String>,
}

/// The roles a `[mapping]` may name; names outside it are warned about.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum RoleSet {
    /// Any name is a role.
    #[default]
    Any,
    /// Only these.
    Known(Vec<KnownRole>),
}

impl RoleSet {
    /// These roles, each by its name and its other names (`("ref", &["ref_policy"])`).
    pub fn known<'a>(roles: impl IntoIterator<Item = (&'a str, &'a [&'a str])>) -> RoleSet {
        RoleSet::Known(
            roles
                .into_iter()
                .map(|(name, aliases)| KnownRole {
                    canonical: name.to_owned(),
                    names: std::iter::once(name)
                        .chain(aliases.iter().copied())
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
    fn known_roles_go_by_every_name() {
        let roles = RoleSet::known([("ref", &["ref_policy"][..]), ("rm", &["reward_model"][..])]);
        assert_eq!(roles.resolve("ref"), Some("ref"));
        assert_eq!(roles.resolve("ref_policy"), Some("ref"));
        assert_eq!(roles.resolve("reward_model"), Some("rm"));
        assert_eq!(roles.resolve("refpolicy"), None);
        assert_eq!(RoleSet::Any.resolve("anything"), Some("anything"));
    }
}
