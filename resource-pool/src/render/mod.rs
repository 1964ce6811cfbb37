//! Rendering check results for people: the picture of the plan, where each node-slot goes.
//!
//! Diagnostics render through miette; this module draws what miette does not. A
//! [`Picture`] is computed once from the slots, pools, cluster and an assignment
//! ([`picture()`], or [`check_pictures`] for what `check` shows and [`suggestion_pictures`]
//! for the layouts it suggests), then drawn as text
//! ([`render_text`], with or without ANSI colour: the caller decides) or as SVG
//! ([`render_svg`]).

mod picture;
mod pictures;
mod svg;
mod text;

pub use picture::{
    Cell, Glyphs, LegendEntry, MAX_CELLS, MAX_GROUPS_COUNTED, MAX_PENDING, MAX_ROWS, More,
    PendingGroup, Picture, Row, Segment, picture, pool_letter,
};
pub use pictures::{
    LAYOUT_ORDER, check_pictures, ray_assignment, suggestion_pictures, witness_assignment,
};
pub use svg::{escape, render_svg};
pub use text::{more_line, render_text};
