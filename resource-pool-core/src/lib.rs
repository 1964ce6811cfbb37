//! The core of resource-pool: the typed model of verl's resource pools, TOML loading with
//! byte spans, the lint rules, the exact placement check and the simulation of Ray's
//! placement-group scheduler.
//!
//! The pipeline a config travels, one module each: [`model`] (the types), [`source`]
//! (files and spans), [`config`] and [`inventory::cluster_file`] (parse, with spans), [`lint`]
//! (rules), then the placement check and Ray's simulation.
#![forbid(unsafe_code)]

pub mod check;
pub mod config;
pub mod file_keys;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
pub mod json_schema;
pub mod lint;
pub mod load;
pub mod model;
pub mod placement;
pub mod ray_sim;
pub mod source;
#[cfg(test)]
mod test_support;
pub mod toml_support;
// Shared by the core and the front ends (reports, the dashboard reader); not an API.
#[doc(hidden)]
pub mod words;

pub use model::*;
pub use toml_support::StructureError;
