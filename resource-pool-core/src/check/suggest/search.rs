//! The search of one cluster state: layouts by total, largest first, each total's layouts
//! in the order of the module docs; the first that Ray places is the answer.

use std::time::Duration;

use super::choices::{PoolChoice, Reshape};
use super::space::{Space, Walk};
use super::{Budget, SearchResult, SearchStats, SuggestOptions, Suggestion};
use crate::model::{Cluster, PoolSpec, ResourcePool, node_slots};
use crate::placement::{PlacementOptions, PlacementOutcome, Witness, check_placement};
use crate::ray_sim::{RaySimOptions, RayVerdict, simulate};

/// Steps the placement check may spend on one layout: enough for its bounds and
/// heuristics; a layout they do not decide is simulated anyway.
const PLACEMENT_STEPS: u64 = 20_000;

/// Searches the largest layout of the searched shapes (see the module docs of
/// [`super`](crate::check::suggest)) that Ray places on `cluster`, within `options`.
/// `reshape[i]` says how pool `i` may change (a pool not listed is trimmed).
pub fn search(
    pools: &[ResourcePool],
    reshape: &[Reshape],
    cluster: &Cluster,
    options: &SuggestOptions,
) -> (SearchResult, SearchStats) {
    let mut budget = Budget::new(options.max_steps, options.budget);
    let layouts = Layouts {
        pools,
        reshape,
        multiples: &[],
        admits: &|_, _| true,
    };
    search_within(&layouts, cluster, options, &mut budget)
}

/// The layouts searched: `pools` reshaped as `reshape[i]` says for pool `i` (a pool not
/// listed is trimmed), pool `i`'s accelerators a multiple of `multiples[i]` (1 when not
/// listed; [`super::LayoutTerms::multiple`]), and only those the launcher's own check
/// `admits` ([`super::LayoutTerms::admits`]).
pub(super) struct Layouts<'a> {
    pub(super) pools: &'a [ResourcePool],
    pub(super) reshape: &'a [Reshape],
    pub(super) multiples: &'a [u64],
    pub(super) admits: &'a dyn Fn(&[ResourcePool], &Cluster) -> bool,
}

/// What became of one layout.
enum Verdict {
    Places(Box<Suggestion>),
    Not,
    Undecided,
}

/// [`search`] of `layouts`, within `budget`.
pub(super) fn search_within(
    layouts: &Layouts<'_>,
    cluster: &Cluster,
    options: &SuggestOptions,
    budget: &mut Budget,
) -> (SearchResult, SearchStats) {
    let start = std::time::Instant::now();
    let steps_before = budget.steps;
    let mut stats = SearchStats::default();
    let result = run(layouts, cluster, options, budget, &mut stats);
    stats.steps = budget.steps.saturating_sub(steps_before);
    stats.elapsed = start.elapsed();
    stats.exhausted = budget.exhausted;
    (result, stats)
}

fn run(
    layouts: &Layouts<'_>,
    cluster: &Cluster,
    options: &SuggestOptions,
    budget: &mut Budget,
    stats: &mut SearchStats,
) -> SearchResult {
    let pools = layouts.pools;
    let space = Space::new(pools, layouts.reshape, layouts.multiples, cluster, budget);
    let undecided_result = |stats: &SearchStats| SearchResult::Undecided {
        tried: stats.infeasible + stats.simulated,
    };
    if space.truncated {
        return undecided_result(stats);
    }
    if pools.is_empty() || space.empty() {
        return SearchResult::NoneFits;
    }
    let p = pools.len();
    let mut undecided = 0usize;
    let mut found: Option<Suggestion> = None;
    let mut total = space.top;
    while total >= space.bottom && total > 0 {
        if !budget.tick(1) {
            return undecided_result(stats);
        }
        // Fewest pools changed first: one walk per count of changed pools.
        for changed in 0..=p {
            let walk = space.walk(total, changed, budget, |layout, budget| {
                stats.generated += 1;
                if !space.within_free(layout) {
                    stats.over_free += 1;
                    return true;
                }
                match evaluate(layouts, layout, total, cluster, options, budget, stats) {
                    Verdict::Places(mut s) => {
                        s.undecided = undecided;
                        found = Some(*s);
                        false
                    }
                    Verdict::Not => budget.exhausted.is_none(),
                    Verdict::Undecided => {
                        undecided += 1;
                        budget.exhausted.is_none()
                    }
                }
            });
            if let Some(s) = found.take() {
                return SearchResult::Found(s);
            }
            if walk == Walk::OutOfBudget || budget.exhausted.is_some() {
                return undecided_result(stats);
            }
        }
        if total < space.step {
            break;
        }
        total -= space.step;
    }
    if undecided > 0 {
        undecided_result(stats)
    } else {
        SearchResult::NoneFits
    }
}

/// Checks one layout: the placement check's bounds and heuristics first, then Ray.
fn evaluate(
    layouts: &Layouts<'_>,
    choices: &[PoolChoice],
    accelerators: u64,
    cluster: &Cluster,
    options: &SuggestOptions,
    budget: &mut Budget,
    stats: &mut SearchStats,
) -> Verdict {
    let pools: Vec<ResourcePool> = layouts
        .pools
        .iter()
        .zip(choices)
        .map(|(pool, choice)| {
            ResourcePool::new(
                pool.name.clone(),
                PoolSpec {
                    process_on_nodes: choice.process_on_nodes(&pool.spec.process_on_nodes),
                    ..pool.spec.clone()
                },
            )
        })
        .collect();
    if !(layouts.admits)(&pools, cluster) {
        stats.refused += 1;
        return Verdict::Not;
    }
    let slots = match &options.creation {
        Some(creation) => creation.slots(&pools),
        None => node_slots(pools.iter().map(|p| &p.spec)),
    };
    let placement = check_placement(
        &slots,
        cluster,
        &PlacementOptions {
            max_steps: PLACEMENT_STEPS.min(budget.steps_left()),
            budget: budget.time_left(),
            check_idle: false,
        },
    );
    budget.tick(placement.stats.steps);
    if let PlacementOutcome::Infeasible(_) = placement.outcome {
        stats.infeasible += 1;
        return Verdict::Not;
    }
    let ray = simulate(
        &slots,
        cluster,
        &RaySimOptions {
            max_branches: options.max_ray_branches,
            max_orders: 0,
            budget: budget.time_left().max(Duration::from_millis(1)),
            suggest_fixes: false,
            placement: PlacementOptions::default(),
            pool_ranks: Vec::new(),
        },
    );
    stats.simulated += 1;
    budget.tick(ray.branches as u64);
    match ray.verdict {
        RayVerdict::Places => {
            // Ray's branch is a placement: validated, fail closed.
            let nodes: Option<Vec<usize>> = ray
                .representative
                .groups
                .iter()
                .map(|g| match g {
                    crate::ray_sim::GroupFate::Placed { node } => Some(*node),
                    _ => None,
                })
                .collect();
            let valid =
                nodes.is_some_and(|nodes| Witness { nodes }.validate(&slots, cluster).is_ok());
            if !valid {
                debug_assert!(false, "Ray's placing branch is not a placement");
                return Verdict::Not;
            }
            Verdict::Places(Box::new(Suggestion {
                pools,
                choices: choices.to_vec(),
                slots,
                accelerators,
                ray,
                undecided: 0,
                overrides: Vec::new(),
            }))
        }
        RayVerdict::Hangs | RayVerdict::DependsOnTies => Verdict::Not,
        RayVerdict::Undecided => Verdict::Undecided,
    }
}
