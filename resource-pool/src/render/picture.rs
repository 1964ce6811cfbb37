//! The picture of a plan, as a plain layout model: rows of cells, a legend, per-node CPU
//! use, groups of identical nodes, the groups that pend. Computed once; drawn as text
//! ([`super::text`]) or SVG ([`super::svg`]).

use std::collections::HashMap;

use crate::check::CheckReport;
use crate::model::names;
use crate::ray_sim::{GroupFate, RayVerdict};
use crate::{Amount, Cluster, NodeSlot, ResourcePool, Resources};

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
const ACCELERATORS: [&str; 2] = [names::GPU, names::NPU];

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
    /// The first node's id.
    pub first: String,
    /// The last node's id, when the row groups more than one node.
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
    /// `slot 0`, `slots 0..3`, or `slots 0, 2` of the pool shown in the picture.
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

/// Whole units of an amount (fractions of an accelerator are not drawn).
fn whole(amount: Amount) -> u64 {
    amount.units() / Amount::SCALE
}

/// The node's number of `accelerator`s: its total when known, else what is available.
fn accelerator_count(node: &crate::Node, accelerator: &str) -> (u64, u64) {
    let available = whole(node.available.get(accelerator));
    let total = node
        .total
        .as_ref()
        .map(|t| whole(t.get(accelerator)))
        .unwrap_or(available)
        .max(available);
    (total, available)
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
    let mut held: Vec<Vec<usize>> = vec![Vec::new(); cluster.nodes.len()];
    for (slot, node) in assignment.iter().enumerate() {
        if let Some(node) = node
            && let Some(list) = held.get_mut(*node)
        {
            list.push(slot);
        }
    }
    let mut pending = Vec::new();
    let mut pending_hidden = 0;
    let mut nearest_for: HashMap<usize, Vec<String>> = HashMap::new();
    let mut not_created: Vec<(usize, Vec<usize>, usize)> = Vec::new();
    for (i, fate) in fates.unwrap_or_default().iter().enumerate() {
        let Some(slot) = slots.get(i) else { continue };
        let name = slot_name(pools, slot);
        match fate {
            GroupFate::Placed { .. } => {}
            GroupFate::Pending(p) => {
                if let Some(nearest) = &p.nearest
                    && nearest.node < cluster.nodes.len()
                {
                    let list = nearest_for.entry(nearest.node).or_default();
                    if list.len() < MAX_PENDING {
                        list.push(name.clone());
                    }
                }
                if pending.len() == MAX_PENDING {
                    pending_hidden += 1;
                    continue;
                }
                let accelerator = pool_accelerator(pools, slot);
                let drawn = (slot.bundles as usize).min(MAX_CELLS);
                pending.push(PendingGroup {
                    name,
                    segment: Segment {
                        accelerator,
                        cells: vec![
                            Cell::Held {
                                pool: slot.pool,
                                slot: Some(slot.slot),
                            };
                            drawn
                        ],
                        hidden: u64::from(slot.bundles) - drawn as u64,
                    },
                    cpu: slot.demand.get(names::CPU),
                    state: p.state.to_string(),
                    nearest: p.nearest.as_ref().map(ToString::to_string),
                });
            }
            GroupFate::NotCreated { blocked_by } => match not_created.last_mut() {
                Some((pool, list, _)) if *pool == slot.pool => list.push(slot.slot),
                _ => not_created.push((slot.pool, vec![slot.slot], *blocked_by)),
            },
        }
    }
    let grouped = cluster.nodes.len() > MAX_ROWS;
    let mut rows: Vec<Row> = Vec::new();
    let mut index: HashMap<RowKey, usize> = HashMap::new();
    let mut more_nodes = 0;
    let mut more_groups = 0;
    let mut groups_exact = true;
    for (i, node) in cluster.nodes.iter().enumerate() {
        let row = node_row(
            node,
            &held[i],
            slots,
            pools,
            grouped,
            nearest_for.remove(&i).unwrap_or_default(),
        );
        if !grouped {
            rows.push(row);
            continue;
        }
        let key = RowKey {
            row: Row {
                first: String::new(),
                last: None,
                ..row.clone()
            },
            available: node.available.clone(),
            total: node.total.clone(),
        };
        match index.get(&key).copied() {
            Some(at) => match rows.get_mut(at) {
                Some(existing) => {
                    existing.count += 1;
                    existing.last = Some(node.id.clone());
                }
                // A group beyond the rows drawn.
                None => more_nodes += 1,
            },
            None if rows.len() < MAX_ROWS => {
                index.insert(key, rows.len());
                rows.push(row);
            }
            None => {
                if more_groups < MAX_GROUPS_COUNTED {
                    index.insert(key, usize::MAX);
                    more_groups += 1;
                } else {
                    groups_exact = false;
                }
                more_nodes += 1;
            }
        }
    }
    let more = (more_nodes > 0).then_some(More {
        nodes: more_nodes,
        groups: more_groups,
        groups_exact,
    });
    let mut shown: Vec<Vec<usize>> = vec![Vec::new(); pools.len()];
    let mut shown_any = vec![false; pools.len()];
    for (slot_index, node) in assignment.iter().enumerate() {
        if node.is_some()
            && let Some(slot) = slots.get(slot_index)
            && let Some(list) = shown.get_mut(slot.pool)
        {
            list.push(slot.slot);
        }
    }
    for p in &pending {
        for cell in &p.segment.cells {
            if let Cell::Held { pool, slot } = cell
                && let Some(list) = shown.get_mut(*pool)
                && let Some(slot) = slot
                && list.last() != Some(slot)
            {
                list.push(*slot);
            }
        }
    }
    for row in &rows {
        for segment in &row.segments {
            for cell in &segment.cells {
                if let Cell::Held { pool, .. } = cell
                    && let Some(flag) = shown_any.get_mut(*pool)
                {
                    *flag = true;
                }
            }
        }
    }
    for p in &pending {
        for cell in &p.segment.cells {
            if let Cell::Held { pool, .. } = cell
                && let Some(flag) = shown_any.get_mut(*pool)
            {
                *flag = true;
            }
        }
    }
    let legend = pools
        .iter()
        .enumerate()
        .filter(|(i, _)| shown_any[*i])
        .map(|(i, pool)| {
            let mut list = std::mem::take(&mut shown[i]);
            list.sort_unstable();
            list.dedup();
            LegendEntry {
                letter: pool_letter(i),
                pool: i,
                name: pool.name.clone(),
                slots: slot_list(&list),
            }
        })
        .take(MAX_ROWS)
        .collect();
    let mut glyphs = Glyphs::default();
    for row in &rows {
        for segment in &row.segments {
            for cell in &segment.cells {
                match cell {
                    Cell::Free => glyphs.free = true,
                    Cell::Busy => glyphs.busy = true,
                    Cell::Dead => glyphs.dead = true,
                    Cell::Held { .. } => {}
                }
            }
        }
    }
    Picture {
        title: title.to_owned(),
        rows,
        more,
        legend,
        glyphs,
        pending,
        pending_hidden,
        not_created: not_created
            .into_iter()
            .map(|(pool, list, blocked_by)| {
                let name = pools.get(pool).map(|p| p.name.as_str()).unwrap_or("?");
                let waits = pools
                    .get(blocked_by)
                    .map(|p| p.name.as_str())
                    .unwrap_or("?");
                (format!("{name}[{}]", slot_range(&list)), waits.to_owned())
            })
            .collect(),
    }
}

/// What makes two nodes' rows the same drawing.
#[derive(PartialEq, Eq, Hash)]
struct RowKey {
    row: Row,
    available: Resources,
    total: Option<Resources>,
}

impl std::hash::Hash for Row {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.alive.hash(state);
        self.segments.hash(state);
        self.cpu_used.hash(state);
        self.cpu_available.hash(state);
        self.nearest_for.hash(state);
    }
}

fn node_row(
    node: &crate::Node,
    held: &[usize],
    slots: &[NodeSlot],
    pools: &[ResourcePool],
    grouped: bool,
    nearest_for: Vec<String>,
) -> Row {
    let mut cpu_used = Amount::ZERO;
    for &s in held {
        if let Some(slot) = slots.get(s) {
            cpu_used = cpu_used.saturating_add(slot.demand.get(names::CPU));
        }
    }
    let mut segments = Vec::new();
    for accelerator in ACCELERATORS {
        let (total, available) = accelerator_count(node, accelerator);
        let mut cells = Vec::new();
        let mut hidden = 0u64;
        let mut push = |cell: Cell, n: u64| {
            let room = (MAX_CELLS - cells.len()) as u64;
            let drawn = n.min(room);
            cells.extend(std::iter::repeat_n(cell, drawn as usize));
            hidden += n - drawn;
        };
        let mut held_here = 0u64;
        for &s in held {
            let Some(slot) = slots.get(s) else { continue };
            if pool_accelerator(pools, slot) != accelerator {
                continue;
            }
            let n = u64::from(slot.bundles);
            held_here += n;
            push(
                Cell::Held {
                    pool: slot.pool,
                    slot: (!grouped).then_some(slot.slot),
                },
                n,
            );
        }
        if !node.alive {
            push(Cell::Dead, total);
        } else {
            push(Cell::Free, available.saturating_sub(held_here));
            push(Cell::Busy, total.saturating_sub(available));
        }
        if !cells.is_empty() || hidden > 0 {
            segments.push(Segment {
                accelerator,
                cells,
                hidden,
            });
        }
    }
    Row {
        first: node.id.clone(),
        last: None,
        count: 1,
        alive: node.alive,
        segments,
        cpu_used,
        cpu_available: node.available.get(names::CPU),
        nearest_for,
    }
}

fn pool_accelerator(pools: &[ResourcePool], slot: &NodeSlot) -> &'static str {
    pools
        .get(slot.pool)
        .map(|p| p.spec.accelerator.resource_name())
        .unwrap_or(names::GPU)
}

fn slot_name(pools: &[ResourcePool], slot: &NodeSlot) -> String {
    let pool = pools.get(slot.pool).map(|p| p.name.as_str()).unwrap_or("?");
    format!("{pool}[{}]", slot.slot)
}

/// `0`, `0..3`, `0, 2, 5..7` (sorted, distinct; long lists cut).
fn slot_range(list: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < list.len() {
        let start = list[i];
        let mut end = start;
        while i + 1 < list.len() && list[i + 1] == end + 1 {
            i += 1;
            end = list[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}..{end}")
        });
        i += 1;
        if parts.len() == 8 && i < list.len() {
            parts.push("…".to_owned());
            break;
        }
    }
    parts.join(", ")
}

fn slot_list(list: &[usize]) -> String {
    match list {
        [] => "no slot placed".to_owned(),
        [one] => format!("slot {one}"),
        _ => format!("slots {}", slot_range(list)),
    }
}

/// The node of each slot in the witness placement; empty when there is none.
pub fn witness_assignment(report: &CheckReport) -> Vec<Option<usize>> {
    report
        .placement
        .witness()
        .map(|w| w.nodes.iter().copied().map(Some).collect())
        .unwrap_or_default()
}

/// The node of each slot on Ray's representative branch (`None`: pending or never created).
pub fn ray_assignment(report: &CheckReport) -> Vec<Option<usize>> {
    let mut assignment = vec![None; report.slots.len()];
    for (slot, node) in report.ray.representative.placed() {
        if let Some(entry) = assignment.get_mut(slot) {
            *entry = Some(node);
        }
    }
    assignment
}

/// The pictures `check` shows: Ray's placement when Ray places it; otherwise a witness
/// placement (when one exists) and then what Ray does in verl's order, also when nothing
/// fits (where it stops is the picture of why).
pub fn check_pictures(report: &CheckReport, cluster: &Cluster) -> Vec<Picture> {
    let ray = ray_assignment(report);
    let fates = Some(report.ray.representative.groups.as_slice());
    let mut out = Vec::new();
    if report.ray.verdict == RayVerdict::Places {
        out.push(picture(
            "Ray places it:",
            &report.slots,
            &report.pools,
            cluster,
            &ray,
            fates,
        ));
        return out;
    }
    if report.placement.witness().is_some() {
        out.push(picture(
            "A placement exists:",
            &report.slots,
            &report.pools,
            cluster,
            &witness_assignment(report),
            None,
        ));
    }
    out.push(picture(
        "Ray, in verl's order, would do:",
        &report.slots,
        &report.pools,
        cluster,
        &ray,
        fates,
    ));
    out
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

    #[test]
    fn slot_ranges_join_runs() {
        assert_eq!(slot_range(&[0, 1, 2, 3]), "0..3");
        assert_eq!(slot_range(&[0, 2, 5, 6, 7]), "0, 2, 5..7");
        assert_eq!(slot_list(&[4]), "slot 4");
        let long: Vec<usize> = (0..40).map(|i| i * 2).collect();
        assert!(slot_range(&long).ends_with("…"));
    }
}
