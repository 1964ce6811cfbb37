//! Loading a config: parse ([`crate::config`]) → lint ([`crate::lint`]) → build the model
//! ([`ResourcePoolManager`]), every problem of the file collected on the way, in file order.
//! Overrides (`--set KEY=VALUE`) are applied to the parsed TOML before the lint.
//!
//! The same pipeline reads the pools of a `#[derive(ResourcePools)]` struct, from their own
//! file ([`load_struct_pools`]) or from any serde format ([`pool_serde`]).

pub mod pool_serde;
mod struct_pools;

pub use pool_serde::{deserialize_struct_pools, serialize_struct_pools};
#[cfg(test)]
pub(crate) use struct_pools::load_struct_pools_as;
pub use struct_pools::{LoadedPools, load_struct_pools};

use std::fmt;

use crate::config::count_arrays::Arrays;
use crate::config::overrides::Layered;
use crate::config::{
    ConfigDiagnostic, ConfigDoc, OverrideError, PoolDefaults, parse_config, parse_config_as,
    parse_config_with,
};
use crate::lint::{self, LintOptions};
use crate::model::{PoolId, ResourcePool, ResourcePoolManager, RoleName};
use crate::source::{SourceFile, Span};

/// A config file read, linted and, when valid, built.
#[derive(Clone)]
pub struct LoadedConfig {
    /// The file.
    pub source: SourceFile,
    /// What it says, with spans.
    pub doc: ConfigDoc,
    /// Every problem, errors and warnings, in file order.
    pub diagnostics: Vec<ConfigDiagnostic>,
    /// The model; `None` when there is an error.
    pub manager: Option<ResourcePoolManager<RoleName>>,
}

impl fmt::Debug for LoadedConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoadedConfig")
            .field("source", &self.source)
            .field("diagnostics", &self.diagnostics.len())
            .field("manager", &self.manager)
            .finish()
    }
}

impl LoadedConfig {
    /// Whether the file has an error (warnings allowed).
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(ConfigDiagnostic::is_error)
    }

    /// The span of a pool's header.
    pub fn pool_span(&self, pool: PoolId) -> Option<Span> {
        self.doc.pools.get(pool).map(|p| p.name.span.clone())
    }

    /// The span of one node-slot: its entry in `process_on_nodes`, or the key that sizes it.
    pub fn slot_span(&self, pool: PoolId, slot: usize) -> Option<Span> {
        self.doc
            .pools
            .get(pool)
            .map(|p| p.slot_span(slot, &PoolDefaults::default()))
    }
}

/// Reads, lints and builds a config file.
pub fn load_config(source: &SourceFile, options: &LintOptions) -> LoadedConfig {
    let (doc, diagnostics) = parse_config(source);
    finish_load(source.clone(), doc, diagnostics, options)
}

/// Malformed overrides: a usage error, with the source their spans point into.
#[derive(Debug)]
pub struct OverrideFailure {
    /// The config with the overrides as its second layer.
    pub source: SourceFile,
    /// Every malformed override.
    pub errors: Vec<OverrideError>,
}

/// Reads a config file, applies `overrides` (`KEY=VALUE` lines, see [`OverrideError`]
/// and [`crate::config`]) before linting, lints and builds it. The result's `source`
/// holds the file and the overrides as a second layer: diagnostics on overridden values
/// point into the overrides, which [`SourceFile::locate`] names [`OVERRIDES_NAME`](crate::config::OVERRIDES_NAME).
pub fn load_config_with(
    source: &SourceFile,
    overrides: &[String],
    options: &LintOptions,
) -> Result<LoadedConfig, OverrideFailure> {
    load_config_as(source, overrides, options, Arrays::WhenWorthIt)
}

/// [`load_config_with`], its arrays of counts read ahead of the parser as `arrays` says:
/// when worth it (the loaders), always, or never (every array read from the `toml`
/// crate's tree, as configs were read before: the oracle the read-ahead is compared with,
/// in tests and fuzzing).
pub(crate) fn load_config_as(
    source: &SourceFile,
    overrides: &[String],
    options: &LintOptions,
    arrays: Arrays,
) -> Result<LoadedConfig, OverrideFailure> {
    if overrides.is_empty() {
        let (doc, diagnostics) = parse_config_as(source, arrays);
        return Ok(finish_load(source.clone(), doc, diagnostics, options));
    }
    let layered = Layered::new(source, overrides);
    match parse_config_with(&layered, arrays) {
        Ok((doc, diagnostics)) => Ok(finish_load(
            layered.source.clone(),
            doc,
            diagnostics,
            options,
        )),
        Err(errors) => Err(OverrideFailure {
            source: layered.source.clone(),
            errors,
        }),
    }
}

fn finish_load(
    source: SourceFile,
    doc: ConfigDoc,
    mut diagnostics: Vec<ConfigDiagnostic>,
    options: &LintOptions,
) -> LoadedConfig {
    if !diagnostics.iter().any(ConfigDiagnostic::is_syntax) {
        diagnostics.extend(lint::lint_config(&doc, options));
    }
    diagnostics.sort_by_key(first_offset);
    let valid = !diagnostics.iter().any(ConfigDiagnostic::is_error);
    let manager = if valid { build_manager(&doc) } else { None };
    LoadedConfig {
        source,
        doc,
        diagnostics,
        manager,
    }
}

/// The offset of a diagnostic's first label, for sorting into file order.
pub(crate) fn first_offset(diagnostic: &ConfigDiagnostic) -> usize {
    use miette::Diagnostic;
    diagnostic
        .labels()
        .and_then(|mut labels| labels.next())
        .map_or(0, |l| l.offset())
}

fn build_manager(doc: &ConfigDoc) -> Option<ResourcePoolManager<RoleName>> {
    let defaults = PoolDefaults::default();
    let pools: Option<Vec<ResourcePool>> = doc
        .pools
        .iter()
        .map(|p| {
            p.build(&defaults)
                .map(|spec| ResourcePool::new(p.name.value.clone(), spec))
        })
        .collect();
    let mapping = doc.mapping.iter().filter_map(|m| {
        m.pool
            .as_ref()
            .map(|p| (RoleName(m.role.value.clone()), p.value.as_str()))
    });
    ResourcePoolManager::new(pools?, mapping).ok()
}

#[cfg(test)]
mod tests;
