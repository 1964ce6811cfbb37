//! The error of parsing a role by name, and the helpers `#[derive(Role)]` calls.

use std::fmt;

use crate::Role;
use crate::source::did_you_mean;

/// A name that is none of a role enum's roles: what `FromStr` of a `#[derive(Role)]`
/// enum returns, with the closest role when one is close enough to be a typo.
///
/// ```
/// # #[cfg(feature = "verl")] {
/// use resource_pool::verl;
///
/// let err = "critc".parse::<verl::Role>().unwrap_err();
/// assert_eq!(err.input(), "critc");
/// assert_eq!(err.suggestion(), Some("critic"));
/// assert!(err.to_string().starts_with("unknown role `critc`; did you mean `critic`?"));
/// # }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseRoleError {
    input: String,
    roles: Vec<&'static str>,
    suggestion: Option<&'static str>,
}

impl ParseRoleError {
    /// `input` is none of `roles`.
    pub fn new(input: impl Into<String>, roles: Vec<&'static str>) -> ParseRoleError {
        let input = input.into();
        let suggestion = did_you_mean(&input, roles.iter().copied());
        ParseRoleError {
            input,
            roles,
            suggestion,
        }
    }

    /// The name that was given.
    pub fn input(&self) -> &str {
        &self.input
    }

    /// Every role's name, in declaration order.
    pub fn roles(&self) -> &[&'static str] {
        &self.roles
    }

    /// The role the input was probably meant to be.
    pub fn suggestion(&self) -> Option<&'static str> {
        self.suggestion
    }
}

impl fmt::Display for ParseRoleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown role `{}`", self.input)?;
        if let Some(suggestion) = self.suggestion {
            write!(f, "; did you mean `{suggestion}`?")?;
        }
        write!(f, " (the roles are {})", self.roles.join(", "))
    }
}

impl std::error::Error for ParseRoleError {}

/// `FromStr` of a derived role enum.
pub fn parse_role<R: Role>(name: &str) -> Result<R, ParseRoleError> {
    R::ALL
        .iter()
        .copied()
        .find(|role| role.name() == name)
        .ok_or_else(|| ParseRoleError::new(name, R::ALL.iter().map(|r| r.name()).collect()))
}

/// serde's `Deserialize` of a derived role enum: a string, one of the roles' names.
pub fn deserialize_role<'de, R, D>(deserializer: D) -> Result<R, D::Error>
where
    R: Role,
    D: serde::Deserializer<'de>,
{
    struct Visitor<R>(std::marker::PhantomData<R>);

    impl<R: Role> serde::de::Visitor<'_> for Visitor<R> {
        type Value = R;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a role name: ")?;
            let names: Vec<_> = R::ALL.iter().map(|r| r.name()).collect();
            f.write_str(&names.join(", "))
        }

        fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<R, E> {
            parse_role(name).map_err(E::custom)
        }
    }

    deserializer.deserialize_str(Visitor(std::marker::PhantomData))
}
