//! Properties of the exact placement check, against a brute force written here.

use std::time::{Duration, Instant};

use proptest::prelude::*;
use resource_pool_core::placement::{PlacementOptions, PlacementOutcome, check_placement};
use resource_pool_core::{Amount, Cluster, Node, NodeSlot, Resources};

/// A node: CPU, GPU and H100 free, and whether it is alive.
type NodeVec = ([u64; 3], bool);

const NAMES: [&str; 3] = ["CPU", "GPU", "accelerator_type:H100"];

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
            0u64..=32,
            0u64..=8,
            prop_oneof![4 => Just(0u64), 1 => 1u64..=2],
        ),
        prop::bool::weighted(0.9),
    )
        .prop_map(|((c, g, h), alive)| ([c, g, h], alive))
}

fn slot_strategy() -> impl Strategy<Value = [u64; 3]> {
    (
        1u64..=8,
        0u64..=4,
        prop_oneof![4 => Just(0u64), 1 => Just(1u64)],
    )
        .prop_map(|(g, per, h)| [g * per, g, h])
}

fn build(nodes: &[([u64; 3], bool)], slots: &[[u64; 3]]) -> (Vec<NodeSlot>, Cluster) {
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
    let slots = slots
        .iter()
        .enumerate()
        .map(|(i, v)| NodeSlot {
            pool: 0,
            slot: i,
            bundles: v[1] as u32,
            demand: res(v),
        })
        .collect();
    (slots, cluster)
}

/// A tight two-resource instance (the packing benchmark's shape, small): 2 to 5 nodes of
/// 8 GPUs and 8 to 24 CPUs, slots of 1 to 8 GPUs at 1 to 3 CPUs each until 85 to 100% of
/// the GPUs are asked.
fn tight_strategy() -> impl Strategy<Value = (Vec<NodeVec>, Vec<[u64; 3]>)> {
    (
        prop::collection::vec(8u64..=24, 2..=5),
        85u64..=100,
        prop::collection::vec((1u64..=8, 1u64..=3), 10),
    )
        .prop_map(|(cpus, percent, sizes)| {
            let nodes: Vec<NodeVec> = cpus.iter().map(|&c| ([c, 8, 0], true)).collect();
            let target = 8 * cpus.len() as u64 * percent / 100;
            let mut asked = 0;
            let mut slots = Vec::new();
            for (g, m) in sizes {
                if asked < target {
                    let g = g.min(target - asked);
                    asked += g;
                    slots.push([g * m, g, 0]);
                }
            }
            (nodes, slots)
        })
}

/// Tries every assignment of slots to alive nodes.
fn brute_force(nodes: &[([u64; 3], bool)], slots: &[[u64; 3]]) -> bool {
    fn go(i: usize, slots: &[[u64; 3]], free: &mut [[u64; 3]], alive: &[bool]) -> bool {
        if i == slots.len() {
            return true;
        }
        for n in 0..free.len() {
            if alive[n] && (0..3).all(|r| free[n][r] >= slots[i][r]) {
                for r in 0..3 {
                    free[n][r] -= slots[i][r];
                }
                let ok = go(i + 1, slots, free, alive);
                for r in 0..3 {
                    free[n][r] += slots[i][r];
                }
                if ok {
                    return true;
                }
            }
        }
        false
    }
    let mut free: Vec<[u64; 3]> = nodes.iter().map(|n| n.0).collect();
    let alive: Vec<bool> = nodes.iter().map(|n| n.1).collect();
    go(0, slots, &mut free, &alive)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn agrees_with_brute_force_and_witnesses_are_valid(
        nodes in prop::collection::vec(node_strategy(), 0..=5),
        slots in prop::collection::vec(slot_strategy(), 0..=6),
    ) {
        let (s, cluster) = build(&nodes, &slots);
        let report = check_placement(&s, &cluster, &PlacementOptions::default());
        let feasible = report.feasible();
        prop_assert!(feasible.is_some(), "undecided on a tiny instance: {:?}", report);
        prop_assert_eq!(feasible, Some(brute_force(&nodes, &slots)));
        if let Some(w) = report.witness() {
            prop_assert_eq!(w.validate(&s, &cluster), Ok(()));
        }
    }

    #[test]
    fn agrees_with_brute_force_on_tight_packings((nodes, slots) in tight_strategy()) {
        let (s, cluster) = build(&nodes, &slots);
        let report = check_placement(&s, &cluster, &PlacementOptions::default());
        prop_assert_eq!(report.feasible(), Some(brute_force(&nodes, &slots)), "{:?}", report);
        if let Some(w) = report.witness() {
            prop_assert_eq!(w.validate(&s, &cluster), Ok(()));
        }
    }

    #[test]
    fn more_nodes_or_capacity_never_hurt(
        nodes in prop::collection::vec(node_strategy(), 0..=4),
        slots in prop::collection::vec(slot_strategy(), 0..=6),
        extra in node_strategy(),
        which in 0usize..4,
        more in (0u64..=8, 0u64..=4, 0u64..=1),
    ) {
        let options = PlacementOptions::default();
        let (s, cluster) = build(&nodes, &slots);
        let before = check_placement(&s, &cluster, &options).feasible();
        let mut bigger = nodes.clone();
        bigger.push(extra);
        let (s2, c2) = build(&bigger, &slots);
        let with_node = check_placement(&s2, &c2, &options).feasible();
        let mut richer = nodes.clone();
        if let Some(n) = richer.get_mut(which) {
            n.0[0] += more.0;
            n.0[1] += more.1;
            n.0[2] += more.2;
        }
        let (s3, c3) = build(&richer, &slots);
        let with_capacity = check_placement(&s3, &c3, &options).feasible();
        if before == Some(true) {
            prop_assert_eq!(with_node, Some(true));
            prop_assert_eq!(with_capacity, Some(true));
        }
    }

    #[test]
    fn node_order_does_not_matter(
        nodes in prop::collection::vec(node_strategy(), 0..=5),
        slots in prop::collection::vec(slot_strategy(), 0..=6),
        perm in Just(()).prop_perturb(|_, mut rng| rng.random::<u64>()),
    ) {
        let options = PlacementOptions::default();
        let (s, cluster) = build(&nodes, &slots);
        let a = check_placement(&s, &cluster, &options).feasible();
        // A rotation and a reversal, chosen by the seed.
        let mut shuffled = nodes.clone();
        if !shuffled.is_empty() {
            let k = (perm % shuffled.len() as u64) as usize;
            shuffled.rotate_left(k);
            if perm & 1 == 1 {
                shuffled.reverse();
            }
        }
        let (s2, c2) = build(&shuffled, &slots);
        let b = check_placement(&s2, &c2, &options).feasible();
        prop_assert_eq!(a, b);
    }
}

/// A perfect packing cut at random: `bins` nodes of `cap` units of one resource, each
/// cut into pieces. Feasible by construction; first-fit decreasing often misses it.
fn adversarial(bins: usize, cap: u64, seed: u64) -> (Vec<NodeSlot>, Cluster) {
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let x = |n: u64| Resources::new().with("X", Amount::from_units(n));
    let mut items = Vec::new();
    for _ in 0..bins {
        let mut left = cap;
        while left > 0 {
            let piece = (cap / 8 + next() % (cap / 2)).min(left);
            items.push(piece);
            left -= piece;
        }
    }
    // Interleave so slots are not listed bin by bin.
    items.sort_by_key(|&v| (v.wrapping_mul(0x9e37_79b9) ^ seed) % 1000);
    let slots = items
        .iter()
        .enumerate()
        .map(|(i, &v)| NodeSlot {
            pool: 0,
            slot: i,
            bundles: 1,
            demand: x(v),
        })
        .collect();
    let cluster = Cluster::new(
        (0..bins)
            .map(|i| Node::new(format!("n{i}"), x(cap)))
            .collect(),
    );
    (slots, cluster)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn adversarial_instances_stay_within_budget(bins in 5usize..=50, cap in 50u64..=1000, seed: u64) {
        let (slots, cluster) = adversarial(bins, cap, seed);
        let options = PlacementOptions {
            budget: Duration::from_millis(150),
            ..PlacementOptions::default()
        };
        let start = Instant::now();
        let report = check_placement(&slots, &cluster, &options);
        let elapsed = start.elapsed();
        prop_assert!(elapsed < Duration::from_millis(150) * 4 + Duration::from_millis(300),
            "took {:?}", elapsed);
        match &report.outcome {
            PlacementOutcome::Feasible(w) => prop_assert_eq!(w.validate(&slots, &cluster), Ok(())),
            PlacementOutcome::Undecided(_) => {}
            PlacementOutcome::Infeasible(i) => prop_assert!(false, "a feasible instance refuted: {:?}", i),
        }
    }
}
