//! The simulation proper: node classes with counts, Ray's score, every tie followed up to
//! the bounds, identical branch states explored once.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};
use std::time::Instant;

use super::fix::CapTable;
use super::*;
use crate::model::{ResourceName, Resources};
use crate::placement::{FxBuild, VecMap, fill_vector, fits, intern_slots, nearest};

const PENDING: u32 = u32::MAX;

/// The instance in dense form.
pub(super) struct Sim<'a> {
    pub(super) slots: &'a [NodeSlot],
    pub(super) cluster: &'a Cluster,
    pub(super) names: Vec<ResourceName>,
    /// Distinct demands, and the index among them of every slot's.
    pub(super) demands: Vec<Vec<u64>>,
    pub(super) type_of: Vec<usize>,
    /// Per demand, whether no alive node's (known) total could ever hold it.
    pub(super) never: Vec<bool>,
    /// Classes of alive nodes that can host some slot.
    pub(super) init: Vec<(Vec<u64>, u64)>,
    pub(super) deadline: Instant,
}

impl Sim<'_> {
    pub(super) fn demand(&self, slot: usize) -> &[u64] {
        &self.demands[self.type_of[slot]]
    }
}

/// One unexplored branch.
pub(super) struct Work {
    pub(super) pos: usize,
    pub(super) classes: Vec<(Vec<u64>, u64)>,
    pub(super) decisions: Vec<u32>,
    pub(super) blocked: Option<PoolId>,
}

/// The result of simulating one order.
pub(super) struct Outcome {
    pub(super) verdict: RayVerdict,
    pub(super) representative: Vec<u32>,
    pub(super) alternative: Option<Vec<u32>>,
    pub(super) branches: usize,
}

/// Ray's `LeastResourceScorer`, on fixed-point units.
pub(super) fn score(demand: &[u64], avail: &[u64]) -> f64 {
    let scale = crate::model::Amount::SCALE as f64;
    demand
        .iter()
        .zip(avail)
        .filter(|(d, _)| **d > 0)
        .map(|(&d, &a)| {
            if a == 0 {
                0.0
            } else {
                ((a - d) as f64 / scale) / (a as f64 / scale)
            }
        })
        .sum()
}

pub(super) fn tied(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
}

fn place(classes: &mut Vec<(Vec<u64>, u64)>, ci: usize, demand: &[u64]) {
    classes[ci].1 -= 1;
    let from = &classes[ci].0;
    let same = |c: &(Vec<u64>, u64)| {
        c.0.iter()
            .zip(from.iter().zip(demand))
            .all(|(x, (a, d))| *x == a.saturating_sub(*d))
    };
    match classes.iter().position(same) {
        Some(j) => classes[j].1 += 1,
        None => {
            let to = from
                .iter()
                .zip(demand)
                .map(|(a, d)| a.saturating_sub(*d))
                .collect();
            classes.push((to, 1));
        }
    }
    if classes[ci].1 == 0 {
        classes.remove(ci);
    }
}

fn state_key(pos: usize, blocked: Option<PoolId>, classes: &[(Vec<u64>, u64)]) -> Box<[u64]> {
    let mut sorted: Vec<&(Vec<u64>, u64)> = classes.iter().collect();
    sorted.sort();
    let mut key = vec![pos as u64, blocked.map_or(u64::MAX, |p| p as u64)];
    for (cap, count) in sorted {
        key.extend_from_slice(cap);
        key.push(*count);
    }
    key.into_boxed_slice()
}

impl<'a> Sim<'a> {
    pub(super) fn new(slots: &'a [NodeSlot], cluster: &'a Cluster, deadline: Instant) -> Sim<'a> {
        let (names, types) = intern_slots(slots);
        let dims = names.len();
        let mut type_of = vec![0; slots.len()];
        for (t, ty) in types.iter().enumerate() {
            for &s in &ty.slots {
                if let Some(x) = type_of.get_mut(s) {
                    *x = t;
                }
            }
        }
        let demands: Vec<Vec<u64>> = types.into_iter().map(|t| t.demand).collect();
        let mut buf = vec![0u64; dims];
        let mut totals: Option<Vec<Vec<u64>>> = Some(Vec::new());
        let mut index: VecMap<usize> = VecMap::default();
        let mut init: Vec<(Vec<u64>, u64)> = Vec::new();
        // The last node's resources and where they went: a node that shares them (see
        // `Resources::shares_with`) is not read again.
        let mut previous: Option<(&Resources, usize)> = None;
        let mut previous_total: Option<&Resources> = None;
        for node in cluster.alive() {
            let c = match previous {
                Some((available, c)) if available.shares_with(&node.available) => c,
                _ => {
                    fill_vector(&node.available, &names, &mut buf);
                    match index.get(buf.as_slice()) {
                        Some(&c) => c,
                        None => {
                            index.insert(buf.clone(), init.len());
                            init.push((buf.clone(), 0));
                            init.len() - 1
                        }
                    }
                }
            };
            init[c].1 += 1;
            previous = Some((&node.available, c));
            match (&mut totals, &node.total) {
                (Some(_), Some(total)) if previous_total.is_some_and(|p| p.shares_with(total)) => {}
                (Some(list), Some(total)) => {
                    fill_vector(total, &names, &mut buf);
                    if !list.contains(&buf) {
                        list.push(buf.clone());
                    }
                    previous_total = Some(total);
                }
                _ => totals = None,
            }
        }
        init.retain(|(cap, _)| demands.iter().any(|d| fits(d, cap)));
        let never = demands
            .iter()
            .map(|d| match &totals {
                Some(list) => !list.iter().any(|t| fits(d, t)),
                None => false,
            })
            .collect();
        Sim {
            slots,
            cluster,
            names,
            demands,
            type_of,
            never,
            init,
            deadline,
        }
    }

    /// Whether every group of `order` finds a fitting node on every branch, whatever the
    /// tie-breaks: each earlier group changes at most one node, so a group whose demand
    /// fits more untouched nodes than there are groups before it always fits one.
    pub(super) fn places_whatever_ties(&self, order: &[usize]) -> bool {
        let fitting: Vec<u64> = self
            .demands
            .iter()
            .map(|d| {
                self.init
                    .iter()
                    .filter(|(cap, _)| fits(d, cap))
                    .map(|(_, count)| count)
                    .sum()
            })
            .collect();
        order
            .iter()
            .enumerate()
            .all(|(before, &s)| fitting[self.type_of[s]] > before as u64)
    }

    /// Simulates the groups in `order` (slot indices), following ties unless every branch
    /// is known to place everything ([`Sim::places_whatever_ties`]): then one branch is
    /// the answer and the representative.
    pub(super) fn run(&self, order: &[usize], max_branches: usize, caps: &mut CapTable) -> Outcome {
        let follow_ties = !self.places_whatever_ties(order);
        let outcome = self.run_with(order, max_branches, caps, follow_ties);
        debug_assert!(follow_ties || outcome.verdict == RayVerdict::Places);
        outcome
    }

    pub(super) fn run_with(
        &self,
        order: &[usize],
        max_branches: usize,
        caps: &mut CapTable,
        follow_ties: bool,
    ) -> Outcome {
        let mut stack = vec![Work {
            pos: 0,
            classes: self.init.clone(),
            decisions: Vec::with_capacity(order.len()),
            blocked: None,
        }];
        let mut seen: HashSet<Box<[u64]>, FxBuild> = HashSet::default();
        let mut places: Option<Vec<u32>> = None;
        let mut hangs: Option<Vec<u32>> = None;
        let mut branches = 0usize;
        let mut cut = false;
        let mut scores: Vec<f64> = Vec::new();
        while let Some(mut w) = stack.pop() {
            if branches > 0 && (branches >= max_branches.max(1) || Instant::now() > self.deadline) {
                cut = true;
                break;
            }
            let mut abandoned = false;
            while w.pos < order.len() {
                let s = order[w.pos];
                let pool = self.slots[s].pool;
                if w.blocked.is_some_and(|b| b != pool) {
                    break;
                }
                let d = self.demand(s);
                scores.clear();
                let mut best = f64::NEG_INFINITY;
                for (cap, _) in &w.classes {
                    let sc = if fits(d, cap) {
                        score(d, cap)
                    } else {
                        f64::NEG_INFINITY
                    };
                    best = best.max(sc);
                    scores.push(sc);
                }
                if best == f64::NEG_INFINITY {
                    w.decisions.push(PENDING);
                    w.blocked.get_or_insert(pool);
                    w.pos += 1;
                    continue;
                }
                let ties: Vec<usize> = (0..scores.len())
                    .filter(|&i| scores[i] > f64::NEG_INFINITY && tied(scores[i], best))
                    .collect();
                let chosen = ties[0];
                let follow = follow_ties && ties.len() > 1;
                if follow {
                    for &alt in &ties[1..] {
                        let mut classes = w.classes.clone();
                        let id = caps.id(&classes[alt].0);
                        place(&mut classes, alt, d);
                        if seen.insert(state_key(w.pos + 1, w.blocked, &classes)) {
                            let mut decisions = w.decisions.clone();
                            decisions.push(id);
                            stack.push(Work {
                                pos: w.pos + 1,
                                classes,
                                decisions,
                                blocked: w.blocked,
                            });
                        }
                    }
                }
                let id = caps.id(&w.classes[chosen].0);
                place(&mut w.classes, chosen, d);
                w.decisions.push(id);
                w.pos += 1;
                if follow && !seen.insert(state_key(w.pos, w.blocked, &w.classes)) {
                    abandoned = true;
                    break;
                }
            }
            if abandoned {
                continue;
            }
            branches += 1;
            if w.blocked.is_some() {
                hangs.get_or_insert(w.decisions);
            } else {
                places.get_or_insert(w.decisions);
            }
            if places.is_some() && hangs.is_some() {
                break;
            }
        }
        let verdict = match (&places, &hangs) {
            (Some(_), Some(_)) => RayVerdict::DependsOnTies,
            _ if cut => RayVerdict::Undecided,
            (Some(_), None) => RayVerdict::Places,
            _ => RayVerdict::Hangs,
        };
        let (representative, alternative) = match (hangs, places) {
            (Some(h), p) => (h, p),
            (None, Some(p)) => (p, None),
            (None, None) => (Vec::new(), None),
        };
        Outcome {
            verdict,
            representative,
            alternative,
            branches,
        }
    }

    /// Turns decisions into fates on real nodes (lowest index first among equal nodes).
    pub(super) fn replay(&self, order: &[usize], decisions: &[u32], caps: &CapTable) -> RayBranch {
        let dims = self.names.len();
        let mut buckets: VecMap<BinaryHeap<Reverse<usize>>> = VecMap::default();
        let mut buf = vec![0u64; dims];
        // A node that shares its resources with the last one read has its vector.
        let mut previous: Option<&Resources> = None;
        for (i, node) in self.cluster.nodes.iter().enumerate() {
            if !node.alive {
                continue;
            }
            if !previous.is_some_and(|p| p.shares_with(&node.available)) {
                fill_vector(&node.available, &self.names, &mut buf);
                previous = Some(&node.available);
            }
            match buckets.get_mut(buf.as_slice()) {
                Some(heap) => heap.push(Reverse(i)),
                None => {
                    buckets.insert(buf.clone(), BinaryHeap::from([Reverse(i)]));
                }
            }
        }
        let mut groups: Vec<Option<GroupFate>> = vec![None; self.slots.len()];
        let mut blocked: Option<PoolId> = None;
        for (pos, &s) in order.iter().enumerate() {
            let d = self.demand(s);
            let fate = match decisions.get(pos) {
                None => GroupFate::NotCreated {
                    blocked_by: blocked.unwrap_or(self.slots[s].pool),
                },
                Some(&PENDING) => {
                    blocked.get_or_insert(self.slots[s].pool);
                    let candidates = buckets
                        .iter()
                        .filter_map(|(cap, heap)| heap.peek().map(|r| (r.0, cap.as_slice())));
                    GroupFate::Pending(Pending {
                        state: if self.never[self.type_of[s]] {
                            PendingState::Infeasible
                        } else {
                            PendingState::NoResources
                        },
                        nearest: nearest(&self.names, d, candidates, self.cluster),
                    })
                }
                Some(&id) => {
                    let node = caps
                        .get(id)
                        .and_then(|cap| buckets.get_mut(cap))
                        .and_then(BinaryHeap::pop);
                    match (node, caps.get(id)) {
                        (Some(Reverse(node)), Some(cap)) => {
                            for ((b, a), x) in buf.iter_mut().zip(cap).zip(d) {
                                *b = a.saturating_sub(*x);
                            }
                            match buckets.get_mut(buf.as_slice()) {
                                Some(heap) => heap.push(Reverse(node)),
                                None => {
                                    buckets.insert(buf.clone(), BinaryHeap::from([Reverse(node)]));
                                }
                            }
                            GroupFate::Placed { node }
                        }
                        // Cannot happen: decisions come from the same classes.
                        _ => GroupFate::NotCreated {
                            blocked_by: self.slots[s].pool,
                        },
                    }
                }
            };
            if let Some(g) = groups.get_mut(s) {
                *g = Some(fate);
            }
        }
        RayBranch {
            groups: groups
                .into_iter()
                .zip(self.slots)
                .map(|(g, s)| g.unwrap_or(GroupFate::NotCreated { blocked_by: s.pool }))
                .collect(),
        }
    }
}
