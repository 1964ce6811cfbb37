//! The `testing` helpers as a trainer's tests use them: the check passes or fails with
//! what the CLI prints, inside `proptest!` and in plain tests, and cluster files load.
#![cfg(feature = "testing")]

use proptest::test_runner::{Config, TestError, TestRunner};
use resource_pool::report::CheckRun;
use resource_pool::testing::{
    NodeShape, assert_places, homogeneous, load_cluster, places, test_options,
};
use resource_pool::{PoolSpec, ResourcePools, Role};

#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[role(rename_all = "snake_case")]
enum MyRole {
    ActorRollout,
    Critic,
    RewardModel,
}

#[derive(ResourcePools)]
#[resource_pools(role = MyRole)]
struct Pools {
    #[pool(roles(ActorRollout, Critic), process_on_nodes = [8, 8])]
    global_pool: PoolSpec,
    #[pool(roles(RewardModel), process_on_nodes = [4])]
    reward_pool: PoolSpec,
}

fn examples(path: &str) -> String {
    format!("{}/../examples/{path}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_layout_that_places_passes() {
    let fleet = load_cluster(examples("clusters/three_nodes.toml"));
    let run = places(&Pools::fixed().into_manager(), &fleet).unwrap();
    assert!(run.passes());
    assert_places(&Pools::fixed().into_manager(), &fleet);
}

#[test]
fn a_failure_is_what_the_cli_prints_and_the_cluster() {
    let cluster = load_cluster(examples("clusters/cpu_starved.toml"));
    let manager = Pools::fixed().into_manager();
    let failure = places(&manager, &cluster).unwrap_err();
    // The CLI's own rendering of the same computation, without colour.
    let expected = CheckRun::check_manager(&manager, cluster.clone(), &test_options())
        .human(false)
        .to_string();
    assert_eq!(failure.rendered(), expected);
    let shown = failure.to_string();
    assert!(
        shown.starts_with("the layout does not place on this cluster:\n"),
        "{shown}"
    );
    assert!(shown.contains(&expected), "{shown}");
    // The diagnostics, the plan and the summary line.
    assert!(shown.contains("resource_pool::placement::"), "{shown}");
    assert!(shown.contains("gpu-box"), "{shown}");
    assert!(
        shown.ends_with("\ncheck: not placeable; Ray hangs (3 errors, 0 warnings, 1 advice)\n"),
        "{shown}"
    );
    // A plain test gets it as its panic.
    let panic = std::panic::catch_unwind(|| assert_places(&manager, &cluster)).unwrap_err();
    assert_eq!(panic.downcast_ref::<String>(), Some(&shown));
}

#[test]
fn a_failure_says_to_change_the_layout_it_suggests() {
    // 20 GPUs asked, two alive 8-GPU nodes: the suggestion drops a node-slot of
    // global_pool. A layout built in code has no overrides to paste, and its help must
    // still say that the lists change.
    let node = |id: &str| {
        resource_pool::Node::new(
            id,
            resource_pool::Resources::new()
                .with("GPU", resource_pool::Amount::from_whole(8).unwrap())
                .with("CPU", resource_pool::Amount::from_whole(96).unwrap()),
        )
    };
    let cluster = resource_pool::Cluster::new(vec![node("node-0"), node("node-1")]);
    let shown = places(&Pools::fixed().into_manager(), &cluster)
        .unwrap_err()
        .to_string();
    assert!(
        shown.contains("\nSuggested: global_pool = [8], reward_pool = [4] (12 of 20 GPUs);"),
        "{shown}"
    );
    assert!(
        shown.contains("  help: set the pools' process_on_nodes to these lists\n"),
        "{shown}"
    );
    assert!(!shown.contains("nothing to change"), "{shown}");
}

#[test]
fn inside_proptest_a_failure_shrinks_to_the_smallest_cluster_and_reports_it() {
    let manager = Pools::fixed().into_manager();
    let strategy = homogeneous(1..=6, NodeShape::gpu(4..=8, 32..=96)).with_dead_nodes(0..=1);
    let mut runner = TestRunner::new(Config {
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&strategy, |cluster| {
        places(&manager, &cluster)?;
        Ok(())
    });
    let Err(TestError::Fail(reason, minimal)) = result else {
        panic!("two 8-GPU slots and a 4-GPU slot do not fit one small node: {result:?}");
    };
    // The layout needs 20 GPUs in slots of 8, 8 and 4. The smallest failing cluster has no
    // node the strategy could still take away or shrink: one node, of the fewest GPUs and
    // CPUs, alive.
    assert_eq!(minimal.nodes.len(), 1, "{minimal:?}");
    assert!(minimal.nodes[0].alive);
    assert_eq!(minimal.nodes[0].available.get("GPU").as_f64(), 4.0);
    // The report is the shrunk cluster's: its plan shows its one node.
    let message = reason.message();
    assert!(message.contains("check: not placeable"), "{message}");
    assert!(message.contains("node-0  GPU"), "{message}");
    assert!(!message.contains("node-1"), "{message}");
    // proptest shows the cluster as a cluster file.
    let shown = format!("{minimal:?}");
    assert!(
        shown.contains("available = { CPU = 32, GPU = 4 }"),
        "{shown}"
    );
}

#[test]
#[should_panic(expected = "cannot use the cluster file")]
fn a_missing_cluster_file_panics_with_the_clis_message() {
    load_cluster(examples("clusters/no_such_file.toml"));
}

#[test]
fn a_bad_cluster_file_panics_with_its_diagnostics() {
    let dir = std::env::temp_dir().join(format!("rp-testing-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("fleet.toml");
    std::fs::write(&path, "[[nodes]]\nid = \"a\"\navailable = { GPU = -1 }\n").unwrap();
    let panic = std::panic::catch_unwind(|| load_cluster(&path)).unwrap_err();
    let message = panic.downcast_ref::<String>().unwrap();
    assert!(message.contains("fleet.toml"), "{message}");
    assert!(message.contains("available = { GPU = -1 }"), "{message}");
    assert!(message.contains("resource_pool::"), "{message}");
    std::fs::remove_dir_all(&dir).unwrap();
}
