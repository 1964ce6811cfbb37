//! Bin completion: an exact search that fills one node at a time, for the tight packings of
//! a few dozen nodes where placing one slot at a time drowns in permutations.
//!
//! At every state, take the largest slot left. Some node hosts it in any placement, and
//! that node's final contents are some set of the slots left that contains it and fits.
//! So branch on the node (one choice per distinct capacity among the untouched nodes:
//! equal nodes are interchangeable) and on that whole set, then close the node: it takes
//! nothing more. Complete because
//!
//! - only *maximal* sets are tried (no slot left would still fit beside them): in any
//!   placement, moving slots from the other open nodes into this one until it is maximal
//!   leaves a placement;
//! - a set is skipped when its node would waste more of some resource than the slack the
//!   other nodes can spare (capacity of the open nodes minus the demand left): the demand
//!   left must fit on the nodes left;
//! - a state is pruned only when a bound ([`super::bounds`]) refutes what is left, or when
//!   the same state (slots left, nodes left) already failed: a nogood, kept across the
//!   whole search.

use std::collections::HashSet;

use super::bounds::{Effort, Weights};
use super::budget::Budget;
use super::exact::Exact;
use super::greedy::size;
use super::plan::Move;
use super::problem::{FxBuild, Problem, fits};

/// Memo size limit, in `u64` words (16 MiB).
const MEMO_WORDS: usize = 2 << 20;

/// The most completions listed for one node: past it the search gives up (a node that
/// can close in so many ways is not a tight packing; the slot-by-slot search takes over).
const MAX_CHILDREN: usize = 1 << 14;

/// The most enumeration steps spent listing one node's completions, for the same reason.
const MAX_WALK: u64 = 1 << 18;

/// The most completions held at once over the whole depth of the search (they are listed
/// per state and kept while its children are searched): a bound on memory, about 32 MiB.
const MAX_LIVE: usize = 1 << 18;

/// Why the search stopped without an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The budget ran out.
    Budget,
    /// A node had more than `MAX_CHILDREN` completions, or took more than `MAX_WALK`
    /// steps to list, or the states on the path held more than `MAX_LIVE`.
    TooMany,
}

/// One way to close a node: the class it belongs to and how many slots of each type it
/// takes (pairs, types in search order).
#[derive(Clone, Debug)]
struct Completion {
    class: usize,
    take: Vec<(usize, u64)>,
    waste: f64,
}

/// The search. See the module docs.
pub(crate) struct Completer<'p> {
    problem: &'p Problem,
    /// Types, largest first.
    order: Vec<usize>,
    scales: Vec<f64>,
    weights: Weights,
    memo: HashSet<Box<[u64]>, FxBuild>,
    memo_words: usize,
    /// Completions listed by the states on the current path.
    live: usize,
}

impl<'p> Completer<'p> {
    pub fn new(
        problem: &'p Problem,
        order: &[usize],
        scales: Vec<f64>,
        weights: Weights,
    ) -> Completer<'p> {
        Completer {
            problem,
            order: order.to_vec(),
            scales,
            weights,
            memo: HashSet::default(),
            memo_words: 0,
            live: 0,
        }
    }

    /// Runs the search: `Found` or `Impossible`, `OutOfBudget`, or `Err(TooMany)` when it
    /// gave up.
    pub fn run(&mut self, budget: &mut Budget) -> Result<Exact, Stop> {
        let mut left: Vec<u64> = self
            .problem
            .types
            .iter()
            .map(|t| t.slots.len() as u64)
            .collect();
        let mut open: Vec<u64> = self
            .problem
            .classes
            .iter()
            .map(|c| c.count as u64)
            .collect();
        let mut plan = Vec::new();
        match self.solve(&mut left, &mut open, &mut plan, budget) {
            Ok(true) => Ok(Exact::Found(plan)),
            Ok(false) => Ok(Exact::Impossible),
            Err(Stop::Budget) => Ok(Exact::OutOfBudget),
            Err(Stop::TooMany) => Err(Stop::TooMany),
        }
    }

    /// `Ok(true)` with the moves appended to `plan`, `Ok(false)` when no placement of
    /// `left` on `open` exists.
    fn solve(
        &mut self,
        left: &mut [u64],
        open: &mut [u64],
        plan: &mut Vec<Move>,
        budget: &mut Budget,
    ) -> Result<bool, Stop> {
        let Some(&largest) = self.order.iter().find(|&&t| left[t] > 0) else {
            return Ok(true);
        };
        if !budget.tick(1) {
            return Err(Stop::Budget);
        }
        let key: Box<[u64]> = left.iter().chain(open.iter()).copied().collect();
        if self.memo.contains(&key) {
            return Ok(false);
        }
        let Some(slack) = self.slack(left, open) else {
            self.remember(key);
            return Ok(false);
        };
        let remaining: Vec<(usize, u64)> = self
            .order
            .iter()
            .filter(|&&t| left[t] > 0)
            .map(|&t| (t, left[t]))
            .collect();
        let bins = self
            .problem
            .classes
            .iter()
            .zip(open.iter())
            .filter(|(_, n)| **n > 0)
            .map(|(c, &n)| (c.cap.as_slice(), n));
        if self
            .weights
            .refute(self.problem, &remaining, bins, Effort::Learned, budget)
        {
            self.remember(key);
            return Ok(false);
        }
        if budget.exhausted.is_some() {
            return Err(Stop::Budget);
        }
        let children = self.completions(largest, &remaining, left, open, &slack, budget)?;
        if self.live + children.len() > MAX_LIVE {
            return Err(Stop::TooMany);
        }
        self.live += children.len();
        let result = self.close(children, left, open, plan, budget);
        self.live -= result.1;
        match result.0 {
            Ok(false) => {
                self.remember(key);
                Ok(false)
            }
            other => other,
        }
    }

    /// Tries each completion in turn; returns the answer and how many were listed.
    fn close(
        &mut self,
        children: Vec<Completion>,
        left: &mut [u64],
        open: &mut [u64],
        plan: &mut Vec<Move>,
        budget: &mut Budget,
    ) -> (Result<bool, Stop>, usize) {
        let listed = children.len();
        for child in children {
            let cap = &self.problem.classes[child.class].cap;
            let mark = plan.len();
            let mut rest = cap.clone();
            for &(t, k) in &child.take {
                let d = &self.problem.types[t].demand;
                plan.push(Move {
                    ty: t,
                    from: rest.clone(),
                    per_node: k,
                    nodes: 1,
                });
                for (c, x) in rest.iter_mut().zip(d) {
                    *c -= x * k;
                }
                left[t] -= k;
            }
            open[child.class] -= 1;
            let result = self.solve(left, open, plan, budget);
            open[child.class] += 1;
            for &(t, k) in &child.take {
                left[t] += k;
            }
            match result {
                Ok(true) => return (Ok(true), listed),
                Ok(false) => plan.truncate(mark),
                Err(stop) => return (Err(stop), listed),
            }
        }
        (Ok(false), listed)
    }

    /// Per resource, what the open nodes hold beyond the demand left; `None` when the
    /// demand is larger. (The sums cannot overflow: at most `COMPLETION_MAX_NODES` nodes
    /// and `usize` slots of `u64` amounts; were one to, that resource gets no slack limit.)
    fn slack(&self, left: &[u64], open: &[u64]) -> Option<Vec<u128>> {
        let mut slack = vec![u128::MAX; self.problem.dims()];
        for (r, s) in slack.iter_mut().enumerate() {
            let have = self
                .problem
                .classes
                .iter()
                .zip(open)
                .try_fold(0u128, |a, (c, &n)| {
                    a.checked_add(u128::from(c.cap[r]).checked_mul(u128::from(n))?)
                });
            let need = self
                .problem
                .types
                .iter()
                .zip(left)
                .try_fold(0u128, |a, (t, &n)| {
                    a.checked_add(u128::from(t.demand[r]).checked_mul(u128::from(n))?)
                });
            if let (Some(have), Some(need)) = (have, need) {
                *s = have.checked_sub(need)?;
            }
        }
        Some(slack)
    }

    /// Every maximal set of the slots left that contains one of type `largest`, fits one
    /// open node and wastes no more than `slack`, best fit first.
    fn completions(
        &self,
        largest: usize,
        remaining: &[(usize, u64)],
        left: &[u64],
        open: &[u64],
        slack: &[u128],
        budget: &mut Budget,
    ) -> Result<Vec<Completion>, Stop> {
        let mut out = Vec::new();
        let mut walked = 0;
        for (class, c) in self.problem.classes.iter().enumerate() {
            if open[class] == 0 || !fits(&self.problem.types[largest].demand, &c.cap) {
                continue;
            }
            let mut rest = c.cap.clone();
            for (r, x) in rest.iter_mut().zip(&self.problem.types[largest].demand) {
                *r -= x;
            }
            let mut take = vec![(largest, 1)];
            let mut walk = Walk {
                problem: self.problem,
                remaining,
                left,
                largest,
                slack,
                scales: &self.scales,
                class,
                out: &mut out,
                budget,
                walked: &mut walked,
            };
            walk.go(0, &mut rest, &mut take)?;
        }
        out.sort_by(|a, b| a.waste.total_cmp(&b.waste));
        Ok(out)
    }

    fn remember(&mut self, key: Box<[u64]>) {
        if self.memo_words + key.len() <= MEMO_WORDS {
            self.memo_words += key.len();
            self.memo.insert(key);
        }
    }
}

/// The enumeration of the sets for one node.
struct Walk<'w> {
    problem: &'w Problem,
    remaining: &'w [(usize, u64)],
    left: &'w [u64],
    largest: usize,
    slack: &'w [u128],
    scales: &'w [f64],
    class: usize,
    out: &'w mut Vec<Completion>,
    budget: &'w mut Budget,
    walked: &'w mut u64,
}

impl Walk<'_> {
    /// Adds `remaining[i..]` to `take` in every way that fits `rest`.
    fn go(&mut self, i: usize, rest: &mut [u64], take: &mut Vec<(usize, u64)>) -> Result<(), Stop> {
        if !self.budget.tick(1) {
            return Err(Stop::Budget);
        }
        *self.walked += 1;
        if *self.walked > MAX_WALK {
            return Err(Stop::TooMany);
        }
        if i == self.remaining.len() {
            self.leaf(rest, take);
            return if self.out.len() > MAX_CHILDREN {
                Err(Stop::TooMany)
            } else {
                Ok(())
            };
        }
        let (t, n) = self.remaining[i];
        let already = u64::from(t == self.largest);
        let d = &self.problem.types[t].demand;
        let most = (n - already).min(copies(d, rest));
        for k in (0..=most).rev() {
            for (c, x) in rest.iter_mut().zip(d) {
                *c -= x * k;
            }
            let pushed = k > 0;
            if pushed {
                if t == self.largest {
                    take[0].1 += k;
                } else {
                    take.push((t, k));
                }
            }
            let result = self.go(i + 1, rest, take);
            if pushed {
                if t == self.largest {
                    take[0].1 -= k;
                } else {
                    take.pop();
                }
            }
            for (c, x) in rest.iter_mut().zip(d) {
                *c += x * k;
            }
            result?;
        }
        Ok(())
    }

    /// Keeps the set if it is maximal and wastes no more than the slack.
    fn leaf(&mut self, rest: &[u64], take: &[(usize, u64)]) {
        if rest
            .iter()
            .zip(self.slack)
            .any(|(&r, &s)| u128::from(r) > s)
        {
            return;
        }
        let taken = |t: usize| take.iter().find(|p| p.0 == t).map_or(0, |p| p.1);
        let maximal = !self
            .remaining
            .iter()
            .any(|&(t, _)| self.left[t] > taken(t) && fits(&self.problem.types[t].demand, rest));
        if maximal {
            self.out.push(Completion {
                class: self.class,
                take: take.to_vec(),
                waste: size(rest, self.scales),
            });
        }
    }
}

fn copies(demand: &[u64], cap: &[u64]) -> u64 {
    super::bounds::copies(demand, cap)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use proptest::prelude::*;

    use super::*;
    use crate::model::{Amount, Cluster, Node, NodeSlot, Resources};
    use crate::placement::greedy::{scales, types_by_size};
    use crate::placement::plan::replay;
    use crate::placement::witness::Witness;
    use crate::test_support::{brute_force, tight_case};

    /// Bin completion alone (no heuristic, no root bound before it): `Some(feasible)`,
    /// its plan replayed and validated.
    fn complete(slots: &[NodeSlot], cluster: &Cluster) -> Option<bool> {
        let problem = Problem::build(slots, cluster);
        let sc = scales(&problem);
        let order = types_by_size(&problem, &sc);
        let weights = Weights::new(&problem);
        let mut budget = Budget::new(u64::MAX, Duration::from_secs(60));
        match Completer::new(&problem, &order, sc, weights).run(&mut budget) {
            Ok(Exact::Found(moves)) => {
                let nodes = replay(&problem, &moves, slots.len()).expect("a plan that replays");
                assert_eq!(Witness { nodes }.validate(slots, cluster), Ok(()));
                Some(true)
            }
            Ok(Exact::Impossible) => Some(false),
            Ok(Exact::OutOfBudget) | Err(_) => None,
        }
    }

    fn x(n: u64) -> Resources {
        Resources::new().with("X", Amount::from_units(n))
    }

    fn one_d(caps: &[u64], items: &[u64]) -> (Vec<NodeSlot>, Cluster) {
        let slots = items
            .iter()
            .enumerate()
            .map(|(i, &v)| NodeSlot {
                pool: 0,
                slot: i,
                bundles: 1,
                demand: x(v),
            })
            .collect();
        let nodes = caps
            .iter()
            .enumerate()
            .map(|(i, &c)| Node::new(format!("n{i}"), x(c)))
            .collect();
        (slots, Cluster::new(nodes))
    }

    #[test]
    fn perfect_packings_that_greedy_misses() {
        // {8,5,5} and {8,7,3}: best fit decreasing puts 7 with the first 8 and fails.
        let (slots, cluster) = one_d(&[18, 18], &[8, 8, 7, 5, 5, 3]);
        assert_eq!(complete(&slots, &cluster), Some(true));
        let (slots, cluster) = one_d(&[18, 18], &[10, 10, 9, 3]);
        assert_eq!(complete(&slots, &cluster), Some(false));
        // Nothing to place, and no node for something.
        assert_eq!(complete(&[], &Cluster::default()), Some(true));
        let (slots, cluster) = one_d(&[], &[1]);
        assert_eq!(complete(&slots, &cluster), Some(false));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn agrees_with_brute_force_on_tight_instances((slots, cluster) in tight_case()) {
            prop_assert_eq!(complete(&slots, &cluster), Some(brute_force(&slots, &cluster)));
        }

        #[test]
        fn agrees_with_brute_force_on_one_resource(
            caps in prop::collection::vec(1u64..=20, 1..=4),
            items in prop::collection::vec(1u64..=12, 0..=8),
        ) {
            let (slots, cluster) = one_d(&caps, &items);
            prop_assert_eq!(complete(&slots, &cluster), Some(brute_force(&slots, &cluster)));
        }
    }
}
