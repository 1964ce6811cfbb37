//! The picture of a plan, as a plain layout model: rows of cells, a legend, per-node CPU
//! use, groups of identical nodes, the groups that pend. Computed once; drawn as text
//! ([`super::text`]) or SVG ([`super::svg`]).
//!
//! [`picture`] makes it in five passes, one module each but the first: the slots each node
//! holds; Ray's fates of the slots ([`fates`]: what pends, which node comes nearest, what is
//! never created); the rows ([`rows`]: one per node, or per group of nodes drawn the same
//! on large clusters); the legend and the glyphs used ([`legend`]).

mod fates;
mod legend;
mod rows;

use crate::model::names;
use crate::ray_sim::GroupFate;
use crate::{Amount, Cluster, NodeSlot, ResourcePool};

/// The most rows drawn; beyond that, identical nodes are grouped, and then the rest is
/// summarised in a line.
pub const MAX_ROWS: usize = 40;

/// The legend's note on the cells of a row that stands for several nodes.
pub const GROUP_ROW_NOTE: &str = "A* = a slot of A (a different one on each node of the row)";

/// The most cells drawn per accelerator of a node (the rest is counted).
pub const MAX_CELLS: usize = 64;

/// The most distinct groups of nodes told apart beyond those drawn; past it, nodes are
/// still counted, and the count of groups is a lower bound (memory stays bounded).
pub const MAX_GROUPS_COUNTED: usize = 10_000;

/// The most pending groups drawn (the rest is counted).
pub const MAX_PENDING: usize = 8;

/// The accelerators a node's cells stand for, in the order they are drawn.
pub(super) const ACCELERATORS: [&str; 2] = [names::GPU, names::NPU];

/// One accelerator of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cell {
    /// Held by a node-slot of the layout: the pool's index, and the slot (`None` in a
    /// row that groups several nodes, whose slots differ).
    Held {
        /// The pool (index into the report's pools).
        pool: usize,
        /// The slot's index in its pool, when the row is one node.
        slot: Option<usize>,
    },
    /// Free after the plan.
    Free,
    /// Not available now: held by something else (the node's total minus its available).
    Busy,
    /// On a dead node.
    Dead,
}

/// The cells of one accelerator of a node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Segment {
    /// `GPU` or `NPU`.
    pub accelerator: &'static str,
    /// The cells drawn (at most [`MAX_CELLS`]).
    pub cells: Vec<Cell>,
    /// Cells not drawn.
    pub hidden: u64,
}

/// One row: a node, or a group of nodes drawn the same.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The first node's name ([`crate::model::DisplayName`]).
    pub first: String,
    /// The last node's name, when the row groups more than one node.
    pub last: Option<String>,
    /// How many nodes the row stands for.
    pub count: usize,
    /// Whether the node is alive.
    pub alive: bool,
    /// One segment per accelerator the node has; empty for a CPU-only node.
    pub segments: Vec<Segment>,
    /// CPUs the plan uses on the node.
    pub cpu_used: Amount,
    /// CPUs available on the node.
    pub cpu_available: Amount,
    /// The pending groups (`pool[slot]`) this node comes closest to holding.
    pub nearest_for: Vec<String>,
}

/// What the picture's glyphs and letters mean.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LegendEntry {
    /// The pool's letter(s), as drawn in its cells.
    pub letter: String,
    /// The pool's index (its colour).
    pub pool: usize,
    /// The pool's name.
    pub name: String,
    /// `slot 0`, `slots 0–3` (0 to 3), or `slots 0, 2` of the pool shown in the picture.
    pub slots: String,
}

/// A group that waits forever, drawn under the cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingGroup {
    /// `global_pool[0]`.
    pub name: String,
    /// Its cells (all held by its pool and slot).
    pub segment: Segment,
    /// CPUs it asks for.
    pub cpu: Amount,
    /// `NO_RESOURCES` or `INFEASIBLE`.
    pub state: String,
    /// The nearest node and what it lacks (`big: CPU 20 of 24, GPU 4 of 8`), if any node
    /// is alive.
    pub nearest: Option<String>,
}

/// One picture: a title, the rows, and what pends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Picture {
    /// `Ray places it:` and the like.
    pub title: String,
    /// The rows drawn.
    pub rows: Vec<Row>,
    /// Nodes and groups not drawn (beyond [`MAX_ROWS`] groups).
    pub more: Option<More>,
    /// The pools shown, in pool order.
    pub legend: Vec<LegendEntry>,
    /// Which of free, busy and dead cells appear.
    pub glyphs: Glyphs,
    /// Groups that wait forever (at most [`MAX_PENDING`]).
    pub pending: Vec<PendingGroup>,
    /// Pending groups not drawn.
    pub pending_hidden: usize,
    /// Groups never created because verl waits on an earlier pool: (`pool[slots]`, the
    /// pool it waits on).
    pub not_created: Vec<(String, String)>,
}

/// What a picture does not draw: the nodes of groups beyond [`MAX_ROWS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct More {
    /// Nodes not drawn.
    pub nodes: usize,
    /// Their distinct groups (at least this many when `groups_exact` is false).
    pub groups: usize,
    /// Whether `groups` is exact (false past [`MAX_GROUPS_COUNTED`]).
    pub groups_exact: bool,
}

/// Which plain glyphs the picture uses (the legend lists only those).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Glyphs {
    /// Free cells.
    pub free: bool,
    /// Cells held by something else.
    pub busy: bool,
    /// Cells of dead nodes.
    pub dead: bool,
}

/// The letter(s) of pool `index`: `A`..`Z`, then `AA`, `AB`, … (as spreadsheet columns).
pub fn pool_letter(index: usize) -> String {
    let mut n = index + 1;
    let mut out = Vec::new();
    while n > 0 {
        let rem = (n - 1) % 26;
        out.push(b'A' + rem as u8);
        n = (n - 1) / 26;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// Builds the picture of `assignment` (`assignment[i]` is the node of slot `i`, `None` when
/// not placed) on `cluster`. `fates` are Ray's fates of the slots (for the pending groups),
/// `None` for a placement that places everything.
pub fn picture(
    title: &str,
    slots: &[NodeSlot],
    pools: &[ResourcePool],
    cluster: &Cluster,
    assignment: &[Option<usize>],
    fates: Option<&[GroupFate]>,
) -> Picture {
    // The slots each node holds.
    let mut held: Vec<Vec<usize>> = vec![Vec::new(); cluster.nodes.len()];
    for (slot, node) in assignment.iter().enumerate() {
        if let Some(node) = node
            && let Some(list) = held.get_mut(*node)
        {
            list.push(slot);
        }
    }
    let fates = fates::read(fates.unwrap_or_default(), slots, pools, cluster);
    let (rows, more) = rows::rows(cluster, &held, slots, pools, fates.nearest_for);
    let legend = legend::legend(pools, slots, assignment, &rows, &fates.pending);
    let glyphs = legend::glyphs(&rows);
    Picture {
        title: title.to_owned(),
        rows,
        more,
        legend,
        glyphs,
        pending: fates.pending,
        pending_hidden: fates.pending_hidden,
        not_created: fates.not_created,
    }
}

pub(super) fn pool_accelerator(pools: &[ResourcePool], slot: &NodeSlot) -> &'static str {
    pools
        .get(slot.pool)
        .map(|p| p.spec.accelerator.resource_name())
        .unwrap_or(names::GPU)
}

pub(super) fn slot_name(pools: &[ResourcePool], slot: &NodeSlot) -> String {
    let pool = pools.get(slot.pool).map(|p| p.name.as_str()).unwrap_or("?");
    format!("{pool}[{}]", slot.slot)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_run_like_spreadsheet_columns() {
        assert_eq!(pool_letter(0), "A");
        assert_eq!(pool_letter(25), "Z");
        assert_eq!(pool_letter(26), "AA");
        assert_eq!(pool_letter(27), "AB");
        assert_eq!(pool_letter(26 * 27), "AAA");
    }
}
