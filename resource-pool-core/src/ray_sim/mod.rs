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
//! so one branch costs groups times classes, not groups times nodes; and a run of groups
//! of one demand that goes to one class without a tie followed is placed at once, so on
//! verl's runs of equal slots a branch costs about the classes it empties. The branch
//! shown is replayed onto real nodes run by run (`replay.rs`): one write per group. The
//! input is read once (`Instance`), and [`check`](crate::check::check) shares that read
//! and its placement report with the simulation. Ties multiply
//! branches, bounded by `max_branches` and the wall-clock [`RaySimOptions::budget`]. They
//! are not followed when the answer cannot depend on them: each group moves onto one node,
//! so when every group's demand fits more nodes (as they are before the first group) than
//! there are groups created before it, every branch places everything, and one branch is
//! the answer. Large clusters with slack, where distinct nodes tie often, take one branch.
//!
//! # Fixes
//!
//! When Ray does not place everything but [`check_placement`](crate::placement::check_placement) finds a placement, the
//! simulation tries other pool orders (at most [`MAX_FIX_POOLS`] pools, at most
//! [`RaySimOptions::max_orders`] orders, within the budget), largest demands first, then
//! every permutation, each keeping the pools' ranks ([`RaySimOptions::pool_ranks`]); the
//! first order Ray places is suggested. Otherwise the suggestion is to pin each group to
//! the node of the placement found.

mod fix;
mod replay;
mod sim;

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::model::{Cluster, NodeSlot, PoolId};
use crate::placement::{Instance, NearestNode, PlacementOptions, PlacementReport, Run, Witness};
use fix::{CapTable, find_fix};
use replay::replay;
use sim::Sim;

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
    /// Each pool's rank, by pool id: a fix that reorders pools keeps a pool of a lower rank
    /// before one of a higher rank (a launcher that creates some pools later, wherever
    /// they stand in the layout). Empty: any order.
    pub pool_ranks: Vec<u32>,
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
            pool_ranks: Vec::new(),
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
        /// Its index in `cluster.nodes`.
        node: usize,
    },
    /// Pending forever. Shared: the groups of a run that pend together pend alike, and a
    /// fate stays two words for the 100,000 groups of a large layout.
    Pending(Arc<Pending>),
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
            GroupFate::Pending(p) => Some((i, p.as_ref())),
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

/// Simulates Ray 2.60 scheduling `slots` (in creation order) on `cluster`; see the module
/// docs for the model. Never panics; bounded by `options`.
pub fn simulate(slots: &[NodeSlot], cluster: &Cluster, options: &RaySimOptions) -> RayReport {
    let start = Instant::now();
    let instance = Instance::new(slots, cluster);
    simulate_from(start, &instance, slots, cluster, options, None)
}

/// [`simulate`] on the input already read ([`Instance::new`] of `slots` and `cluster`),
/// with the placement check's report on the same input and `options.placement` when the
/// caller has it (a fix needs it; it is not checked again).
pub(crate) fn simulate_of(
    instance: &Instance,
    slots: &[NodeSlot],
    cluster: &Cluster,
    options: &RaySimOptions,
    placement: Option<&PlacementReport>,
) -> RayReport {
    simulate_from(Instant::now(), instance, slots, cluster, options, placement)
}

fn simulate_from(
    start: Instant,
    instance: &Instance,
    slots: &[NodeSlot],
    cluster: &Cluster,
    options: &RaySimOptions,
    placement: Option<&PlacementReport>,
) -> RayReport {
    let deadline = start + options.budget;
    let sim = Sim::new(slots, cluster, instance, deadline);
    let mut caps = CapTable::default();
    let order = [Run {
        start: 0,
        end: slots.len(),
    }];
    let outcome = sim.run(&order, options.max_branches, &mut caps);
    let representative = replay(&sim, &outcome.representative, &caps);
    let alternative = outcome.alternative.as_ref().map(|d| replay(&sim, d, &caps));
    let fix = if outcome.verdict != RayVerdict::Places && options.suggest_fixes {
        find_fix(&sim, options, &mut caps, placement)
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

#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;
