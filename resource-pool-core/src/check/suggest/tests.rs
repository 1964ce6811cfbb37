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
        let layouts = search::Layouts {
            pools: p,
            reshape: &[Reshape::Spread],
            multiples,
            admits: &|_, _| true,
        };
        search::search_within(&layouts, &cluster, &options, &mut budget).0
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
    let layouts = search::Layouts {
        pools: &p,
        reshape: &[Reshape::Spread],
        multiples: &[6],
        admits: &|_, _| true,
    };
    let (result, _) = search::search_within(&layouts, &cluster, &options, &mut budget);
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
    use crate::model::GroupRef;
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
        idle: None,
        style: OverrideStyle::None,
        unit: Unit::Gpu,
        multiples: Vec::new(),
    };
    let group = GroupRef {
        id: "pg1".into(),
        name: "train".into(),
    };
    s.name_holders([("abc", &group), ("abc", &group)]);
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
        idle: None,
        style: terms.style(),
        unit: Unit::of(p),
        multiples: Vec::new(),
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
        whole_layout: None,
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
        idle: None,
        style: OverrideStyle::None,
        unit: Unit::Gpu,
        multiples: Vec::new(),
    };
    let text = suggestions.diagnostics(&crate::check::NoSpans)[0].to_string();
    assert!(text.ends_with("(1 of 1 GPU)"), "{text}");
}

/// A layout built in code whose first pool keeps a multiple, named or not.
struct Multiple(u64, Option<MultipleSource>);

impl crate::check::SlotSpans for Multiple {
    fn pool_span(&self, _: PoolId) -> Option<crate::source::Span> {
        None
    }
    fn slot_span(&self, _: PoolId, _: usize) -> Option<crate::source::Span> {
        None
    }
}

impl LayoutTerms for Multiple {
    fn reshape(&self, _: PoolId) -> Reshape {
        Reshape::Spread
    }
    fn reorderable(&self) -> bool {
        false
    }
    fn style(&self) -> OverrideStyle {
        OverrideStyle::None
    }
    fn overrides(&self, _: PoolId, _: &str, _: &PoolChoice, _: &[u32]) -> Vec<String> {
        Vec::new()
    }
    fn multiple(&self, pool: PoolId) -> u64 {
        if pool == 0 { self.0 } else { 1 }
    }
    fn multiple_source(&self, pool: PoolId) -> Option<MultipleSource> {
        self.1.clone().filter(|_| pool == 0)
    }
}

#[test]
fn none_fits_names_a_multiple_every_layout_keeps() {
    use miette::Diagnostic;
    let p = pools(&[("global_pool", vec![8, 8]), ("reward_pool", vec![1])]);
    let manager = crate::model::ResourcePoolManager::<crate::model::RoleName>::new(
        p,
        [(
            crate::model::RoleName("actor_rollout".into()),
            "global_pool",
        )],
    )
    .expect("valid");
    let diagnostics = |terms: &Multiple, cluster: &Cluster| {
        let report = manager.check(cluster);
        let suggestions = suggest(&report, cluster, terms, &SuggestOptions::default());
        suggestions.diagnostics(terms)
    };
    // Two nodes of 4 GPUs place `global_pool = [4]` of 8 × 2, but no multiple of 16.
    let cluster = Cluster::new(vec![node("a", 4, 64), node("b", 4, 64)]);
    assert!(matches!(
        diagnostics(&Multiple(1, None), &cluster).as_slice(),
        [SuggestDiagnostic::Layout { .. }]
    ));
    let none_fits = |terms: &Multiple, cluster: &Cluster| {
        let diagnostics = diagnostics(terms, cluster);
        let [d @ SuggestDiagnostic::NoneFits { .. }] = diagnostics.as_slice() else {
            panic!("{diagnostics:?}")
        };
        let data = serde_json::to_value(d).expect("data");
        (d.help().expect("help").to_string(), data)
    };
    // A multiple of 1 (a plain check) where nothing fits: the help and data as they were.
    const AS_BEFORE: &str = "every pool keeps its bundles and at least one node-slot; fix what the errors above say is missing, or add nodes";
    let no_gpu = Cluster::new(vec![node("a", 0, 64)]);
    let (help, data) = none_fits(&Multiple(1, None), &no_gpu);
    assert_eq!(help, AS_BEFORE);
    assert_eq!(
        data,
        serde_json::json!({"when": "now", "busy": false, "idle_too": false})
    );
    // A multiple the layout does not explain: named, with nothing more to lower.
    let (help, data) = none_fits(&Multiple(16, None), &cluster);
    assert_eq!(
        help,
        "every pool keeps its bundles and at least one node-slot, and `global_pool` a multiple of 16 GPUs; fix what the errors above say is missing, or add nodes"
    );
    assert_eq!(
        data["multiples"],
        serde_json::json!([{"pool": "global_pool", "multiple": 16, "factors": []}])
    );
    // Explained: what it is, its factors, and what lowers it.
    let source = MultipleSource {
        what: "the replica size",
        remedy: "lower the parallel sizes",
        factors: vec![
            Factor {
                key: "tp".into(),
                value: 8,
            },
            Factor {
                key: "dp".into(),
                value: 2,
            },
        ],
    };
    let (help, data) = none_fits(&Multiple(16, Some(source)), &cluster);
    assert_eq!(
        help,
        "every pool keeps its bundles and at least one node-slot, and `global_pool` a multiple of 16 GPUs, the replica size (`tp=8` × `dp=2`); lower the parallel sizes, fix what the errors above say is missing, or add nodes"
    );
    assert_eq!(
        data["multiples"],
        serde_json::json!([{"pool": "global_pool", "multiple": 16,
            "factors": [{"key": "tp", "value": 8}, {"key": "dp", "value": 2}]}])
    );
}
