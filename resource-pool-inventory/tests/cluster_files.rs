//! Cluster files, TOML and JSON: every problem with its span, and the printed form reads
//! back.

#[macro_use]
mod common;

use proptest::prelude::*;
use resource_pool_core::source::SourceFile;
use resource_pool_core::{Amount, Cluster, Node, Resources};
use resource_pool_inventory::cluster_file::{
    ClusterDiagnostic, ClusterLimits, cluster_to_json, cluster_to_toml, load_cluster,
};

fn load(text: &str) -> Vec<ClusterDiagnostic> {
    load_cluster(
        &SourceFile::new("cluster.toml", text),
        &ClusterLimits::default(),
    )
    .diagnostics
}

fn report(text: &str) -> String {
    common::report("cluster.toml", text, &load(text))
}

fn json_report(text: &str) -> String {
    let loaded = load_cluster(
        &SourceFile::new("cluster.json", text),
        &ClusterLimits::default(),
    );
    common::report("cluster.json", text, &loaded.diagnostics)
}

/// A snapshot test of `json_report($text)`.
macro_rules! json_snapshot {
    ($name:ident, $text:expr) => {
        #[test]
        fn $name() {
            insta::assert_snapshot!(json_report($text));
        }
    };
}

snapshot!(syntax, "[[nodes]\nid = \"a\"\n");
snapshot!(no_nodes, "# empty\n");
snapshot!(
    unknown_key,
    "[[nodes]]\nid = \"a\"\navailable = { GPU = 8 }\nalive = true\nlabel = {}\n"
);
snapshot!(
    bad_amounts,
    "[[nodes]]\nid = \"a\"\navailable = { GPU = -8, CPU = nan, NPU = inf, x = 0.00001, y = \"8\" }\n"
);
snapshot!(
    duplicate_node,
    "[[nodes]]\nid = \"a\"\navailable = { GPU = 8 }\n\n[[nodes]]\nid = \"a\"\navailable = { GPU = 4 }\n"
);
snapshot!(
    empty_node_id,
    "[[nodes]]\nid = \"\"\navailable = { GPU = 8 }\n\n[[nodes]]\nid = \"b\"\navailable = { GPU = 8 }\n\n[[nodes]]\nid = \"\"\navailable = { GPU = 4 }\n"
);
snapshot!(
    missing_keys,
    "[[nodes]]\naddress = \"10.0.0.1\"\n\n[[nodes]]\nid = \"b\"\n"
);
snapshot!(
    available_over_total,
    "[[nodes]]\nid = \"a\"\navailable = { GPU = 8 }\ntotal = { GPU = 4 }\n"
);

json_snapshot!(
    json_syntax,
    "{\"nodes\": [\n  {\"id\": \"a\", \"available\": {\"GPU\": 8}}\n  {\"id\": \"b\"}\n]}\n"
);
json_snapshot!(
    json_duplicate_key,
    "{\"nodes\": [{\"id\": \"a\", \"id\": \"b\"}]}"
);
json_snapshot!(json_not_an_object, "[{\"id\": \"a\"}]");
json_snapshot!(
    json_empty_node_id,
    "{\"nodes\": [\n  {\"id\": \"\", \"available\": {\"GPU\": 8}},\n  {\"id\": \"b\", \"available\": {\"GPU\": 8}}\n]}\n"
);
json_snapshot!(
    json_problems,
    "{\"nodes\": [\n  {\"id\": \"a\", \"available\": {\"GPU\": -8, \"CPU\": \"96\", \"x\": 1e-5}, \"label\": {}},\n  {\"address\": \"10.0.0.1\", \"alive\": null},\n  {\"id\": \"c\", \"available\": {\"GPU\": 8}, \"total\": {\"GPU\": 4}},\n  {\"id\": \"c\", \"available\": {}},\n  7\n], \"nods\": []}\n"
);

#[test]
fn the_node_limit_is_checked_before_nodes_are_read() {
    let text = "[[nodes]]\nid = \"a\"\navailable = {}\n".repeat(3);
    let loaded = load_cluster(
        &SourceFile::new("c.toml", text),
        &ClusterLimits { max_nodes: 2 },
    );
    assert!(matches!(
        loaded.diagnostics[..],
        [ClusterDiagnostic::TooManyNodes {
            count: 3,
            limit: 2,
            ..
        }]
    ));
}

fn resources() -> impl Strategy<Value = Resources> {
    prop::collection::btree_map(
        prop_oneof![
            Just("GPU".to_owned()),
            Just("CPU".to_owned()),
            "[a-z:_]{1,8}"
        ],
        1u64..10_000_000,
        0..4,
    )
    .prop_map(|m| {
        m.into_iter()
            .map(|(k, v)| (k, Amount::from_units(v)))
            .collect()
    })
}

fn node() -> impl Strategy<Value = Node> {
    (
        "[a-z0-9-]{1,8}",
        prop::option::of("[0-9.]{1,15}"),
        any::<bool>(),
        resources(),
        prop::option::of(resources()),
        prop::collection::btree_map("[a-z./]{1,8}", "\\PC{0,5}", 0..2),
        any::<bool>(),
    )
        .prop_map(
            |(id, address, alive, available, total, labels, head)| Node {
                id,
                address,
                alive,
                available,
                total,
                labels,
                head,
            },
        )
}

proptest! {
    #[test]
    fn printed_clusters_read_back(nodes in prop::collection::vec(node(), 1..6)) {
        let mut nodes = nodes;
        for (i, node) in nodes.iter_mut().enumerate() {
            node.id = format!("{}-{i}", node.id);
            if let Some(total) = &mut node.total {
                // Keep available within total so no warning is due.
                for (name, amount) in node.available.iter() {
                    if total.get(name) < amount {
                        total.set(name, amount);
                    }
                }
            }
        }
        let cluster = Cluster::new(nodes);
        for (name, text) in [("c.toml", cluster_to_toml(&cluster)), ("c.json", cluster_to_json(&cluster))] {
            let loaded = load_cluster(&SourceFile::new(name, text.as_str()), &ClusterLimits::default());
            prop_assert!(loaded.diagnostics.is_empty(), "{text}\n{:?}", loaded.diagnostics);
            prop_assert_eq!(loaded.cluster, Some(cluster.clone()));
        }
    }
}
