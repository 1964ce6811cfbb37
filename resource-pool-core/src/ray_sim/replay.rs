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
use crate::placement::{Run, VecIndex, nearest, push_run, split_groups};

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
    // A set per shape, then one per capacity groups leave behind; found by capacity.
    let (mut initial, starts) = instance.runs_by_shape();
    let shapes = instance.shape_counts.len();
    let mut sets: Vec<NodeSet<'_>> = split_groups(&mut initial, &starts)
        .into_iter()
        .map(NodeSet::new)
        .collect();
    // Each set's capacity: the shapes' (distinct), then each capacity left behind.
    let mut set_caps: Vec<Cow<'_, [u64]>> = Vec::with_capacity(shapes);
    let mut index = VecIndex::default();
    for s in 0..shapes {
        let cap = instance.shape_cap(s);
        index.add(VecIndex::hash(cap));
        set_caps.push(Cow::Borrowed(cap));
    }
    let mut groups: Vec<GroupFate> = Vec::with_capacity(sim.slots.len());
    let mut blocked: Option<PoolId> = None;
    let mut runs = instance.slot_runs.iter().peekable();
    let mut moved: Vec<Run> = Vec::new();
    let mut to: Vec<u64> = vec![0; instance.names.len()];
    for &(id, count) in decisions.runs() {
        let mut left = count;
        while left > 0 {
            let pos = groups.len();
            while runs.next_if(|r| r.slots.end <= pos).is_some() {}
            let Some(&&run) = runs.peek() else {
                break;
            };
            let chunk = left.min(run.slots.end - pos);
            left -= chunk;
            let d = sim.demand(run.ty);
            let cannot_happen = GroupFate::NotCreated {
                blocked_by: run.pool,
            };
            if id == PENDING {
                blocked.get_or_insert(run.pool);
                let candidates = set_caps
                    .iter()
                    .zip(&sets)
                    .filter_map(|(cap, set)| set.first().map(|n| (n, cap.as_ref())));
                let fate = GroupFate::Pending(Arc::new(Pending {
                    state: if sim.never[run.ty] {
                        PendingState::Infeasible
                    } else {
                        PendingState::NoResources
                    },
                    nearest: nearest(&instance.names, d, candidates, sim.cluster),
                }));
                groups.extend(std::iter::repeat_n(fate, chunk));
                continue;
            }
            // Decisions come from the same classes: a capacity unknown or short of nodes
            // cannot happen.
            let Some(cap) = caps.get(id) else {
                groups.extend(std::iter::repeat_n(cannot_happen, chunk));
                continue;
            };
            for ((t, a), x) in to.iter_mut().zip(cap).zip(d) {
                *t = a.saturating_sub(*x);
            }
            if to == *cap {
                // Nothing moves (a zero demand): every group goes to the lowest node.
                let set = index.find(cap, |i| &set_caps[i]).ok();
                let fate = match set.and_then(|i| sets[i].first()) {
                    Some(node) => GroupFate::Placed { node },
                    None => cannot_happen,
                };
                groups.extend(std::iter::repeat_n(fate, chunk));
                continue;
            }
            moved.clear();
            let taken = index
                .find(cap, |i| &set_caps[i])
                .map_or(0, |i| sets[i].take(chunk, &mut moved));
            groups.extend(
                moved
                    .iter()
                    .flat_map(|r| r.start..r.end)
                    .map(|node| GroupFate::Placed { node }),
            );
            groups.extend(std::iter::repeat_n(cannot_happen, chunk - taken));
            let target = match index.find(&to, |i| &set_caps[i]) {
                Ok(i) => i,
                Err(hash) => {
                    set_caps.push(Cow::Owned(to.clone()));
                    sets.push(NodeSet::default());
                    index.add(hash)
                }
            };
            for &r in &moved {
                sets[target].insert(r);
            }
        }
    }
    // The groups after the decisions were never created.
    for run in &instance.slot_runs {
        let from = groups.len().max(run.slots.start);
        if from < run.slots.end {
            let fate = GroupFate::NotCreated {
                blocked_by: blocked.unwrap_or(run.pool),
            };
            groups.extend(std::iter::repeat_n(fate, run.slots.end - from));
        }
    }
    RayBranch { groups }
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
