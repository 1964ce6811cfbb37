//! The core of resource-pool: the typed model of verl's resource pools, TOML loading with
//! byte spans, the lint rules, the exact placement check and the simulation of Ray's
//! placement-group scheduler.
//!
//! The pipeline a config travels, one module each: [`model`] ← [`source`] (files and
//! spans) ← [`config`] and [`cluster_file`] (parse) ← [`lint`] ← [`placement`] and
//! [`ray_sim`] ← [`check`] (everything together, as diagnostics).

pub mod model;

pub use model::*;
