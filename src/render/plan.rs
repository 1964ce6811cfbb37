//! The plan a person reads at a glance: per node, which pools' slots it holds and what
//! is left.

use std::fmt::Write;

use crate::check::CheckReport;
use crate::{Cluster, NodeSlot, ResourcePool, Resources};

/// The most nodes listed one per row; beyond that, nodes are summarised.
const MAX_ROWS: usize = 40;

/// One row per node that holds a slot (at most [`MAX_ROWS`]), then a line for the rest.
/// `assignment[i]` is the node of slot `i`, `None` for a slot that is not placed.
pub fn render_plan(
    title: &str,
    slots: &[NodeSlot],
    pools: &[ResourcePool],
    cluster: &Cluster,
    assignment: &[Option<usize>],
) -> String {
    let mut held: Vec<Vec<usize>> = vec![Vec::new(); cluster.nodes.len()];
    for (slot, node) in assignment.iter().enumerate() {
        if let Some(node) = node
            && let Some(list) = held.get_mut(*node)
        {
            list.push(slot);
        }
    }
    let width = cluster
        .nodes
        .iter()
        .map(|n| n.id.chars().count())
        .max()
        .unwrap_or(4)
        .min(32);
    let mut out = format!("{title}\n");
    let mut shown = 0;
    let mut hidden_busy = 0;
    for (i, node) in cluster.nodes.iter().enumerate() {
        if held[i].is_empty() {
            continue;
        }
        if shown == MAX_ROWS {
            hidden_busy += 1;
            continue;
        }
        shown += 1;
        let mut used = Resources::new();
        let mut parts = Vec::new();
        for &s in &held[i] {
            let slot = &slots[s];
            for (name, amount) in slot.demand.iter() {
                let _ = used.add(name, amount);
            }
            parts.push(format!(
                "{}[{}]×{}",
                pools[slot.pool].name, slot.slot, slot.bundles
            ));
        }
        let left = node.available.saturating_sub(&used);
        let _ = writeln!(
            out,
            "  {:<width$}  {}  left {}",
            node.id,
            parts.join(" "),
            left
        );
    }
    if hidden_busy > 0 {
        let _ = writeln!(out, "  … and {hidden_busy} more nodes holding node-slots");
    }
    let idle = held
        .iter()
        .zip(&cluster.nodes)
        .filter(|(h, n)| h.is_empty() && n.alive)
        .count();
    let dead = cluster.nodes.iter().filter(|n| !n.alive).count();
    if idle > 0 {
        let (node, hold) = if idle == 1 {
            ("node", "holds")
        } else {
            ("nodes", "hold")
        };
        let _ = writeln!(out, "  {idle} other alive {node} {hold} nothing");
    }
    if dead > 0 {
        let _ = writeln!(
            out,
            "  {dead} dead node{} (host nothing)",
            if dead == 1 { "" } else { "s" }
        );
    }
    let pending: Vec<String> = assignment
        .iter()
        .enumerate()
        .filter(|(_, n)| n.is_none())
        .map(|(i, _)| format!("{}[{}]", pools[slots[i].pool].name, slots[i].slot))
        .collect();
    if !pending.is_empty() {
        let _ = writeln!(out, "  PENDING: {}", pending.join(" "));
    }
    out
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
