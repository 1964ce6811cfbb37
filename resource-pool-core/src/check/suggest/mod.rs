//! When a layout does not fit: the largest layout of the same shape that the cluster
//! places, now and when idle.
//!
//! # The shapes searched
//!
//! Every pool keeps its bundles (accelerator, `max_colocate_count`, `accelerator_type`,
//! `bundle_resources`), keeps at least one node-slot, and never asks for more
//! accelerators than it does now. Within that, each pool may change as its
//! [`Reshape`] says:
//!
//! - [`Reshape::Trim`] (a `process_on_nodes` list): the pool keeps its slot sizes and loses
//!   node-slots from the end: `[8, 8, 4]` may become `[8, 8]` or `[8]`.
//! - [`Reshape::Split`] (`gpus_per_node` × `nnodes` in a config): `size × count` may
//!   become `s × k` for any divisor `s` of `size` (a whole split of the node-slot: 8 → 8,
//!   4, 2, 1) and any `k ≥ 1` with `s·k ≤ size·count`. Keeping `size` and lowering `count`
//!   is the trim of this form.
//! - [`Reshape::Spread`] (verl's `n_gpus_per_node` × `nnodes`): a split whose `s` may also
//!   be a power of two that does not divide `size` (`1 × 6` may become `4 × 1`), and whose
//!   `k` is at most the alive nodes that hold one node-slot of `s`, since verl's `nnodes`
//!   counts machines: a suggestion never brings verl's own `nnodes_vs_cluster` warning.
//!
//! A pool may also have to keep a multiple ([`LayoutTerms::multiple`]: verl's rollout
//! replica size for the pool actor_rollout runs on): its accelerators stay a multiple of
//! it, a spread's `s` is a multiple or a divisor of it, and its multiples and divisors are
//! tried as `s` too. It is often why no layout fits, so the advice that none does names
//! every multiple over 1 and what it is made of ([`LayoutTerms::multiple_source`]).
//!
//! # The order
//!
//! The suggestion is the first layout in this order that Ray, simulated in verl's order
//! (pools in creation order, slots in list order; [`crate::ray_sim`]), places on every
//! tie-break it follows:
//!
//! 1. most accelerators in total;
//! 2. then fewest pools changed;
//! 3. then the earliest pools keep the most: the pools' accelerators compared in pool
//!    order, larger first;
//! 4. then larger node-slots: the pools' slot sizes compared in pool order, larger first
//!    (`8 × 2` before `4 × 4`).
//!
//! No two layouts have the same key, so the answer is the same on every run (unless the
//! wall-clock budget cuts the search, which then says so).
//!
//! # The search
//!
//! Layouts are tried by total, from the largest worth trying down, and within a total by
//! the number of pools changed, fewest first: one walk over the pools each (depth first,
//! each pool's values largest first, bounded by what the later pools can still add and
//! must at least add; a value's choices combined larger slots first), which visits the
//! layouts already in the order above, so nothing is collected or sorted. A walk for `c`
//! changed pools stops going deeper once more than `c` pools must change. What keeps it
//! small:
//!
//! - Fewer slots never need more: a pool alone can hold at most as many node-slots of one
//!   size as the nodes hold copies of it (exact for one size, as every node holds its
//!   copies independently; one per node for a spread), so each pool's choices stop there, and the largest total worth
//!   trying is the smallest of what the layout asks, the sum of those per-pool maxima and
//!   the accelerators free. A split pool's choices are computed when asked, never listed.
//! - A layout whose summed demand of some resource (GPU, NPU, CPU, an accelerator type, a
//!   custom one) exceeds what the alive nodes have free is skipped without a check.
//! - Every other layout goes through [`crate::placement::check_placement`] (bounds and
//!   heuristics, a small step budget): one it proves infeasible is skipped; any other is
//!   simulated ([`crate::ray_sim::simulate`], no fixes searched) and is the answer when Ray
//!   places it. Ray's verdict is what decides; the placement check only saves simulations.
//!   The answer's Ray placement is validated ([`crate::placement::Witness::validate`]).
//!
//! # Cost and budget
//!
//! Both answers together stay within the check's budget ([`SuggestOptions::within`]): one
//! step per total tried, per value looked at while walking, per layout, plus the
//! placement check's steps and one per Ray branch; the wall clock is read at every step
//! and passed on to every check and simulation. On a busy cluster the answer for now gets
//! at most half, the idle answer what is left. A search cut by the budget reports
//! [`SearchResult::Undecided`]; an answer found after layouts ranked before it were left
//! undecided (Ray's tie-break bound) says how many ([`Suggestion::undecided`]). The answer
//! is never a layout that was not checked.

mod choices;
mod diagnostic;
mod search;
mod space;
mod terms;

pub use crate::words::shell_word;
pub use choices::{PoolChoice, Reshape};
pub use diagnostic::{
    Edit, Holders, KeptMultiple, KeptMultiples, LayoutText, SuggestDiagnostic, Unit,
};
pub use search::search;
pub use terms::{Factor, LayoutTerms, MultipleSource, OverrideStyle, slot_edit_span};

use std::fmt;
use std::time::{Duration, Instant};

use super::{CheckOptions, CheckReport};
use crate::model::{Cluster, GroupRef, NodeName, NodeSlot, PoolId, ResourcePool, Resources};
use crate::placement::BudgetLimit;
use crate::ray_sim::{RayFix, RayReport, RayVerdict};

/// The budget of a suggestion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuggestOptions {
    /// The most steps, both answers together (see the module docs).
    pub max_steps: u64,
    /// The most wall-clock time, both answers together.
    pub budget: Duration,
    /// The most tie-break branches followed per Ray simulation.
    pub max_ray_branches: usize,
    /// Which pools get placement groups, and in what order ([`CheckOptions::creation`]).
    pub creation: Option<crate::check::Creation>,
}

impl SuggestOptions {
    /// The check's own budget: its placement steps and time, its Ray branches.
    pub fn within(check: &CheckOptions) -> SuggestOptions {
        SuggestOptions {
            max_steps: check.placement.max_steps,
            budget: check.placement.budget,
            max_ray_branches: check.ray.max_branches,
            creation: check.creation.clone(),
        }
    }
}

impl Default for SuggestOptions {
    /// The default check's budget.
    fn default() -> SuggestOptions {
        SuggestOptions::within(&CheckOptions::default())
    }
}

/// Which cluster an answer is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum When {
    /// The cluster as it is now.
    Now,
    /// The same cluster with nothing held (every alive node's total free).
    Idle,
}

impl fmt::Display for When {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            When::Now => "now",
            When::Idle => "idle",
        })
    }
}

/// A layout that fits: Ray places it in verl's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suggestion {
    /// The pools, in creation order: the same names and bundles, other node-slots.
    pub pools: Vec<ResourcePool>,
    /// What each pool became.
    pub choices: Vec<PoolChoice>,
    /// Its node-slots, in creation order.
    pub slots: Vec<NodeSlot>,
    /// Accelerators over every pool.
    pub accelerators: u64,
    /// Ray's simulation of it: it places every group (the representative branch says
    /// where).
    pub ray: RayReport,
    /// Layouts ranked before it that could not be decided (Ray's tie-break bound); 0 when
    /// it is the best of its shapes.
    pub undecided: usize,
    /// What to write to get it, in the layout's terms (see [`LayoutTerms::overrides`]);
    /// empty for a layout built in code.
    pub overrides: Vec<String>,
}

impl Suggestion {
    /// The pools that change.
    pub fn changed(&self) -> impl Iterator<Item = PoolId> + '_ {
        self.choices
            .iter()
            .enumerate()
            .filter(|(_, c)| c.changed)
            .map(|(i, _)| i)
    }

    /// The node of each slot where Ray places it.
    pub fn assignment(&self) -> Vec<Option<usize>> {
        let mut out = vec![None; self.slots.len()];
        for (slot, node) in self.ray.representative.placed() {
            if let Some(entry) = out.get_mut(slot) {
                *entry = Some(node);
            }
        }
        out
    }
}

/// What the search of one cluster state found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SearchResult {
    /// The first layout in the order that Ray places.
    Found(Suggestion),
    /// No layout of the searched shapes is placed by Ray.
    NoneFits,
    /// The budget ran out before an answer (or every layout left was undecided).
    Undecided {
        /// Layouts checked before it ran out.
        tried: usize,
    },
}

/// Numbers about one search.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Layouts visited (of the totals and counts of changed pools tried).
    pub generated: usize,
    /// Layouts skipped because some resource's total exceeds what is free.
    pub over_free: usize,
    /// Layouts the placement check proved infeasible.
    pub infeasible: usize,
    /// Layouts the launcher's own check refuses ([`LayoutTerms::admits`]).
    pub refused: usize,
    /// Layouts simulated.
    pub simulated: usize,
    /// Steps this search counted.
    pub steps: u64,
    /// Wall-clock time of this search.
    pub elapsed: Duration,
    /// Which limit ran out, if one did.
    pub exhausted: Option<BudgetLimit>,
}

/// One answer: for the cluster now, or idle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// Which cluster.
    pub when: When,
    /// What the search found.
    pub result: SearchResult,
    /// Numbers about it.
    pub stats: SearchStats,
}

/// What holds resources on a node now (a busy cluster's total minus its available).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Holder {
    /// The node (JSON: its id).
    pub node: NodeName,
    /// What is held there, over the resources the layout asks for.
    #[serde(serialize_with = "diagnostic::serialize_resources")]
    pub held: Resources,
    /// The placement groups that hold it, when the inventory knows (JSON: each its `id`
    /// and `name`).
    pub by: Vec<GroupRef>,
}

/// The suggestions for a layout that does not fit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suggestions {
    /// Accelerators the layout asks for.
    pub asked: u64,
    /// The answers: now, and, on a busy cluster (every alive node states its total and
    /// some hold less than it), idle.
    pub answers: Vec<Answer>,
    /// What holds resources now, on a busy cluster.
    pub holders: Vec<Holder>,
    /// The cluster the idle answer is for, on a busy cluster.
    pub idle: Option<Cluster>,
    /// How the overrides are written.
    pub style: OverrideStyle,
    /// The accelerator the pools ask for, for messages.
    pub unit: Unit,
    /// The pools whose accelerators every searched layout keeps a multiple (over 1) of,
    /// in creation order, for the advice when none fits.
    pub multiples: Vec<KeptMultiple>,
}

impl Suggestions {
    /// The answers found, with the cluster state each is for.
    pub fn found(&self) -> impl Iterator<Item = (When, &Suggestion)> + '_ {
        self.answers.iter().filter_map(|a| match &a.result {
            SearchResult::Found(s) => Some((a.when, s)),
            _ => None,
        })
    }

    /// Whether two answers are given (a busy cluster).
    pub fn busy(&self) -> bool {
        self.answers.iter().any(|a| a.when == When::Idle)
    }

    /// Names the holders: the placement groups that hold resources on a node, each with
    /// that node's id (an inventory's notes say them).
    pub fn name_holders<'a>(&mut self, held: impl IntoIterator<Item = (&'a str, &'a GroupRef)>) {
        for (node, group) in held {
            for holder in self.holders.iter_mut().filter(|h| h.node.id == node) {
                if !holder.by.contains(group) {
                    holder.by.push(group.clone());
                }
            }
        }
    }

    /// The suggestions as diagnostics (advice), labelled where `terms` says the pools are.
    pub fn diagnostics(&self, terms: &dyn LayoutTerms) -> Vec<SuggestDiagnostic> {
        diagnostic::diagnostics(self, terms)
    }
}

/// Whether a checked layout gets a suggestion: it cannot be placed, or Ray would hang (or
/// may, on ties) and no pool order fixes it (pools of `terms` that cannot be reordered,
/// such as verl's, are never fixed by an order). Not when the check was undecided.
pub fn wanted(report: &CheckReport, terms: &dyn LayoutTerms) -> bool {
    match report.feasible() {
        Some(false) => true,
        None => false,
        Some(true) => match report.ray.verdict {
            RayVerdict::Places | RayVerdict::Undecided => false,
            RayVerdict::Hangs | RayVerdict::DependsOnTies => {
                !(terms.reorderable() && matches!(report.ray.fix, Some(RayFix::PoolOrder(_))))
            }
        },
    }
}

/// The suggestions for a checked layout (call it when [`wanted`]): the answer for the
/// cluster now, and on a busy cluster the answer for the idle one, with the holders.
pub fn suggest(
    report: &CheckReport,
    cluster: &Cluster,
    terms: &dyn LayoutTerms,
    options: &SuggestOptions,
) -> Suggestions {
    let idle = if cluster.busy() { cluster.idle() } else { None };
    suggest_against(report, cluster, idle.as_ref(), terms, options)
}

/// [`suggest`] with the idle cluster given: `idle` is `cluster` once other work is gone,
/// `None` when none holds anything now. A launcher that holds part of the cluster itself
/// before its groups (verl's driver) passes the idle cluster with its own holds on it, so
/// that they count as neither other work nor free.
pub fn suggest_against(
    report: &CheckReport,
    cluster: &Cluster,
    idle: Option<&Cluster>,
    terms: &dyn LayoutTerms,
    options: &SuggestOptions,
) -> Suggestions {
    let pools = &report.pools;
    let reshape: Vec<Reshape> = (0..pools.len()).map(|p| terms.reshape(p)).collect();
    let multiples: Vec<u64> = (0..pools.len()).map(|p| terms.multiple(p)).collect();
    let asked = pools.iter().map(ResourcePool::world_size).sum();
    let mut budget = Budget::new(options.max_steps, options.budget);
    let mut answers = Vec::new();
    let now_share = if idle.is_some() {
        Budget::new(options.max_steps / 2, options.budget / 2)
    } else {
        Budget::new(options.max_steps, options.budget)
    };
    let mut now_budget = now_share;
    let layouts = search::Layouts {
        pools,
        reshape: &reshape,
        multiples: &multiples,
        admits: &|pools, cluster| terms.admits(pools, cluster),
    };
    let (result, stats) = search::search_within(&layouts, cluster, options, &mut now_budget);
    budget.steps = now_budget.steps;
    answers.push(Answer {
        when: When::Now,
        result,
        stats,
    });
    if let Some(idle) = idle {
        let (result, stats) = search::search_within(&layouts, idle, options, &mut budget);
        answers.push(Answer {
            when: When::Idle,
            result,
            stats,
        });
    }
    for answer in &mut answers {
        if let SearchResult::Found(s) = &mut answer.result {
            s.overrides = pools
                .iter()
                .enumerate()
                .zip(&s.choices)
                .filter(|(_, c)| c.changed)
                .flat_map(|((p, pool), choice)| {
                    let slots = &s.pools[p].spec.process_on_nodes;
                    terms.overrides(p, &pool.name, choice, slots)
                })
                .collect();
        }
    }
    Suggestions {
        asked,
        answers,
        holders: idle.map_or_else(Vec::new, |idle| holders(pools, cluster, idle)),
        idle: idle.cloned(),
        style: terms.style(),
        unit: Unit::of(pools),
        multiples: pools
            .iter()
            .zip(&multiples)
            .enumerate()
            .filter(|&(_, (_, &multiple))| multiple > 1)
            .map(|(p, (pool, &multiple))| {
                let source = terms.multiple_source(p);
                KeptMultiple {
                    pool: pool.name.clone(),
                    multiple,
                    words: source.as_ref().map(|s| (s.what, s.remedy)),
                    factors: source.map(|s| s.factors).unwrap_or_default(),
                    unit: Unit::of(std::slice::from_ref(pool)),
                }
            })
            .collect(),
    }
}

/// What other work holds on each alive node (what `idle` has free that `cluster` has not),
/// over the resources the pools ask for.
fn holders(pools: &[ResourcePool], cluster: &Cluster, idle: &Cluster) -> Vec<Holder> {
    let mut asked: Vec<String> = pools
        .iter()
        .flat_map(|p| {
            p.spec
                .bundle()
                .iter()
                .map(|(n, _)| n.to_owned())
                .collect::<Vec<_>>()
        })
        .collect();
    asked.sort_unstable();
    asked.dedup();
    (cluster.nodes.iter().zip(&idle.nodes))
        .filter(|(node, _)| node.alive)
        .filter_map(|(node, idle)| {
            let held: Resources = (idle.available)
                .saturating_sub(&node.available)
                .iter()
                .filter(|(name, _)| asked.binary_search_by(|a| a.as_str().cmp(name)).is_ok())
                .collect();
            (!held.is_empty()).then(|| Holder {
                node: node.name(),
                held,
                by: Vec::new(),
            })
        })
        .collect()
}

/// A deterministic step budget and a wall-clock deadline, shared by a search's checks.
#[derive(Debug)]
pub(crate) struct Budget {
    steps: u64,
    max_steps: u64,
    start: Instant,
    limit: Duration,
    exhausted: Option<BudgetLimit>,
}

impl Budget {
    pub(crate) fn new(max_steps: u64, limit: Duration) -> Budget {
        Budget {
            steps: 0,
            max_steps,
            start: Instant::now(),
            limit,
            exhausted: None,
        }
    }

    /// Counts `n` steps; `false` once a limit is hit (and from then on).
    pub(crate) fn tick(&mut self, n: u64) -> bool {
        if self.exhausted.is_some() {
            return false;
        }
        self.steps = self.steps.saturating_add(n);
        if self.steps > self.max_steps {
            self.exhausted = Some(BudgetLimit::Steps);
        } else if self.start.elapsed() > self.limit {
            self.exhausted = Some(BudgetLimit::Time);
        }
        self.exhausted.is_none()
    }

    /// Steps left.
    pub(crate) fn steps_left(&self) -> u64 {
        self.max_steps.saturating_sub(self.steps)
    }

    /// Time left.
    pub(crate) fn time_left(&self) -> Duration {
        self.limit.saturating_sub(self.start.elapsed())
    }
}

#[cfg(test)]
mod tests;
