//! Unit tests of the placement check on the cases of the shared notes.

use super::*;
use crate::model::{Accelerator, Amount, Node, PoolSpec, Resources};
use crate::test_support::{node, whole};

fn slots_of(pools: &[PoolSpec]) -> Vec<NodeSlot> {
    crate::model::node_slots(pools)
}

fn check(slots: &[NodeSlot], cluster: &Cluster) -> PlacementReport {
    let report = check_placement(slots, cluster, &PlacementOptions::default());
    if let Some(w) = report.witness() {
        assert_eq!(w.validate(slots, cluster), Ok(()));
    }
    report
}

fn reasons(report: &PlacementReport) -> &[InfeasibleReason] {
    match &report.outcome {
        PlacementOutcome::Infeasible(i) => &i.reasons,
        other => panic!("expected infeasible, got {other:?}"),
    }
}

#[test]
fn big_and_small_node_take_both_orders() {
    let cluster = Cluster::new(vec![node("big", 8, 32), node("small", 4, 16)]);
    for pools in [
        [PoolSpec::with_slots([4]), PoolSpec::with_slots([8])],
        [PoolSpec::with_slots([8]), PoolSpec::with_slots([4])],
    ] {
        let slots = slots_of(&pools);
        let report = check(&slots, &cluster);
        let w = report.witness().expect("feasible");
        // The 8 can only go to the big node.
        let eight = slots.iter().position(|s| s.bundles == 8).unwrap_or(0);
        assert_eq!(w.nodes[eight], 0);
    }
}

#[test]
fn two_fours_share_a_node_so_the_eight_fits() {
    let cluster = Cluster::new(vec![node("a", 8, 32), node("b", 8, 32)]);
    let slots = slots_of(&[PoolSpec::with_slots([4, 4]), PoolSpec::with_slots([8])]);
    let report = check(&slots, &cluster);
    let w = report.witness().expect("feasible");
    assert_eq!(w.nodes[0], w.nodes[1]);
    assert_ne!(w.nodes[0], w.nodes[2]);
}

#[test]
fn cpus_rule_out_an_eight_at_colocate_three() {
    // 8 bundles of 3 CPUs = 24 CPUs; the node has 16.
    let cluster = Cluster::new(vec![
        node("node-a", 8, 16).with_total(
            Resources::new()
                .with("GPU", whole(8))
                .with("CPU", whole(16)),
        ),
    ]);
    let slots = slots_of(&[PoolSpec::with_slots([8])]);
    let report = check(&slots, &cluster);
    assert_eq!(report.feasible(), Some(false));
    let r = reasons(&report);
    assert_eq!(r.len(), 2, "{r:?}");
    let InfeasibleReason::SlotFitsNoNode(unfit) = &r[0] else {
        panic!("{r:?}")
    };
    assert_eq!(unfit.slots, [0]);
    let near = unfit.nearest.as_ref().map(ToString::to_string);
    assert_eq!(near.as_deref(), Some("node-a: CPU 16 of 24"));
    assert_eq!(r[1].to_string(), "CPU: 24 needed, 16 free on alive nodes");
    let PlacementOutcome::Infeasible(inf) = &report.outcome else {
        unreachable!()
    };
    assert_eq!(inf.idle, Some(IdleFit::Never));
}

#[test]
fn busy_now_differs_from_never() {
    let total = Resources::new()
        .with("GPU", whole(8))
        .with("CPU", whole(32));
    let cluster = Cluster::new(vec![node("a", 2, 32).with_total(total)]);
    let report = check(&slots_of(&[PoolSpec::with_slots([4])]), &cluster);
    let PlacementOutcome::Infeasible(inf) = &report.outcome else {
        panic!("{report:?}")
    };
    assert_eq!(inf.idle, Some(IdleFit::BusyNow));
    // Without totals, no idle verdict.
    let cluster = Cluster::new(vec![node("a", 2, 32)]);
    let report = check(&slots_of(&[PoolSpec::with_slots([4])]), &cluster);
    let PlacementOutcome::Infeasible(inf) = &report.outcome else {
        panic!("{report:?}")
    };
    assert_eq!(inf.idle, None);
}

#[test]
fn totals_run_out() {
    let cluster = Cluster::new(vec![node("a", 8, 96), node("b", 8, 96)]);
    let report = check(&slots_of(&[PoolSpec::with_slots([8, 8, 4])]), &cluster);
    let r = reasons(&report);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].to_string(), "GPU: 20 needed, 16 free on alive nodes");
}

#[test]
fn fitting_alone_but_not_together() {
    // 6 + 6 GPUs on two 8-GPU nodes plus a 4: totals 16 ≥ 16, each fits alone.
    let cluster = Cluster::new(vec![node("a", 8, 96), node("b", 8, 96)]);
    let slots = slots_of(&[PoolSpec::with_slots([6, 6, 4])]);
    let report = check(&slots, &cluster);
    let r = reasons(&report);
    let [InfeasibleReason::NotTogether(t)] = r else {
        panic!("{r:?}")
    };
    assert_eq!(t.fits.len(), 2);
    assert_eq!(t.left_out.len(), 1);
    let part: Vec<NodeSlot> = t.fits.iter().map(|&i| slots[i].clone()).collect();
    assert_eq!(check(&part, &cluster).feasible(), Some(true));
}

#[test]
fn accelerator_types_and_npus_are_resources_too() {
    let h100 = Resources::new()
        .with("GPU", whole(8))
        .with("CPU", whole(96))
        .with("accelerator_type:H100", whole(1));
    let cluster = Cluster::new(vec![node("a100", 8, 96), Node::new("h100", h100)]);
    let typed = PoolSpec {
        accelerator_type: Some("accelerator_type:H100".into()),
        ..PoolSpec::with_slots([8])
    };
    let slots = slots_of(&[typed.clone(), PoolSpec::with_slots([8])]);
    let report = check(&slots, &cluster);
    assert_eq!(report.witness().map(|w| w.nodes.clone()), Some(vec![1, 0]));
    // Two typed slots: only one H100 node.
    let slots = slots_of(&[PoolSpec::with_slots([8, 8]).clone(), typed.clone(), typed]);
    assert_eq!(check(&slots, &cluster).feasible(), Some(false));

    let npu = PoolSpec {
        accelerator: Accelerator::Npu,
        ..PoolSpec::with_slots([8])
    };
    let slots = slots_of(&[npu]);
    let report = check(&slots, &cluster);
    let r = reasons(&report);
    let InfeasibleReason::SlotFitsNoNode(u) = &r[0] else {
        panic!("{r:?}")
    };
    let lacks = &u
        .nearest
        .as_ref()
        .map(|n| n.lacks.clone())
        .unwrap_or_default();
    assert_eq!(lacks.len(), 1);
    assert_eq!(lacks[0].to_string(), "NPU 0 of 8");
    let ascend = Node::new(
        "ascend",
        Resources::new()
            .with("NPU", whole(8))
            .with("CPU", whole(192)),
    );
    let cluster = Cluster::new(vec![node("gpu", 8, 96), ascend]);
    assert_eq!(
        check(&slots, &cluster).witness().map(|w| w.nodes.clone()),
        Some(vec![1])
    );
}

#[test]
fn dead_nodes_host_nothing() {
    let mut dead = node("dead", 8, 96);
    dead.alive = false;
    let cluster = Cluster::new(vec![dead, node("small", 4, 96)]);
    let report = check(&slots_of(&[PoolSpec::with_slots([8])]), &cluster);
    let r = reasons(&report);
    let InfeasibleReason::SlotFitsNoNode(u) = &r[0] else {
        panic!("{r:?}")
    };
    assert_eq!(u.nearest.as_ref().map(|n| n.node), Some(1));
    let only_dead = Cluster::new(vec![cluster.nodes[0].clone()]);
    let report = check(&slots_of(&[PoolSpec::with_slots([1])]), &only_dead);
    let r = reasons(&report);
    let InfeasibleReason::SlotFitsNoNode(u) = &r[0] else {
        panic!("{r:?}")
    };
    assert_eq!(u.nearest, None);
    assert!(r[0].to_string().contains("no node is alive"));
}

#[test]
fn nothing_to_place_is_feasible_anywhere() {
    let report = check(&[], &Cluster::default());
    assert_eq!(report.feasible(), Some(true));
    assert_eq!(report.stats.decided_by, DecidedBy::Trivial);
}

#[test]
fn the_exact_search_beats_first_fit_decreasing() {
    // One resource; items 8,8,7,5,5,3 on two nodes of 18: only {8,5,5} + {8,7,3} works,
    // and every greedy order misses it.
    let x = |n: u64| Resources::new().with("X", Amount::from_units(n));
    let slots: Vec<NodeSlot> = [8, 8, 7, 5, 5, 3]
        .iter()
        .enumerate()
        .map(|(i, &n)| NodeSlot {
            pool: 0,
            slot: i,
            bundles: 1,
            demand: x(n),
        })
        .collect();
    let cluster = Cluster::new(vec![Node::new("a", x(18)), Node::new("b", x(18))]);
    let report = check(&slots, &cluster);
    assert_eq!(report.feasible(), Some(true));
    assert_eq!(report.stats.decided_by, DecidedBy::Search);
    let mut tight = slots.clone();
    tight[0].demand = x(10);
    tight[1].demand = x(10);
    tight[2].demand = x(10);
    tight.truncate(4);
    let report = check(&tight, &cluster);
    assert_eq!(report.feasible(), Some(false));
}

#[test]
fn a_tiny_budget_gives_undecided_never_a_guess() {
    let x = |n: u64| Resources::new().with("X", Amount::from_units(n));
    let slots_of_sizes = |items: &[u64]| -> Vec<NodeSlot> {
        items
            .iter()
            .enumerate()
            .map(|(i, &n)| NodeSlot {
                pool: 0,
                slot: i,
                bundles: 1,
                demand: x(n),
            })
            .collect()
    };
    let cluster = Cluster::new(vec![Node::new("a", x(18)), Node::new("b", x(18))]);
    let options = PlacementOptions {
        max_steps: 3,
        ..PlacementOptions::default()
    };
    // Infeasible (neither 10 shares a node with the 9), but no bound refutes it (32 of
    // 36; at most two 10s and four slots of 9 or more fit): only the search can tell, and
    // with 3 steps it must not.
    let slots = slots_of_sizes(&[10, 10, 9, 3]);
    let report = check_placement(&slots, &cluster, &options);
    assert!(
        matches!(
            report.outcome,
            PlacementOutcome::Undecided(Undecided {
                limit: BudgetLimit::Steps,
                ..
            })
        ),
        "{report:?}"
    );
    // Feasible: out of budget, the answer is undecided or a placement that is valid.
    let slots = slots_of_sizes(&[8, 8, 7, 5, 5, 3]);
    let report = check_placement(&slots, &cluster, &options);
    match &report.outcome {
        PlacementOutcome::Undecided(_) => {}
        PlacementOutcome::Feasible(w) => assert_eq!(w.validate(&slots, &cluster), Ok(())),
        PlacementOutcome::Infeasible(_) => panic!("a wrong answer: {report:?}"),
    }
}

#[test]
fn verl_default_layout_at_scale() {
    let nodes: Vec<Node> = (0..10_000).map(|i| node(&format!("n{i}"), 8, 96)).collect();
    let cluster = Cluster::new(nodes);
    let slots = slots_of(&[PoolSpec::with_slots(vec![8; 10_000])]);
    let report = check(&slots, &cluster);
    assert_eq!(report.feasible(), Some(true));
    assert_eq!(report.stats.node_classes, 1);
    let slots = slots_of(&[
        PoolSpec::with_slots(vec![8; 10_000]),
        PoolSpec::with_slots([8]),
    ]);
    let report = check(&slots, &cluster);
    assert_eq!(report.feasible(), Some(false));
    assert_eq!(report.stats.decided_by, DecidedBy::Bounds);
}

#[test]
fn hostile_amounts_and_empty_demands_do_not_panic() {
    let huge = Resources::new().with("GPU", Amount::from_units(u64::MAX));
    let half = Resources::new().with("GPU", Amount::from_units(u64::MAX / 2 + 1));
    let slots: Vec<NodeSlot> = (0..3)
        .map(|i| NodeSlot {
            pool: 0,
            slot: i,
            bundles: 1,
            demand: half.clone(),
        })
        .chain(std::iter::once(NodeSlot {
            pool: 1,
            slot: 0,
            bundles: 0,
            demand: Resources::new(),
        }))
        .collect();
    let cluster = Cluster::new(vec![Node::new("a", huge.clone()), Node::new("b", huge)]);
    // Three halves on two nodes: one each at most; the total overflows u64 and saturates.
    let report = check(&slots, &cluster);
    assert_eq!(report.feasible(), Some(false));
    let report = check(&slots[1..], &cluster);
    assert_eq!(report.feasible(), Some(true));
    let ray = crate::ray_sim::simulate(&slots, &cluster, &crate::ray_sim::RaySimOptions::default());
    assert_eq!(ray.verdict, crate::ray_sim::RayVerdict::Hangs);
    // Only empty demands: any alive node hosts them, none when no node is alive.
    let empty = &slots[3..];
    assert_eq!(check(empty, &cluster).feasible(), Some(true));
    assert_eq!(check(empty, &Cluster::default()).feasible(), Some(false));
}
