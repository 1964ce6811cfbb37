//! Rules on `[mapping]` against the pools there are and the roles there may be.

use super::roles::RoleSet;
use crate::config::{ConfigDiagnostic, ConfigDoc, MappingDoc};
use crate::source::{did_you_mean, to_source_span};

/// Checks every mapping line, and that every pool hosts some role.
pub fn lint_mapping(doc: &ConfigDoc, roles: &RoleSet, out: &mut Vec<ConfigDiagnostic>) {
    let pool_names: Vec<&str> = doc.pools.iter().map(|p| p.name.value.as_str()).collect();
    let mut seen: Vec<(&str, &MappingDoc)> = Vec::new();
    for line in &doc.mapping {
        let role = &line.role;
        match roles.resolve(&role.value) {
            None => {
                let known = roles.all_names();
                let help = match did_you_mean(&role.value, known.iter().copied()) {
                    Some(close) => format!("did you mean `{close}`?"),
                    None => format!("known roles: {}", known.join(", ")),
                };
                out.push(ConfigDiagnostic::UnknownRole {
                    role: role.value.clone(),
                    help,
                    span: to_source_span(&role.span),
                });
            }
            Some(canonical) => {
                if let Some((_, first)) = seen.iter().find(|(c, _)| *c == canonical) {
                    out.push(ConfigDiagnostic::RoleMappedTwice {
                        role: canonical.to_owned(),
                        first: first.role.value.clone(),
                        second: role.value.clone(),
                        span: to_source_span(&role.span),
                        first_span: to_source_span(&first.role.span),
                    });
                } else {
                    seen.push((canonical, line));
                }
            }
        }
        if let Some(pool) = &line.pool
            && !pool_names.contains(&pool.value.as_str())
        {
            let help = match did_you_mean(&pool.value, pool_names.iter().copied()) {
                Some(close) => format!(
                    "did you mean `{close}`? The pools are: {}",
                    pool_names.join(", ")
                ),
                None if pool_names.is_empty() => "define the pool under [pools]".to_owned(),
                None => format!("the pools are: {}", pool_names.join(", ")),
            };
            out.push(ConfigDiagnostic::UnknownPool {
                role: role.value.clone(),
                pool: pool.value.clone(),
                help,
                span: to_source_span(&pool.span),
            });
        }
    }
    for pool in &doc.pools {
        let used = doc
            .mapping
            .iter()
            .any(|m| m.pool.as_ref().is_some_and(|p| p.value == pool.name.value));
        if !used {
            out.push(ConfigDiagnostic::UnusedPool {
                pool: pool.name.value.clone(),
                span: to_source_span(&pool.name.span),
            });
        }
    }
}
