//! Helpers shared by the unit tests: of the placement check and the Ray simulation, and
//! the differential tests' verdict.

use crate::model::{Amount, Cluster, Node, NodeSlot, ResourceName, Resources};
use crate::placement::fill_vector;

/// A whole number of resource units.
pub(crate) fn whole(n: u64) -> Amount {
    Amount::from_units(n * Amount::SCALE)
}

/// `{GPU: gpu, CPU: cpu}`.
pub(crate) fn res(gpu: u64, cpu: u64) -> Resources {
    Resources::new()
        .with("GPU", whole(gpu))
        .with("CPU", whole(cpu))
}

/// An alive node with `gpu` GPUs and `cpu` CPUs free.
pub(crate) fn node(id: &str, gpu: u64, cpu: u64) -> Node {
    Node::new(id, res(gpu, cpu))
}

/// A small tight two-resource instance, as the packing benchmark's but small enough for
/// [`brute_force`]: 2 to 4 nodes of 8 GPUs and 8 to 24 CPUs, slots of 1
/// to 8 GPUs at 1 to 3 CPUs per GPU until 85 to 100% of the GPUs are asked (at most 9
/// slots).
pub(crate) fn tight_case() -> impl proptest::strategy::Strategy<Value = (Vec<NodeSlot>, Cluster)> {
    use proptest::prelude::*;
    (
        prop::collection::vec(8u64..=24, 2..=4),
        85u64..=100,
        prop::collection::vec((1u64..=8, 1u64..=3), 9),
    )
        .prop_map(|(cpus, percent, sizes)| {
            let nodes: Vec<Node> = cpus
                .iter()
                .enumerate()
                .map(|(i, &c)| node(&format!("n{i}"), 8, c))
                .collect();
            let target = 8 * cpus.len() as u64 * percent / 100;
            let mut asked = 0;
            let mut slots = Vec::new();
            for (g, m) in sizes {
                if asked >= target {
                    break;
                }
                let g = g.min(target - asked);
                asked += g;
                slots.push(NodeSlot {
                    pool: 0,
                    slot: slots.len(),
                    bundles: g as u32,
                    demand: res(g, g * m),
                });
            }
            (slots, Cluster::new(nodes))
        })
}

/// Whether every slot fits an alive node, by trying every assignment (nodes with equal
/// free resources tried once). For the unit tests' small instances only: exponential.
pub(crate) fn brute_force(slots: &[NodeSlot], cluster: &Cluster) -> bool {
    fn go(slots: &[NodeSlot], free: &mut [Vec<(String, u128)>]) -> bool {
        let Some((first, rest)) = slots.split_first() else {
            return true;
        };
        for i in 0..free.len() {
            if free[..i].contains(&free[i]) {
                continue;
            }
            let room = |name: &str, node: &[(String, u128)]| {
                node.iter().find(|(n, _)| n == name).map_or(0, |(_, a)| *a)
            };
            if !first
                .demand
                .iter()
                .all(|(name, a)| room(name, &free[i]) >= u128::from(a.units()))
            {
                continue;
            }
            let before = free[i].clone();
            for (name, a) in first.demand.iter() {
                if let Some(entry) = free[i].iter_mut().find(|(n, _)| n == name) {
                    entry.1 -= u128::from(a.units());
                }
            }
            let ok = go(rest, free);
            free[i] = before;
            if ok {
                return true;
            }
        }
        false
    }
    let mut free: Vec<Vec<(String, u128)>> = cluster
        .alive()
        .map(|n| {
            n.available
                .iter()
                .map(|(name, a)| (name.to_string(), u128::from(a.units())))
                .collect()
        })
        .collect();
    go(slots, &mut free)
}

/// Inputs for holding a fast path to the general one: runs of equal nodes (sharing their
/// lists within a run, across the cluster or not at all; some dead, some busy, some with
/// their totals, some with a larger total than the free list's), shapes whose scores tie
/// for some demands ({GPU 4, CPU 12} on 4/48 and 8/16) or tie within the scorer's
/// tolerance only (a billion CPUs, where a group leaves the node's score all but equal),
/// several resources (NPU, an accelerator type, a custom one), and pools made of runs of
/// equal slots at one `max_colocate_count` (CPUs alone or a zero demand now and then, slot
/// runs sharing their demand or not).
pub(crate) fn runs_case() -> impl proptest::strategy::Strategy<Value = (Vec<NodeSlot>, Cluster)> {
    use proptest::prelude::*;
    // (shape; nodes; alive; busy: 2 GPUs held per step, negative: a total 2 GPUs larger
    // per step; with its total; sharing one list per run).
    let node_run = (
        0usize..8,
        1usize..=6,
        prop::bool::weighted(0.85),
        -1i64..=2,
        prop::bool::ANY,
        prop::bool::ANY,
    );
    // (GPUs per group, 0 for CPUs alone; groups; a zero demand; NPU; an accelerator type;
    // sharing one demand list).
    let slot_run = (
        prop::sample::select(vec![0u64, 1, 2, 4, 8]),
        1usize..=8,
        prop::bool::weighted(0.1),
        prop::bool::weighted(0.2),
        prop::bool::weighted(0.2),
        prop::bool::ANY,
    );
    // A pool: its runs and its `max_colocate_count`.
    let pool = (prop::collection::vec(slot_run, 1..=3), 1u64..=3);
    (
        prop::collection::vec(node_run, 1..=10),
        prop::collection::vec(pool, 1..=4),
        prop::bool::weighted(0.3),
    )
        .prop_map(|(node_runs, pools, share_all)| {
            // Not always `Cluster::new`, which shares every equal list (as the readers do).
            let mut cluster = Cluster {
                nodes: runs_nodes(&node_runs),
            };
            if share_all {
                cluster.share_equal_resources();
            }
            (runs_slots(&pools), cluster)
        })
}

/// [`runs_case`]'s accelerator type.
const RUNS_TYPE: &str = "accelerator_type:A100";

/// A run of [`runs_case`]'s nodes: (shape; nodes; alive; busy: 2 GPUs held per step,
/// negative: a total 2 GPUs larger per step; with its total; sharing one list per run).
type NodeRunCase = (usize, usize, bool, i64, bool, bool);

/// A run of [`runs_case`]'s slots: (GPUs per group, 0 for CPUs alone; groups; a zero
/// demand; NPU; an accelerator type; sharing one demand list).
type SlotRunCase = (u64, usize, bool, bool, bool, bool);

/// [`runs_case`]'s nodes, run by run.
fn runs_nodes(node_runs: &[NodeRunCase]) -> Vec<Node> {
    let shape = |s: usize| match s {
        0 => res(8, 32).with(RUNS_TYPE, Amount::from_units(8)),
        1 => res(8, 16),
        2 => res(4, 48),
        3 => res(4, 16).with(RUNS_TYPE, Amount::from_units(4)),
        4 => res(0, 64),
        5 => Resources::new()
            .with("NPU", whole(8))
            .with("CPU", whole(32)),
        6 => res(8, 24).with("x", whole(1)),
        _ => res(8, 1_000_000_000),
    };
    let mut nodes = Vec::new();
    for &(s, len, alive, busy, with_total, shared) in node_runs {
        let mut total = shape(s);
        let mut available = total.clone();
        let gpu = available.get("GPU").units();
        if busy > 0 {
            available.set(
                "GPU",
                Amount::from_units(gpu.saturating_sub(busy as u64 * 20_000)),
            );
        } else if busy < 0 {
            total.set("GPU", Amount::from_units(gpu + 20_000));
        }
        for _ in 0..len {
            let (available, total) = if shared {
                (available.clone(), total.clone())
            } else {
                (available.iter().collect(), total.iter().collect())
            };
            let mut node = Node::new(format!("n{}", nodes.len()), available);
            if with_total {
                node = node.with_total(total);
            }
            node.alive = alive;
            nodes.push(node);
        }
    }
    nodes
}

/// [`runs_case`]'s slots, pool by pool: its runs and its `max_colocate_count`.
fn runs_slots(pools: &[(Vec<SlotRunCase>, u64)]) -> Vec<NodeSlot> {
    let mut slots = Vec::new();
    for (pool, (runs, colocate)) in pools.iter().enumerate() {
        let mut slot = 0;
        for &(gpus, count, zero, npu, typed, shared) in runs {
            let mut demand = Resources::new()
                .with(if npu { "NPU" } else { "GPU" }, whole(gpus))
                .with("CPU", whole(colocate * gpus.max(1)));
            if typed {
                demand.set(RUNS_TYPE, Amount::from_units(gpus));
            }
            if zero {
                demand = Resources::new();
            }
            for _ in 0..count {
                slots.push(NodeSlot {
                    pool,
                    slot,
                    bundles: gpus as u32,
                    demand: if shared {
                        demand.clone()
                    } else {
                        demand.iter().collect()
                    },
                });
                slot += 1;
            }
        }
    }
    slots
}

/// A distinct demand as a vector over the demanded names, and its slots.
pub(crate) type PlainDemand = (Vec<u64>, Vec<usize>);

/// The demanded names (sorted) and each distinct demand with its slots, in order of first
/// appearance: the plain way, slot by slot, as the placement check and Ray's simulation
/// read slots before they read runs. Their test oracles share it.
pub(crate) fn intern_slots_plainly(slots: &[NodeSlot]) -> (Vec<ResourceName>, Vec<PlainDemand>) {
    let mut names: Vec<ResourceName> = slots
        .iter()
        .flat_map(|s| s.demand.entries().map(|(n, _)| n.clone()))
        .collect();
    names.sort();
    names.dedup();
    let mut types: Vec<PlainDemand> = Vec::new();
    let mut reps: Vec<&Resources> = Vec::new();
    for (i, slot) in slots.iter().enumerate() {
        match reps.iter().position(|r| **r == slot.demand) {
            Some(t) => types[t].1.push(i),
            None => {
                let mut demand = vec![0; names.len()];
                fill_vector(&slot.demand, &names, &mut demand);
                reps.push(&slot.demand);
                types.push((demand, vec![i]));
            }
        }
    }
    (names, types)
}
