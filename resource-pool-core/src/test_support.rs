//! Helpers shared by the unit tests of the placement check and the Ray simulation.

use crate::model::{Amount, Cluster, Node, NodeSlot, Resources};

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
