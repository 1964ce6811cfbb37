//! Unit tests of the suggestion search on the cases of issue 21.

use super::*;
use crate::model::PoolSpec;
use crate::test_support::node;

fn pools(specs: &[(&str, Vec<u32>)]) -> Vec<ResourcePool> {
    specs
        .iter()
        .map(|(n, s)| ResourcePool::new(*n, PoolSpec::with_slots(s.clone())))
        .collect()
}

fn found(result: &SearchResult) -> Vec<Vec<u32>> {
    match result {
        SearchResult::Found(s) => s
            .pools
            .iter()
            .map(|p| p.spec.process_on_nodes.clone())
            .collect(),
        other => panic!("expected a layout, got {other:?}"),
    }
}

#[test]
fn a_list_loses_slots_from_the_end() {
    let cluster = Cluster::new(vec![node("a", 8, 32), node("b", 8, 32)]);
    let p = pools(&[("global_pool", vec![8, 8, 8])]);
    let (result, _) = search(&p, &[Reshape::Trim], &cluster, &SuggestOptions::default());
    assert_eq!(found(&result), [vec![8, 8]]);
}

#[test]
fn a_split_pool_takes_another_whole_split_of_the_node() {
    // 8 nodes of 4 free GPUs; 8 × 3 asked: 4 × 6 places the same 24 GPUs.
    let cluster = Cluster::new((0..8).map(|i| node(&format!("n{i}"), 4, 16)).collect());
    let p = pools(&[("global_pool", vec![8, 8, 8])]);
    let (result, _) = search(&p, &[Reshape::Split], &cluster, &SuggestOptions::default());
    assert_eq!(found(&result), [vec![4; 6]]);
    let (trimmed, _) = search(&p, &[Reshape::Trim], &cluster, &SuggestOptions::default());
    assert_eq!(trimmed, SearchResult::NoneFits);
}

#[test]
fn a_spread_asks_for_a_node_slot_per_node_at_most() {
    // verl's `trainer.nnodes=2 trainer.n_gpus_per_node=8` (3 CPUs per bundle) on one node of
    // 8 GPUs and 16 CPUs: a split takes 5 node-slots of 1 GPU on that one node; verl's
    // `nnodes` counts machines, so a spread keeps to one node-slot: 4 GPUs.
    let cluster = Cluster::new(vec![node("a", 8, 16)]);
    let p = vec![ResourcePool::new(
        "global_pool",
        PoolSpec {
            max_colocate_count: 3,
            ..PoolSpec::with_slots(vec![8, 8])
        },
    )];
    let (split, _) = search(&p, &[Reshape::Split], &cluster, &SuggestOptions::default());
    assert_eq!(found(&split), [vec![1; 5]]);
    let (spread, _) = search(&p, &[Reshape::Spread], &cluster, &SuggestOptions::default());
    assert_eq!(found(&spread), [vec![4]]);
    // `nnodes=6, n_gpus_per_node=1` there: one node-slot, of a size that does not divide 1
    // (a power of two: 4, not the 5 the CPUs would hold).
    let six = vec![ResourcePool::new(
        "global_pool",
        PoolSpec {
            max_colocate_count: 3,
            ..PoolSpec::with_slots(vec![1; 6])
        },
    )];
    let (spread, _) = search(
        &six,
        &[Reshape::Spread],
        &cluster,
        &SuggestOptions::default(),
    );
    assert_eq!(found(&spread), [vec![4]]);
    // Nodes that cannot hold one node-slot of a size do not count for it.
    let cluster = Cluster::new(vec![node("a", 8, 64), node("b", 4, 64), node("c", 4, 64)]);
    let p = pools(&[("global_pool", vec![8, 8, 8])]);
    let (spread, _) = search(&p, &[Reshape::Spread], &cluster, &SuggestOptions::default());
    assert_eq!(found(&spread), [vec![4, 4, 4]]);
}

#[test]
fn a_spread_keeps_the_rollout_replicas_whole() {
    // verl's `n_gpus_per_node=8 nnodes=2` with a rollout tensor parallel size of 8, on one
    // node of 8 GPUs and 16 CPUs (5 GPUs at 3 CPUs each): 4 GPUs fit, but verl refuses a
    // pool that 8 does not divide, and two node-slots of 4 need two nodes. Nothing fits.
    let cluster = Cluster::new(vec![node("a", 8, 16)]);
    let verl_pool = |slots: Vec<u32>| {
        vec![ResourcePool::new(
            "global_pool",
            PoolSpec {
                max_colocate_count: 3,
                ..PoolSpec::with_slots(slots)
            },
        )]
    };
    let in_multiples = |p: &[ResourcePool], multiples: &[u64]| {
        let options = SuggestOptions::default();
        let mut budget = Budget::new(options.max_steps, options.budget);
        search::search_within(
            p,
            &[Reshape::Spread],
            multiples,
            &cluster,
            &options,
            &mut budget,
        )
        .0
    };
    let p = verl_pool(vec![8, 8]);
    assert_eq!(in_multiples(&p, &[8]), SearchResult::NoneFits);
    // verl's default of 2 keeps the 4.
    assert_eq!(found(&in_multiples(&p, &[2])), [vec![4]]);
    // A size of 3: a node-slot of 3, though no power of two nor divisor of 8.
    let p = verl_pool(vec![8]);
    assert_eq!(found(&in_multiples(&p, &[3])), [vec![3]]);
    // Several node-slots: their total is the multiple, not each slot (two of 3 for 6).
    let cluster = Cluster::new(vec![node("a", 4, 64), node("b", 4, 64)]);
    let p = pools(&[("global_pool", vec![8, 8])]);
    let options = SuggestOptions::default();
    let mut budget = Budget::new(options.max_steps, options.budget);
    let (result, _) = search::search_within(
        &p,
        &[Reshape::Spread],
        &[6],
        &cluster,
        &options,
        &mut budget,
    );
    assert_eq!(found(&result), [vec![3, 3]]);
}

#[test]
fn a_layout_ray_leaves_undecided_is_counted_not_taken() {
    // {GPU 2, CPU 6} then {GPU 8, CPU 8} on node-a {8, 12} and node-b {4, 24}: the first
    // group scores the same on both nodes, and on node-a the second pends. With one
    // branch, Ray's verdict on the layout as written is undecided: it is not suggested,
    // and the layout found after it says that layouts ranked before it were undecided.
    let bundle = |count: u32, slots: Vec<u32>| PoolSpec {
        max_colocate_count: count,
        ..PoolSpec::with_slots(slots)
    };
    let p = vec![
        ResourcePool::new("reward_pool", bundle(3, vec![2])),
        ResourcePool::new("global_pool", bundle(1, vec![8])),
    ];
    let reshape = [Reshape::Trim, Reshape::Split];
    let cluster = Cluster::new(vec![node("node-a", 8, 12), node("node-b", 4, 24)]);
    let one_branch = SuggestOptions {
        max_ray_branches: 1,
        ..SuggestOptions::default()
    };
    let slots = crate::model::node_slots(p.iter().map(|x| &x.spec));
    let ray_one = crate::ray_sim::RaySimOptions {
        max_branches: 1,
        ..crate::ray_sim::RaySimOptions::default()
    };
    assert_eq!(
        crate::ray_sim::simulate(&slots, &cluster, &ray_one).verdict,
        crate::ray_sim::RayVerdict::Undecided
    );
    let (result, _) = search(&p, &reshape, &cluster, &one_branch);
    let SearchResult::Found(s) = result else {
        panic!("{result:?}")
    };
    assert_ne!(s.pools, p);
    assert!(s.undecided >= 1);
    let again = crate::ray_sim::simulate(
        &s.slots,
        &cluster,
        &crate::ray_sim::RaySimOptions::default(),
    );
    assert_eq!(again.verdict, crate::ray_sim::RayVerdict::Places);
    // With every branch followed, nothing is left undecided.
    let (all, _) = search(&p, &reshape, &cluster, &SuggestOptions::default());
    let SearchResult::Found(s) = all else {
        panic!("{all:?}")
    };
    assert_eq!(s.undecided, 0);
}

#[test]
fn holders_are_named_from_the_inventory() {
    use crate::inventory::{GroupRef, InventoryNote, NodeRef};
    let mut s = Suggestions {
        asked: 8,
        answers: Vec::new(),
        holders: vec![Holder {
            node: NodeName {
                id: "abc".into(),
                address: Some("10.0.0.1".into()),
            },
            held: crate::test_support::res(4, 12),
            by: Vec::new(),
        }],
        style: OverrideStyle::None,
        unit: Unit::Gpu,
    };
    let note = InventoryNote::HeldByPlacementGroup {
        group: GroupRef {
            id: "pg1".into(),
            name: "train".into(),
        },
        job: "01".into(),
        node: NodeRef {
            id: "abc".into(),
            address: None,
        },
        resources: crate::test_support::res(4, 12),
    };
    s.name_holders(&[note.clone(), note]);
    assert_eq!(
        s.holders[0].by,
        [GroupRef {
            id: "pg1".into(),
            name: "train".into(),
        }]
    );
    // In JSON, typed: the group's id and name, no words.
    assert_eq!(
        serde_json::to_value(&s.holders[0].by).ok(),
        Some(serde_json::json!([{"id": "pg1", "name": "train"}]))
    );
    assert_eq!(
        s.holders[0].to_string(),
        "abc: CPU 12, GPU 4 (by placement group `train` (pg1))"
    );
    // A Ray node id is named by its address in words, and stays the id in JSON.
    let ray_id = "5f0a544bbf97a58613e20dcd890be334820af9041f50d366b23d1f40";
    s.holders[0].node.id = ray_id.into();
    assert_eq!(
        s.holders[0].to_string(),
        "10.0.0.1 (5f0a544b…): CPU 12, GPU 4 (by placement group `train` (pg1))"
    );
    let json = serde_json::to_value(&s.holders[0]).unwrap();
    assert_eq!(json["node"], ray_id);
}

/// The help of the one diagnostic of a search of `p` on `cluster`, for a layout built in
/// code (no spans, no overrides to paste).
fn help_in_code(p: &[ResourcePool], cluster: &Cluster) -> String {
    use miette::Diagnostic;
    let (result, stats) = search(p, &[Reshape::Trim], cluster, &SuggestOptions::default());
    let terms = crate::check::NoSpans;
    let suggestions = Suggestions {
        asked: p.iter().map(ResourcePool::world_size).sum(),
        answers: vec![Answer {
            when: When::Now,
            result,
            stats,
        }],
        holders: Vec::new(),
        style: terms.style(),
        unit: Unit::of(p),
    };
    match suggestions.diagnostics(&terms).as_slice() {
        [d] => d.help().map(|h| h.to_string()).unwrap_or_default(),
        other => panic!("expected one diagnostic, got {other:?}"),
    }
}

#[test]
fn a_layout_built_in_code_says_to_change_it_though_it_has_no_overrides() {
    // A manager built in code (the testing helpers, `manager.check`) has no overrides: a
    // layout that changes must still say so, and only one that does not may say
    // "nothing to change".
    let p = pools(&[("global_pool", vec![8, 8])]);
    let one_node = Cluster::new(vec![node("a", 8, 32)]);
    assert_eq!(
        help_in_code(&p, &one_node),
        "set the pools' process_on_nodes to these lists"
    );
    let two_nodes = Cluster::new(vec![node("a", 8, 32), node("b", 8, 32)]);
    assert_eq!(help_in_code(&p, &two_nodes), "nothing to change");
}

#[test]
fn suggestions_agree_with_their_counts() {
    use super::diagnostic::{Advice, Place};
    let place = Place {
        when: When::Now,
        busy: false,
    };
    let undecided = SuggestDiagnostic::Undecided { place, tried: 1 };
    assert!(
        undecided.to_string().ends_with("after 1 layout"),
        "{undecided}"
    );
    let holder = |id: String| Holder {
        node: NodeName { id, address: None },
        held: crate::test_support::res(4, 12),
        by: Vec::new(),
    };
    let holders = Holders((0..7).map(|i| holder(format!("n{i}"))).collect());
    assert!(
        holders.to_string().ends_with("; and 1 more node"),
        "{holders}"
    );
    let advice = Advice {
        style: OverrideStyle::None,
        overrides: Vec::new(),
        changes: false,
        holders: Holders(Vec::new()),
        undecided: 1,
        python_spec: None,
    };
    assert_eq!(
        advice.to_string(),
        "1 larger layout was left undecided by Ray's tie-break bound (raise --max-ray-branches)"
    );
    // One GPU asked in all: `(1 of 1 GPU)`.
    let p = pools(&[("global_pool", vec![1])]);
    let cluster = Cluster::new(vec![node("a", 8, 32)]);
    let (result, stats) = search(&p, &[Reshape::Trim], &cluster, &SuggestOptions::default());
    let suggestions = Suggestions {
        asked: 1,
        answers: vec![Answer {
            when: When::Now,
            result,
            stats,
        }],
        holders: Vec::new(),
        style: OverrideStyle::None,
        unit: Unit::Gpu,
    };
    let text = suggestions.diagnostics(&crate::check::NoSpans)[0].to_string();
    assert!(text.ends_with("(1 of 1 GPU)"), "{text}");
}
