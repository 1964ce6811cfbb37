//! Properties of the Ray simulation.

use proptest::prelude::*;
use resource_pool_core::placement::{PlacementOptions, Witness, check_placement};
use resource_pool_core::ray_sim::{
    GroupFate, RayBranch, RayFix, RaySimOptions, RayVerdict, simulate,
};
use resource_pool_core::{Amount, Cluster, Node, NodeSlot, Resources};

const NAMES: [&str; 3] = ["CPU", "GPU", "special"];

fn res(v: &[u64; 3]) -> Resources {
    NAMES
        .iter()
        .zip(v)
        .map(|(n, &x)| (*n, Amount::from_units(x * Amount::SCALE)))
        .collect()
}

fn node_strategy() -> impl Strategy<Value = ([u64; 3], bool)> {
    (
        (
            prop_oneof![Just(16u64), Just(32), 0u64..=32],
            prop_oneof![Just(8u64), Just(4), 0u64..=8],
            0u64..=1,
        ),
        prop::bool::weighted(0.9),
    )
        .prop_map(|((c, g, s), alive)| ([c, g, s], alive))
}

/// Pools of 1..=3 slots; slots of one pool share a shape, as verl's do.
fn pools_strategy() -> impl Strategy<Value = Vec<Vec<[u64; 3]>>> {
    prop::collection::vec(
        (
            prop_oneof![Just(8u64), Just(4), 1u64..=8],
            0u64..=3,
            0u64..=1,
            prop::collection::vec(Just(()), 1..=3),
        )
            .prop_map(|(g, per, s, n)| vec![[g * per, g, s]; n.len()]),
        0..=3,
    )
}

fn build(nodes: &[([u64; 3], bool)], pools: &[Vec<[u64; 3]>]) -> (Vec<NodeSlot>, Cluster) {
    let cluster = Cluster::new(
        nodes
            .iter()
            .enumerate()
            .map(|(i, (v, alive))| Node {
                alive: *alive,
                ..Node::new(format!("n{i}"), res(v))
            })
            .collect(),
    );
    let mut slots = Vec::new();
    for (pool, list) in pools.iter().enumerate() {
        for (slot, v) in list.iter().enumerate() {
            slots.push(NodeSlot {
                pool,
                slot,
                bundles: v[1] as u32,
                demand: res(v),
            });
        }
    }
    (slots, cluster)
}

/// Checks that the placed groups of a branch fit their nodes, together, and that the
/// pools after a blocked one were never created.
fn check_branch(
    branch: &RayBranch,
    slots: &[NodeSlot],
    cluster: &Cluster,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(branch.groups.len(), slots.len());
    let mut used: Vec<Resources> = vec![Resources::new(); cluster.nodes.len()];
    let mut blocked = None;
    for (i, fate) in branch.groups.iter().enumerate() {
        match fate {
            GroupFate::Placed { node } => {
                prop_assert!(
                    blocked.is_none_or(|b| b == slots[i].pool),
                    "placed after a blocked pool"
                );
                let n = &cluster.nodes[*node];
                prop_assert!(n.alive);
                for (name, amount) in slots[i].demand.iter() {
                    let sum = used[*node].get(name).saturating_add(amount);
                    prop_assert!(sum <= n.available.get(name), "node {} overfilled", n.id);
                    used[*node].set(name, sum);
                }
            }
            GroupFate::Pending(_) => {
                blocked.get_or_insert(slots[i].pool);
            }
            GroupFate::NotCreated { blocked_by } => {
                prop_assert_eq!(Some(*blocked_by), blocked);
                prop_assert_ne!(slots[i].pool, *blocked_by);
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn ray_never_overfills_and_placing_implies_feasible(
        nodes in prop::collection::vec(node_strategy(), 0..=5),
        pools in pools_strategy(),
    ) {
        let (slots, cluster) = build(&nodes, &pools);
        let report = simulate(&slots, &cluster, &RaySimOptions::default());
        check_branch(&report.representative, &slots, &cluster)?;
        if let Some(alt) = &report.alternative {
            check_branch(alt, &slots, &cluster)?;
            prop_assert!(alt.places_all());
        }
        match report.verdict {
            RayVerdict::Places | RayVerdict::DependsOnTies => {
                let placed = if report.verdict == RayVerdict::Places {
                    &report.representative
                } else {
                    report.alternative.as_ref().unwrap_or(&report.representative)
                };
                prop_assert!(placed.places_all());
                let w = Witness { nodes: placed.placed().map(|(_, n)| n).collect() };
                prop_assert_eq!(w.validate(&slots, &cluster), Ok(()));
                let feasible = check_placement(&slots, &cluster, &PlacementOptions::default()).feasible();
                prop_assert_eq!(feasible, Some(true));
            }
            RayVerdict::Hangs => prop_assert!(!report.representative.places_all()),
            RayVerdict::Undecided => {}
        }
        match &report.fix {
            Some(RayFix::PoolOrder(order)) => {
                // The suggested order does place.
                let reordered: Vec<NodeSlot> = order
                    .iter()
                    .flat_map(|&p| slots.iter().filter(move |s| s.pool == p).cloned())
                    .collect();
                prop_assert_eq!(reordered.len(), slots.len());
                let again = simulate(&reordered, &cluster, &RaySimOptions::default());
                prop_assert_eq!(again.verdict, RayVerdict::Places);
            }
            Some(RayFix::Pin(w)) => prop_assert_eq!(w.validate(&slots, &cluster), Ok(())),
            None => {
                if report.verdict != RayVerdict::Places {
                    let feasible = check_placement(&slots, &cluster, &PlacementOptions::default()).feasible();
                    prop_assert_ne!(feasible, Some(true), "feasible but no fix suggested");
                }
            }
        }
    }

    #[test]
    fn node_order_does_not_change_the_verdict_without_ties(
        nodes in prop::collection::vec(node_strategy(), 0..=5),
        pools in pools_strategy(),
    ) {
        // Ray's verdict over all tied choices cannot depend on the listing order.
        let (slots, cluster) = build(&nodes, &pools);
        let mut reversed = cluster.clone();
        reversed.nodes.reverse();
        let a = simulate(&slots, &cluster, &RaySimOptions::default()).verdict;
        let b = simulate(&slots, &reversed, &RaySimOptions::default()).verdict;
        if a != RayVerdict::Undecided && b != RayVerdict::Undecided {
            prop_assert_eq!(a, b);
        }
    }
}
