//! The picture's third pass: one row per node, with its cells and CPU use; on clusters of
//! more than [`MAX_ROWS`] nodes, nodes drawn the same share a row, and past [`MAX_ROWS`]
//! such rows the rest is counted ([`More`]).

use std::collections::HashMap;

use super::{
    ACCELERATORS, Cell, MAX_CELLS, MAX_GROUPS_COUNTED, MAX_ROWS, More, Row, Segment,
    pool_accelerator,
};
use crate::model::names;
use crate::{Amount, Cluster, NodeSlot, ResourcePool, Resources};

/// The rows of `cluster`; `held[i]` are the slots node `i` holds, `nearest_for` the pending
/// groups each node comes nearest to.
pub(super) fn rows(
    cluster: &Cluster,
    held: &[Vec<usize>],
    slots: &[NodeSlot],
    pools: &[ResourcePool],
    mut nearest_for: HashMap<usize, Vec<String>>,
) -> (Vec<Row>, Option<More>) {
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
                    existing.last = Some(node.display_name().to_string());
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
    (rows, more)
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
        first: node.display_name().to_string(),
        last: None,
        count: 1,
        alive: node.alive,
        segments,
        cpu_used,
        cpu_available: node.available.get(names::CPU),
        nearest_for,
    }
}
