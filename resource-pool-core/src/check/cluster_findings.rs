//! What the cluster says about a config's node-slots before any placement: fewer alive
//! nodes than the slots need, the other accelerator than the one asked for, a resource no
//! alive node declares. Cheap, and said even when the exact check cannot decide.

use crate::model::{Cluster, NodeSlot, names};

/// A finding of the cluster against the node-slots (warnings: the placement check gives
/// the verdict).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[serde(untagged)]
pub enum ClusterFinding {
    /// The config's node-slots need more nodes than are alive.
    #[error("the config needs at least {needed} nodes, but only {alive} are alive{}", dead_suffix(*.dead))]
    #[diagnostic(
        code(resource_pool::inventory::too_few_nodes),
        severity(Warning),
        help(
            "a worker node may not have joined: run `ray status` on the head, start the missing raylets with `ray start --address=HEAD:PORT`, or lower `nnodes`"
        )
    )]
    TooFewAliveNodes {
        /// Alive nodes.
        alive: usize,
        /// A lower bound of the nodes the node-slots need.
        needed: usize,
        /// Dead nodes listed by the source.
        dead: usize,
    },
    /// The config asks for one accelerator, and the cluster has only the other.
    #[error(
        "{slots} node-slots ask for {wanted}, but the alive nodes have {found} and no {wanted}"
    )]
    #[diagnostic(
        code(resource_pool::inventory::accelerator_mismatch),
        severity(Warning),
        help(
            "set the pool's accelerator to `{found}` (verl: the device setting, `NPU` on Ascend), or run on nodes that declare `{wanted}`"
        )
    )]
    AcceleratorMismatch {
        /// What the node-slots ask for (`GPU`).
        wanted: String,
        /// What the cluster has (`NPU`).
        found: String,
        /// How many node-slots ask for `wanted`.
        slots: usize,
    },
    /// The config asks for a resource (an accelerator type, a custom resource) that no
    /// alive node declares.
    #[error("{slots} node-slots ask for `{resource}`, which no alive node declares")]
    #[diagnostic(
        code(resource_pool::inventory::missing_resource),
        severity(Warning),
        help(
            "check the spelling against `ray status`; declare it with `ray start --resources='{{\"{resource}\": N}}'` (fake `--num-gpus` declares no accelerator type)"
        )
    )]
    MissingResource {
        /// The resource name.
        resource: String,
        /// How many node-slots ask for it.
        slots: usize,
    },
}

fn dead_suffix(dead: usize) -> String {
    match dead {
        0 => String::new(),
        1 => " (1 node is dead)".to_owned(),
        n => format!(" ({n} nodes are dead)"),
    }
}

/// The findings that need the config as well as the cluster: fewer alive nodes than the
/// node-slots need, `GPU` asked where the cluster has only `NPU` (or the reverse), and
/// resources asked for that no alive node declares.
///
/// `dead` is the number of dead nodes the source reported (for the message only).
pub fn check_against_slots(
    cluster: &Cluster,
    slots: &[NodeSlot],
    dead: usize,
) -> Vec<ClusterFinding> {
    let mut notes = Vec::new();
    let alive: Vec<_> = cluster.alive().collect();
    let declares = |name: &str| {
        alive.iter().any(|node| {
            !node
                .total
                .as_ref()
                .unwrap_or(&node.available)
                .get(name)
                .is_zero()
        })
    };

    let needed = nodes_needed(cluster, slots);
    if needed > alive.len() {
        notes.push(ClusterFinding::TooFewAliveNodes {
            alive: alive.len(),
            needed,
            dead,
        });
    }

    let pairs = [(names::GPU, names::NPU), (names::NPU, names::GPU)];
    let mut mismatched = Vec::new();
    for (wanted, other) in pairs {
        let asking = slots
            .iter()
            .filter(|s| !s.demand.get(wanted).is_zero())
            .count();
        if asking > 0 && !declares(wanted) && declares(other) {
            mismatched.push(wanted);
            notes.push(ClusterFinding::AcceleratorMismatch {
                wanted: wanted.to_owned(),
                found: other.to_owned(),
                slots: asking,
            });
        }
    }

    let mut asked: Vec<&str> = slots
        .iter()
        .flat_map(|s| s.demand.iter().map(|(name, _)| name))
        .filter(|name| !mismatched.contains(name) && !names::is_ray_internal(name))
        .collect();
    asked.sort_unstable();
    asked.dedup();
    for resource in asked {
        if !declares(resource) {
            let slots = slots
                .iter()
                .filter(|s| !s.demand.get(resource).is_zero())
                .count();
            notes.push(ClusterFinding::MissingResource {
                resource: resource.to_owned(),
                slots,
            });
        }
    }
    notes
}

/// A lower bound of the number of nodes the node-slots need, assuming every node as large
/// as the largest alive one in each resource: per resource, the slots that cannot share
/// a node (each asks for more than half of the largest node), and the summed demand over
/// the largest node's amount, rounded up.
pub fn nodes_needed(cluster: &Cluster, slots: &[NodeSlot]) -> usize {
    let mut needed = usize::from(!slots.is_empty());
    let mut resources: Vec<&str> = slots
        .iter()
        .flat_map(|s| s.demand.iter().map(|(name, _)| name))
        .collect();
    resources.sort_unstable();
    resources.dedup();
    for name in resources {
        let largest = cluster
            .alive()
            .map(|n| n.total.as_ref().unwrap_or(&n.available).get(name).units())
            .max()
            .unwrap_or(0);
        if largest == 0 {
            // Nothing can host it: the missing-resource note says so.
            continue;
        }
        let demands = slots.iter().map(|s| s.demand.get(name).units());
        let exclusive = demands.clone().filter(|&d| d > largest / 2).count();
        let sum: u128 = demands.map(u128::from).sum();
        let by_sum = sum.div_ceil(u128::from(largest));
        let by_sum = usize::try_from(by_sum).unwrap_or(usize::MAX);
        needed = needed.max(exclusive).max(by_sum);
    }
    needed
}

#[cfg(test)]
mod tests {
    use miette::Diagnostic;

    use super::*;
    use crate::model::{
        Accelerator, Amount, Node, PoolSpec, ResourcePool, ResourcePoolManager, Resources, RoleName,
    };

    fn whole(n: u64) -> Amount {
        Amount::from_whole(n).unwrap_or_default()
    }

    fn node(id: &str, gpu_name: &str, gpus: u64, cpus: u64) -> Node {
        let total = Resources::new()
            .with(gpu_name, whole(gpus))
            .with("CPU", whole(cpus));
        Node::new(id, total.clone()).with_total(total)
    }

    fn slots(spec: PoolSpec) -> Vec<NodeSlot> {
        ResourcePoolManager::<RoleName>::new(vec![ResourcePool::new("p", spec)], [])
            .map(|m| m.node_slots())
            .unwrap_or_default()
    }

    #[test]
    fn too_few_nodes_is_reported() {
        let cluster = Cluster::new(vec![node("a", "GPU", 8, 32)]);
        let notes = check_against_slots(&cluster, &slots(PoolSpec::with_slots([8, 8])), 1);
        assert_eq!(
            notes,
            [ClusterFinding::TooFewAliveNodes {
                alive: 1,
                needed: 2,
                dead: 1
            }]
        );
        assert!(notes[0].to_string().contains("1 node is dead"));
        assert_eq!(
            notes[0].code().map(|c| c.to_string()).unwrap_or_default(),
            "resource_pool::inventory::too_few_nodes"
        );
        // Two 4s fit one 8-GPU node.
        assert!(check_against_slots(&cluster, &slots(PoolSpec::with_slots([4, 4])), 0).is_empty());
    }

    #[test]
    fn npu_against_gpu_is_reported() {
        let cluster = Cluster::new(vec![node("a", "NPU", 8, 32)]);
        let notes = check_against_slots(&cluster, &slots(PoolSpec::with_slots([8])), 0);
        assert_eq!(
            notes,
            [ClusterFinding::AcceleratorMismatch {
                wanted: "GPU".into(),
                found: "NPU".into(),
                slots: 1
            }]
        );
        let npu = PoolSpec {
            accelerator: Accelerator::Npu,
            ..PoolSpec::with_slots([8])
        };
        assert!(check_against_slots(&cluster, &slots(npu), 0).is_empty());
    }

    #[test]
    fn missing_accelerator_type_is_reported() {
        let cluster = Cluster::new(vec![node("a", "GPU", 8, 32)]);
        let spec = PoolSpec {
            accelerator_type: Some("accelerator_type:H100".into()),
            ..PoolSpec::with_slots([8])
        };
        let notes = check_against_slots(&cluster, &slots(spec), 0);
        assert_eq!(
            notes,
            [ClusterFinding::MissingResource {
                resource: "accelerator_type:H100".into(),
                slots: 1
            }]
        );
    }
}
