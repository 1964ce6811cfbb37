//! The check's remedies for a layout verl builds are worded in verl's settings, never in
//! a config file's TOML keys; its JSON data is the same whatever the words.

use miette::Diagnostic;
use resource_pool_core::check::{CheckOptions, SlotSpans, check, check_with_cluster_findings};
use resource_pool_core::model::{Amount, Cluster, Node, ResourcePoolManager, Resources, RoleName};

use crate::load_verl;

/// An alive node with this many GPUs and CPUs.
fn node(id: &str, gpu: u64, cpu: u64) -> Node {
    let whole = |n: u64| Amount::from_whole(n).expect("whole");
    Node::new(
        id,
        Resources::new()
            .with("GPU", whole(gpu))
            .with("CPU", whole(cpu)),
    )
}

/// examples/clusters/big_and_small.toml: an 8-GPU node and a 4-GPU node.
fn big_and_small() -> Cluster {
    Cluster::new(vec![node("big", 8, 32), node("small", 4, 16)])
}

/// The check's one diagnostic's help.
fn hang_help(manager: &ResourcePoolManager<RoleName>, spans: &dyn SlotSpans) -> String {
    let report = check(manager, &big_and_small(), spans, &CheckOptions::default());
    let [hang] = &report.diagnostics[..] else {
        panic!("one diagnostic: {:?}", report.diagnostics);
    };
    assert_eq!(
        hang.code().map(|c| c.to_string()).as_deref(),
        Some("resource_pool::ray::hangs")
    );
    hang.help().map(|h| h.to_string()).unwrap_or_default()
}

/// verl's settings of `overrides` and the manager of the layout they build.
fn verl_manager(overrides: &[String]) -> (crate::LoadedVerl, ResourcePoolManager<RoleName>) {
    let verl = load_verl(None, overrides, 1_000_000);
    let layout = verl.layout.as_ref().expect("verl builds a layout");
    let mapping: Vec<(RoleName, &str)> = layout
        .mapping
        .iter()
        .map(|(role, pool)| (RoleName((*role).to_owned()), *pool))
        .collect();
    let manager = ResourcePoolManager::new(layout.pools.clone(), mapping).expect("valid");
    (verl, manager)
}

#[test]
fn verl_is_not_told_to_reorder_what_it_creates_in_a_fixed_order() {
    // verl creates global_pool first: its 4 GPUs take the big node, the reward pool's 8
    // pends. The simulation still finds the order that works (it does not know who
    // creates the pools); the words say verl cannot use it.
    let overrides: Vec<String> = [
        "trainer.n_gpus_per_node=4",
        "reward_model.enable=True",
        "reward_model.enable_resource_pool=True",
        "reward_model.n_gpus_per_node=8",
        "reward_model.nnodes=1",
    ]
    .map(str::to_owned)
    .to_vec();
    let (verl, manager) = verl_manager(&overrides);
    let help = hang_help(&manager, &verl.settings);
    assert!(
        help.contains("in this order: reward_pool, global_pool"),
        "{help}"
    );
    assert!(
        help.ends_with("(but verl creates global_pool first, so the order cannot be chosen: resize the pools instead)"),
        "{help}"
    );
}

/// An 8-NPU, 96-CPU node.
fn npu_node() -> Node {
    let whole = |n: u64| Amount::from_units(n * Amount::SCALE);
    Node::new(
        "a",
        Resources::new()
            .with("NPU", whole(8))
            .with("CPU", whole(96)),
    )
}

/// The helps of the placement and cluster diagnostics of a verl layout: placed on
/// `cluster`, with the verl settings of `overrides` as the spans (origin verl) or as a
/// config file of the same pools.
fn verl_helps(overrides: &[&str], cluster: &Cluster, as_verl: bool) -> Vec<String> {
    let overrides: Vec<String> = overrides.iter().map(|&o| o.to_owned()).collect();
    let (verl, manager) = verl_manager(&overrides);
    let spans: &dyn SlotSpans = if as_verl { &verl.settings } else { &AFile };
    let (report, found) =
        check_with_cluster_findings(&manager, cluster, spans, &CheckOptions::default());
    let helps = |d: &dyn Diagnostic| d.help().map(|h| h.to_string()).unwrap_or_default();
    found
        .iter()
        .map(|d| helps(d))
        .chain(report.diagnostics.iter().map(|d| helps(d)))
        .collect()
}

/// A config file without spans: the default origin.
struct AFile;

impl SlotSpans for AFile {
    fn pool_span(
        &self,
        _: resource_pool_core::model::PoolId,
    ) -> Option<resource_pool_core::source::Span> {
        None
    }
    fn slot_span(
        &self,
        _: resource_pool_core::model::PoolId,
        _: usize,
    ) -> Option<resource_pool_core::source::Span> {
        None
    }
}

/// A verl layout's remedies are verl's settings, never the TOML's keys; a config file's
/// keep the TOML's.
#[test]
fn verl_layouts_are_told_verls_settings() {
    let toml_keys = ["max_colocate_count", "accelerator = ", "process_on_nodes"];
    let cases: [(&[&str], Cluster, &str); 3] = [
        // 24 CPUs for one 8-GPU slot on a 16-CPU node.
        (
            &["trainer.nnodes=1"],
            Cluster::new(vec![node("a", 8, 16)]),
            "24 CPUs needed (verl takes 3 per GPU): lower `trainer.n_gpus_per_node`",
        ),
        // A 16-GPU slot on 8-GPU nodes.
        (
            &["trainer.n_gpus_per_node=16"],
            Cluster::new(vec![node("a", 8, 96)]),
            "no node has 16 GPUs free: lower `trainer.n_gpus_per_node`",
        ),
        // GPUs asked of NPU nodes.
        (
            &["trainer.device=cuda"],
            Cluster::new(vec![npu_node()]),
            "`trainer.device=npu`",
        ),
    ];
    for (overrides, cluster, wanted) in cases {
        let verl = verl_helps(overrides, &cluster, true);
        assert!(
            verl.iter().any(|h| h.contains(wanted)),
            "{overrides:?}: {verl:#?}"
        );
        for key in toml_keys {
            assert!(
                !verl.iter().any(|h| h.contains(key)),
                "{overrides:?} {key}: {verl:#?}"
            );
        }
        let file = verl_helps(overrides, &cluster, false);
        assert!(
            !file.iter().any(|h| h.contains("trainer.")),
            "{overrides:?}: {file:#?}"
        );
        assert!(
            file.iter().any(|h| toml_keys.iter().any(|k| h.contains(k))),
            "{overrides:?}: {file:#?}"
        );
    }
}

/// On nodes that have no GPU at all, smaller node-slots would not fit either: the slot's
/// advice says how Ray declares GPUs, not to lower `n_gpus_per_node`.
#[test]
fn nodes_without_the_accelerator_are_not_told_to_take_smaller_slots() {
    let cluster = Cluster::new(vec![node("a", 0, 96), node("b", 0, 96)]);
    let helps = verl_helps(&["trainer.nnodes=1"], &cluster, true);
    assert!(
        helps
            .iter()
            .any(|h| h.contains("no alive node has `GPU`") && h.contains("--num-gpus")),
        "{helps:#?}"
    );
    assert!(
        !helps.iter().any(|h| h.contains("to what a node has")),
        "{helps:#?}"
    );
}

/// Too few nodes for a verl layout: the way to ask for fewer is `trainer.nnodes`.
#[test]
fn too_few_nodes_for_verl_names_trainer_nnodes() {
    let cluster = Cluster::new(vec![node("a", 8, 96), node("b", 8, 96)]);
    let verl = verl_helps(&["trainer.nnodes=3"], &cluster, true);
    assert!(
        verl.iter()
            .any(|h| h.ends_with("or lower `trainer.nnodes` (or a pool's own `nnodes`)")),
        "{verl:#?}"
    );
    let file = verl_helps(&["trainer.nnodes=3"], &cluster, false);
    assert!(
        file.iter()
            .any(|h| h.ends_with("or ask for fewer node-slots")),
        "{file:#?}"
    );
}
