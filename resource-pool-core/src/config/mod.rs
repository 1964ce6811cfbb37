//! Reading config files: `[pools.*]` tables and a `[mapping]` of roles to pools.
//!
//! ```toml
//! [pools.global_pool]
//! process_on_nodes = [8, 8]      # or: gpus_per_node = 8, nnodes = 2
//! accelerator = "GPU"            # or "NPU"; default GPU
//! max_colocate_count = 3         # CPUs per bundle; default 3, as verl
//!
//! [mapping]
//! actor_rollout = "global_pool"
//! ```
//!
//! This module parses: [`parse_config`] reads the TOML into a [`ConfigDoc`] that keeps
//! every span, with every syntax and structure problem as a [`ConfigDiagnostic`]. The
//! `toml` crate parses the file but for its arrays of plain counts, which are read
//! straight from the text first (`count_arrays`: a pool of 100,000 node-slots then costs
//! a count and a span per slot, not a tree value each). Then [`crate::lint`] checks the
//! document and [`crate::load`] builds the model when nothing is wrong. Pools are created
//! in file order and slots in list order: the order Ray sees.

pub(crate) mod count_arrays;
mod diagnostics;
pub(crate) mod overrides;
mod pool_table;
mod struct_pools;
pub(crate) mod write;
mod yaml_guess;

/// How config TOML writes a key and a string: shared with the front ends that write
/// configs from other data (Python's dicts), so that both escape alike.
#[doc(hidden)]
pub use crate::toml_support::{toml_key, toml_string};
pub use diagnostics::ConfigDiagnostic;
pub use overrides::{OVERRIDES_NAME, OverrideError};
pub use pool_table::{PoolDefaults, PoolDoc, SlotSource};
pub use struct_pools::{ConfigErrors, ConfigWarnings, PoolField};
pub use write::config_to_toml;

use crate::file_keys::CONFIG_KEYS;
use crate::source::{SourceFile, Span, Spanned};
use crate::toml_support::walk::{self as toml_walk, StructureError};
use count_arrays::{Arrays, CountArrays};

/// A config file as written, every value with its span.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConfigDoc {
    /// The pools, in file order.
    pub pools: Vec<PoolDoc>,
    /// The `pools` key, when present.
    pub pools_span: Option<Span>,
    /// The mapping entries, in file order.
    pub mapping: Vec<MappingDoc>,
    /// The `mapping` key, when present.
    pub mapping_span: Option<Span>,
    /// `verl_version`, when given: the release whose rules a front end that knows verl
    /// follows (the core reads it, and no more).
    pub verl_version: Option<Spanned<String>>,
}

/// One line of `[mapping]`: `critic = "global_pool"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MappingDoc {
    /// The role, spanned on its key.
    pub role: Spanned<String>,
    /// The pool's name, spanned on the string; `None` when not a string.
    pub pool: Option<Spanned<String>>,
}

impl ConfigDoc {
    /// The pool of that name.
    pub fn pool(&self, name: &str) -> Option<&PoolDoc> {
        self.pools.iter().find(|p| p.name.value == name)
    }
}

/// Reads a config file's TOML into a document, with every syntax and structure problem.
pub fn parse_config(source: &SourceFile) -> (ConfigDoc, Vec<ConfigDiagnostic>) {
    parse_config_as(source, Arrays::WhenWorthIt)
}

/// [`parse_config`], its arrays of counts read ahead of the parser or not.
pub(crate) fn parse_config_as(
    source: &SourceFile,
    arrays: Arrays,
) -> (ConfigDoc, Vec<ConfigDiagnostic>) {
    let mut blanked = String::new();
    let (root, errors, mut counts) = count_arrays::parse(source.base_text(), &mut blanked, arrays);
    if let Some(yaml) = yaml_guess::yaml_instead(source, &errors) {
        return (ConfigDoc::default(), vec![yaml]);
    }
    read_doc(root.get_ref(), errors, &mut counts)
}

/// Reads a config file's TOML with overrides applied (see [`overrides`]); `Err` when an
/// override is malformed, with the file and overrides as one [`SourceFile`] the errors'
/// spans point into.
pub(crate) fn parse_config_with(
    layered: &overrides::Layered,
    arrays: Arrays,
) -> Result<(ConfigDoc, Vec<ConfigDiagnostic>), Vec<OverrideError>> {
    let mut blanked = String::new();
    let (mut root, errors, mut counts) =
        count_arrays::parse(layered.source.base_text(), &mut blanked, arrays);
    if let Some(yaml) = yaml_guess::yaml_instead(&layered.source, &errors) {
        return Ok((ConfigDoc::default(), vec![yaml]));
    }
    let masks = layered.masks();
    let override_errors = layered.apply(&masks, root.get_mut());
    if !override_errors.is_empty() {
        return Err(override_errors);
    }
    Ok(read_doc(root.get_ref(), errors, &mut counts))
}

fn read_doc(
    root: &toml::de::DeTable<'_>,
    mut errors: Vec<StructureError>,
    counts: &mut CountArrays,
) -> (ConfigDoc, Vec<ConfigDiagnostic>) {
    let mut doc = ConfigDoc::default();
    if !errors.is_empty() {
        // A tree recovered from broken syntax is a guess: report the syntax alone.
        return (doc, structure(errors).collect());
    }
    toml_walk::check_keys(root, CONFIG_KEYS, "the config", &mut errors);
    if let Some((_, value)) = toml_walk::get(root, "verl_version") {
        doc.verl_version = toml_walk::string("verl_version", value, &mut errors);
    }
    if let Some((key, value)) = toml_walk::get(root, "pools") {
        doc.pools_span = Some(key.span());
        if let Some(pools) = toml_walk::table("pools", value, &mut errors) {
            for (name, pool) in toml_walk::entries(pools) {
                let name = Spanned::new(name.get_ref().to_string(), name.span());
                let shown = format!("pools.{}", name.value);
                if let Some(table) = toml_walk::table(&shown, pool, &mut errors) {
                    let table_name = format!("pool `{}`", name.value);
                    doc.pools
                        .push(PoolDoc::read(name, table, &table_name, counts, &mut errors));
                }
            }
        }
    }
    if let Some((key, value)) = toml_walk::get(root, "mapping") {
        doc.mapping_span = Some(key.span());
        if let Some(mapping) = toml_walk::table("mapping", value, &mut errors) {
            for (role, pool) in toml_walk::entries(mapping) {
                let role = Spanned::new(role.get_ref().to_string(), role.span());
                let shown = format!("mapping.{}", role.value);
                let pool = toml_walk::string(&shown, pool, &mut errors);
                doc.mapping.push(MappingDoc { role, pool });
            }
        }
    }
    (doc, structure(errors).collect())
}

/// The structure problems of a file, as config diagnostics.
pub(crate) fn structure(errors: Vec<StructureError>) -> impl Iterator<Item = ConfigDiagnostic> {
    errors.into_iter().map(ConfigDiagnostic::from)
}
