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

/// The most orders of the nodes 0.5.0's fit is tried in (a node's place in Ray's listing
/// changes from one start of the cluster to the next).
const MAX_ORDERS: usize = 5_040;

/// What verl's own check says of `pools` on `cluster`, when it refuses them, or may.
pub(super) fn refusal(
    release: &Release,
    pools: &[ResourcePool],
    cluster: &Cluster,
    spans: &dyn SlotSpans,
) -> Option<LaunchDiagnostic> {
    let verdict = refuses(release.pre_check, pools, cluster)?;
    let refusal = verdict.refusal;
    let pool = match &refusal {
        Refusal::Total { .. } => None,
        Refusal::Pool { pool, .. } => pools.iter().position(|p| &p.name == pool),
    };
    let release = VerlRelease(release.version);
    let span = pool
        .or((!pools.is_empty()).then_some(0))
        .and_then(|p: PoolId| spans.pool_span(p))
        .map(|s| to_source_span(&s));
    Some(match verdict.always {
        true => LaunchDiagnostic::PreCheckRefuses {
            release,
            refusal,
            span,
        },
        false => LaunchDiagnostic::PreCheckMayRefuse {
            release,
            refusal,
            span,
        },
    })
}

/// Whether `check` lets `pools` through on `cluster`, whatever order Ray lists the nodes
/// in: the suggestions' admission.
pub fn admits(check: PreCheck, pools: &[ResourcePool], cluster: &Cluster) -> bool {
    refuses(check, pools, cluster).is_none()
}

/// A refusal, and whether it comes in every order of the nodes tried.
struct Verdict {
    refusal: Refusal,
    always: bool,
}

/// verl's refusal of `pools` on `cluster` by `check`, if it refuses them in some order of
/// the nodes.
fn refuses(check: PreCheck, pools: &[ResourcePool], cluster: &Cluster) -> Option<Verdict> {
    let free: Vec<u64> = cluster
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
        let refusal = Refusal::Total {
            available: Amount::from_units(available),
            desired: Amount::from_units(desired),
        };
        return Some(Verdict {
            refusal,
            always: true,
        });
    }
    if check == PreCheck::GreedyAndTotal {
        return greedy_in_every_order(pools, &free);
    }
    None
}

/// 0.5.0's fit in the listed order of the nodes and in every other (of distinct free
/// amounts, at most [`MAX_ORDERS`]): a refusal, and whether every order refuses.
fn greedy_in_every_order(pools: &[ResourcePool], listed: &[u64]) -> Option<Verdict> {
    let first = greedy(pools, &mut listed.to_vec());
    let mut order = listed.to_vec();
    order.sort_unstable();
    let (mut refused, mut passed) = (first.is_some(), first.is_none());
    let mut seen = None;
    for _ in 0..MAX_ORDERS {
        match greedy(pools, &mut order.clone()) {
            Some(refusal) => {
                refused = true;
                seen.get_or_insert(refusal);
            }
            None => passed = true,
        }
        if (refused && passed) || !next_permutation(&mut order) {
            break;
        }
    }
    let refusal = first.or(seen)?;
    refused.then_some(Verdict {
        refusal,
        always: !passed,
    })
}

/// The next permutation of `items` in lexicographic order (of distinct ones when some are
/// equal); `false` after the last.
fn next_permutation(items: &mut [u64]) -> bool {
    let Some(i) = items.windows(2).rposition(|w| w[0] < w[1]) else {
        return false;
    };
    let j = items.iter().rposition(|&x| x > items[i]).unwrap_or(i + 1);
    items.swap(i, j);
    items[i + 1..].reverse();
    true
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
        (sizes.iter().enumerate())
            .map(|(i, s)| ResourcePool::new(format!("p{i}"), PoolSpec::with_slots(s.to_vec())))
            .collect()
    }

    #[test]
    fn the_total_counts_every_pool_against_the_free_accelerators() {
        let cluster = Cluster::new(vec![node(8), node(4)]);
        assert!(refuses(PreCheck::Total, &pools(&[&[8], &[4]]), &cluster).is_none());
        let refused = refuses(PreCheck::Total, &pools(&[&[8], &[4], &[1]]), &cluster);
        let refused = refused.expect("refused");
        assert_eq!(
            refused.refusal.to_string(),
            "Total available GPUs 12.0 is less than total desired GPUs 13"
        );
        assert!(refused.always);
    }

    #[test]
    fn the_greedy_fit_refuses_what_ray_places() {
        // Two 8s on one 16-GPU node: Ray places both, 0.5.0 uses each node once per pool.
        let cluster = Cluster::new(vec![node(16)]);
        let layout = pools(&[&[8, 8]]);
        assert!(refuses(PreCheck::Total, &layout, &cluster).is_none());
        let refused = refuses(PreCheck::GreedyAndTotal, &layout, &cluster).expect("refused");
        assert_eq!(
            refused.refusal.to_string(),
            "Resource pool p0: 8*1cannot be satisfied in this ray cluster"
        );
        assert!(refused.always);
        // Sized as the first node-slot: [4, 8] fits 4 + 4 on two 8-GPU nodes for it.
        let cluster = Cluster::new(vec![node(8), node(8)]);
        assert!(refuses(PreCheck::GreedyAndTotal, &pools(&[&[4, 8]]), &cluster).is_none());
    }

    #[test]
    fn the_greedy_fit_follows_the_order_ray_lists_the_nodes_in() {
        // A 4 then an 8 on an 8-GPU and a 4-GPU node: the 4 takes the 8-GPU node when it
        // is listed first, and the 8 finds none; listed the other way, both fit.
        let layout = pools(&[&[4], &[8]]);
        for cluster in [
            Cluster::new(vec![node(8), node(4)]),
            Cluster::new(vec![node(4), node(8)]),
        ] {
            let refused = refuses(PreCheck::GreedyAndTotal, &layout, &cluster).expect("may");
            assert!(!refused.always);
            assert!(!admits(PreCheck::GreedyAndTotal, &layout, &cluster));
        }
        let mut items = [1, 1, 2];
        let mut seen = vec![items];
        while next_permutation(&mut items) {
            seen.push(items);
        }
        assert_eq!(seen, [[1, 1, 2], [1, 2, 1], [2, 1, 1]]);
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
