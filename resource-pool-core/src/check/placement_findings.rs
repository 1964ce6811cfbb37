//! Turning the placement check's outcome into diagnostics in the user's terms.

use miette::LabeledSpan;

use super::diagnostics::{PoolNeed, SearchLimit, SlotAdvice, SlotList, SlotRef};
use super::wording::ClusterWording;
use super::{CheckDiagnostic, SlotSpans};
use crate::model::{Cluster, NodeSlot, ResourcePool, names};
use crate::placement::{
    BudgetLimit, Infeasible, InfeasibleReason, NotTogether, ShortTotal, Undecided, UnfitSlots,
};
use crate::source::to_source_span;
use crate::words::{noun, verb};

/// The prefix Ray gives the accelerator type it detects on a node
/// (`accelerator_type:H100`).
pub const RAY_TYPE_PREFIX: &str = "accelerator_type:";

/// A pool's `accelerator_type` that no alive node declares, where the nodes declare a name
/// that differs from it only by Ray's `accelerator_type:` prefix or by case. verl adds the
/// pool's type to each bundle as given, and Ray matches resource names exactly.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[error(
    "pool `{pool}` asks for accelerator type `{asked}`, which no alive node declares; {nodes} of {alive} alive {} {} `{declared}`",
    noun(*.alive, "node"),
    verb(*.nodes, "declares", "declare")
)]
#[diagnostic(
    code(resource_pool::placement::accelerator_type_name),
    help(
        "write `accelerator_type = \"{declared}\"`: verl adds the pool's accelerator_type to every bundle as given and Ray matches resource names exactly (a type Ray detects is declared as `accelerator_type:<model>`)"
    )
)]
pub struct AcceleratorTypeName {
    /// The pool, by its name in the config.
    pub pool: String,
    /// The name the pool asks for.
    pub asked: String,
    /// The name the nodes declare: the one to write.
    pub declared: String,
    /// Alive nodes that declare it.
    pub nodes: usize,
    /// Alive nodes.
    pub alive: usize,
    /// The pool.
    #[serde(skip)]
    #[label("asks for `{asked}`")]
    pub span: Option<miette::SourceSpan>,
}

/// `H100`, `accelerator_type:H100` and `accelerator_type:h100` are one type to a person.
fn type_key(name: &str) -> String {
    let lower = name.to_lowercase();
    lower
        .strip_prefix(RAY_TYPE_PREFIX)
        .map_or(lower.clone(), str::to_owned)
}

/// The name alive nodes declare for the accelerator type `asked` when none declares
/// `asked` itself but some declare it with or without Ray's prefix, or in another case:
/// the name most nodes declare (ties by name), and how many do.
pub fn type_spelling(asked: &str, cluster: &Cluster) -> Option<(String, usize)> {
    let declared = |node: &crate::model::Node| -> Vec<String> {
        node.total
            .as_ref()
            .unwrap_or(&node.available)
            .iter()
            .chain(node.available.iter())
            .map(|(name, _)| name.to_owned())
            .collect()
    };
    if cluster
        .alive()
        .any(|n| declared(n).iter().any(|name| name == asked))
    {
        return None;
    }
    let key = type_key(asked);
    let mut counts: Vec<(String, usize)> = Vec::new();
    for node in cluster.alive() {
        let mut names = declared(node);
        names.sort_unstable();
        names.dedup();
        for name in names.into_iter().filter(|n| type_key(n) == key) {
            match counts.iter_mut().find(|(n, _)| *n == name) {
                Some(entry) => entry.1 += 1,
                None => counts.push((name, 1)),
            }
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    counts.into_iter().next()
}

/// Whether the check says that `resource`, which no alive node declares, is a pool's
/// accelerator type the nodes spell otherwise ([`AcceleratorTypeName`]): a generic "no node
/// declares it" about it would say less, twice.
pub fn spelt_otherwise(report: &super::CheckReport, resource: &str) -> bool {
    report.diagnostics.iter().any(
        |d| matches!(d, CheckDiagnostic::AcceleratorTypeName(named) if named.asked == resource),
    )
}

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
            let declares = |name: &str| {
                cluster.alive().any(|n| {
                    !n.available.get(name).is_zero()
                        || n.total.as_ref().is_some_and(|t| !t.get(name).is_zero())
                })
            };
            if declares(other) {
                advice.push(SlotAdvice::OtherAccelerator {
                    asked: r.to_owned(),
                    found: other.to_owned(),
                });
            } else if !declares(r) {
                // No node has any (CPU-only nodes, a GPU count of 0): smaller node-slots
                // would not fit either.
                advice.push(SlotAdvice::NotDeclared {
                    resource: r.to_owned(),
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
        } else if let Some((declared, _)) = type_spelling(r, cluster)
            && pool.and_then(|p| p.spec.accelerator_type.as_deref()) == Some(r)
        {
            advice.push(SlotAdvice::SpelledOtherwise {
                asked: r.to_owned(),
                declared,
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
    let layout = InfeasibleLayout {
        found,
        slots,
        pools,
        cluster,
        spans,
    };
    let mut out = Vec::new();
    let named = layout.misspelt_types(&mut out);
    // A slot whose nearest node lacks only the misspelt type, and the type's total, are
    // said by the diagnostic above alone.
    let named_type = |pool: usize| {
        named
            .contains(&pool)
            .then(|| pools[pool].spec.accelerator_type.as_deref())
            .flatten()
    };
    let only_the_type = |unfit: &UnfitSlots| {
        slots.get(unfit.slots[0]).is_some_and(|s| {
            let name = named_type(s.pool);
            name.is_some()
                && unfit
                    .nearest
                    .as_ref()
                    .is_some_and(|n| n.lacks.iter().all(|l| Some(l.resource.as_str()) == name))
        })
    };
    let named_types: Vec<&str> = named.iter().filter_map(|&p| named_type(p)).collect();
    let rest = found
        .reasons
        .iter()
        .filter(|reason| match reason {
            InfeasibleReason::SlotFitsNoNode(u) => !only_the_type(u),
            InfeasibleReason::ResourceRunsOut(short) => {
                !named_types.contains(&short.resource.as_str())
            }
            InfeasibleReason::NotTogether(_) => true,
        })
        .map(|reason| layout.reason(reason));
    out.extend(rest);
    out
}

/// An infeasible layout, with what its diagnostics are worded from.
struct InfeasibleLayout<'a> {
    found: &'a Infeasible,
    slots: &'a [NodeSlot],
    pools: &'a [ResourcePool],
    cluster: &'a Cluster,
    spans: &'a dyn SlotSpans,
}

impl InfeasibleLayout<'_> {
    /// One [`AcceleratorTypeName`] per pool whose slot fits no node for lack of its
    /// `accelerator_type`, which the nodes spell otherwise; returns those pools.
    fn misspelt_types(&self, out: &mut Vec<CheckDiagnostic>) -> Vec<usize> {
        let mut named: Vec<usize> = Vec::new();
        for reason in &self.found.reasons {
            let InfeasibleReason::SlotFitsNoNode(unfit) = reason else {
                continue;
            };
            let Some(slot) = self.slots.get(unfit.slots[0]) else {
                continue;
            };
            let pool = &self.pools[slot.pool];
            let Some(asked) = pool.spec.accelerator_type.as_deref() else {
                continue;
            };
            let lacks_it = unfit
                .nearest
                .as_ref()
                .is_some_and(|n| n.lacks.iter().any(|l| l.resource == asked));
            if !lacks_it || named.contains(&slot.pool) {
                continue;
            }
            if let Some((declared, nodes)) = type_spelling(asked, self.cluster) {
                named.push(slot.pool);
                out.push(CheckDiagnostic::from(AcceleratorTypeName {
                    pool: pool.name.clone(),
                    asked: asked.to_owned(),
                    declared,
                    nodes,
                    alive: self.cluster.alive().count(),
                    span: self.spans.pool_span(slot.pool).map(|s| to_source_span(&s)),
                }));
            }
        }
        named
    }

    /// The diagnostic of one reason the layout is infeasible.
    fn reason(&self, reason: &InfeasibleReason) -> CheckDiagnostic {
        match reason {
            InfeasibleReason::SlotFitsNoNode(unfit) => self.slot_fits_no_node(unfit),
            InfeasibleReason::ResourceRunsOut(short) => self.resource_runs_out(short),
            InfeasibleReason::NotTogether(together) => self.not_together(together),
        }
    }

    /// Node-slots that no node could host even when empty, with advice on each lack.
    fn slot_fits_no_node(&self, unfit: &UnfitSlots) -> CheckDiagnostic {
        let (slots, pools, spans) = (self.slots, self.pools, self.spans);
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
            idle: self.found.idle,
            listed_by: ClusterWording::default(),
            written: spans.wording(),
            advice: unfit_advice(unfit, slots, pools, self.cluster),
            span: first
                .and_then(|s| spans.slot_span(s.pool, s.slot))
                .map(|s| to_source_span(&s)),
        }
    }

    /// A resource the pools together need more of than the cluster has free, labelled on
    /// each pool that asks for it.
    fn resource_runs_out(&self, short: &ShortTotal) -> CheckDiagnostic {
        let spans = self.spans;
        let needs = pool_needs(&short.resource, self.slots, self.pools);
        CheckDiagnostic::ResourceRunsOut {
            resource: short.resource.clone(),
            needed: short.needed,
            free: short.free,
            idle: self.found.idle,
            listed_by: ClusterWording::default(),
            written: spans.wording(),
            spans: needs
                .iter()
                .filter_map(|(pool, need)| {
                    let span = spans.pool_span(*pool)?;
                    Some(LabeledSpan::new_with_span(
                        Some(format!("asks for {} {}", need.needed, short.resource)),
                        to_source_span(&span),
                    ))
                })
                .collect(),
            pools: needs.into_iter().map(|(_, need)| need).collect(),
        }
    }

    /// Node-slots that each fit somewhere but not all together, spanned on the first left
    /// out.
    fn not_together(&self, together: &NotTogether) -> CheckDiagnostic {
        let first = together.left_out.first().and_then(|&i| self.slots.get(i));
        CheckDiagnostic::NotTogether {
            fits: together.fits.len(),
            total: together.fits.len() + together.left_out.len(),
            idle: self.found.idle,
            listed_by: ClusterWording::default(),
            written: self.spans.wording(),
            left_out: slot_list(&together.left_out, self.slots, self.pools),
            span: first
                .and_then(|s| self.spans.slot_span(s.pool, s.slot))
                .map(|s| to_source_span(&s)),
        }
    }
}

/// What each pool that asks for `resource` needs of it over its node-slots, in creation
/// order (pools that ask for none left out), with the pool's index.
fn pool_needs(
    resource: &str,
    slots: &[NodeSlot],
    pools: &[ResourcePool],
) -> Vec<(usize, PoolNeed)> {
    let mut needs: Vec<(usize, PoolNeed)> = Vec::new();
    for slot in slots {
        let amount = slot.demand.get(resource);
        if amount.is_zero() {
            continue;
        }
        match needs.iter_mut().find(|(pool, _)| *pool == slot.pool) {
            Some((_, need)) => need.needed = need.needed.saturating_add(amount),
            None => needs.push((
                slot.pool,
                PoolNeed {
                    pool: pools
                        .get(slot.pool)
                        .map_or(String::new(), |p| p.name.clone()),
                    needed: amount,
                },
            )),
        }
    }
    needs.sort_by_key(|(pool, _)| *pool);
    needs
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Amount, Node};
    use crate::test_support::res;

    fn with(name: &str) -> Node {
        Node::new("n", res(8, 32).with(name, Amount::from_units(10_000)))
    }

    #[test]
    fn a_type_is_found_with_or_without_rays_prefix_and_in_any_case() {
        let prefixed = Cluster::new(vec![
            with("accelerator_type:H100"),
            with("accelerator_type:H100"),
        ]);
        assert_eq!(
            type_spelling("H100", &prefixed),
            Some(("accelerator_type:H100".to_owned(), 2))
        );
        assert_eq!(
            type_spelling("accelerator_type:h100", &prefixed),
            Some(("accelerator_type:H100".to_owned(), 2))
        );
        let bare = Cluster::new(vec![with("H100")]);
        assert_eq!(
            type_spelling("accelerator_type:H100", &bare),
            Some(("H100".to_owned(), 1))
        );
        // Declared as asked, or not at all: nothing to say.
        assert_eq!(type_spelling("accelerator_type:H100", &prefixed), None);
        assert_eq!(type_spelling("A100", &prefixed), None);
    }

    #[test]
    fn the_name_most_nodes_declare_wins() {
        let cluster = Cluster::new(vec![
            with("accelerator_type:H100"),
            with("h100"),
            with("accelerator_type:H100"),
        ]);
        assert_eq!(
            type_spelling("H100", &cluster),
            Some(("accelerator_type:H100".to_owned(), 2))
        );
    }
}
