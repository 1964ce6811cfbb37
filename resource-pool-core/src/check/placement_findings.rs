//! Turning the placement check's outcome into diagnostics in the user's terms.

use super::diagnostics::{SearchLimit, SlotAdvice, SlotList, SlotRef};
use super::{CheckDiagnostic, SlotSpans};
use crate::model::{Cluster, NodeSlot, ResourcePool, names};
use crate::placement::{BudgetLimit, Infeasible, InfeasibleReason, Undecided, UnfitSlots};
use crate::source::to_source_span;

/// The node-slots of these indices, by name.
pub(super) fn slot_list(indices: &[usize], slots: &[NodeSlot], pools: &[ResourcePool]) -> SlotList {
    SlotList(
        indices
            .iter()
            .filter_map(|&i| slots.get(i))
            .map(|s| SlotRef {
                pool: pools[s.pool].name.clone(),
                slot: s.slot,
            })
            .collect(),
    )
}

/// The advice for a slot that fits no node, from what the nearest node lacks.
fn unfit_advice(
    unfit: &UnfitSlots,
    slots: &[NodeSlot],
    pools: &[ResourcePool],
    cluster: &Cluster,
) -> Vec<SlotAdvice> {
    let Some(nearest) = &unfit.nearest else {
        return vec![SlotAdvice::NoNodeAlive];
    };
    let pool = slots.get(unfit.slots[0]).map(|s| &pools[s.pool]);
    let accelerator = pool.map_or(names::GPU, |p| p.spec.accelerator.resource_name());
    let mut advice = Vec::new();
    for lack in &nearest.lacks {
        let r = lack.resource.as_str();
        if r == accelerator {
            let other = if r == names::GPU {
                names::NPU
            } else {
                names::GPU
            };
            if cluster.alive().any(|n| {
                !n.available.get(other).is_zero()
                    || n.total.as_ref().is_some_and(|t| !t.get(other).is_zero())
            }) {
                advice.push(SlotAdvice::OtherAccelerator {
                    asked: r.to_owned(),
                    found: other.to_owned(),
                });
            } else {
                advice.push(SlotAdvice::TooLarge {
                    resource: r.to_owned(),
                    needed: lack.needed,
                });
            }
        } else if r == names::CPU {
            advice.push(SlotAdvice::Cpus {
                needed: lack.needed,
                per_bundle: pool.map_or(0, |p| p.spec.max_colocate_count),
            });
        } else if lack.free.is_zero() && !cluster.alive().any(|n| !n.available.get(r).is_zero()) {
            advice.push(SlotAdvice::NotDeclared {
                resource: r.to_owned(),
            });
        } else {
            advice.push(SlotAdvice::Short {
                resource: r.to_owned(),
                free: lack.free,
                needed: lack.needed,
            });
        }
    }
    advice
}

/// Diagnostics for an infeasible layout.
pub(super) fn infeasible(
    found: &Infeasible,
    slots: &[NodeSlot],
    pools: &[ResourcePool],
    cluster: &Cluster,
    spans: &dyn SlotSpans,
) -> Vec<CheckDiagnostic> {
    let idle = found.idle;
    found
        .reasons
        .iter()
        .map(|reason| match reason {
            InfeasibleReason::SlotFitsNoNode(unfit) => {
                let first = slots.get(unfit.slots[0]);
                CheckDiagnostic::SlotFitsNoNode {
                    pool: first.map_or(String::new(), |s| pools[s.pool].name.clone()),
                    slots: unfit
                        .slots
                        .iter()
                        .filter_map(|&i| slots.get(i))
                        .map(|s| s.slot)
                        .collect(),
                    demand: unfit.demand.clone(),
                    nearest: unfit.nearest.clone(),
                    idle,
                    advice: unfit_advice(unfit, slots, pools, cluster),
                    span: first
                        .and_then(|s| spans.slot_span(s.pool, s.slot))
                        .map(|s| to_source_span(&s)),
                }
            }
            InfeasibleReason::ResourceRunsOut(short) => {
                let first_pool = slots
                    .iter()
                    .find(|s| !s.demand.get(&short.resource).is_zero())
                    .map(|s| s.pool);
                CheckDiagnostic::ResourceRunsOut {
                    resource: short.resource.clone(),
                    needed: short.needed,
                    free: short.free,
                    idle,
                    span: first_pool
                        .and_then(|p| spans.pool_span(p))
                        .map(|s| to_source_span(&s)),
                }
            }
            InfeasibleReason::NotTogether(together) => {
                let first = together.left_out.first().and_then(|&i| slots.get(i));
                CheckDiagnostic::NotTogether {
                    fits: together.fits.len(),
                    total: together.fits.len() + together.left_out.len(),
                    idle,
                    left_out: slot_list(&together.left_out, slots, pools),
                    span: first
                        .and_then(|s| spans.slot_span(s.pool, s.slot))
                        .map(|s| to_source_span(&s)),
                }
            }
        })
        .collect()
}

/// The diagnostic for an undecided search.
pub(super) fn undecided(found: &Undecided, total: usize) -> CheckDiagnostic {
    CheckDiagnostic::Undecided {
        limit: match found.limit {
            BudgetLimit::Steps => SearchLimit::Steps,
            BudgetLimit::Time => SearchLimit::Time,
        },
        fits: found.fits.len(),
        total,
    }
}
