//! Turning the placement check's outcome into diagnostics in the user's terms.

use super::{CheckDiagnostic, SlotSpans};
use crate::model::{Cluster, NodeSlot, ResourcePool, names};
use crate::placement::{
    BudgetLimit, IdleFit, Infeasible, InfeasibleReason, NearestNode, Undecided, UnfitSlots,
};
use crate::source::to_source_span;

/// ` (busy now: ...)` or ` (never: ...)`, from the idle check.
fn when(idle: Option<IdleFit>) -> String {
    match idle {
        Some(IdleFit::BusyNow) => " (busy now: it would fit the idle cluster)".to_owned(),
        Some(IdleFit::Never) => " (never: not even on the idle cluster)".to_owned(),
        Some(IdleFit::Unknown) | None => String::new(),
    }
}

fn busy_help(idle: Option<IdleFit>) -> Option<&'static str> {
    (idle == Some(IdleFit::BusyNow)).then_some(
        "other work holds the resources now: wait for it to finish, or free its placement groups; ",
    )
}

/// "slot 0 of global_pool, slot 1 of global_pool" → compact names.
pub(super) fn slot_names(indices: &[usize], slots: &[NodeSlot], pools: &[ResourcePool]) -> String {
    let shown: Vec<String> = indices
        .iter()
        .take(8)
        .filter_map(|&i| slots.get(i))
        .map(|s| format!("{}[{}]", pools[s.pool].name, s.slot))
        .collect();
    let more = indices.len().saturating_sub(8);
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// The advice for a slot that fits no node, from what the nearest node lacks.
fn unfit_help(
    unfit: &UnfitSlots,
    slots: &[NodeSlot],
    pools: &[ResourcePool],
    cluster: &Cluster,
) -> String {
    let Some(nearest) = &unfit.nearest else {
        return "no node is alive: start the cluster's nodes, or check the cluster you point at"
            .to_owned();
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
                advice.push(format!(
                    "the nodes have {other}s, not {r}s: set `accelerator = \"{other}\"` if that is what the pool should use"
                ));
            } else {
                advice.push(format!(
                    "no node has {} {r}s free: split the node-slot into smaller ones (`process_on_nodes`), or add a larger node",
                    lack.needed
                ));
            }
        } else if r == names::CPU {
            advice.push(format!(
                "{} CPUs needed ({} per bundle): lower `max_colocate_count`, or start the node with more CPUs (`ray start --num-cpus`)",
                lack.needed,
                pool.map_or(0, |p| p.spec.max_colocate_count)
            ));
        } else if lack.free.is_zero() && !cluster.alive().any(|n| !n.available.get(r).is_zero()) {
            advice.push(format!(
                "no alive node has `{r}` free: check its spelling (`accelerator_type`, `bundle_resources`) against `ray start --resources`"
            ));
        } else {
            advice.push(format!(
                "`{r}`: {} of {} free on the nearest node",
                lack.free, lack.needed
            ));
        }
    }
    advice.join("; ")
}

fn nearest_text(nearest: Option<&NearestNode>) -> String {
    nearest.map_or_else(|| "none: no node is alive".to_owned(), |n| n.to_string())
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
    let prefix = busy_help(idle).unwrap_or("");
    found
        .reasons
        .iter()
        .map(|reason| match reason {
            InfeasibleReason::SlotFitsNoNode(unfit) => {
                let first = slots.get(unfit.slots[0]);
                let pool = first.map_or(String::new(), |s| pools[s.pool].name.clone());
                let of_pool: Vec<usize> =
                    unfit.slots.iter().filter_map(|&i| slots.get(i)).map(|s| s.slot).collect();
                let what = if of_pool.len() == 1 {
                    format!("node-slot {}", of_pool[0])
                } else {
                    let list: Vec<String> = of_pool.iter().take(8).map(usize::to_string).collect();
                    format!("node-slots {}", list.join(", "))
                };
                let short = unfit
                    .nearest
                    .as_ref()
                    .map_or_else(|| "no node is alive".to_owned(), |n| format!("fits no node ({n})"));
                CheckDiagnostic::SlotFitsNoNode {
                    what,
                    pool,
                    demand: unfit.demand.to_string(),
                    nearest: nearest_text(unfit.nearest.as_ref()),
                    when: when(idle),
                    help: format!("{prefix}{}", unfit_help(unfit, slots, pools, cluster)),
                    span: first.and_then(|s| spans.slot_span(s.pool, s.slot)).map(|s| to_source_span(&s)),
                    short,
                }
            }
            InfeasibleReason::ResourceRunsOut(short) => {
                let first_pool = slots.iter().find(|s| !s.demand.get(&short.resource).is_zero()).map(|s| s.pool);
                CheckDiagnostic::ResourceRunsOut {
                    resource: short.resource.clone(),
                    needed: short.needed.to_string(),
                    free: short.free.to_string(),
                    when: when(idle),
                    help: format!(
                        "{prefix}ask for less {} (fewer or smaller node-slots), or add nodes that have it",
                        short.resource
                    ),
                    span: first_pool.and_then(|p| spans.pool_span(p)).map(|s| to_source_span(&s)),
                }
            }
            InfeasibleReason::NotTogether(together) => {
                let first = together.left_out.first().and_then(|&i| slots.get(i));
                CheckDiagnostic::NotTogether {
                    fits: together.fits.len(),
                    total: together.fits.len() + together.left_out.len(),
                    when: when(idle),
                    help: format!(
                        "{prefix}every node-slot fits some node alone, but the nodes fragment: left out {}; use smaller node-slots or add a node",
                        slot_names(&together.left_out, slots, pools)
                    ),
                    span: first.and_then(|s| spans.slot_span(s.pool, s.slot)).map(|s| to_source_span(&s)),
                }
            }
        })
        .collect()
}

/// The diagnostic for an undecided search.
pub(super) fn undecided(found: &Undecided, total: usize) -> CheckDiagnostic {
    let limit = match found.limit {
        BudgetLimit::Steps => "step budget",
        BudgetLimit::Time => "time budget",
    };
    CheckDiagnostic::Undecided {
        limit: limit.to_owned(),
        fits: found.fits.len(),
        total,
    }
}
