//! The strategies make the clusters they say, and shrink a failure to a minimal cluster.

use proptest::test_runner::{Config, TestError, TestRunner};

use super::*;

fn runner() -> TestRunner {
    TestRunner::new(Config {
        failure_persistence: None,
        ..Config::default()
    })
}

/// The minimal cluster proptest ends at for a property that fails on `fails`.
fn shrunk(strategy: &ClusterStrategy, fails: impl Fn(&Cluster) -> bool) -> TestCluster {
    let result = runner().run(strategy, |cluster| {
        proptest::prop_assert!(!fails(&cluster));
        Ok(())
    });
    match result {
        Err(TestError::Fail(_, cluster)) => cluster,
        other => panic!("the property should fail: {other:?}"),
    }
}

fn gpus(node: &Node) -> f64 {
    node.available.get("GPU").as_f64()
}

#[test]
fn homogeneous_clusters_are_what_they_say() {
    let strategy = homogeneous(2..=6, NodeShape::gpu(4..=8, 32..=64)).with_dead_nodes(0..=1);
    runner()
        .run(&strategy, |cluster| {
            proptest::prop_assert!((2..=6).contains(&cluster.nodes.len()));
            proptest::prop_assert!(cluster.nodes.len() - cluster.alive().count() <= 1);
            let first = &cluster.nodes[0].available;
            for node in &cluster.nodes {
                // One shape for every node, nothing busy.
                proptest::prop_assert_eq!(&node.available, first);
                proptest::prop_assert_eq!(node.total.as_ref(), Some(first));
                proptest::prop_assert!((4.0..=8.0).contains(&gpus(node)));
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn a_failure_shrinks_to_the_fewest_and_smallest_nodes() {
    // Fails once there are at least 12 GPUs alive: the minimal clusters are two nodes of
    // six, three of four, ... Whatever cluster fails first, proptest must end at one from
    // which no node, no GPU of the nodes, no dead node and nothing busy can be taken.
    let strategy = homogeneous(1..=8, NodeShape::gpu(4..=8, 16..=64))
        .with_dead_nodes(0..=2)
        .with_busy(0.5);
    let total = |cluster: &Cluster| cluster.alive().map(gpus).sum::<f64>();
    for _ in 0..20 {
        let minimal = shrunk(&strategy, |cluster| total(cluster) >= 12.0);
        assert!(minimal.nodes.iter().all(|n| n.alive), "{minimal:?}");
        assert!(
            minimal
                .nodes
                .iter()
                .all(|n| n.total.as_ref() == Some(&n.available)),
            "{minimal:?}"
        );
        assert!(
            minimal
                .nodes
                .iter()
                .all(|n| n.available.get("CPU").as_f64() == 16.0),
            "{minimal:?}"
        );
        let n = minimal.nodes.len() as f64;
        let per_node = gpus(&minimal.nodes[0]);
        assert!(total(&minimal) >= 12.0);
        assert!((n - 1.0) * per_node < 12.0, "{minimal:?}");
        assert!(
            per_node == 4.0 || n * (per_node - 1.0) < 12.0,
            "{minimal:?}"
        );
    }
}

#[test]
fn a_failure_shrinks_node_by_node_in_mixed_clusters() {
    // Fails once 20 GPUs are alive on nodes of 4 or 8: the result must have no node that
    // could go or become a small one.
    let strategy = heterogeneous(
        1..=12,
        [(1, NodeShape::gpu(8, 96)), (1, NodeShape::gpu(4, 32))],
    )
    .with_dead_nodes(0..=3);
    let total = |cluster: &Cluster| cluster.alive().map(gpus).sum::<f64>();
    for _ in 0..20 {
        let minimal = shrunk(&strategy, |cluster| total(cluster) >= 20.0);
        assert!(minimal.nodes.iter().all(|n| n.alive), "{minimal:?}");
        let sum = total(&minimal);
        for node in &minimal.nodes {
            // Without it, or with it small, the cluster has too few.
            assert!(sum - gpus(node) < 20.0, "{minimal:?}");
            assert!(gpus(node) == 4.0 || sum - 4.0 < 20.0, "{minimal:?}");
        }
    }
}

#[test]
fn dead_nodes_shrink_away_unless_they_are_the_failure() {
    // Fails when a node is dead: the minimal cluster is one node, dead.
    let strategy = homogeneous(1..=6, NodeShape::npu(8, 192)).with_dead_nodes(0..=3);
    let minimal = shrunk(&strategy, |cluster| {
        cluster.alive().count() < cluster.nodes.len()
    });
    assert_eq!(minimal.nodes.len(), 1, "{minimal:?}");
    assert!(!minimal.nodes[0].alive);
    assert_eq!(minimal.nodes[0].available.get("NPU").as_f64(), 8.0);
    assert_eq!(minimal.nodes[0].available.get("GPU"), Amount::ZERO);
}

#[test]
fn heterogeneous_clusters_shrink_toward_the_smallest_shape() {
    let big = NodeShape::gpu(8, 96).with_resource("accelerator_type:H100", 1);
    let small = NodeShape::gpu(4, 32);
    // Listed big first: the strategy sorts them so that shrinking moves toward small.
    let strategy = heterogeneous(1..=10, [(3, big), (1, small)]);
    // Fails on any cluster of two nodes or more.
    let minimal = shrunk(&strategy, |cluster| cluster.nodes.len() >= 2);
    assert_eq!(minimal.nodes.len(), 2, "{minimal:?}");
    for node in &minimal.nodes {
        assert_eq!(gpus(node), 4.0, "{minimal:?}");
        assert_eq!(node.available.get("accelerator_type:H100"), Amount::ZERO);
    }
    // Both shapes are drawn, with their own resources.
    let seen_big = std::cell::Cell::new(false);
    runner()
        .run(&strategy, |cluster| {
            for node in &cluster.nodes {
                let h100 = node.available.get("accelerator_type:H100");
                proptest::prop_assert!(gpus(node) == 4.0 || !h100.is_zero());
                seen_big.set(seen_big.get() | !h100.is_zero());
            }
            Ok(())
        })
        .unwrap();
    assert!(seen_big.get());
}

#[test]
fn busy_nodes_hold_up_to_their_share() {
    let strategy = homogeneous(4, NodeShape::gpu(8, 100)).with_busy(0.25);
    let seen_busy = std::cell::Cell::new(false);
    runner()
        .run(&strategy, |cluster| {
            for node in &cluster.nodes {
                let total = node.total.as_ref().expect("a total");
                proptest::prop_assert_eq!(total.get("GPU").as_f64(), 8.0);
                proptest::prop_assert!(gpus(node) >= 6.0);
                proptest::prop_assert!(node.available.get("CPU").as_f64() >= 75.0);
                seen_busy.set(seen_busy.get() | (gpus(node) < 8.0));
            }
            Ok(())
        })
        .unwrap();
    assert!(seen_busy.get());
}

#[test]
fn a_cluster_prints_as_its_cluster_file() {
    let strategy = homogeneous(2, NodeShape::gpu(8, 96)).with_dead_nodes(1);
    let cluster = strategy.new_tree(&mut runner()).unwrap().current();
    let shown = format!("{cluster:?}");
    assert!(
        shown.starts_with("2 nodes, 1 alive; as a cluster file:\n[[nodes]]\n"),
        "{shown}"
    );
    let text = shown.split_once('\n').unwrap().1;
    let source = crate::source::SourceFile::new("c.toml", text);
    let back = crate::inventory::cluster_file::load_cluster(&source, &Default::default());
    assert_eq!(back.cluster.as_ref(), Some(&cluster.0), "{shown}");
}

#[test]
#[should_panic(
    expected = "`with_dead_nodes(3..=5)` asks for more dead nodes than the clusters of 1..=2 nodes have"
)]
fn more_dead_nodes_than_nodes_is_refused() {
    let _ = homogeneous(1..=2, NodeShape::gpu(8, 96)).with_dead_nodes(3..=5);
}

#[test]
#[should_panic(
    expected = "`with_dead_nodes(2..=2)` asks for more dead nodes than the clusters of 1..=8 nodes have"
)]
fn more_dead_nodes_than_the_smallest_cluster_has_is_refused() {
    let _ = heterogeneous(1..=8, [(1, NodeShape::gpu(8, 96))]).with_dead_nodes(2);
}

#[test]
fn as_many_dead_nodes_as_nodes_is_allowed() {
    let _ = homogeneous(1..=2, NodeShape::gpu(8, 96)).with_dead_nodes(0..=2);
}
