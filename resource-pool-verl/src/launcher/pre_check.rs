//! verl's own check in `ResourcePoolManager.create_resource_pool`, before any group is
//! created: the accelerators free on the alive nodes against those of every pool (0.6.0
//! on), and in 0.5.0 a greedy fit per pool after it. It reads `ray.available_resources_per_node()`:
//! what is free now, per node `GPU` where the node has some free, else `NPU`. CPUs and
//! accelerator types are not looked at.

use resource_pool_core::check::SlotSpans;
use resource_pool_core::model::{Amount, Cluster, PoolId, ResourcePool, names};
use resource_pool_core::source::to_source_span;

use super::diagnostics::{LaunchDiagnostic, Refusal, VerlRelease};
use crate::releases::{PreCheck, Release};

/// What verl's own check says of `pools` on `cluster`, when it refuses them.
pub(super) fn refusal(
    release: &Release,
    pools: &[ResourcePool],
    cluster: &Cluster,
    spans: &dyn SlotSpans,
) -> Option<LaunchDiagnostic> {
    let refusal = refuses(release.pre_check, pools, cluster)?;
    let pool = match &refusal {
        Refusal::Total { .. } => None,
        Refusal::Pool { pool, .. } => pools.iter().position(|p| &p.name == pool),
    };
    Some(LaunchDiagnostic::PreCheckRefuses {
        release: VerlRelease(release.version),
        refusal,
        span: pool
            .or((!pools.is_empty()).then_some(0))
            .and_then(|p: PoolId| spans.pool_span(p))
            .map(|s| to_source_span(&s)),
    })
}

/// Whether `check` lets `pools` through on `cluster`: the suggestions' admission.
pub fn admits(check: PreCheck, pools: &[ResourcePool], cluster: &Cluster) -> bool {
    refuses(check, pools, cluster).is_none()
}

/// verl's refusal of `pools` on `cluster` by `check`, if it refuses them.
fn refuses(check: PreCheck, pools: &[ResourcePool], cluster: &Cluster) -> Option<Refusal> {
    let mut free: Vec<u64> = cluster
        .alive()
        .map(|node| {
            let gpus = node.available.get(names::GPU);
            let pick = if gpus.is_zero() {
                node.available.get(names::NPU)
            } else {
                gpus
            };
            pick.units()
        })
        .collect();
    let available: u64 = free.iter().sum();
    let desired: u64 = pools
        .iter()
        .flat_map(|p| &p.spec.process_on_nodes)
        .map(|&n| u64::from(n) * Amount::SCALE)
        .sum();
    if available < desired {
        return Some(Refusal::Total {
            available: Amount::from_units(available),
            desired: Amount::from_units(desired),
        });
    }
    if check == PreCheck::GreedyAndTotal {
        return greedy(pools, &mut free);
    }
    None
}

/// 0.5.0's fit: per pool in the layout's order, each of its node-slots sized as its first,
/// on a node not yet used by that pool, nodes in the cluster's order (Ray's listing); what
/// a pool takes is gone for the pools after it.
fn greedy(pools: &[ResourcePool], free: &mut [u64]) -> Option<Refusal> {
    for pool in pools {
        let Some(&first) = pool.spec.process_on_nodes.first() else {
            continue;
        };
        let size = u64::from(first) * Amount::SCALE;
        let mut left = pool.spec.process_on_nodes.len();
        for node in free.iter_mut() {
            if left == 0 {
                break;
            }
            if *node >= size {
                *node -= size;
                left -= 1;
            }
        }
        if left > 0 {
            return Some(Refusal::Pool {
                pool: pool.name.clone(),
                size: first,
                unmet: left,
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use resource_pool_core::model::{Node, PoolSpec, Resources};

    fn node(gpus: u64) -> Node {
        let whole = |n| Amount::from_whole(n).expect("whole");
        Node::new(
            "n",
            Resources::new()
                .with("GPU", whole(gpus))
                .with("CPU", whole(64)),
        )
    }

    fn pools(sizes: &[&[u32]]) -> Vec<ResourcePool> {
        sizes
            .iter()
            .enumerate()
            .map(|(i, s)| ResourcePool::new(format!("p{i}"), PoolSpec::with_slots(s.to_vec())))
            .collect()
    }

    #[test]
    fn the_total_counts_every_pool_against_the_free_accelerators() {
        let cluster = Cluster::new(vec![node(8), node(4)]);
        assert_eq!(
            refuses(PreCheck::Total, &pools(&[&[8], &[4]]), &cluster),
            None
        );
        let refused = refuses(PreCheck::Total, &pools(&[&[8], &[4], &[1]]), &cluster);
        assert_eq!(
            refused.map(|r| r.to_string()),
            Some("Total available GPUs 12.0 is less than total desired GPUs 13".to_owned())
        );
    }

    #[test]
    fn the_greedy_fit_refuses_what_ray_places() {
        // Two 8s on one 16-GPU node: Ray places both, 0.5.0 uses each node once per pool.
        let cluster = Cluster::new(vec![node(16)]);
        let layout = pools(&[&[8, 8]]);
        assert_eq!(refuses(PreCheck::Total, &layout, &cluster), None);
        let refused = refuses(PreCheck::GreedyAndTotal, &layout, &cluster);
        assert_eq!(
            refused.map(|r| r.to_string()),
            Some("Resource pool p0: 8*1cannot be satisfied in this ray cluster".to_owned())
        );
        // Sized as the first node-slot: [4, 8] fits 4 + 4 on two 8-GPU nodes for it.
        let cluster = Cluster::new(vec![node(8), node(8)]);
        assert_eq!(
            refuses(PreCheck::GreedyAndTotal, &pools(&[&[4, 8]]), &cluster),
            None
        );
    }

    #[test]
    fn a_node_without_free_gpus_counts_its_npus() {
        let whole = |n| Amount::from_whole(n).expect("whole");
        let npu = Node::new("a", Resources::new().with("NPU", whole(8)));
        let cluster = Cluster::new(vec![npu]);
        assert!(admits(PreCheck::Total, &pools(&[&[8]]), &cluster));
        assert!(!admits(PreCheck::Total, &pools(&[&[8, 1]]), &cluster));
    }
}
