//! A branch's decisions (the capacity each group went to) turned into fates on real nodes:
//! among the nodes that have the chosen capacity free, the lowest index first.
//!
//! The nodes of one capacity are a `NodeSet`: the runs of nodes that had it from the
//! start, the runs moved in since in ascending order, and a heap for the few moved in out
//! of order. A run of groups placed on one capacity takes its lowest nodes run by run, so
//! a cluster of equal nodes costs one write per group, not a heap operation.

use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::fix::CapTable;
use super::sim::{Decisions, PENDING, Sim};
use super::*;
use crate::placement::{Instance, Run, VecIndex, nearest, push_run, split_groups};

/// The nodes that have one capacity free, lowest index first.
#[derive(Debug, Default)]
struct NodeSet<'a> {
    /// The nodes that had it from the start, ascending; those before `initial_at` are gone.
    /// A part of one list for all shapes ([`Instance::runs_by_shape`]).
    initial: &'a mut [Run],
    initial_at: usize,
    /// Nodes moved in, ascending; those before `arrived_at` are gone.
    arrived: Vec<Run>,
    arrived_at: usize,
    /// Nodes moved in below the last one in `arrived`.
    heap: BinaryHeap<Reverse<usize>>,
}

impl<'a> NodeSet<'a> {
    fn new(initial: &'a mut [Run]) -> NodeSet<'a> {
        NodeSet {
            initial,
            ..NodeSet::default()
        }
    }

    /// The lowest node of each part.
    fn heads(&self) -> [Option<usize>; 3] {
        [
            self.initial.get(self.initial_at).map(|r| r.start),
            self.arrived.get(self.arrived_at).map(|r| r.start),
            self.heap.peek().map(|r| r.0),
        ]
    }

    /// The lowest node.
    fn first(&self) -> Option<usize> {
        self.heads().into_iter().flatten().min()
    }

    /// Takes up to `n` lowest nodes, appending them in order to `out`; says how many.
    fn take(&mut self, n: usize, out: &mut Vec<Run>) -> usize {
        let mut taken = 0;
        while taken < n {
            let heads = self.heads();
            let Some(low) = heads.into_iter().flatten().min() else {
                break;
            };
            let [initial, arrived, heap] = heads;
            if heap == Some(low) {
                self.heap.pop();
                push_run(
                    out,
                    Run {
                        start: low,
                        end: low + 1,
                    },
                );
                taken += 1;
                continue;
            }
            // The lowest node starts a run of its part; the other parts hold none of the
            // run's nodes, so the whole run comes before them.
            let (runs, at): (&mut [Run], &mut usize) = if initial == Some(low) {
                (self.initial, &mut self.initial_at)
            } else {
                debug_assert_eq!(arrived, Some(low));
                (&mut self.arrived, &mut self.arrived_at)
            };
            let run = &mut runs[*at];
            let end = run.end.min(low.saturating_add(n - taken));
            push_run(out, Run { start: low, end });
            run.start = end;
            if run.start == run.end {
                *at += 1;
            }
            taken += end - low;
        }
        taken
    }

    /// Adds the nodes of `run`.
    fn insert(&mut self, run: Run) {
        if self.arrived_at == self.arrived.len() {
            self.arrived.clear();
            self.arrived_at = 0;
        }
        match self.arrived.last() {
            Some(last) if run.start < last.end => {
                self.heap.extend((run.start..run.end).map(Reverse));
            }
            _ => push_run(&mut self.arrived, run),
        }
    }
}

/// Turns a branch's decisions, over the slots in their order, into fates on real nodes
/// (lowest index first among equal nodes).
pub(super) fn replay(sim: &Sim<'_>, decisions: &Decisions, caps: &CapTable) -> RayBranch {
    let instance = sim.instance;
    let (mut initial, starts) = instance.runs_by_shape();
    let mut replay = Replay::new(instance, &mut initial, &starts, sim.slots.len());
    let mut runs = instance.slot_runs.iter().peekable();
    for &(id, count) in decisions.runs() {
        let mut left = count;
        while left > 0 {
            let pos = replay.groups.len();
            while runs.next_if(|r| r.slots.end <= pos).is_some() {}
            let Some(&&run) = runs.peek() else {
                break;
            };
            let chunk = left.min(run.slots.end - pos);
            left -= chunk;
            if id == PENDING {
                replay.pending(sim, run.ty, run.pool, chunk);
                continue;
            }
            match caps.get(id) {
                Some(cap) => replay.place(cap, sim.demand(run.ty), run.pool, chunk),
                // Decisions come from the same classes: a capacity unknown cannot happen.
                None => replay.not_created(run.pool, chunk),
            }
        }
    }
    // The groups after the decisions were never created.
    for run in &instance.slot_runs {
        let from = replay.groups.len().max(run.slots.start);
        if from < run.slots.end {
            let blocked_by = replay.blocked.unwrap_or(run.pool);
            replay.not_created(blocked_by, run.slots.end - from);
        }
    }
    RayBranch {
        groups: replay.groups,
    }
}

/// A replay under way: the nodes by the capacity they have free, the fates of the groups
/// so far, and buffers each chunk of groups reuses.
struct Replay<'a> {
    /// One set per capacity: the shapes' (distinct), then each capacity left behind.
    sets: Vec<NodeSet<'a>>,
    /// Each set's capacity.
    set_caps: Vec<Cow<'a, [u64]>>,
    /// Finds a set by its capacity.
    index: VecIndex,
    groups: Vec<GroupFate>,
    /// The pool whose creation a pending group blocks, from the first such group on.
    blocked: Option<PoolId>,
    /// The nodes a chunk of groups moved from one capacity to another.
    moved: Vec<Run>,
    /// The capacity a chunk of groups leaves behind.
    to: Vec<u64>,
}

impl<'a> Replay<'a> {
    /// Nothing replayed yet: a set per shape of `instance`, whose nodes are `initial`
    /// (split at `starts`), and room for `groups` fates.
    fn new(
        instance: &'a Instance,
        initial: &'a mut [Run],
        starts: &[usize],
        groups: usize,
    ) -> Replay<'a> {
        let shapes = instance.shape_counts.len();
        let sets = split_groups(initial, starts)
            .into_iter()
            .map(NodeSet::new)
            .collect();
        let mut set_caps: Vec<Cow<'_, [u64]>> = Vec::with_capacity(shapes);
        let mut index = VecIndex::default();
        for s in 0..shapes {
            let cap = instance.shape_cap(s);
            index.add(VecIndex::hash(cap));
            set_caps.push(Cow::Borrowed(cap));
        }
        Replay {
            sets,
            set_caps,
            index,
            groups: Vec::with_capacity(groups),
            blocked: None,
            moved: Vec::new(),
            to: vec![0; instance.names.len()],
        }
    }

    /// `chunk` groups of slot type `ty` (of `pool`) that fit no node: pending, each with
    /// the node nearest to fitting it; the first blocks its pool's creation.
    fn pending(&mut self, sim: &Sim<'_>, ty: usize, pool: PoolId, chunk: usize) {
        self.blocked.get_or_insert(pool);
        let candidates = self
            .set_caps
            .iter()
            .zip(&self.sets)
            .filter_map(|(cap, set)| set.first().map(|n| (n, cap.as_ref())));
        let fate = GroupFate::Pending(Arc::new(Pending {
            state: if sim.never[ty] {
                PendingState::Infeasible
            } else {
                PendingState::NoResources
            },
            nearest: nearest(&sim.instance.names, sim.demand(ty), candidates, sim.cluster),
        }));
        self.groups.extend(std::iter::repeat_n(fate, chunk));
    }

    /// `chunk` groups of demand `d` (of `pool`) placed on the lowest nodes with capacity
    /// `cap` free, which move to the capacity they leave behind.
    fn place(&mut self, cap: &[u64], d: &[u64], pool: PoolId, chunk: usize) {
        let cannot_happen = GroupFate::NotCreated { blocked_by: pool };
        for ((t, a), x) in self.to.iter_mut().zip(cap).zip(d) {
            *t = a.saturating_sub(*x);
        }
        if self.to == *cap {
            // Nothing moves (a zero demand): every group goes to the lowest node.
            let set = self.index.find(cap, |i| &self.set_caps[i]).ok();
            let fate = match set.and_then(|i| self.sets[i].first()) {
                Some(node) => GroupFate::Placed { node },
                None => cannot_happen,
            };
            self.groups.extend(std::iter::repeat_n(fate, chunk));
            return;
        }
        self.moved.clear();
        let taken = self
            .index
            .find(cap, |i| &self.set_caps[i])
            .map_or(0, |i| self.sets[i].take(chunk, &mut self.moved));
        self.groups.extend(
            self.moved
                .iter()
                .flat_map(|r| r.start..r.end)
                .map(|node| GroupFate::Placed { node }),
        );
        // Decisions come from the same classes: a capacity short of nodes cannot happen.
        self.groups
            .extend(std::iter::repeat_n(cannot_happen, chunk - taken));
        let target = match self.index.find(&self.to, |i| &self.set_caps[i]) {
            Ok(i) => i,
            Err(hash) => {
                self.set_caps.push(Cow::Owned(self.to.clone()));
                self.sets.push(NodeSet::default());
                self.index.add(hash)
            }
        };
        for &r in &self.moved {
            self.sets[target].insert(r);
        }
    }

    /// `count` groups never created, as `blocked_by`'s creation blocks them.
    fn not_created(&mut self, blocked_by: PoolId, count: usize) {
        let fate = GroupFate::NotCreated { blocked_by };
        self.groups.extend(std::iter::repeat_n(fate, count));
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::placement::IndexRuns;

    proptest::proptest! {
        /// A node set answers as a sorted set of its nodes: runs moved in out of order,
        /// takes that cross its parts, from start to empty.
        #[test]
        fn node_set_is_a_sorted_set(
            initial in proptest::collection::btree_set(0usize..200, 0..40),
            ops in proptest::collection::vec((proptest::bool::ANY, 0usize..200, 1usize..6), 0..40),
        ) {
            let mut runs = IndexRuns::default();
            for &i in &initial {
                runs.push(i);
            }
            let mut initial_runs = runs.runs().to_vec();
            let mut set = NodeSet::new(&mut initial_runs);
            let mut model: BTreeSet<usize> = initial.clone();
            // Nodes that were never in: what moves in comes from elsewhere.
            let mut outside: BTreeSet<usize> = (0..200).filter(|i| !initial.contains(i)).collect();
            for (insert, at, n) in ops {
                if insert {
                    // A run of nodes from outside, starting at or after `at`.
                    let Some(&start) = outside.range(at..).next() else { continue };
                    let end = (start..start + n).take_while(|i| outside.contains(i)).last().map_or(start, |e| e + 1);
                    for i in start..end {
                        outside.remove(&i);
                        model.insert(i);
                    }
                    set.insert(Run { start, end });
                } else {
                    let mut out = Vec::new();
                    let taken = set.take(n, &mut out);
                    let expected: Vec<usize> = model.iter().copied().take(n).collect();
                    for i in &expected {
                        model.remove(i);
                        outside.insert(*i);
                    }
                    proptest::prop_assert_eq!(taken, expected.len());
                    proptest::prop_assert_eq!(out.iter().flat_map(|r| r.start..r.end).collect::<Vec<_>>(), expected);
                }
                proptest::prop_assert_eq!(set.first(), model.first().copied());
            }
        }
    }
}
