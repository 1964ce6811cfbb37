//! Rendering check results for people: the plan of where each node-slot goes.
//!
//! Diagnostics render through miette; this module draws what miette does not.

mod plan;

pub use plan::{ray_assignment, render_plan, witness_assignment};
