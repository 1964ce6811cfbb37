//! The suggestion against a brute force written here: on small instances, every layout of
//! the searched shapes is built and simulated, and the best one by the documented order
//! must be the one the search returns; the suggestion is placeable and Ray places it
//! (re-simulated); a layout that passes gets no suggestion.

use proptest::prelude::*;
use resource_pool_core::check::suggest::{
    Reshape, SearchResult, SuggestOptions, Suggestion, When, search, suggest, wanted,
};
use resource_pool_core::check::{CheckOptions, NoSpans, check};
use resource_pool_core::placement::{PlacementOptions, check_placement};
use resource_pool_core::ray_sim::{RaySimOptions, RayVerdict, simulate};
use resource_pool_core::{
    Amount, Cluster, Node, PoolSpec, ResourcePool, ResourcePoolManager, Resources, RoleName,
    node_slots,
};

fn whole(n: u64) -> Amount {
    Amount::from_units(n * Amount::SCALE)
}

fn node_strategy() -> impl Strategy<Value = (u64, u64, bool, u64)> {
    // GPUs free, CPUs free, declares `special`, GPUs held by others.
    (
        prop_oneof![Just(8u64), Just(4), 0u64..=8],
        prop_oneof![2 => Just(32u64), 1 => Just(16), 1 => 0u64..=32],
        prop::bool::weighted(0.3),
        prop_oneof![3 => Just(0u64), 1 => 0u64..=4],
    )
}

/// A pool: slot list, whether it may split, CPUs per bundle, whether it asks `special`.
#[derive(Clone, Debug)]
struct PoolCase {
    slots: Vec<u32>,
    split: bool,
    colocate: u32,
    special: bool,
}

fn pool_strategy() -> impl Strategy<Value = PoolCase> {
    let trim = (prop::collection::vec(1u32..=8, 1..=3)).prop_map(|slots| (slots, false));
    let split = (
        prop_oneof![Just(1u32), Just(2), Just(4), Just(6), Just(8)],
        1usize..=2,
    )
        .prop_map(|(g, n)| (vec![g; n], true));
    (
        prop_oneof![trim, split],
        prop_oneof![Just(3u32), 1u32..=4],
        prop::bool::weighted(0.15),
    )
        .prop_map(|((slots, split), colocate, special)| PoolCase {
            slots,
            split,
            colocate,
            special,
        })
}

fn cluster(nodes: &[(u64, u64, bool, u64)]) -> Cluster {
    Cluster::new(
        nodes
            .iter()
            .enumerate()
            .map(|(i, &(gpu, cpu, special, held))| {
                let mut free = Resources::new()
                    .with("GPU", whole(gpu))
                    .with("CPU", whole(cpu));
                if special {
                    free.set("special", whole(1));
                }
                let mut total = free.clone();
                total.set("GPU", whole(gpu + held));
                total.set("CPU", whole(cpu + 3 * held));
                Node::new(format!("n{i}"), free).with_total(total)
            })
            .collect(),
    )
}

fn pools(cases: &[PoolCase]) -> (Vec<ResourcePool>, Vec<Reshape>) {
    let pools = cases
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut spec = PoolSpec {
                max_colocate_count: c.colocate,
                ..PoolSpec::with_slots(c.slots.clone())
            };
            if c.special {
                spec.accelerator_type = Some("special".into());
            }
            ResourcePool::new(format!("p{i}"), spec)
        })
        .collect();
    let reshape = cases
        .iter()
        .map(|c| {
            if c.split {
                Reshape::Split
            } else {
                Reshape::Trim
            }
        })
        .collect();
    (pools, reshape)
}

/// One pool's shape in the brute force: node-slots, slot size (for the order), changed.
#[derive(Clone, Debug)]
struct Shape {
    slots: Vec<u32>,
    size: u32,
    changed: bool,
}

/// Every shape of a pool, straight from the documented rules.
fn shapes(original: &[u32], split: bool) -> Vec<Shape> {
    let mut out = Vec::new();
    if split && original.windows(2).all(|w| w[0] == w[1]) {
        let g = original[0];
        let asked = g as usize * original.len();
        for s in (1..=g).filter(|s| g.is_multiple_of(*s)) {
            for k in 1..=asked / s as usize {
                out.push(Shape {
                    slots: vec![s; k],
                    size: s,
                    changed: s != g || k != original.len(),
                });
            }
        }
    } else {
        for k in 1..=original.len() {
            out.push(Shape {
                slots: original[..k].to_vec(),
                size: original[0],
                changed: k != original.len(),
            });
        }
    }
    out
}

/// The rank key of the documented order, smaller first.
type Key = (
    std::cmp::Reverse<u64>,
    usize,
    Vec<std::cmp::Reverse<u64>>,
    Vec<std::cmp::Reverse<u32>>,
);

fn key(layout: &[&Shape]) -> Key {
    let acc = |s: &Shape| s.slots.iter().map(|&x| u64::from(x)).sum::<u64>();
    (
        std::cmp::Reverse(layout.iter().map(|s| acc(s)).sum()),
        layout.iter().filter(|s| s.changed).count(),
        layout.iter().map(|s| std::cmp::Reverse(acc(s))).collect(),
        layout.iter().map(|s| std::cmp::Reverse(s.size)).collect(),
    )
}

/// The best layout found: its key and node-slots.
type Best = (Key, Vec<Vec<u32>>);

fn with_slots(pools: &[ResourcePool], slots: &[&Shape]) -> Vec<ResourcePool> {
    pools
        .iter()
        .zip(slots)
        .map(|(p, s)| {
            ResourcePool::new(
                p.name.clone(),
                PoolSpec {
                    process_on_nodes: s.slots.clone(),
                    ..p.spec.clone()
                },
            )
        })
        .collect()
}

/// The brute force: every layout, simulated; the best that Ray places by the order, and
/// whether some layout was undecided.
fn brute_force(
    pools: &[ResourcePool],
    reshape: &[Reshape],
    cluster: &Cluster,
) -> (Option<Best>, bool) {
    let per_pool: Vec<Vec<Shape>> = pools
        .iter()
        .zip(reshape)
        .map(|(p, r)| shapes(&p.spec.process_on_nodes, *r == Reshape::Split))
        .collect();
    let mut best: Option<Best> = None;
    let mut undecided = false;
    let mut index = vec![0usize; per_pool.len()];
    loop {
        let layout: Vec<&Shape> = index.iter().zip(&per_pool).map(|(&i, l)| &l[i]).collect();
        let candidate = with_slots(pools, &layout);
        let slots = node_slots(candidate.iter().map(|p| &p.spec));
        let options = RaySimOptions {
            suggest_fixes: false,
            ..RaySimOptions::default()
        };
        match simulate(&slots, cluster, &options).verdict {
            RayVerdict::Places => {
                let k = key(&layout);
                if best.as_ref().is_none_or(|(b, _)| k < *b) {
                    best = Some((k, layout.iter().map(|s| s.slots.clone()).collect()));
                }
            }
            RayVerdict::Undecided => undecided = true,
            _ => {}
        }
        // Next index vector (odometer).
        let mut i = 0;
        loop {
            if i == index.len() {
                return (best, undecided);
            }
            index[i] += 1;
            if index[i] < per_pool[i].len() {
                break;
            }
            index[i] = 0;
            i += 1;
        }
    }
}

/// The suggestion is placeable (the exact check agrees) and Ray places it again.
fn verify(s: &Suggestion, cluster: &Cluster) -> Result<(), TestCaseError> {
    let slots = node_slots(s.pools.iter().map(|p| &p.spec));
    prop_assert_eq!(&slots, &s.slots);
    let placement = check_placement(&slots, cluster, &PlacementOptions::default());
    prop_assert_eq!(placement.feasible(), Some(true));
    let again = simulate(&slots, cluster, &RaySimOptions::default());
    prop_assert_eq!(again.verdict, RayVerdict::Places);
    let acc: u64 = s.pools.iter().map(ResourcePool::world_size).sum();
    prop_assert_eq!(acc, s.accelerators);
    Ok(())
}

fn compare(
    pools: &[ResourcePool],
    reshape: &[Reshape],
    cluster: &Cluster,
    result: &SearchResult,
) -> Result<(), TestCaseError> {
    let (best, undecided) = brute_force(pools, reshape, cluster);
    match (result, best) {
        (SearchResult::Found(s), Some((_, layout))) => {
            verify(s, cluster)?;
            let got: Vec<Vec<u32>> = s
                .pools
                .iter()
                .map(|p| p.spec.process_on_nodes.clone())
                .collect();
            if s.undecided == 0 && !undecided {
                prop_assert_eq!(got, layout);
            } else {
                // Something ranked before it was undecided: it is a layout Ray places, no
                // larger than the best.
                let best: u64 = layout.iter().flatten().map(|&x| u64::from(x)).sum();
                prop_assert!(s.accelerators <= best);
            }
        }
        (SearchResult::Found(s), None) => {
            verify(s, cluster)?;
            prop_assert!(
                undecided,
                "the search found {:?}, the brute force nothing",
                s.pools
            );
        }
        (SearchResult::NoneFits, best) => {
            prop_assert!(best.is_none(), "the brute force found {:?}", best);
        }
        (SearchResult::Undecided { .. }, _) => {}
    }
    Ok(())
}

fn big_budget() -> SuggestOptions {
    SuggestOptions {
        max_steps: u64::MAX,
        budget: std::time::Duration::from_secs(60),
        ..SuggestOptions::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_search_returns_the_brute_forces_best(
        nodes in prop::collection::vec(node_strategy(), 1..=5),
        cases in prop::collection::vec(pool_strategy(), 1..=3),
    ) {
        let cluster = cluster(&nodes);
        let (pools, reshape) = pools(&cases);
        let (result, stats) = search(&pools, &reshape, &cluster, &big_budget());
        prop_assert!(stats.exhausted.is_none());
        compare(&pools, &reshape, &cluster, &result)?;
        // And on the idle cluster.
        let idle = cluster.idle().expect("every node states its total");
        let (result, _) = search(&pools, &reshape, &idle, &big_budget());
        compare(&pools, &reshape, &idle, &result)?;
    }

    #[test]
    fn a_layout_that_passes_gets_no_suggestion_and_is_its_own_best(
        nodes in prop::collection::vec(node_strategy(), 1..=5),
        cases in prop::collection::vec(pool_strategy(), 1..=3),
    ) {
        let cluster = cluster(&nodes);
        let (pools, reshape) = pools(&cases);
        let mapping: Vec<(RoleName, &str)> = Vec::new();
        let manager = ResourcePoolManager::<RoleName>::new(pools.clone(), mapping).expect("valid");
        let report = check(&manager, &cluster, &NoSpans, &CheckOptions::default());
        if report.passes() {
            prop_assert!(!wanted(&report, &NoSpans));
            // Searched anyway, the layout as written comes first in the order.
            let (result, _) = search(&pools, &reshape, &cluster, &big_budget());
            match result {
                SearchResult::Found(s) => {
                    prop_assert_eq!(&s.pools, &pools);
                    prop_assert_eq!(s.changed().count(), 0);
                }
                other => prop_assert!(false, "{:?}", other),
            }
        } else if wanted(&report, &NoSpans) {
            // The whole suggestion: now, and idle on a busy cluster.
            let all = suggest(&report, &cluster, &NoSpans, &big_budget());
            prop_assert_eq!(all.answers[0].when, When::Now);
            for (when, s) in all.found() {
                let on = if when == When::Idle { cluster.idle().expect("totals") } else { cluster.clone() };
                verify(s, &on)?;
            }
        }
    }
}
