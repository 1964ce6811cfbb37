//! The simulation as it was before groups were placed in runs and replayed on runs of
//! nodes: one group at a time, every node read, a heap per capacity. The fast simulation
//! is held to it by a property test (`simulate` against [`simulate`] here).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};
use std::time::Instant;

use super::fix::{CapTable, next_permutation};
use super::sim::{score, tied};
use super::*;
use crate::model::{ResourceName, Resources};
use crate::placement::{FxBuild, VecMap, check_placement, fill_vector, fits, nearest};
use crate::test_support::intern_slots_plainly;

const PENDING: u32 = u32::MAX;

/// The instance in dense form.
struct Sim<'a> {
    slots: &'a [NodeSlot],
    cluster: &'a Cluster,
    names: Vec<ResourceName>,
    /// Distinct demands, and the index among them of every slot's.
    demands: Vec<Vec<u64>>,
    type_of: Vec<usize>,
    /// Per demand, whether no alive node's (known) total could ever hold it.
    never: Vec<bool>,
    /// Classes of alive nodes that can host some slot.
    init: Vec<(Vec<u64>, u64)>,
    deadline: Instant,
}

impl Sim<'_> {
    fn demand(&self, slot: usize) -> &[u64] {
        &self.demands[self.type_of[slot]]
    }
}

/// One unexplored branch.
struct Work {
    pos: usize,
    classes: Vec<(Vec<u64>, u64)>,
    decisions: Vec<u32>,
    blocked: Option<PoolId>,
}

/// The result of simulating one order.
struct Outcome {
    verdict: RayVerdict,
    representative: Vec<u32>,
    alternative: Option<Vec<u32>>,
    branches: usize,
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
    fn new(slots: &'a [NodeSlot], cluster: &'a Cluster, deadline: Instant) -> Sim<'a> {
        let (names, types) = intern_slots_plainly(slots);
        let dims = names.len();
        let mut type_of = vec![0; slots.len()];
        for (t, (_, members)) in types.iter().enumerate() {
            for &s in members {
                if let Some(x) = type_of.get_mut(s) {
                    *x = t;
                }
            }
        }
        let demands: Vec<Vec<u64>> = types.into_iter().map(|(demand, _)| demand).collect();
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
    fn places_whatever_ties(&self, order: &[usize]) -> bool {
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
    fn run(&self, order: &[usize], max_branches: usize, caps: &mut CapTable) -> Outcome {
        let follow_ties = !self.places_whatever_ties(order);
        let outcome = self.run_with(order, max_branches, caps, follow_ties);
        debug_assert!(follow_ties || outcome.verdict == RayVerdict::Places);
        outcome
    }

    /// [`Sim::run`], following ties or not as told: every branch depth first, each
    /// identical state once.
    fn run_with(
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
                let Some(ties) = best_classes(&w.classes, d, &mut scores) else {
                    w.decisions.push(PENDING);
                    w.blocked.get_or_insert(pool);
                    w.pos += 1;
                    continue;
                };
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
        outcome(places, hangs, cut, branches)
    }

    /// Turns decisions into fates on real nodes (lowest index first among equal nodes).
    fn replay(&self, order: &[usize], decisions: &[u32], caps: &CapTable) -> RayBranch {
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
                    GroupFate::Pending(Arc::new(Pending {
                        state: if self.never[self.type_of[s]] {
                            PendingState::Infeasible
                        } else {
                            PendingState::NoResources
                        },
                        nearest: nearest(&self.names, d, candidates, self.cluster),
                    }))
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

/// The classes tied for the best score for a group of `demand` (`scores` is a buffer);
/// `None` when none fits it.
fn best_classes(
    classes: &[(Vec<u64>, u64)],
    demand: &[u64],
    scores: &mut Vec<f64>,
) -> Option<Vec<usize>> {
    scores.clear();
    let mut best = f64::NEG_INFINITY;
    for (cap, _) in classes {
        let sc = if fits(demand, cap) {
            score(demand, cap)
        } else {
            f64::NEG_INFINITY
        };
        best = best.max(sc);
        scores.push(sc);
    }
    if best == f64::NEG_INFINITY {
        return None;
    }
    Some(
        (0..scores.len())
            .filter(|&i| scores[i] > f64::NEG_INFINITY && tied(scores[i], best))
            .collect(),
    )
}

/// The verdict of a search that found a placing branch (`places`), a hanging one
/// (`hangs`), or was `cut` short, with the branch to show first.
fn outcome(
    places: Option<Vec<u32>>,
    hangs: Option<Vec<u32>>,
    cut: bool,
    branches: usize,
) -> Outcome {
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

/// The simulation as it was: the same model, group by group.
pub(super) fn simulate(
    slots: &[NodeSlot],
    cluster: &Cluster,
    options: &RaySimOptions,
) -> RayReport {
    let deadline = Instant::now() + options.budget;
    let sim = Sim::new(slots, cluster, deadline);
    let mut caps = CapTable::default();
    let order: Vec<usize> = (0..slots.len()).collect();
    let outcome = sim.run(&order, options.max_branches, &mut caps);
    let representative = sim.replay(&order, &outcome.representative, &caps);
    let alternative = outcome
        .alternative
        .as_ref()
        .map(|d| sim.replay(&order, d, &caps));
    let fix = if outcome.verdict != RayVerdict::Places && options.suggest_fixes {
        find_fix(&sim, options, &mut caps)
    } else {
        None
    };
    RayReport {
        verdict: outcome.verdict,
        representative,
        alternative,
        branches: outcome.branches,
        fix,
    }
}

/// The fix as it was found.
fn find_fix(sim: &Sim<'_>, options: &RaySimOptions, caps: &mut CapTable) -> Option<RayFix> {
    let placement = check_placement(sim.slots, sim.cluster, &options.placement);
    let witness = placement.witness()?.clone();
    // Pools in creation order, and their slots.
    let mut pools: Vec<PoolId> = Vec::new();
    for s in sim.slots {
        if !pools.contains(&s.pool) {
            pools.push(s.pool);
        }
    }
    if (2..=MAX_FIX_POOLS).contains(&pools.len()) {
        let members: Vec<Vec<usize>> = pools
            .iter()
            .map(|&p| {
                (0..sim.slots.len())
                    .filter(|&i| sim.slots[i].pool == p)
                    .collect()
            })
            .collect();
        // Largest demand first, then every permutation.
        let dims = sim.names.len();
        let mut max_cap = vec![0u64; dims];
        for (cap, _) in &sim.init {
            for r in 0..dims {
                max_cap[r] = max_cap[r].max(cap[r]);
            }
        }
        let weight = |i: usize| -> f64 {
            members[i]
                .iter()
                .map(|&s| {
                    sim.demand(s)
                        .iter()
                        .zip(&max_cap)
                        .map(|(&d, &m)| if m == 0 { 0.0 } else { d as f64 / m as f64 })
                        .sum::<f64>()
                })
                .fold(0.0, f64::max)
        };
        let mut largest: Vec<usize> = (0..pools.len()).collect();
        largest.sort_by(|&a, &b| weight(b).total_cmp(&weight(a)).then(a.cmp(&b)));
        let identity: Vec<usize> = (0..pools.len()).collect();
        let mut perm = identity.clone();
        let mut candidates =
            std::iter::once(largest.clone()).chain(std::iter::from_fn(move || {
                next_permutation(&mut perm).then(|| perm.clone())
            }));
        let mut tried = 0usize;
        while tried < options.max_orders && Instant::now() < sim.deadline {
            let Some(p) = candidates.next() else { break };
            if p == identity || (tried > 0 && p == largest) {
                continue;
            }
            tried += 1;
            let order: Vec<usize> = p.iter().flat_map(|&i| members[i].iter().copied()).collect();
            let outcome = sim.run(&order, options.max_branches, caps);
            if outcome.verdict == RayVerdict::Places {
                return Some(RayFix::PoolOrder(p.iter().map(|&i| pools[i]).collect()));
            }
        }
    }
    Some(RayFix::Pin(witness))
}

mod props {
    use std::time::Duration;

    use super::*;
    use crate::placement::{Instance, check_placement};
    use crate::test_support::runs_case;

    fn options(max_branches: usize, suggest_fixes: bool) -> RaySimOptions {
        RaySimOptions {
            max_branches,
            // Generous: a deadline hit on a loaded machine would differ between the two.
            budget: Duration::from_secs(600),
            suggest_fixes,
            max_orders: 5_040,
            placement: PlacementOptions {
                budget: Duration::from_secs(600),
                ..PlacementOptions::default()
            },
            pool_ranks: Vec::new(),
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// Groups placed in runs, nodes replayed in runs, shared input, the placement
        /// check's report reused for the fix: the same report as the simulation group by
        /// group, node by node.
        #[test]
        fn runs_answer_as_group_by_group(
            (slots, cluster) in runs_case(),
            max_branches in proptest::prop_oneof![1usize..=4, proptest::strategy::Just(256)],
            suggest_fixes in proptest::bool::weighted(0.8),
        ) {
            let options = options(max_branches, suggest_fixes);
            let expected = super::simulate(&slots, &cluster, &options);
            proptest::prop_assert_eq!(&crate::ray_sim::simulate(&slots, &cluster, &options), &expected);
            let instance = Instance::new(&slots, &cluster);
            let placement = check_placement(&slots, &cluster, &options.placement);
            proptest::prop_assert_eq!(
                &simulate_of(&instance, &slots, &cluster, &options, Some(&placement)),
                &expected
            );
        }
    }
}
