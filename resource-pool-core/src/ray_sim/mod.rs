//! A simulation of Ray 2.60's placement-group scheduler for verl's STRICT_PACK groups.
//!
//! # The model (Ray 2.60)
//!
//! - Groups (node-slots) are scheduled one at a time in creation order: the order of the
//!   slots given, which [`ResourcePoolManager::node_slots`](crate::ResourcePoolManager::node_slots)
//!   returns in verl's order.
//! - A STRICT_PACK group fits a node when every resource of its summed bundles is at most
//!   the node's available amount, in Ray's fixed point. Dead nodes host nothing.
//! - Among fitting nodes the highest score wins, the score of Ray's `LeastResourceScorer`:
//!   the sum over the requested resources of `(available - requested).Double() /
//!   available.Double()`, a resource with 0 available adding 0. The emptiest node wins, so
//!   groups spread out.
//! - Nodes with equal scores are picked in no fixed order (a hash map's). Nodes with equal
//!   available vectors (over every resource any group asks for) are interchangeable and
//!   are one choice; distinct nodes whose scores tie are a real tie, and every tied choice
//!   is followed, up to [`RaySimOptions::max_branches`] complete branches. Scores are
//!   compared with a relative tolerance of `1e-12`, because Ray sums the terms in an
//!   unspecified order and mathematically equal sums may differ in the last bit.
//! - verl creates all groups of a pool at once and then waits on each with no timeout. A
//!   group that fits no node stays PENDING forever (`NO_RESOURCES`; `INFEASIBLE` when every
//!   alive node states its total and none could ever hold it). The later groups of the same
//!   pool are still scheduled; the pools after it are never created.
//!
//! Identical branch states (same position, same multiset of node vectors, same blocked
//! state) reached through different ties are explored once: their outcomes are equal.
//!
//! # Cost
//!
//! The simulation works on node classes (nodes with equal available vectors) with counts,
//! so one branch costs groups times classes, not groups times nodes. Ties multiply
//! branches, bounded by `max_branches` and the wall-clock [`RaySimOptions::budget`]. They
//! are not followed when the answer cannot depend on them: each group moves onto one node,
//! so when every group's demand fits more nodes (as they are before the first group) than
//! there are groups created before it, every branch places everything, and one branch is
//! the answer. Large clusters with slack, where distinct nodes tie often, take one branch.
//!
//! # Fixes
//!
//! When Ray does not place everything but [`check_placement`] finds a placement, the
//! simulation tries other pool orders (at most [`MAX_FIX_POOLS`] pools, at most
//! [`RaySimOptions::max_orders`] orders, within the budget), largest demands first, then
//! every permutation; the first order Ray places is suggested. Otherwise the suggestion is
//! to pin each group to the node of the placement found.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};
use std::fmt;
use std::time::{Duration, Instant};

use crate::model::{Cluster, NodeSlot, PoolId, ResourceName};
use crate::placement::{
    FxBuild, NearestNode, PlacementOptions, VecMap, Witness, check_placement, fill_vector, fits,
    intern_slots, nearest,
};

/// Pools beyond which no other pool order is searched.
pub const MAX_FIX_POOLS: usize = 8;

/// Limits of the simulation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RaySimOptions {
    /// The most complete branches followed through ties, per simulated order.
    pub max_branches: usize,
    /// The most pool orders tried when looking for a fix.
    pub max_orders: usize,
    /// Wall-clock budget of the whole simulation, fixes included.
    pub budget: Duration,
    /// Look for a fix when Ray does not place everything.
    pub suggest_fixes: bool,
    /// Options of the placement check run when looking for a fix.
    pub placement: PlacementOptions,
}

impl Default for RaySimOptions {
    /// 256 branches, 5,040 orders (every order of 7 pools), one second, fixes on.
    fn default() -> RaySimOptions {
        RaySimOptions {
            max_branches: 256,
            max_orders: 5_040,
            budget: Duration::from_secs(1),
            suggest_fixes: true,
            placement: PlacementOptions::default(),
        }
    }
}

/// Ray's verdict over every tied choice followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RayVerdict {
    /// Every branch places every group.
    Places,
    /// Every branch leaves some group pending forever.
    Hangs,
    /// Some branches place everything, some hang: it depends on how Ray breaks ties.
    DependsOnTies,
    /// The branch bound was hit before an answer.
    Undecided,
}

impl fmt::Display for RayVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RayVerdict::Places => "places",
            RayVerdict::Hangs => "hangs",
            RayVerdict::DependsOnTies => "depends_on_ties",
            RayVerdict::Undecided => "undecided",
        })
    }
}

/// Ray's scheduling state of a pending group (`NO_RESOURCES` or `INFEASIBLE` in JSON, as
/// Ray spells it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PendingState {
    /// No node has it free now.
    NoResources,
    /// No alive node's total could ever hold it.
    Infeasible,
}

impl fmt::Display for PendingState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PendingState::NoResources => "NO_RESOURCES",
            PendingState::Infeasible => "INFEASIBLE",
        })
    }
}

/// A group that waits forever.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pending {
    /// Ray's scheduling state.
    pub state: PendingState,
    /// The node that comes closest at that moment (what is free on it then) and what it
    /// lacks; `None` when no node is alive.
    pub nearest: Option<NearestNode>,
}

/// What becomes of one group.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum GroupFate {
    /// Placed on this node (index into `cluster.nodes`).
    Placed {
        /// The node.
        node: usize,
    },
    /// Pending forever.
    Pending(Pending),
    /// Never created: verl waits forever on an earlier pool.
    NotCreated {
        /// The pool that blocks.
        blocked_by: PoolId,
    },
}

/// One way Ray's choices can go: the fate of every group, by slot index.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct RayBranch {
    /// `groups[i]` is the fate of slot `i` (of the slots given, whatever order was
    /// simulated).
    pub groups: Vec<GroupFate>,
}

impl RayBranch {
    /// Whether every group is placed.
    pub fn places_all(&self) -> bool {
        self.groups
            .iter()
            .all(|g| matches!(g, GroupFate::Placed { .. }))
    }

    /// The placed groups: (slot index, node index).
    pub fn placed(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.groups.iter().enumerate().filter_map(|(i, g)| match g {
            GroupFate::Placed { node } => Some((i, *node)),
            _ => None,
        })
    }

    /// The first pending group, in creation order of the slots given.
    pub fn first_pending(&self) -> Option<(usize, &Pending)> {
        self.groups.iter().enumerate().find_map(|(i, g)| match g {
            GroupFate::Pending(p) => Some((i, p)),
            _ => None,
        })
    }
}

/// A way to make Ray place a layout that can be placed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RayFix {
    /// Create the pools in this order (pool ids, first created first); Ray places it.
    PoolOrder(Vec<PoolId>),
    /// No pool order found that Ray places: pin every group to the node of this placement.
    Pin(Witness),
}

/// The simulation's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RayReport {
    /// Ray's verdict.
    pub verdict: RayVerdict,
    /// A representative branch: a hanging one when some branch hangs.
    pub representative: RayBranch,
    /// When both outcomes were seen, a branch that places everything.
    pub alternative: Option<RayBranch>,
    /// Complete branches followed.
    pub branches: usize,
    /// A suggested fix, when Ray does not place everything but a placement exists.
    pub fix: Option<RayFix>,
}

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

/// Ray's `LeastResourceScorer`, on fixed-point units.
fn score(demand: &[u64], avail: &[u64]) -> f64 {
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

fn tied(a: f64, b: f64) -> bool {
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
    fn new(slots: &'a [NodeSlot], cluster: &'a Cluster, deadline: Instant) -> Sim<'a> {
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
        for node in cluster.alive() {
            fill_vector(&node.available, &names, &mut buf);
            match index.get(buf.as_slice()) {
                Some(&c) => init[c].1 += 1,
                None => {
                    index.insert(buf.clone(), init.len());
                    init.push((buf.clone(), 1));
                }
            }
            match (&mut totals, &node.total) {
                (Some(list), Some(total)) => {
                    fill_vector(total, &names, &mut buf);
                    if !list.contains(&buf) {
                        list.push(buf.clone());
                    }
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
    fn replay(&self, order: &[usize], decisions: &[u32], caps: &CapTable) -> RayBranch {
        let dims = self.names.len();
        let mut buckets: VecMap<BinaryHeap<Reverse<usize>>> = VecMap::default();
        let mut buf = vec![0u64; dims];
        for (i, node) in self.cluster.nodes.iter().enumerate() {
            if node.alive {
                fill_vector(&node.available, &self.names, &mut buf);
                buckets.entry(buf.clone()).or_default().push(Reverse(i));
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

/// Interned capacity vectors, so that branch decisions are plain `u32`s.
#[derive(Default)]
struct CapTable {
    index: VecMap<u32>,
    caps: Vec<Vec<u64>>,
}

impl CapTable {
    fn id(&mut self, cap: &[u64]) -> u32 {
        if let Some(&id) = self.index.get(cap) {
            return id;
        }
        let id = self.caps.len() as u32;
        self.index.insert(cap.to_vec(), id);
        self.caps.push(cap.to_vec());
        id
    }

    fn get(&self, id: u32) -> Option<&Vec<u64>> {
        self.caps.get(id as usize)
    }
}

/// The next permutation in lexicographic order; `false` after the last.
fn next_permutation(p: &mut [usize]) -> bool {
    let n = p.len();
    if n < 2 {
        return false;
    }
    let mut i = n - 1;
    while i > 0 && p[i - 1] >= p[i] {
        i -= 1;
    }
    if i == 0 {
        return false;
    }
    let mut j = n - 1;
    while p[j] <= p[i - 1] {
        j -= 1;
    }
    p.swap(i - 1, j);
    p[i..].reverse();
    true
}

/// Simulates Ray 2.60 scheduling `slots` (in creation order) on `cluster`; see the module
/// docs for the model. Never panics; bounded by `options`.
pub fn simulate(slots: &[NodeSlot], cluster: &Cluster, options: &RaySimOptions) -> RayReport {
    let start = Instant::now();
    let deadline = start + options.budget;
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

#[cfg(test)]
mod tests;
