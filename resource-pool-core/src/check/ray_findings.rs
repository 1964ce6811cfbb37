//! Turning Ray's simulated verdict into diagnostics: which group pends, why, and the fix.

use super::placement_findings::slot_names;
use super::{CheckDiagnostic, SlotSpans};
use crate::model::{Cluster, NodeSlot, ResourcePool};
use crate::ray_sim::{GroupFate, RayBranch, RayFix, RayReport, RayVerdict};
use crate::source::to_source_span;

/// How the branch went, in creation order: `reward_pool[0] → big, then global_pool[0]
/// pends (big: GPU 4 of 8)`.
fn story(
    branch: &RayBranch,
    slots: &[NodeSlot],
    pools: &[ResourcePool],
    cluster: &Cluster,
) -> String {
    let mut steps = Vec::new();
    for (i, fate) in branch.groups.iter().enumerate() {
        let name = format!("{}[{}]", pools[slots[i].pool].name, slots[i].slot);
        match fate {
            GroupFate::Placed { node } => {
                let id = cluster.nodes.get(*node).map_or("?", |n| n.id.as_str());
                steps.push(format!("{name} → {id}"));
            }
            GroupFate::Pending(pending) => {
                let near = pending
                    .nearest
                    .as_ref()
                    .map_or_else(|| "no node is alive".to_owned(), |n| n.to_string());
                steps.push(format!("{name} pends, {} ({near})", pending.state));
            }
            GroupFate::NotCreated { .. } => {}
        }
        if steps.len() >= 12 {
            steps.push("…".to_owned());
            break;
        }
    }
    steps.join(", ")
}

fn fix_text(
    fix: Option<&RayFix>,
    slots: &[NodeSlot],
    pools: &[ResourcePool],
    cluster: &Cluster,
) -> String {
    match fix {
        Some(RayFix::PoolOrder(order)) => {
            let names: Vec<&str> = order.iter().filter_map(|&p| pools.get(p)).map(|p| p.name.as_str()).collect();
            format!(
                "Ray places every group when the pools are created in this order: {} (reorder the [pools.*] tables)",
                names.join(", ")
            )
        }
        Some(RayFix::Pin(witness)) => {
            let pins: Vec<String> = witness
                .nodes
                .iter()
                .enumerate()
                .take(8)
                .map(|(i, &node)| {
                    let id = cluster.nodes.get(node).map_or("?", |n| n.id.as_str());
                    format!("{}[{}] → {id}", pools[slots[i].pool].name, slots[i].slot)
                })
                .collect();
            format!(
                "no pool order makes Ray place it; pin the groups to nodes (for example with a custom resource per node in bundle_resources): {}",
                pins.join(", ")
            )
        }
        None => "Make the layout fit first (see the placement errors), or give Ray room: fewer or smaller node-slots".to_owned(),
    }
}

/// Ray's findings, when it does not simply place everything.
pub(super) fn ray(
    report: &RayReport,
    feasible: Option<bool>,
    slots: &[NodeSlot],
    pools: &[ResourcePool],
    cluster: &Cluster,
    spans: &dyn SlotSpans,
) -> Vec<CheckDiagnostic> {
    let span_of = |i: usize| {
        slots
            .get(i)
            .and_then(|s| spans.slot_span(s.pool, s.slot))
            .map(|s| to_source_span(&s))
    };
    if feasible == Some(false) {
        // Nothing fits: the placement errors say why, and Ray hangs as a consequence.
        return Vec::new();
    }
    match report.verdict {
        RayVerdict::Places => Vec::new(),
        RayVerdict::Undecided => vec![CheckDiagnostic::RayUndecided {
            branches: report.branches,
        }],
        RayVerdict::Hangs => {
            let Some((i, pending)) = report.representative.first_pending() else {
                return Vec::new();
            };
            let blocked: Vec<usize> = report
                .representative
                .groups
                .iter()
                .enumerate()
                .filter(|(_, g)| matches!(g, GroupFate::NotCreated { .. }))
                .map(|(i, _)| i)
                .collect();
            let mut help = format!(
                "Ray's order: {}",
                story(&report.representative, slots, pools, cluster)
            );
            if !blocked.is_empty() {
                help.push_str(&format!(
                    "; verl then waits forever and never creates {}",
                    slot_names(&blocked, slots, pools)
                ));
            }
            help.push_str(". ");
            help.push_str(&fix_text(report.fix.as_ref(), slots, pools, cluster));
            let why = pending.nearest.as_ref().map_or_else(
                || format!("pending ({}): no node is alive", pending.state),
                |n| format!("pending ({}): {n}", pending.state),
            );
            vec![CheckDiagnostic::RayHangs {
                pool: pools[slots[i].pool].name.clone(),
                slot: slots[i].slot,
                feasible: if feasible == Some(true) {
                    ", though a placement exists".to_owned()
                } else {
                    String::new()
                },
                help,
                span: span_of(i),
                why,
            }]
        }
        RayVerdict::DependsOnTies => {
            let pending = report.representative.first_pending().map(|(i, _)| i);
            let mut help = format!(
                "on some tie-breaks: {}",
                story(&report.representative, slots, pools, cluster)
            );
            if let Some(good) = &report.alternative {
                help.push_str(&format!(
                    "; on others: {}",
                    story(good, slots, pools, cluster)
                ));
            }
            help.push_str(". ");
            help.push_str(&fix_text(report.fix.as_ref(), slots, pools, cluster));
            vec![CheckDiagnostic::RayDependsOnTies {
                help,
                span: pending.and_then(span_of),
            }]
        }
    }
}
