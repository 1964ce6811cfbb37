//! The engine of resource-pool: the typed model of resource pools (named pools of
//! node-slots, roles mapped to them, clusters of nodes), config files read with byte spans,
//! the lint rules, and, with the `check` feature, the exact placement check, the simulation
//! of Ray's placement-group scheduler and the whole check as diagnostics. Sans-IO: it reads
//! no file and names no front end; the words of remedies come from the front ends' traits
//! (`check::LayoutWords`, `check::ClusterWords`).
//!
//! The pipeline a config travels, one module each: [`model`] (the types), [`source`] (files
//! and spans), [`config`] (parse, with spans), [`lint`] (rules), [`load`] (parse → lint →
//! model), then `placement`, `ray_sim` and `check`. Features: `check` (those three),
//! `schema` (`json_schema`, the JSON Schemas of the files).
#![forbid(unsafe_code)]

#[cfg(feature = "check")]
pub mod check;
pub mod config;
pub mod file_keys;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
#[cfg(feature = "schema")]
pub mod json_schema;
pub mod lint;
pub mod load;
pub mod model;
#[cfg(feature = "check")]
pub mod placement;
#[cfg(feature = "check")]
pub mod ray_sim;
pub mod source;
#[cfg(all(test, feature = "check"))]
mod test_support;
pub mod toml_support;
// Shared by the core and the front ends (reports, the dashboard reader); not an API.
#[doc(hidden)]
pub mod words;

pub use model::*;
pub use toml_support::StructureError;
