//! The exact placement check: can every node-slot go to one alive node, within what the
//! nodes have free, over every resource the slots ask for?
//!
//! This is vector bin packing. [`check_placement`] decides it exactly or says
//! [`PlacementOutcome::Undecided`]; it never guesses.
//!
//! # Algorithm
//!
//! 1. **Preprocessing** (linear in nodes plus slots). Resource names are interned into
//!    dense `u64` vectors (Ray's fixed point), over only the resources some slot demands.
//!    Each alive node's capacity is clamped, per resource, to the total demand of that
//!    resource, and rounded down to a multiple of the gcd of the demands of that resource;
//!    neither changes which packings exist, and both make more nodes equal. Equal nodes
//!    form *classes* with counts, equal slots *types* with counts. Classes that can host no
//!    type are dropped. Dead nodes host nothing.
//! 2. **Quick necessary checks** (`bounds.rs`): every slot type fits some class; the slots
//!    at least as large as a type number no more than the copies of it the nodes hold.
//! 3. **Heuristics** (`greedy.rs`): batched greedy packing over classes (best fit, worst fit
//!    and first fit, largest types first). A type of `m` identical slots is placed on a
//!    class of `n` equal nodes as `k` per node on `⌈m/k⌉` nodes at once, so the cost is per
//!    class and type, never per node and slot. Easy instances end here with a witness.
//! 4. **Weighted capacity bounds** (`bounds.rs`): for any weights on the slot
//!    types, the slots a node hosts weigh at most the heaviest set that fits it (an exact
//!    knapsack over every resource, `knapsack.rs`), so the slots must weigh no more than
//!    the nodes can carry. The weights are dual feasible functions of one resource (L2's
//!    thresholds, `u^(k)`), its demand and a count; the knapsack over all resources lets a
//!    GPU weighting see the CPUs too. Tight packings that cannot be placed end here.
//! 5. **Exact search.** On up to 256 nodes, *bin completion* (`completion.rs`): the largest
//!    slot left goes to a node (one choice per distinct capacity of the untouched nodes)
//!    together with a maximal set of companions, and that node is closed; a node wastes at
//!    most the slack of each resource; failed states (slots left, nodes left) are kept as
//!    nogoods; the weightings that refuted before are re-checked at every state (plus one
//!    other in turn). Beyond 256 nodes, or when a node could close in more than 16,384
//!    ways, the slot-by-slot branch and bound (`exact.rs`, depth first on an explicit stack):
//!    slots are placed one at a time, largest type first; the choices for a slot are the
//!    *distinct* remaining-capacity vectors that fit it, tightest first; identical slots
//!    take capacities in non-increasing lexicographic order, which removes their
//!    permutations without losing any packing; at every state the bounds are re-checked on
//!    what remains; failed states are remembered (the exact state, not a hash, up to
//!    16 MiB).
//!
//! The answer is exact: `Feasible` comes with a witness replayed onto real node indices
//! (the replay fails closed if the plan does not match the nodes) and checked with
//! [`Witness::validate`] in debug builds and by the property tests; `Infeasible` means a
//! bound or the exhausted search proved it.
//!
//! # Cost
//!
//! Preprocessing reads every slot's and every alive node's resources once (twice for
//! nodes when infeasible, for the explanation), into an `Instance` that Ray's simulation
//! reads too; everything after works on classes and types, whose members are runs of
//! consecutive indices (`runs.rs`), so a class of 100,000 equal nodes is one run. The
//! witness is replayed onto the nodes run by run: one write per slot.
//!
//! # Where the budget bites
//!
//! Steps 1 to 3 are polynomial and always run. The branch and bound counts one step per
//! search state (plus one per sixteen bins it scans) against
//! [`PlacementOptions::max_steps`], and checks the clock against
//! [`PlacementOptions::budget`] every 256 steps; so do the bounds (one step per sixteen
//! knapsack nodes) and bin completion (one per state and per set it lists). When either
//! runs out the answer is [`PlacementOutcome::Undecided`]. That happens only on instances
//! that defeat the heuristics and are not refuted by the bounds (bin packing is NP-hard).
//! On the tight two-resource packings of `scripts/bench` (8 to 24 eight-GPU nodes, 90 to
//! 100% of the GPUs asked) every instance is decided, in milliseconds; verl's layouts,
//! with few slot sizes, are decided in the preprocessing or the heuristics. Explaining an
//! infeasible or undecided answer (the largest part that fits) runs greedy packings within
//! what is left of the budget (at least 10 ms, at most 200 ms).

mod bounds;
/// Shared with the suggestions, which size node-slots by how many fit a node.
pub(crate) use bounds::copies;
mod budget;
mod completion;
mod exact;
mod explain;
mod greedy;
mod instance;
mod knapsack;
mod plan;
mod problem;
mod runs;
mod witness;

use std::time::Duration;

pub use budget::BudgetLimit;
pub use explain::{
    IdleFit, InfeasibleReason, Lack, NearestNode, NotTogether, ShortTotal, UnfitSlots,
};
pub use witness::{Witness, WitnessError};

pub(crate) use explain::nearest;
pub(crate) use instance::Instance;
pub(crate) use problem::{FxBuild, VecIndex, VecMap, fill_vector, fits, split_groups};
#[cfg(test)]
pub(crate) use runs::IndexRuns;
pub(crate) use runs::{Run, push_run};

use crate::model::{Cluster, NodeSlot};
use budget::Budget;
use completion::Completer;
use exact::{Dfs, Exact};
use greedy::BinOrder;
use plan::Move;
use problem::Problem;

/// Limits of the search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacementOptions {
    /// The most search steps (deterministic: the same input gives the same answer).
    pub max_steps: u64,
    /// The most wall-clock time.
    pub budget: Duration,
    /// When infeasible and every alive node states its total, also check the idle cluster
    /// to tell "busy now" from "never".
    pub check_idle: bool,
}

impl Default for PlacementOptions {
    /// 5,000,000 steps, one second, idle check on.
    fn default() -> PlacementOptions {
        PlacementOptions {
            max_steps: 5_000_000,
            budget: Duration::from_secs(1),
            check_idle: true,
        }
    }
}

/// What decided the answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DecidedBy {
    /// Nothing to place.
    Trivial,
    /// A necessary condition (fit alone, totals, usable capacity) failed.
    Bounds,
    /// A greedy heuristic found a placement.
    Heuristic,
    /// The exact search found a placement or proved none exists.
    Search,
    /// Nothing: the budget ran out.
    Undecided,
}

/// Numbers about one run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchStats {
    /// Steps counted against [`PlacementOptions::max_steps`].
    pub steps: u64,
    /// Wall-clock time of the whole check.
    pub elapsed: Duration,
    /// Distinct node classes after reduction (nodes that can host something).
    pub node_classes: usize,
    /// Distinct slot demands.
    pub slot_types: usize,
    /// What decided.
    pub decided_by: DecidedBy,
}

/// No placement exists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Infeasible {
    /// Why: every slot type that fits no node (a) and every resource short in total (b);
    /// when there are none of those, one [`InfeasibleReason::NotTogether`] (c).
    pub reasons: Vec<InfeasibleReason>,
    /// Against the idle cluster, when every alive node states its total.
    pub idle: Option<IdleFit>,
}

/// The search ran out of budget.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Undecided {
    /// Which limit.
    pub limit: BudgetLimit,
    /// The largest part found that fits (slot indices, sorted).
    pub fits: Vec<usize>,
}

/// The answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlacementOutcome {
    /// A placement exists; here is one.
    Feasible(Witness),
    /// None exists.
    Infeasible(Infeasible),
    /// The budget ran out first.
    Undecided(Undecided),
}

/// The answer and numbers about how it was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacementReport {
    /// The answer.
    pub outcome: PlacementOutcome,
    /// Numbers about the run.
    pub stats: SearchStats,
}

impl PlacementReport {
    /// `Some(true)` feasible, `Some(false)` infeasible, `None` undecided.
    pub fn feasible(&self) -> Option<bool> {
        match self.outcome {
            PlacementOutcome::Feasible(_) => Some(true),
            PlacementOutcome::Infeasible(_) => Some(false),
            PlacementOutcome::Undecided(_) => None,
        }
    }

    /// The witness, when feasible.
    pub fn witness(&self) -> Option<&Witness> {
        match &self.outcome {
            PlacementOutcome::Feasible(w) => Some(w),
            _ => None,
        }
    }
}

/// Bin completion runs on instances of at most this many nodes that can host something
/// (it recurses once per node) ...
const COMPLETION_MAX_NODES: usize = 256;
/// ... and at most this many slot types (it recurses once per type to list a node's sets).
const COMPLETION_MAX_TYPES: usize = 256;

enum Decision {
    Found(Vec<Move>, DecidedBy),
    Impossible(DecidedBy),
    OutOfBudget(BudgetLimit),
}

fn decide(problem: &Problem, n_slots: usize, budget: &mut Budget) -> Decision {
    if n_slots == 0 {
        return Decision::Found(Vec::new(), DecidedBy::Trivial);
    }
    let fits_alone = problem
        .types
        .iter()
        .all(|t| problem.classes.iter().any(|c| fits(&t.demand, &c.cap)));
    if !fits_alone || !bounds::copies_suffice(problem) {
        return Decision::Impossible(DecidedBy::Bounds);
    }
    let scales = greedy::scales(problem);
    let order = greedy::types_by_size(problem, &scales);
    for bin_order in [BinOrder::Tightest, BinOrder::Emptiest, BinOrder::Given] {
        if let Some((moves, _)) = greedy::greedy(problem, &order, bin_order, &scales, true, budget)
        {
            return Decision::Found(moves, DecidedBy::Heuristic);
        }
        if let Some(limit) = budget.exhausted {
            return Decision::OutOfBudget(limit);
        }
    }
    let mut weights = bounds::Weights::new(problem);
    let everything: Vec<(usize, u64)> = (0..problem.types.len())
        .map(|t| (t, problem.types[t].slots.len() as u64))
        .collect();
    let bins = problem
        .classes
        .iter()
        .map(|c| (c.cap.as_slice(), c.count as u64));
    if weights.refute(problem, &everything, bins, bounds::Effort::All, budget) {
        return Decision::Impossible(DecidedBy::Bounds);
    }
    if let Some(limit) = budget.exhausted {
        return Decision::OutOfBudget(limit);
    }
    let steps_before = budget.steps;
    let nodes: usize = problem.classes.iter().map(|c| c.count).sum();
    let exact = if nodes <= COMPLETION_MAX_NODES && problem.types.len() <= COMPLETION_MAX_TYPES {
        let mut completer = Completer::new(problem, &order, scales.clone(), weights.clone());
        completer.run(budget).ok()
    } else {
        None
    };
    let exact = match exact {
        Some(answer) => answer,
        None => Dfs::new(problem, &order, scales, weights).run(budget),
    };
    match exact {
        Exact::Found(moves) => Decision::Found(moves, DecidedBy::Search),
        // Refuted at the root: a bound.
        Exact::Impossible if budget.steps == steps_before => {
            Decision::Impossible(DecidedBy::Bounds)
        }
        Exact::Impossible => Decision::Impossible(DecidedBy::Search),
        Exact::OutOfBudget => Decision::OutOfBudget(budget.exhausted.unwrap_or(BudgetLimit::Steps)),
    }
}

/// Each exact search on its own, without the heuristics or the root bounds before it
/// (bin completion, then the slot-by-slot search), for the fuzz target: `Some(feasible)`
/// or `None` out of `max_steps` (or, for bin completion, when it gives up). A plan found
/// is replayed and must validate, or this panics.
#[cfg(feature = "fuzzing")]
pub(crate) fn each_exact_search(
    slots: &[NodeSlot],
    cluster: &Cluster,
    max_steps: u64,
    time: Duration,
) -> [Option<bool>; 2] {
    let problem = Problem::build(slots, cluster);
    let scales = greedy::scales(&problem);
    let order = greedy::types_by_size(&problem, &scales);
    let weights = bounds::Weights::new(&problem);
    let verdict = |exact: Exact| match exact {
        Exact::Found(moves) => {
            let nodes = plan::replay(&problem, &moves, slots.len());
            let witness = Witness {
                nodes: nodes.unwrap_or_default(),
            };
            if let Err(err) = witness.validate(slots, cluster) {
                panic!("an exact search built an invalid plan: {err}");
            }
            Some(true)
        }
        Exact::Impossible => Some(false),
        Exact::OutOfBudget => None,
    };
    let mut budget = Budget::new(max_steps, time);
    let completion = Completer::new(&problem, &order, scales.clone(), weights.clone())
        .run(&mut budget)
        .ok()
        .and_then(verdict);
    let mut budget = Budget::new(max_steps, time);
    let dfs = verdict(Dfs::new(&problem, &order, scales, weights).run(&mut budget));
    [completion, dfs]
}

/// The largest part the greedy finds that fits together (slot indices, sorted), within
/// `time` (the greedy is polynomial; the limit only guards huge inputs).
fn largest_part(problem: &Problem, time: Duration) -> (Vec<usize>, Option<Vec<Move>>) {
    let scales = greedy::scales(problem);
    let desc = greedy::types_by_size(problem, &scales);
    let asc: Vec<usize> = desc.iter().rev().copied().collect();
    let mut budget = Budget::new(u64::MAX, time);
    let mut best: Option<(Vec<Move>, Vec<u64>)> = None;
    for order in [&desc, &asc] {
        for bin_order in [BinOrder::Tightest, BinOrder::Emptiest, BinOrder::Given] {
            if let Some((moves, placed)) =
                greedy::greedy(problem, order, bin_order, &scales, false, &mut budget)
            {
                let total: u64 = placed.iter().sum();
                if best
                    .as_ref()
                    .is_none_or(|(_, b)| b.iter().sum::<u64>() < total)
                {
                    best = Some((moves, placed));
                }
            }
        }
    }
    let Some((moves, placed)) = best else {
        return (Vec::new(), None);
    };
    let mut fits: Vec<usize> = problem
        .types
        .iter()
        .zip(&placed)
        .flat_map(|(t, &n)| t.slots.iter().take(n as usize))
        .collect();
    fits.sort_unstable();
    // Every slot placed: that is a placement, whatever budget ran out before.
    let complete = problem
        .types
        .iter()
        .zip(&placed)
        .all(|(t, &n)| n as usize >= t.slots.len());
    (fits, complete.then_some(moves))
}

/// Time left for [`largest_part`]: what remains of the budget, at least 10 ms and at most
/// 200 ms.
fn part_time(budget: &Budget, options: &PlacementOptions) -> Duration {
    options
        .budget
        .saturating_sub(budget.elapsed())
        .clamp(Duration::from_millis(10), Duration::from_millis(200))
}

/// Decides whether every slot of `slots` can be placed on one alive node of `cluster`,
/// within what the nodes have available, over every resource the slots demand. See the
/// module docs for the algorithm. Never panics; bounded by `options`.
pub fn check_placement(
    slots: &[NodeSlot],
    cluster: &Cluster,
    options: &PlacementOptions,
) -> PlacementReport {
    let budget = Budget::new(options.max_steps, options.budget);
    let problem = Problem::build(slots, cluster);
    check_problem(problem, slots, cluster, options, budget)
}

/// [`check_placement`] on the input already read ([`Instance::new`] of `slots` and
/// `cluster`), for a caller that reads it once for Ray's simulation too.
pub(crate) fn check_placement_of(
    instance: &Instance,
    slots: &[NodeSlot],
    cluster: &Cluster,
    options: &PlacementOptions,
) -> PlacementReport {
    let budget = Budget::new(options.max_steps, options.budget);
    check_problem(Problem::new(instance), slots, cluster, options, budget)
}

/// The check proper, within `budget` (started by the caller).
fn check_problem(
    problem: Problem,
    slots: &[NodeSlot],
    cluster: &Cluster,
    options: &PlacementOptions,
    mut budget: Budget,
) -> PlacementReport {
    let input = CheckInput {
        problem: &problem,
        slots,
        cluster,
        options,
    };
    let (outcome, decided_by) = match decide(&problem, slots.len(), &mut budget) {
        Decision::Found(moves, by) => input.found(&moves, by),
        Decision::Impossible(by) => {
            let reasons = input.infeasible_reasons(&budget);
            let idle = input.idle_fit(&mut budget);
            (
                PlacementOutcome::Infeasible(Infeasible { reasons, idle }),
                by,
            )
        }
        Decision::OutOfBudget(limit) => input.out_of_budget(limit, &budget),
    };
    PlacementReport {
        outcome,
        stats: SearchStats {
            steps: budget.steps,
            elapsed: budget.elapsed(),
            node_classes: problem.classes.len(),
            slot_types: problem.types.len(),
            decided_by,
        },
    }
}

/// What the check's outcome is worded from: the problem and the input it was read from.
struct CheckInput<'a> {
    problem: &'a Problem,
    slots: &'a [NodeSlot],
    cluster: &'a Cluster,
    options: &'a PlacementOptions,
}

impl CheckInput<'_> {
    /// The search found a placement (`moves`): its witness.
    fn found(&self, moves: &[Move], by: DecidedBy) -> (PlacementOutcome, DecidedBy) {
        match plan::replay(self.problem, moves, self.slots.len()).map(|nodes| Witness { nodes }) {
            Some(w) => {
                // Validated in debug builds (and by the tests); validation re-reads every
                // slot and node, which would double the cost of the check in release.
                debug_assert_eq!(w.validate(self.slots, self.cluster), Ok(()));
                (PlacementOutcome::Feasible(w), by)
            }
            _ => {
                debug_assert!(false, "the search built an invalid witness");
                (
                    PlacementOutcome::Undecided(Undecided {
                        limit: BudgetLimit::Steps,
                        fits: Vec::new(),
                    }),
                    DecidedBy::Undecided,
                )
            }
        }
    }

    /// Why no placement exists: slots that fit no node, resources that run out in total,
    /// or, when neither, the largest part that fits and the slots left out of it.
    fn infeasible_reasons(&self, budget: &Budget) -> Vec<InfeasibleReason> {
        let (problem, slots) = (self.problem, self.slots);
        let mut reasons: Vec<InfeasibleReason> = explain::unfit_slots(problem, slots, self.cluster)
            .into_iter()
            .map(InfeasibleReason::SlotFitsNoNode)
            .collect();
        reasons.extend(
            explain::short_totals(problem)
                .into_iter()
                .map(InfeasibleReason::ResourceRunsOut),
        );
        if reasons.is_empty() {
            let (fits, _) = largest_part(problem, part_time(budget, self.options));
            let left_out = (0..slots.len())
                .filter(|i| fits.binary_search(i).is_err())
                .collect();
            reasons.push(InfeasibleReason::NotTogether(NotTogether {
                fits,
                left_out,
            }));
        }
        reasons
    }

    /// Whether the layout would fit the cluster idle (when asked and the totals are
    /// known), decided within what is left of `budget`, which it spends.
    fn idle_fit(&self, budget: &mut Budget) -> Option<IdleFit> {
        let (cluster, options) = (self.cluster, self.options);
        if options.check_idle && cluster.has_totals() && !cluster.busy() {
            // The idle cluster is this one: the same proof holds.
            Some(IdleFit::Never)
        } else if options.check_idle && cluster.has_totals() {
            cluster.idle().map(|idle| {
                let idle_problem = Problem::build(self.slots, &idle);
                let left = options.budget.saturating_sub(budget.elapsed());
                let steps = options.max_steps.saturating_sub(budget.steps);
                let mut idle_budget = Budget::new(steps, left);
                let verdict = decide(&idle_problem, self.slots.len(), &mut idle_budget);
                budget.steps = budget.steps.saturating_add(idle_budget.steps);
                match verdict {
                    Decision::Found(..) => IdleFit::BusyNow,
                    Decision::Impossible(_) => IdleFit::Never,
                    Decision::OutOfBudget(_) => IdleFit::Unknown,
                }
            })
        } else {
            None
        }
    }

    /// The search ran out of `limit`: the largest part a greedy fits, which is a
    /// placement when it holds every slot.
    fn out_of_budget(&self, limit: BudgetLimit, budget: &Budget) -> (PlacementOutcome, DecidedBy) {
        let (fits, complete) = largest_part(self.problem, part_time(budget, self.options));
        let witness = complete
            .and_then(|moves| plan::replay(self.problem, &moves, self.slots.len()))
            .map(|nodes| Witness { nodes })
            .filter(|w| w.validate(self.slots, self.cluster).is_ok());
        match witness {
            // The explanation's greedy placed everything: a placement, not a guess
            // (validated, as it runs only when the budget ran out).
            Some(w) => (PlacementOutcome::Feasible(w), DecidedBy::Heuristic),
            None => (
                PlacementOutcome::Undecided(Undecided { limit, fits }),
                DecidedBy::Undecided,
            ),
        }
    }
}

#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;
