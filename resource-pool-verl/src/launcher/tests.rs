//! The launch plan by release: the order pools get groups in, CPUs and accelerators, the
//! holds, and where verl stops.

use resource_pool_core::check::NoSpans;
use resource_pool_core::model::{
    Accelerator, Amount, Cluster, Node, PoolSpec, ResourcePool, ResourcePoolManager, Resources,
    RoleName,
};

use super::*;
use crate::releases::{ReleaseRules, release};

fn node(id: &str, accelerator: &str, count: u64, cpus: u64) -> Node {
    let whole = |n| Amount::from_whole(n).expect("whole");
    Node::new(
        id,
        Resources::new()
            .with(accelerator, whole(count))
            .with("CPU", whole(cpus)),
    )
}

fn manager(pools: &[(&str, &[u32])], mapping: &[(&str, &str)]) -> ResourcePoolManager<RoleName> {
    let pools = pools
        .iter()
        .map(|(name, slots)| ResourcePool::new(*name, PoolSpec::with_slots(slots.to_vec())))
        .collect();
    ResourcePoolManager::new(pools, mapping.iter().map(|&(r, p)| (RoleName::from(r), p)))
        .expect("valid")
}

fn plan(version: &str, manager: &ResourcePoolManager<RoleName>, cluster: &Cluster) -> Launch {
    Launch::plan(rules(version), &Layout::of(manager), cluster, &NoSpans)
}

fn rules(version: &str) -> ReleaseRules {
    ReleaseRules {
        release: release(version).expect("a release"),
        assumed: false,
    }
}

fn big_and_small() -> Cluster {
    Cluster::new(vec![node("big", "GPU", 8, 32), node("small", "GPU", 4, 16)])
}

/// README's layout: the reward model's 4-GPU pool first, the actor's 8 second.
fn reward_pool_first() -> ResourcePoolManager<RoleName> {
    manager(
        &[("reward_pool", &[4]), ("global_pool", &[8])],
        &[("rm", "reward_pool"), ("actor_rollout", "global_pool")],
    )
}

#[test]
fn the_reward_models_pool_is_a_worker_group_until_0_7_and_later_after() {
    let layout = reward_pool_first();
    for (version, stages) in [
        ("0.5.0", vec![vec![0, 1]]),
        ("0.6.1", vec![vec![0, 1]]),
        ("0.7.1", vec![vec![1], vec![0]]),
        ("0.8.0", vec![vec![1], vec![0]]),
        ("0.9.1", vec![vec![1], vec![0]]),
    ] {
        let launch = plan(version, &layout, &big_and_small());
        assert_eq!(launch.creation.stages, stages, "{version}");
        assert_eq!(launch.stops_at, None, "{version}");
    }
    // 0.7.0's reward loop: a reward model on a pool of its own makes no worker group,
    // and 0.7.0 does not skip it.
    let launch = plan("0.7.0", &layout, &big_and_small());
    assert_eq!(launch.stops_at, Some(0));
    assert!(launch.creation.stages.is_empty());
}

#[test]
fn a_pool_no_worker_group_hosts_gets_no_groups_or_stops_verl() {
    let layout = manager(
        &[
            ("global_pool", &[8]),
            ("spare", &[4]),
            ("teacher_pool", &[4]),
        ],
        &[
            ("actor_rollout", "global_pool"),
            ("teacher", "teacher_pool"),
        ],
    );
    let old = plan("0.6.1", &layout, &big_and_small());
    assert_eq!(
        (old.creation.stages, old.stops_at),
        (vec![vec![0]], Some(1))
    );
    let late = plan("0.7.1", &layout, &big_and_small());
    // 0.7.1 has no teacher: its pool is skipped like the spare one.
    assert_eq!((late.creation.stages, late.stops_at), (vec![vec![0]], None));
    let newest = plan("0.9.1", &layout, &big_and_small());
    assert_eq!(newest.creation.stages, [vec![0], vec![2]]);
}

#[test]
fn a_reward_model_sharing_the_actors_pool_comes_first_in_0_7_0() {
    let layout = manager(
        &[("critic_pool", &[4]), ("global_pool", &[8])],
        &[
            ("critic", "critic_pool"),
            ("actor_rollout", "global_pool"),
            ("rm", "global_pool"),
        ],
    );
    let launch = plan("0.7.0", &layout, &big_and_small());
    assert_eq!(launch.creation.stages, [vec![1], vec![0]]);
    // Its manager asks for GPUs whatever trainer.device says; here they are GPUs anyway.
    assert_eq!(launch.pools[1].spec.accelerator, Accelerator::Gpu);
}

#[test]
fn cpus_per_bundle_follow_the_release() {
    let layout = reward_pool_first();
    let cpus = |version| {
        plan(version, &layout, &big_and_small()).pools[1]
            .spec
            .max_colocate_count
    };
    assert_eq!(
        [cpus("0.5.0"), cpus("0.6.1"), cpus("0.7.1"), cpus("0.9.1")],
        [1, 1, 3, 3]
    );
    // A written value a release fixes is said not to be read; a default is not.
    let mut written = Layout::of(&layout);
    written.cpus_written = vec![true, false];
    let launch = Launch::plan(rules("0.6.1"), &written, &big_and_small(), &NoSpans);
    assert!(matches!(
        launch.findings.as_slice(),
        [LaunchDiagnostic::BundleCpusFixed {
            written: 3,
            cpus: 1,
            ..
        }]
    ));
}

#[test]
fn the_driver_holds_a_cpu_on_the_head_until_0_9_and_transfer_queue_after() {
    let layout = reward_pool_first();
    let mut cluster = big_and_small();
    cluster.nodes[1].head = true;
    let launch = plan("0.8.0", &layout, &cluster);
    assert_eq!(launch.holds.len(), 1);
    assert_eq!(
        (launch.holds[0].node, launch.holds[0].by),
        (1, HeldBy::TaskRunner)
    );
    assert_eq!(
        launch.cluster.nodes[1].available.get("CPU"),
        Amount::from_whole(15).unwrap()
    );
    // 0.9: the controller beside the driver, then 8 storage units round-robin by node id.
    let launch = plan("0.9.1", &layout, &cluster);
    let on = |id: &str| launch.holds.iter().filter(|h| h.node_id == id).count();
    assert_eq!((on("big"), on("small")), (4, 5));
    // A head whose CPUs are gone: the TaskRunner goes where CPUs are free.
    let mut full = big_and_small();
    full.nodes[0].available.set("CPU", Amount::ZERO);
    let launch = plan("0.6.1", &layout, &full);
    assert_eq!(launch.holds[0].node, 1);
    // No CPU anywhere: verl never starts a pool.
    full.nodes[1].available.set("CPU", Amount::ZERO);
    let launch = plan("0.6.1", &layout, &full);
    assert!(launch.stops_before_ray());
}

#[test]
fn verl_asks_for_npus_on_ascend_by_release() {
    let layout = reward_pool_first();
    let ascend = Cluster::new(vec![node("a", "NPU", 8, 64), node("b", "NPU", 8, 64)]);
    let accelerators = |version| -> Vec<Accelerator> {
        plan(version, &layout, &ascend)
            .pools
            .iter()
            .map(|p| p.spec.accelerator)
            .collect()
    };
    // As written (GPU) until 0.7; the reward loop's pool asks for GPUs in 0.7.x.
    assert_eq!(accelerators("0.6.1"), [Accelerator::Gpu, Accelerator::Gpu]);
    assert_eq!(accelerators("0.7.1"), [Accelerator::Gpu, Accelerator::Npu]);
    assert_eq!(accelerators("0.8.0"), [Accelerator::Npu, Accelerator::Npu]);
    assert_eq!(accelerators("0.9.1"), [Accelerator::Npu, Accelerator::Npu]);
}

#[test]
fn verls_own_check_counts_every_pool() {
    // 12 GPUs free, 13 asked: a pool without groups counts too.
    let layout = manager(
        &[
            ("global_pool", &[8]),
            ("reward_pool", &[4]),
            ("spare", &[1]),
        ],
        &[("actor_rollout", "global_pool"), ("rm", "reward_pool")],
    );
    let launch = plan("0.9.1", &layout, &big_and_small());
    assert!(!launch.creation.creates(2));
    assert!(matches!(
        launch.findings.first(),
        Some(LaunchDiagnostic::PreCheckRefuses { .. })
    ));
    assert!(launch.stops_before_ray());
}

/// A node whose total is known, with `used` of its CPUs taken.
fn busy(id: &str, gpus: u64, cpus: u64, used: u64) -> Node {
    let whole = |n| Amount::from_whole(n).expect("whole");
    let total = Resources::new()
        .with("GPU", whole(gpus))
        .with("CPU", whole(cpus));
    let mut node = Node::new(id, total.clone().with("CPU", whole(cpus - used)));
    node.total = Some(total);
    node
}

#[test]
fn the_driver_stays_on_the_head_until_it_is_half_used() {
    let layout = reward_pool_first();
    let holder = |head_used| {
        let mut cluster = Cluster::new(vec![busy("head", 8, 32, head_used), busy("w", 8, 32, 0)]);
        cluster.nodes[0].head = true;
        plan("0.8.0", &layout, &cluster).holds[0].node_id.clone()
    };
    // Ray's hybrid policy scores a node by its CPU use from half on: under half used, the
    // owner's node wins; past it, the less used node does.
    assert_eq!(holder(10), "head");
    assert_eq!(holder(24), "w");
}

#[test]
fn a_cpu_only_node_takes_the_driver_before_the_gpu_nodes() {
    let layout = reward_pool_first();
    let mut cluster = Cluster::new(vec![busy("head", 8, 32, 0), busy("cpu", 0, 8, 0)]);
    cluster.nodes[0].head = true;
    assert_eq!(plan("0.8.0", &layout, &cluster).holds[0].node_id, "cpu");
}

#[test]
fn a_storage_unit_pinned_to_a_node_without_cpus_stops_verl_at_once() {
    // 0.9's TransferQueue pins units round-robin by node id: "a-head" gets units 0, 3, 6.
    let layout = manager(
        &[("global_pool", &[8, 8, 8])],
        &[("actor_rollout", "global_pool")],
    );
    let mut cluster = Cluster::new(vec![
        busy("a-head", 0, 0, 0),
        busy("b", 8, 32, 0),
        busy("c", 8, 32, 0),
    ]);
    cluster.nodes[0].head = true;
    let launch = plan("0.9.1", &layout, &cluster);
    // 24 GPUs asked, 16 free: verl's own check would refuse, but tq.init fails first.
    assert!(matches!(
        launch.findings.as_slice(),
        [LaunchDiagnostic::DriverFails { by: HeldBy::StorageUnit(0), node, .. }] if node == "a-head"
    ));
    assert!(launch.stops_before_ray());
    // A unit whose node is only busy waits instead.
    cluster.nodes[0] = busy("a-head", 0, 4, 4);
    let launch = plan("0.9.1", &layout, &cluster);
    assert!(matches!(
        launch.findings.as_slice(),
        [LaunchDiagnostic::DriverPends {
            by: HeldBy::StorageUnit(0),
            ..
        }]
    ));
}

#[test]
fn what_verl_holds_leaves_the_nodes_totals() {
    let layout = reward_pool_first();
    let mut cluster = big_and_small();
    cluster.nodes[0].total = Some(cluster.nodes[0].available.clone());
    let launch = plan("0.8.0", &layout, &cluster);
    let big = &launch.cluster.nodes[0];
    assert_eq!(big.available.get("CPU"), Amount::from_whole(31).unwrap());
    // Ray judges a group infeasible against a node's total, which an actor does not lower.
    assert_eq!(
        big.total.as_ref().unwrap().get("CPU"),
        Amount::from_whole(32).unwrap()
    );
}

#[test]
fn the_reference_policy_gets_a_group_of_its_own_by_release() {
    let ref_pool = manager(
        &[("global_pool", &[8]), ("ref_pool", &[4])],
        &[("actor_rollout", "global_pool"), ("ref", "ref_pool")],
    );
    let with_actor = manager(
        &[("global_pool", &[8]), ("ref_pool", &[4])],
        &[
            ("actor", "global_pool"),
            ("rollout", "global_pool"),
            ("ref", "ref_pool"),
        ],
    );
    let stages = |version, layout| plan(version, layout, &big_and_small()).creation.stages;
    assert_eq!(stages("0.8.0", &ref_pool), [vec![0, 1]]);
    assert_eq!(stages("0.9.0", &ref_pool), [vec![0]]);
    assert_eq!(stages("0.9.0", &with_actor), [vec![0]]);
    // 0.9.1: beside a separate actor only (`trainer_base.py:255`).
    assert_eq!(stages("0.9.1", &ref_pool), [vec![0]]);
    assert_eq!(stages("0.9.1", &with_actor), [vec![0, 1]]);
}
