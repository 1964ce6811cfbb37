//! The search: batched greedy heuristics over classes, then an exact branch-and-bound.
//!
//! Both work on *bins*: a multiset of remaining-capacity vectors with counts. Nodes whose
//! remaining capacities are equal are interchangeable, so they are one bin and one choice.

use std::cmp::Ordering;
use std::collections::HashSet;
use std::time::{Duration, Instant};

use super::problem::{FxBuild, Problem, VecMap, fits};

/// Which limit of the budget ran out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BudgetLimit {
    /// [`PlacementOptions::max_steps`](super::PlacementOptions::max_steps).
    Steps,
    /// [`PlacementOptions::budget`](super::PlacementOptions::budget).
    Time,
}

/// A deterministic step budget plus a wall-clock deadline.
#[derive(Debug)]
pub(crate) struct Budget {
    pub steps: u64,
    max_steps: u64,
    start: Instant,
    limit: Duration,
    pub exhausted: Option<BudgetLimit>,
}

impl Budget {
    pub fn new(max_steps: u64, limit: Duration) -> Budget {
        Budget {
            steps: 0,
            max_steps,
            start: Instant::now(),
            limit,
            exhausted: None,
        }
    }

    /// Counts `n` steps; `false` once a limit is hit (and from then on).
    pub fn tick(&mut self, n: u64) -> bool {
        if self.exhausted.is_some() {
            return false;
        }
        let before = self.steps;
        self.steps = self.steps.saturating_add(n);
        if self.steps > self.max_steps {
            self.exhausted = Some(BudgetLimit::Steps);
            return false;
        }
        // The clock is read about every 256 steps.
        if before >> 8 != self.steps >> 8 && self.start.elapsed() > self.limit {
            self.exhausted = Some(BudgetLimit::Time);
            return false;
        }
        true
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }
}

/// One step of a plan: `per_node` slots of type `ty` on each of `nodes` nodes whose
/// remaining capacity was `from`.
#[derive(Clone, Debug)]
pub(crate) struct Move {
    pub ty: usize,
    pub from: Vec<u64>,
    pub per_node: u64,
    pub nodes: u64,
}

/// Turns a plan into the node of every slot, by replaying it on the real nodes. `None` when
/// the plan does not match the problem (a bug; the caller validates anyway).
pub(crate) fn replay(problem: &Problem, moves: &[Move], n_slots: usize) -> Option<Vec<usize>> {
    let mut buckets: VecMap<Vec<usize>> = VecMap::default();
    for class in &problem.classes {
        let mut nodes = class.nodes.clone();
        nodes.reverse();
        buckets.entry(class.cap.clone()).or_default().extend(nodes);
    }
    let mut next_slot: Vec<usize> = vec![0; problem.types.len()];
    let mut out = vec![usize::MAX; n_slots];
    let mut moved: Vec<usize> = Vec::new();
    for mv in moves {
        let ty = problem.types.get(mv.ty)?;
        let mut to = mv.from.clone();
        for (c, d) in to.iter_mut().zip(&ty.demand) {
            *c = c.checked_sub(d.checked_mul(mv.per_node)?)?;
        }
        let source = buckets.get_mut(&mv.from)?;
        let take = usize::try_from(mv.nodes).ok()?;
        let keep = source.len().checked_sub(take)?;
        moved.clear();
        moved.extend(source.drain(keep..).rev());
        for &node in &moved {
            for _ in 0..mv.per_node {
                let slot = *ty.slots.get(next_slot[mv.ty])?;
                next_slot[mv.ty] += 1;
                *out.get_mut(slot)? = node;
            }
        }
        buckets.entry(to).or_default().extend(moved.iter().rev());
    }
    if out.contains(&usize::MAX) {
        return None;
    }
    Some(out)
}

/// Weights that make resources comparable: one over the largest capacity of each.
pub(crate) fn scales(problem: &Problem) -> Vec<f64> {
    (0..problem.dims())
        .map(|r| {
            let max = problem.classes.iter().map(|c| c.cap[r]).max().unwrap_or(0);
            if max == 0 { 0.0 } else { 1.0 / max as f64 }
        })
        .collect()
}

fn size(v: &[u64], scales: &[f64]) -> f64 {
    v.iter().zip(scales).map(|(&x, s)| x as f64 * s).sum()
}

/// Slot types, largest first (ties by index: deterministic).
pub(crate) fn types_by_size(problem: &Problem, scales: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..problem.types.len()).collect();
    let sizes: Vec<f64> = problem
        .types
        .iter()
        .map(|t| size(&t.demand, scales))
        .collect();
    order.sort_by(|&a, &b| sizes[b].total_cmp(&sizes[a]).then(a.cmp(&b)));
    order
}

/// How bins are visited by the greedy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinOrder {
    /// Tightest first: best fit.
    Tightest,
    /// Emptiest first: worst fit.
    Emptiest,
    /// In cluster order: first fit.
    Given,
}

/// Most slots of demand `d` that fit in `cap`, at most `limit`.
fn per_node(cap: &[u64], d: &[u64], limit: u64) -> u64 {
    let mut k = limit;
    for (&c, &x) in cap.iter().zip(d) {
        if let Some(q) = c.checked_div(x) {
            k = k.min(q);
        }
    }
    k
}

fn sub_times(cap: &[u64], d: &[u64], k: u64) -> Vec<u64> {
    cap.iter()
        .zip(d)
        .map(|(&c, &x)| c.saturating_sub(x.saturating_mul(k)))
        .collect()
}

/// A batched greedy: slot types in `order`, each placed as densely as it goes on the bins
/// in `bins` order. Returns the plan and how many slots of each type it placed (`full`:
/// stop at the first type that does not fit entirely).
pub(crate) fn greedy(
    problem: &Problem,
    order: &[usize],
    bin_order: BinOrder,
    scales: &[f64],
    full: bool,
    budget: &mut Budget,
) -> Option<(Vec<Move>, Vec<u64>)> {
    let mut bins: Vec<(Vec<u64>, u64)> = problem
        .classes
        .iter()
        .map(|c| (c.cap.clone(), c.nodes.len() as u64))
        .collect();
    let mut moves = Vec::new();
    let mut placed = vec![0u64; problem.types.len()];
    for &t in order {
        let d = &problem.types[t].demand;
        let mut m = problem.types[t].slots.len() as u64;
        let mut idx: Vec<usize> = (0..bins.len()).collect();
        match bin_order {
            BinOrder::Given => {}
            BinOrder::Tightest | BinOrder::Emptiest => {
                let sizes: Vec<f64> = bins.iter().map(|b| size(&b.0, scales)).collect();
                idx.sort_by(|&a, &b| {
                    let o = sizes[a].total_cmp(&sizes[b]);
                    if bin_order == BinOrder::Tightest {
                        o
                    } else {
                        o.reverse()
                    }
                });
            }
        }
        if !budget.tick(bins.len() as u64 + 1) {
            return None;
        }
        for i in idx {
            if m == 0 {
                break;
            }
            let k = per_node(&bins[i].0, d, m);
            if k == 0 || bins[i].1 == 0 || !fits(d, &bins[i].0) {
                continue;
            }
            let n = bins[i].1;
            let filled = n.min(m / k);
            if filled > 0 {
                moves.push(Move {
                    ty: t,
                    from: bins[i].0.clone(),
                    per_node: k,
                    nodes: filled,
                });
                let to = sub_times(&bins[i].0, d, k);
                bins[i].1 -= filled;
                bins.push((to, filled));
                m -= filled * k;
            }
            if m > 0 && m < k && bins[i].1 > 0 {
                moves.push(Move {
                    ty: t,
                    from: bins[i].0.clone(),
                    per_node: m,
                    nodes: 1,
                });
                let to = sub_times(&bins[i].0, d, m);
                bins[i].1 -= 1;
                bins.push((to, 1));
                m = 0;
            }
        }
        placed[t] = problem.types[t].slots.len() as u64 - m;
        if m > 0 && full {
            return None;
        }
        // Merge equal capacities, keeping first-appearance order.
        let mut merged: Vec<(Vec<u64>, u64)> = Vec::with_capacity(bins.len());
        let mut at: VecMap<usize> = VecMap::default();
        for (cap, count) in bins {
            if count == 0 {
                continue;
            }
            match at.get(&cap) {
                Some(&j) => merged[j].1 += count,
                None => {
                    at.insert(cap.clone(), merged.len());
                    merged.push((cap, count));
                }
            }
        }
        bins = merged;
    }
    Some((moves, placed))
}

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
}

/// Memo size limit, in `u64` words (16 MiB).
const MEMO_WORDS: usize = 2 << 20;

impl<'p> Dfs<'p> {
    pub fn new(problem: &'p Problem, type_order: &[usize], scales: Vec<f64>) -> Dfs<'p> {
        let dims = problem.dims();
        let mut order = Vec::new();
        let mut type_start = Vec::new();
        let mut block = Vec::new();
        for (k, &t) in type_order.iter().enumerate() {
            let start = order.len();
            for _ in &problem.types[t].slots {
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
    ) -> Option<Frame> {
        let useful: Vec<bool> = (0..bins.len()).map(|i| self.useful(bins, i, pos)).collect();
        let key = self.key(bins, pos, bound, &useful);
        if self.memo.contains(&key) {
            return None;
        }
        if !self.bound_ok(bins, pos, &useful) {
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
            for _ in 0..class.nodes.len() {
                bins.add(&class.cap);
            }
        }
        let mut arena: Vec<u64> = Vec::new();
        let mut stack: Vec<Frame> = Vec::new();
        match self.open(&bins, 0, None, &mut arena) {
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
            if let Some(frame) = self.open(&bins, child, bound, &mut arena) {
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
    use super::*;
    use crate::model::{Amount, Cluster, Node, NodeSlot, Resources};

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

    fn solve(caps: &[u64], items: &[u64]) -> (Option<bool>, Problem) {
        let (slots, cluster) = one_d(caps, items);
        let problem = Problem::build(&slots, &cluster);
        let scales = scales(&problem);
        let order = types_by_size(&problem, &scales);
        let mut budget = Budget::new(1_000_000, Duration::from_secs(5));
        let mut dfs = Dfs::new(&problem, &order, scales);
        let r = match dfs.run(&mut budget) {
            Exact::Found(moves) => {
                assert!(replay(&problem, &moves, slots.len()).is_some());
                Some(true)
            }
            Exact::Impossible => Some(false),
            Exact::OutOfBudget => None,
        };
        (r, problem)
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

    #[test]
    fn budget_counts_steps() {
        let mut b = Budget::new(3, Duration::from_secs(60));
        assert!(b.tick(2));
        assert!(!b.tick(2));
        assert_eq!(b.exhausted, Some(BudgetLimit::Steps));
        assert!(!b.tick(0));
    }
}
