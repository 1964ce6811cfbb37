//! The exact search: a depth-first branch and bound over slots, on bins of equal remaining
//! capacity.

use std::cmp::Ordering;
use std::collections::HashSet;

use super::bounds::{Effort, Weights};
use super::budget::Budget;
use super::greedy::size;
use super::plan::Move;
use super::problem::{FxBuild, Problem, fits};

/// The outcome of the exact search.
#[derive(Debug)]
pub(crate) enum Exact {
    /// A plan that places every slot.
    Found(Vec<Move>),
    /// Proven impossible.
    Impossible,
    /// The budget ran out.
    OutOfBudget,
}

/// Lexicographic order, largest first: the canonical order of bins.
fn lex_desc(a: &[u64], b: &[u64]) -> Ordering {
    b.cmp(a)
}

/// Bins kept canonical: sorted by capacity (largest first), flattened.
#[derive(Clone, Debug)]
struct Bins {
    dims: usize,
    caps: Vec<u64>,
    counts: Vec<u64>,
}

impl Bins {
    fn len(&self) -> usize {
        self.counts.len()
    }

    fn cap(&self, i: usize) -> &[u64] {
        &self.caps[i * self.dims..(i + 1) * self.dims]
    }

    fn find(&self, cap: &[u64]) -> Result<usize, usize> {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            match lex_desc(self.cap(mid), cap) {
                Ordering::Less => lo = mid + 1,
                Ordering::Greater => hi = mid,
                Ordering::Equal => return Ok(mid),
            }
        }
        Err(lo)
    }

    fn add(&mut self, cap: &[u64]) {
        match self.find(cap) {
            Ok(i) => self.counts[i] += 1,
            Err(i) => {
                let at = i * self.dims;
                self.caps.splice(at..at, cap.iter().copied());
                self.counts.insert(i, 1);
            }
        }
    }

    fn remove(&mut self, cap: &[u64]) {
        if let Ok(i) = self.find(cap) {
            self.counts[i] -= 1;
            if self.counts[i] == 0 {
                self.counts.remove(i);
                let at = i * self.dims;
                self.caps.drain(at..at + self.dims);
            }
        }
    }
}

/// One level of the depth-first search.
#[derive(Debug)]
struct Frame {
    pos: usize,
    /// Choices (capacities) in `arena[start..start + count * dims]`.
    start: usize,
    count: usize,
    next: usize,
    applied: Option<usize>,
    key: Option<Box<[u64]>>,
}

/// The exact search: slots one at a time, largest type first; each slot goes to one of the
/// distinct remaining capacities that fit it. Complete because
///
/// - bins with equal remaining capacity are interchangeable (one choice);
/// - identical slots are placed in non-increasing lexicographic order of the capacity they
///   take (any assignment can be so ordered: each node's capacities decrease as it fills,
///   and a merge of decreasing sequences is decreasing), which removes their permutations;
/// - a state is pruned only when a bound proves that no completion exists, or when the
///   very same state (same position, same symmetry bound, same multiset of useful bins)
///   already failed.
pub(crate) struct Dfs<'p> {
    problem: &'p Problem,
    /// The type of every position, largest types first.
    order: Vec<usize>,
    /// `suffix[pos * dims + r]`: demand of resource `r` by positions `pos..`.
    suffix: Vec<u128>,
    /// First position of the type at each position.
    type_start: Vec<usize>,
    /// The types in search order, and the index in it of the type at each position.
    type_order: Vec<usize>,
    block: Vec<usize>,
    scales: Vec<f64>,
    memo: HashSet<Box<[u64]>, FxBuild>,
    memo_words: usize,
    weights: Weights,
}

/// Memo size limit, in `u64` words (16 MiB).
const MEMO_WORDS: usize = 2 << 20;

impl<'p> Dfs<'p> {
    pub fn new(
        problem: &'p Problem,
        type_order: &[usize],
        scales: Vec<f64>,
        weights: Weights,
    ) -> Dfs<'p> {
        let dims = problem.dims();
        let mut order = Vec::new();
        let mut type_start = Vec::new();
        let mut block = Vec::new();
        for (k, &t) in type_order.iter().enumerate() {
            let start = order.len();
            for _ in 0..problem.types[t].slots.len() {
                order.push(t);
                type_start.push(start);
                block.push(k);
            }
        }
        let mut suffix = vec![0u128; (order.len() + 1) * dims];
        for pos in (0..order.len()).rev() {
            for r in 0..dims {
                suffix[pos * dims + r] =
                    suffix[(pos + 1) * dims + r] + u128::from(problem.types[order[pos]].demand[r]);
            }
        }
        Dfs {
            problem,
            order,
            suffix,
            type_start,
            type_order: type_order.to_vec(),
            block,
            scales,
            memo: HashSet::default(),
            memo_words: 0,
            weights,
        }
    }

    /// Types still to place at `pos` (the current one and all later ones).
    fn remaining_types(&self, pos: usize) -> impl Iterator<Item = usize> + '_ {
        let from = self
            .block
            .get(pos)
            .copied()
            .unwrap_or(self.type_order.len());
        self.type_order[from..].iter().copied()
    }

    /// Whether bin `i` can take some remaining slot.
    fn useful(&self, bins: &Bins, i: usize, pos: usize) -> bool {
        self.remaining_types(pos)
            .any(|t| fits(&self.problem.types[t].demand, bins.cap(i)))
    }

    /// Necessary conditions at `pos`: every remaining type fits some bin; per resource, the
    /// capacity of bins that can take some remaining slot (each clamped to the remaining
    /// demand) covers the remaining demand; and those bins can hold enough slots.
    fn bound_ok(&self, bins: &Bins, pos: usize, useful: &[bool]) -> bool {
        let dims = self.problem.dims();
        for t in self.remaining_types(pos) {
            let d = &self.problem.types[t].demand;
            if !(0..bins.len()).any(|i| useful[i] && fits(d, bins.cap(i))) {
                return false;
            }
        }
        let need = &self.suffix[pos * dims..(pos + 1) * dims];
        let mut min_d = vec![u64::MAX; dims];
        for t in self.remaining_types(pos) {
            for (m, &x) in min_d.iter_mut().zip(&self.problem.types[t].demand) {
                *m = (*m).min(x);
            }
        }
        let mut have = vec![0u128; dims];
        let mut slots_room: u128 = 0;
        let mut room_bounded = min_d.iter().any(|&m| m > 0 && m != u64::MAX);
        let mut max_fit = vec![0u64; dims];
        for (i, _) in useful.iter().enumerate().filter(|(_, u)| **u) {
            let cap = bins.cap(i);
            let count = u128::from(bins.counts[i]);
            // At most `room` more slots fit here, each of the fitting types: the bin can
            // use at most `room` times the largest fitting demand of each resource.
            let mut room = u64::MAX;
            for r in 0..dims {
                if let Some(q) = cap[r].checked_div(min_d[r])
                    && min_d[r] != u64::MAX
                {
                    room = room.min(q);
                }
            }
            max_fit.iter_mut().for_each(|m| *m = 0);
            for t in self.remaining_types(pos) {
                let d = &self.problem.types[t].demand;
                if fits(d, cap) {
                    for (m, &x) in max_fit.iter_mut().zip(d) {
                        *m = (*m).max(x);
                    }
                }
            }
            for r in 0..dims {
                let mut usable = u128::from(cap[r]).min(need[r]);
                if room != u64::MAX {
                    usable = usable.min(u128::from(room) * u128::from(max_fit[r]));
                }
                have[r] = have[r].saturating_add(count * usable);
            }
            if room == u64::MAX {
                room_bounded = false;
            }
            slots_room = slots_room.saturating_add(count * u128::from(room));
        }
        if (0..dims).any(|r| have[r] < need[r]) {
            return false;
        }
        let remaining = (self.order.len() - pos) as u128;
        !(room_bounded && slots_room < remaining)
    }

    /// The weighted capacity bound on the slots from `pos` and the useful bins.
    fn weights_refute(
        &mut self,
        bins: &Bins,
        pos: usize,
        useful: &[bool],
        budget: &mut Budget,
    ) -> bool {
        let left_of_current =
            self.type_start[pos] + self.problem.types[self.order[pos]].slots.len() - pos;
        let remaining: Vec<(usize, u64)> = self
            .remaining_types(pos)
            .enumerate()
            .map(|(k, t)| {
                let n = if k == 0 {
                    left_of_current
                } else {
                    self.problem.types[t].slots.len()
                };
                (t, n as u64)
            })
            .collect();
        let useful_bins = (0..bins.len())
            .filter(|&i| useful[i])
            .map(|i| (bins.cap(i), bins.counts[i]));
        self.weights.refute(
            self.problem,
            &remaining,
            useful_bins,
            Effort::Learned,
            budget,
        )
    }

    /// The memo key of a state: position, symmetry bound, useful bins.
    fn key(&self, bins: &Bins, pos: usize, bound: Option<&[u64]>, useful: &[bool]) -> Box<[u64]> {
        let dims = self.problem.dims();
        let mut key = Vec::with_capacity(2 + dims + bins.caps.len() + bins.len());
        key.push(pos as u64);
        match bound {
            Some(b) => {
                key.push(1);
                key.extend_from_slice(b);
            }
            None => key.push(0),
        }
        for (i, _) in useful.iter().enumerate().filter(|(_, u)| **u) {
            key.extend_from_slice(bins.cap(i));
            key.push(bins.counts[i]);
        }
        key.into_boxed_slice()
    }

    /// Opens the frame for `pos`, or `None` when the state is pruned.
    fn open(
        &mut self,
        bins: &Bins,
        pos: usize,
        bound: Option<&[u64]>,
        arena: &mut Vec<u64>,
        budget: &mut Budget,
    ) -> Option<Frame> {
        let useful: Vec<bool> = (0..bins.len()).map(|i| self.useful(bins, i, pos)).collect();
        let key = self.key(bins, pos, bound, &useful);
        if self.memo.contains(&key) {
            return None;
        }
        if !self.bound_ok(bins, pos, &useful) || self.weights_refute(bins, pos, &useful, budget) {
            self.remember(key);
            return None;
        }
        let d = &self.problem.types[self.order[pos]].demand;
        let mut choices: Vec<(f64, usize)> = (0..bins.len())
            .filter(|&i| {
                fits(d, bins.cap(i)) && bound.is_none_or(|b| lex_desc(bins.cap(i), b).is_ge())
            })
            .map(|i| (size(bins.cap(i), &self.scales), i))
            .collect();
        choices.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let start = arena.len();
        for &(_, i) in &choices {
            arena.extend_from_slice(bins.cap(i));
        }
        Some(Frame {
            pos,
            start,
            count: choices.len(),
            next: 0,
            applied: None,
            key: Some(key),
        })
    }

    fn remember(&mut self, key: Box<[u64]>) {
        if self.memo_words + key.len() <= MEMO_WORDS {
            self.memo_words += key.len();
            self.memo.insert(key);
        }
    }

    /// Runs the search.
    pub fn run(&mut self, budget: &mut Budget) -> Exact {
        let dims = self.problem.dims();
        let total = self.order.len();
        if total == 0 {
            return Exact::Found(Vec::new());
        }
        let mut bins = Bins {
            dims,
            caps: Vec::new(),
            counts: Vec::new(),
        };
        for class in &self.problem.classes {
            for _ in 0..class.count {
                bins.add(&class.cap);
            }
        }
        let mut arena: Vec<u64> = Vec::new();
        let mut stack: Vec<Frame> = Vec::new();
        match self.open(&bins, 0, None, &mut arena, budget) {
            Some(f) => stack.push(f),
            None => return Exact::Impossible,
        }
        let mut to = vec![0u64; dims];
        while let Some(top) = stack.last_mut() {
            let d = &self.problem.types[self.order[top.pos]].demand;
            if let Some(j) = top.applied.take() {
                let from = &arena[top.start + j * dims..top.start + (j + 1) * dims];
                for r in 0..dims {
                    to[r] = from[r] - d[r];
                }
                bins.remove(&to);
                bins.add(from);
            }
            if top.next == top.count {
                let frame = stack.pop();
                if let Some(mut frame) = frame {
                    arena.truncate(frame.start);
                    if let Some(key) = frame.key.take() {
                        self.remember(key);
                    }
                }
                continue;
            }
            let j = top.next;
            top.next += 1;
            top.applied = Some(j);
            let pos = top.pos;
            let from_range = top.start + j * dims..top.start + (j + 1) * dims;
            let from: Vec<u64> = arena[from_range].to_vec();
            for r in 0..dims {
                to[r] = from[r] - d[r];
            }
            bins.remove(&from);
            bins.add(&to);
            let child = pos + 1;
            if child == total {
                return Exact::Found(self.path(&stack, &arena));
            }
            if !budget.tick(1 + bins.len() as u64 / 16) {
                return Exact::OutOfBudget;
            }
            let bound = (self.type_start[child] != child).then_some(from.as_slice());
            if let Some(frame) = self.open(&bins, child, bound, &mut arena, budget) {
                stack.push(frame);
            }
        }
        Exact::Impossible
    }

    fn path(&self, stack: &[Frame], arena: &[u64]) -> Vec<Move> {
        let dims = self.problem.dims();
        stack
            .iter()
            .filter_map(|f| {
                let j = f.applied?;
                Some(Move {
                    ty: self.order[f.pos],
                    from: arena[f.start + j * dims..f.start + (j + 1) * dims].to_vec(),
                    per_node: 1,
                    nodes: 1,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use proptest::prelude::*;

    use super::*;
    use crate::model::{Amount, Cluster, Node, NodeSlot, Resources};
    use crate::placement::greedy::{BinOrder, greedy, scales, types_by_size};
    use crate::placement::plan::replay;
    use crate::placement::witness::Witness;
    use crate::test_support::{brute_force, tight_case};

    fn one_d(caps: &[u64], items: &[u64]) -> (Vec<NodeSlot>, Cluster) {
        let slots = items
            .iter()
            .enumerate()
            .map(|(i, &x)| NodeSlot {
                pool: 0,
                slot: i,
                bundles: 1,
                demand: Resources::new().with("X", Amount::from_units(x)),
            })
            .collect();
        let nodes = caps
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                Node::new(
                    format!("n{i}"),
                    Resources::new().with("X", Amount::from_units(c)),
                )
            })
            .collect();
        (slots, Cluster::new(nodes))
    }

    /// The slot-by-slot search alone: `Some(feasible)`, its plan replayed and validated.
    fn search(slots: &[NodeSlot], cluster: &Cluster) -> Option<bool> {
        let problem = Problem::build(slots, cluster);
        let scales = scales(&problem);
        let order = types_by_size(&problem, &scales);
        let mut budget = Budget::new(u64::MAX, Duration::from_secs(60));
        let weights = Weights::new(&problem);
        let mut dfs = Dfs::new(&problem, &order, scales, weights);
        match dfs.run(&mut budget) {
            Exact::Found(moves) => {
                let nodes = replay(&problem, &moves, slots.len()).expect("a plan that replays");
                assert_eq!(Witness { nodes }.validate(slots, cluster), Ok(()));
                Some(true)
            }
            Exact::Impossible => Some(false),
            Exact::OutOfBudget => None,
        }
    }

    fn solve(caps: &[u64], items: &[u64]) -> (Option<bool>, Problem) {
        let (slots, cluster) = one_d(caps, items);
        (search(&slots, &cluster), Problem::build(&slots, &cluster))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn agrees_with_brute_force_on_tight_instances((slots, cluster) in tight_case()) {
            prop_assert_eq!(search(&slots, &cluster), Some(brute_force(&slots, &cluster)));
        }

        #[test]
        fn agrees_with_brute_force_on_one_resource(
            caps in prop::collection::vec(1u64..=20, 1..=4),
            items in prop::collection::vec(1u64..=12, 0..=8),
        ) {
            let (slots, cluster) = one_d(&caps, &items);
            prop_assert_eq!(search(&slots, &cluster), Some(brute_force(&slots, &cluster)));
        }
    }

    #[test]
    fn greedy_fails_where_the_exact_search_succeeds() {
        // Every greedy order fails; {8,5,5} and {8,7,3} fit exactly.
        let caps = [18, 18];
        let items = [8, 8, 7, 5, 5, 3];
        let (slots, cluster) = one_d(&caps, &items);
        let problem = Problem::build(&slots, &cluster);
        let sc = scales(&problem);
        let order = types_by_size(&problem, &sc);
        let mut budget = Budget::new(1_000_000, Duration::from_secs(5));
        for bo in [BinOrder::Given, BinOrder::Tightest] {
            assert!(greedy(&problem, &order, bo, &sc, true, &mut budget).is_none());
        }
        assert_eq!(solve(&caps, &items).0, Some(true));
        assert_eq!(solve(&caps, &[10, 10, 10, 3]).0, Some(false));
    }

    #[test]
    fn empty_and_trivial_instances() {
        assert_eq!(solve(&[], &[]).0, Some(true));
        assert_eq!(solve(&[], &[1]).0, Some(false));
        assert_eq!(solve(&[3, 3, 3], &[2, 2, 2, 2]).0, Some(false));
    }
}
