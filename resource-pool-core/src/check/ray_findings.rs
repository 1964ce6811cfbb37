//! Turning Ray's simulated verdict into diagnostics: which group pends, why, and the fix.

use super::diagnostics::SlotRef;
use super::placement_findings::slot_list;
use super::ray_advice::{Pin, RayAdvice, RayOrder, RayStep};
use super::wording::LayoutWording;
use super::{CheckDiagnostic, SlotSpans};
use crate::model::{Cluster, Node, NodeName, NodeSlot, ResourcePool};
use crate::ray_sim::{GroupFate, RayBranch, RayFix, RayReport, RayVerdict};
use crate::source::to_source_span;

/// The most steps of Ray's order a diagnostic shows.
const MAX_STEPS: usize = 12;
/// The most pins a diagnostic shows.
const MAX_PINS: usize = 8;

fn slot_ref(i: usize, slots: &[NodeSlot], pools: &[ResourcePool]) -> SlotRef {
    SlotRef {
        pool: pools[slots[i].pool].name.clone(),
        slot: slots[i].slot,
    }
}

fn node_name(cluster: &Cluster, node: usize) -> NodeName {
    cluster.nodes.get(node).map_or_else(
        || NodeName {
            id: "?".to_owned(),
            address: None,
        },
        Node::name,
    )
}

/// How the branch went, in creation order: `reward_pool[0] → big, then global_pool[0]
/// pends (big: GPU 4 of 8)`.
fn order(
    branch: &RayBranch,
    slots: &[NodeSlot],
    pools: &[ResourcePool],
    cluster: &Cluster,
) -> RayOrder {
    let mut order = RayOrder::default();
    for (i, fate) in branch.groups.iter().enumerate() {
        let group = slot_ref(i, slots, pools);
        match fate {
            GroupFate::Placed { node } => order.steps.push(RayStep::Placed {
                group,
                node: node_name(cluster, *node),
            }),
            GroupFate::Pending(pending) => order.steps.push(RayStep::Pends {
                group,
                state: pending.state,
                nearest: pending.nearest.clone(),
            }),
            GroupFate::NotCreated { .. } => {}
        }
        if order.steps.len() >= MAX_STEPS {
            order.truncated = true;
            break;
        }
    }
    order
}

/// The fix of Ray's verdict; a pool order is worded for where the layout was written
/// (`written`).
fn advice(
    fix: Option<&RayFix>,
    slots: &[NodeSlot],
    pools: &[ResourcePool],
    cluster: &Cluster,
    written: LayoutWording,
) -> RayAdvice {
    match fix {
        Some(RayFix::PoolOrder(order)) => RayAdvice::PoolOrder {
            pools: order
                .iter()
                .filter_map(|&p| pools.get(p))
                .map(|p| p.name.clone())
                .collect(),
            written,
        },
        Some(RayFix::Pin(witness)) => RayAdvice::Pin {
            pins: witness
                .nodes
                .iter()
                .enumerate()
                .take(MAX_PINS)
                .map(|(i, &node)| Pin {
                    group: slot_ref(i, slots, pools),
                    node: node_name(cluster, node),
                })
                .collect(),
        },
        None => RayAdvice::MakeRoom,
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
    let fix = || advice(report.fix.as_ref(), slots, pools, cluster, spans.wording());
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
            vec![CheckDiagnostic::RayHangs {
                pool: pools[slots[i].pool].name.clone(),
                slot: slots[i].slot,
                placement_exists: feasible == Some(true),
                state: pending.state,
                nearest: pending.nearest.clone(),
                order: order(&report.representative, slots, pools, cluster),
                never_created: slot_list(&blocked, slots, pools),
                fix: fix(),
                span: span_of(i),
            }]
        }
        RayVerdict::DependsOnTies => {
            let pending = report.representative.first_pending().map(|(i, _)| i);
            vec![CheckDiagnostic::RayDependsOnTies {
                hanging: order(&report.representative, slots, pools, cluster),
                placing: report
                    .alternative
                    .as_ref()
                    .map(|good| order(good, slots, pools, cluster)),
                fix: fix(),
                span: pending.and_then(span_of),
            }]
        }
    }
}
