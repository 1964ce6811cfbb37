//! The `placement` fuzz target's body: the placement check and Ray's simulation on one
//! instance with their invariants, and a brute force to hold small instances' verdicts to.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::model::{Amount, Cluster, NodeSlot, Resources};
use crate::placement::{PlacementOptions, PlacementOutcome, check_placement};
use crate::ray_sim::{GroupFate, RayBranch, RayFix, RaySimOptions, RayVerdict, simulate};

/// A placement instance, as the `placement` target builds it from structured input.
#[derive(Clone, Debug)]
pub struct PlacementCase {
    /// The node-slots, in creation order.
    pub slots: Vec<NodeSlot>,
    /// The cluster checked against.
    pub cluster: Cluster,
    /// Whether to run the idle check too.
    pub check_idle: bool,
}

/// The search limits of the fuzzed checks: small, so a slow input shows as a failed
/// bound rather than a slow fuzzer.
pub const FUZZ_MAX_STEPS: u64 = 20_000;
/// The wall-clock budget of the fuzzed checks.
pub const FUZZ_BUDGET: Duration = Duration::from_millis(20);
/// What the check may take past its budget: the explanation of an infeasible or
/// undecided answer has its own bounded search of 200 ms, and the machine may be loaded.
pub const FUZZ_TIME_SLACK: Duration = Duration::from_secs(2);
/// The most assignments (nodes ^ slots) for which the brute force runs.
pub const BRUTE_FORCE_MAX_ASSIGNMENTS: u64 = 500_000;

/// The placement check and Ray's simulation on one instance, with their invariants: a
/// witness is valid; `feasible` agrees with a brute force on small instances; the check
/// keeps to its step budget (up to one tick per decision) and, give or take
/// [`FUZZ_TIME_SLACK`], its time budget; Ray's simulated placement never overfills a node,
/// and when it places everything the check does not call the layout infeasible.
pub fn placement(case: &PlacementCase) {
    let PlacementCase {
        slots,
        cluster,
        check_idle,
    } = case;
    let options = PlacementOptions {
        max_steps: FUZZ_MAX_STEPS,
        budget: FUZZ_BUDGET,
        check_idle: *check_idle,
    };
    let report = check_placement(slots, cluster, &options);

    // One tick counts at most one step per node class plus one, and the idle check may
    // overshoot by one more tick.
    let tick = cluster.nodes.len() as u64 + 1;
    assert!(
        report.stats.steps <= FUZZ_MAX_STEPS + 2 * tick,
        "{} steps, over the budget of {FUZZ_MAX_STEPS}",
        report.stats.steps
    );
    assert!(
        report.stats.elapsed <= FUZZ_BUDGET + FUZZ_TIME_SLACK,
        "took {:?}, over the budget of {FUZZ_BUDGET:?}",
        report.stats.elapsed
    );
    match &report.outcome {
        PlacementOutcome::Feasible(witness) => {
            if let Err(err) = witness.validate(slots, cluster) {
                panic!("invalid witness {witness}: {err}");
            }
        }
        PlacementOutcome::Infeasible(infeasible) => {
            assert!(!infeasible.reasons.is_empty(), "no reason given")
        }
        PlacementOutcome::Undecided(undecided) => {
            assert!(
                undecided.fits.windows(2).all(|w| w[0] < w[1])
                    && undecided.fits.iter().all(|&i| i < slots.len())
            );
        }
    }
    let truth = brute_force(slots, cluster);
    if let Some(truth) = truth
        && let Some(feasible) = report.feasible()
    {
        assert_eq!(
            feasible, truth,
            "the check says feasible = {feasible}, the brute force {truth}"
        );
    }
    // Each exact search alone (the check usually ends before one of them runs).
    for (name, verdict) in
        ["bin completion", "slot-by-slot search"]
            .iter()
            .zip(crate::placement::each_exact_search(
                slots,
                cluster,
                FUZZ_MAX_STEPS,
                FUZZ_BUDGET,
            ))
    {
        for (other, known) in [("the brute force", truth), ("the check", report.feasible())] {
            if let (Some(v), Some(k)) = (verdict, known) {
                assert_eq!(v, k, "{name} says feasible = {v}, {other} {k}");
            }
        }
    }

    let sim_options = RaySimOptions {
        max_branches: 16,
        max_orders: 24,
        budget: FUZZ_BUDGET,
        suggest_fixes: true,
        placement: options.clone(),
        pool_ranks: Vec::new(),
    };
    let ray = simulate(slots, cluster, &sim_options);
    let mut places_all = false;
    for branch in std::iter::once(&ray.representative).chain(&ray.alternative) {
        assert_branch_fits(branch, slots, cluster);
        places_all |= branch.places_all();
    }
    match ray.verdict {
        RayVerdict::Places => {
            assert!(
                ray.representative.places_all(),
                "verdict `places` on a branch that does not"
            );
            assert_eq!(ray.fix, None, "a fix for a layout Ray places");
        }
        RayVerdict::Hangs => assert!(
            !ray.representative.places_all(),
            "verdict `hangs` on a branch that places all"
        ),
        RayVerdict::DependsOnTies => {
            assert!(
                !ray.representative.places_all()
                    && ray.alternative.as_ref().is_some_and(RayBranch::places_all)
            );
        }
        RayVerdict::Undecided => {}
    }
    if places_all {
        assert_ne!(
            report.feasible(),
            Some(false),
            "Ray places a layout the check calls infeasible"
        );
    }
    match &ray.fix {
        Some(RayFix::Pin(witness)) => {
            if let Err(err) = witness.validate(slots, cluster) {
                panic!("the suggested pinning {witness} is invalid: {err}");
            }
        }
        Some(RayFix::PoolOrder(order)) => {
            let mut pools: Vec<_> = slots.iter().map(|s| s.pool).collect();
            pools.sort_unstable();
            pools.dedup();
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert_eq!(
                sorted, pools,
                "the suggested order {order:?} is not an order of the pools"
            );
        }
        None => {}
    }
}

/// Ray's placed groups use at most what each node has available.
fn assert_branch_fits(branch: &RayBranch, slots: &[NodeSlot], cluster: &Cluster) {
    assert_eq!(branch.groups.len(), slots.len(), "a fate for every group");
    let mut used: BTreeMap<usize, Resources> = BTreeMap::new();
    for (slot, node) in branch.placed() {
        let n = cluster
            .nodes
            .get(node)
            .unwrap_or_else(|| panic!("slot {slot} on missing node {node}"));
        assert!(n.alive, "slot {slot} on dead node `{}`", n.id);
        let sum = used.entry(node).or_default();
        for (name, amount) in slots[slot].demand.iter() {
            let total = sum
                .get(name)
                .checked_add(amount)
                .unwrap_or(Amount::from_units(u64::MAX));
            sum.set(name, total);
        }
    }
    for (node, sum) in &used {
        let n = &cluster.nodes[*node];
        assert!(
            n.available.covers(sum),
            "Ray overfills node `{}`: {sum} of {}",
            n.id,
            n.available
        );
    }
    for group in &branch.groups {
        if let GroupFate::NotCreated { blocked_by } = group {
            assert!(
                slots.iter().any(|s| s.pool == *blocked_by),
                "blocked by unknown pool {blocked_by}"
            );
        }
    }
}

/// Whether every slot can go on one alive node within what it has available, by trying
/// every assignment (nodes with equal free resources tried once); `None` when there are
/// more than [`BRUTE_FORCE_MAX_ASSIGNMENTS`].
pub fn brute_force(slots: &[NodeSlot], cluster: &Cluster) -> Option<bool> {
    let alive: Vec<&Resources> = cluster.alive().map(|n| &n.available).collect();
    let assignments = (alive.len() as u64)
        .max(1)
        .checked_pow(u32::try_from(slots.len()).ok()?)?;
    if assignments > BRUTE_FORCE_MAX_ASSIGNMENTS {
        return None;
    }
    // Free resources per node, as exact integers.
    let mut free: Vec<BTreeMap<&str, u128>> = alive
        .iter()
        .map(|r| {
            r.iter()
                .map(|(name, a)| (name, u128::from(a.units())))
                .collect()
        })
        .collect();
    Some(assign(slots, &mut free))
}

fn assign<'a>(slots: &'a [NodeSlot], free: &mut [BTreeMap<&'a str, u128>]) -> bool {
    let Some((first, rest)) = slots.split_first() else {
        return true;
    };
    for i in 0..free.len() {
        if free[..i].contains(&free[i]) {
            continue;
        }
        let fits = first
            .demand
            .iter()
            .all(|(name, a)| free[i].get(name).copied().unwrap_or(0) >= u128::from(a.units()));
        if !fits {
            continue;
        }
        let before = free[i].clone();
        for (name, a) in first.demand.iter() {
            if let Some(left) = free[i].get_mut(name) {
                *left -= u128::from(a.units());
            }
        }
        let placed = assign(rest, free);
        free[i] = before;
        if placed {
            return true;
        }
    }
    false
}
