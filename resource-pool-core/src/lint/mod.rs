//! The static lint of a config: every rule, every problem at once.
//!
//! Rules run on the spanned [`ConfigDoc`], so each problem
//! points at the token to change. Errors make a config invalid; warnings (an unused pool,
//! uneven node-slots, an unknown role name) do not.

mod mapping_rules;
mod pool_rules;
mod roles;

pub use mapping_rules::lint_mapping;
pub use pool_rules::{ConfigLimits, SlotTally, lint_pool};
pub use roles::{KnownRole, RoleSet};

use crate::config::{ConfigDiagnostic, ConfigDoc, PoolDefaults};
use crate::source::to_source_span;

/// What the lint checks against.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LintOptions {
    /// The role names a mapping may use (default: any).
    pub roles: RoleSet,
    /// Size limits.
    pub limits: ConfigLimits,
}

/// Every static problem of a config document (its syntax and structure problems come
/// from [`parse_config`](crate::config::parse_config)).
pub fn lint_config(doc: &ConfigDoc, options: &LintOptions) -> Vec<ConfigDiagnostic> {
    let mut out = Vec::new();
    if doc.pools.is_empty() {
        let span = doc.pools_span.clone().unwrap_or(0..0);
        out.push(ConfigDiagnostic::NoPools {
            span: to_source_span(&span),
        });
    }
    let defaults = PoolDefaults::default();
    let mut slots = SlotTally::default();
    for pool in &doc.pools {
        // verl fuses the roles of a pool into one worker group.
        lint_pool(pool, &defaults, 1, &options.limits, &mut slots, &mut out);
    }
    lint_mapping(doc, &options.roles, &mut out);
    out
}
