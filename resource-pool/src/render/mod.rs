//! Rendering check results for people: the picture of the plan, where each node-slot goes.
//!
//! Diagnostics render through miette; this module draws what miette does not. A
//! [`Picture`] is computed once from the slots, pools, cluster and an assignment
//! ([`picture`], or [`check_pictures`] for what `check` shows), then drawn as text
//! ([`render_text`], with or without ANSI colour: the caller decides) or as SVG
//! ([`render_svg`]).

mod picture;
mod svg;
mod text;

pub use picture::{
    Cell, Glyphs, LegendEntry, MAX_CELLS, MAX_GROUPS_COUNTED, MAX_PENDING, MAX_ROWS, More,
    PendingGroup, Picture, Row, Segment, check_pictures, picture, pool_letter, ray_assignment,
    witness_assignment,
};
pub use svg::{escape, render_svg};
pub use text::{more_line, render_text};
