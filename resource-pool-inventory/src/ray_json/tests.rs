//! The parsers and the reconciliation on Ray 2.60's recorded answers and on broken ones.

use super::*;
use crate::{InventoryNote, NodeRef};
use resource_pool_core::model::{Amount, Resources};
macro_rules! fixture {
    ($name:literal) => {
        include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/ray-2.60/",
            $name
        ))
        .as_slice()
    };
}

const IDLE_NODES: &[u8] = fixture!("idle_api_v0_nodes_detail.json");
const IDLE_STATUS: &[u8] = fixture!("idle_api_cluster_status.json");
const IDLE_GROUPS: &[u8] = fixture!("idle_api_v0_placement_groups_detail.json");
const HELD_NODES: &[u8] = fixture!("heldpg_api_v0_nodes_detail.json");
const HELD_STATUS: &[u8] = fixture!("heldpg_api_cluster_status.json");
const HELD_GROUPS: &[u8] = fixture!("heldpg_api_v0_placement_groups_detail.json");
const MIXED_NODES: &[u8] = fixture!("mixedpg_api_v0_nodes_detail.json");
const MIXED_STATUS: &[u8] = fixture!("mixedpg_api_cluster_status.json");
const MIXED_GROUPS: &[u8] = fixture!("mixedpg_api_v0_placement_groups_detail.json");
const DEAD_NODES: &[u8] = fixture!("deadnode_api_v0_nodes_detail.json");
const V2_STATUS: &[u8] = fixture!("autoscaler_v2_api_cluster_status.json");

fn whole(n: u64) -> Amount {
    Amount::from_whole(n).unwrap_or_default()
}

fn res(pairs: &[(&str, u64)]) -> Resources {
    pairs.iter().map(|&(name, n)| (name, whole(n))).collect()
}

/// (address, available, total) of each node, in order.
fn shape(inventory: &Inventory) -> Vec<(String, Resources, Resources)> {
    inventory
        .cluster
        .nodes
        .iter()
        .map(|n| {
            (
                n.address.clone().unwrap_or_default(),
                n.available.clone(),
                n.total.clone().unwrap_or_default(),
            )
        })
        .collect()
}

fn big() -> Resources {
    res(&[("GPU", 8), ("CPU", 32)])
}
fn small() -> Resources {
    res(&[("GPU", 4), ("CPU", 8)])
}
fn h100() -> Resources {
    res(&[
        ("GPU", 4),
        ("CPU", 16),
        ("accelerator_type:H100", 1),
        ("my_custom", 2),
    ])
}

#[test]
fn idle_cluster_node_by_node() {
    let inventory = parse_inventory(IDLE_NODES, IDLE_STATUS, IDLE_GROUPS).unwrap();
    assert_eq!(
        shape(&inventory),
        [
            ("127.0.0.2".into(), big(), big()),
            ("127.0.0.3".into(), small(), small()),
            ("127.0.0.4".into(), h100(), h100()),
        ]
    );
    assert!(inventory.notes.is_empty(), "{:?}", inventory.notes);
    let head = &inventory.cluster.nodes[0];
    assert_eq!(
        head.id,
        "998d0f6441b2ab5b165b2c827979a04d442dfc2b27c607c508cb07c4"
    );
    assert!(head.alive);
    let worker = &inventory.cluster.nodes[2];
    assert_eq!(worker.labels.get("zone").map(String::as_str), Some("z1"));
}

#[test]
fn held_group_is_used_and_named() {
    let inventory = parse_inventory(HELD_NODES, HELD_STATUS, HELD_GROUPS).unwrap();
    assert_eq!(
        shape(&inventory),
        [
            ("127.0.0.2".into(), res(&[("GPU", 4), ("CPU", 20)]), big()),
            ("127.0.0.3".into(), small(), small()),
            ("127.0.0.4".into(), h100(), h100()),
        ]
    );
    let held: Vec<_> = inventory
        .notes
        .iter()
        .filter_map(|n| match n {
            InventoryNote::HeldByPlacementGroup {
                group,
                node,
                resources,
                ..
            } => Some((group.name.as_str(), node.address.clone(), resources.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        held,
        [(
            "held",
            Some("127.0.0.2".to_owned()),
            res(&[("CPU", 12), ("GPU", 4)])
        )]
    );
    assert_eq!(inventory.notes.len(), 1);
    let message = inventory.notes[0].to_string();
    assert!(
        message.contains("`held`") && message.contains("127.0.0.2"),
        "{message}"
    );
}

#[test]
fn pending_and_infeasible_groups_are_reported() {
    let inventory = parse_inventory(MIXED_NODES, MIXED_STATUS, MIXED_GROUPS).unwrap();
    let shape = shape(&inventory);
    assert_eq!(
        shape[0],
        ("127.0.0.2".into(), res(&[("GPU", 4), ("CPU", 20)]), big())
    );
    assert_eq!(shape[1], ("127.0.0.3".into(), small(), small()));
    assert_eq!(shape[2], ("127.0.0.4".into(), h100(), h100()));
    let pending: Vec<_> = inventory
        .notes
        .iter()
        .filter_map(|n| match n {
            InventoryNote::PendingPlacementGroup {
                group,
                scheduling_state,
                demand,
                ..
            } => Some((
                group.name.clone(),
                scheduling_state.clone(),
                demand.get("GPU"),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        pending,
        [
            (
                "poolCverl_group_12:0".into(),
                "INFEASIBLE".into(),
                whole(12)
            ),
            (
                "poolBverl_group_8:0".into(),
                "NO_RESOURCES".into(),
                whole(8)
            ),
        ]
    );
    assert!(inventory.notes.iter().any(|n| matches!(n,
        InventoryNote::HeldByPlacementGroup { group, .. } if group.name == "poolAverl_group_4:0")));
}

#[test]
fn dead_nodes_stay_in_the_cluster_and_are_named() {
    let inventory = parse_inventory(DEAD_NODES, IDLE_STATUS, IDLE_GROUPS).unwrap();
    let nodes: Vec<_> = inventory
        .cluster
        .nodes
        .iter()
        .map(|n| (n.address.clone().unwrap_or_default(), n.alive))
        .collect();
    assert_eq!(
        nodes,
        [
            ("127.0.0.2".to_owned(), true),
            ("127.0.0.3".to_owned(), false),
            ("127.0.0.4".to_owned(), true)
        ]
    );
    let dead = &inventory.cluster.nodes[1];
    assert!(dead.available.is_empty());
    assert_eq!(dead.total.as_ref(), Some(&small()));
    assert_eq!(inventory.cluster.alive().count(), 2);
    assert_eq!(
        inventory.notes,
        [InventoryNote::DeadNode {
            node: NodeRef {
                id: "fd71bcc4884d53163cce23d96b75e509237e5aa7371a287954d18014".into(),
                address: Some("127.0.0.3".into()),
            },
            reason: Some("Expected termination: received SIGTERM".into()),
            remedy: crate::RAY_DEAD_NODE_REMEDY.to_owned(),
        }]
    );
    assert_eq!(
        inventory.notes[0].code_str(),
        "resource_pool::inventory::dead_node"
    );
    assert!(
        inventory.notes[0]
            .to_string()
            .contains("127.0.0.3 (fd71bcc4…)")
    );
}

#[test]
fn autoscaler_v2_falls_back_to_groups() {
    let inventory = parse_inventory(HELD_NODES, V2_STATUS, HELD_GROUPS).unwrap();
    assert_eq!(shape(&inventory)[0].1, res(&[("GPU", 4), ("CPU", 20)]));
    assert_eq!(shape(&inventory)[2].1, h100());
    assert!(matches!(
        inventory.notes[0],
        InventoryNote::UsageFromPlacementGroups { .. }
    ));
    assert_eq!(
        parse_cluster_status(V2_STATUS).unwrap(),
        ClusterUsage { by_node: None }
    );
}

#[test]
fn stale_status_is_capped_by_groups() {
    // The idle status with the held groups: the status lags behind a new group.
    let inventory = parse_inventory(HELD_NODES, IDLE_STATUS, HELD_GROUPS).unwrap();
    assert_eq!(shape(&inventory)[0].1, res(&[("GPU", 4), ("CPU", 20)]));
}

#[test]
fn camel_case_matches_ray() {
    assert_eq!(to_camel_case("my_custom"), "myCustom");
    assert_eq!(
        to_camel_case("accelerator_type:H100"),
        "acceleratorType:H100"
    );
    assert_eq!(to_camel_case("node:__internal_head__"), "node:InternalHead");
    assert_eq!(to_camel_case("object_store_memory"), "objectStoreMemory");
    assert_eq!(
        to_camel_case("GPU_group_0_8ef88dd73dfac6acfa5ca13a17ae04000000"),
        "GPUGroup08Ef88Dd73Dfac6Acfa5Ca13A17Ae04000000"
    );
    assert_eq!(
        to_camel_case("accelerator_type:A100-SXM"),
        "acceleratorType:A100-Sxm"
    );
    assert_eq!(to_camel_case("GPU"), "GPU");
    assert_eq!(to_camel_case(""), "");
}

#[test]
fn truncated_pages_are_refused() {
    let text = std::str::from_utf8(IDLE_NODES)
        .unwrap()
        .replace("\"total\": 3", "\"total\": 300");
    let error = parse_inventory(text.as_bytes(), IDLE_STATUS, IDLE_GROUPS).unwrap_err();
    assert_eq!(
        error,
        RayJsonError::Truncated {
            endpoint: Endpoint::Nodes,
            total: 300,
            returned: 3
        }
    );
    // The remedy is on the head, with the number to give it: no option of ours asks for
    // more than Ray lets the dashboard list.
    let help = miette::Diagnostic::help(&error)
        .map(|h| h.to_string())
        .unwrap_or_default();
    assert!(help.contains("RAY_MAX_LIMIT_FROM_API_SERVER=300"), "{help}");
}

#[test]
fn a_node_without_an_id_is_refused() {
    // As Slurm's and kubectl's readers refuse an empty name: the inventory's cluster must
    // read back as a cluster file, which refuses an empty id.
    let first = std::str::from_utf8(IDLE_NODES).unwrap();
    let id_at = first.find("\"node_id\": \"").expect("a node id") + "\"node_id\": \"".len();
    let end = id_at + first[id_at..].find('"').expect("its end");
    let text = format!("{}{}", &first[..id_at], &first[end..]);
    let error = parse_inventory(text.as_bytes(), IDLE_STATUS, IDLE_GROUPS).unwrap_err();
    assert_eq!(
        error,
        RayJsonError::BadBody {
            endpoint: Endpoint::Nodes,
            detail: "a node with an empty `node_id`".into()
        }
    );
}

fn node_body(resources: &str) -> String {
    format!(
        r#"{{"result": true, "msg": "", "data": {{"result": {{"total": 1, "result": [
        {{"node_id": "n1", "node_ip": "10.0.0.1", "state": "ALIVE", "resources_total": {resources}}}]}}}}}}"#
    )
}

#[test]
fn malformed_bodies_are_typed_errors() {
    let bad_body = |body: &[u8]| matches!(parse_nodes(body), Err(RayJsonError::BadBody { .. }));
    assert!(bad_body(b""));
    assert!(bad_body(b"<html>502 Bad Gateway</html>"));
    assert!(bad_body(b"[1, 2, 3]"));
    assert!(bad_body(br#"{"result": true}"#));
    assert!(bad_body(
        br#"{"result": true, "data": {"result": {"total": -1, "result": []}}}"#
    ));
    assert!(bad_body(node_body(r#"{"GPU": NaN}"#).as_bytes()));
    assert!(bad_body(node_body(r#"{"GPU": 1e400}"#).as_bytes()));
    assert!(bad_body(node_body(r#"{"GPU": "8"}"#).as_bytes()));
    assert!(bad_body(&b"[".repeat(100_000)));
    assert!(matches!(
        parse_nodes(node_body(r#"{"GPU": -8}"#).as_bytes()),
        Err(RayJsonError::BadNumber {
            problem: AmountError::Negative,
            ..
        })
    ));
    assert!(matches!(
        parse_nodes(node_body(r#"{"GPU": 1e300}"#).as_bytes()),
        Err(RayJsonError::BadNumber {
            problem: AmountError::TooLarge,
            ..
        })
    ));
    // Internal resources are not even read.
    assert!(parse_nodes(node_body(r#"{"memory": -1, "GPU": 8}"#).as_bytes()).is_ok());
    assert!(matches!(
        parse_nodes(br#"{"result": false, "msg": "GCS down"}"#),
        Err(RayJsonError::ApiFailed { .. })
    ));
    let status = br#"{"result": true, "data": {"clusterStatus": {"loadMetricsReport": {"usageByNode": {"n1": {"GPU": [1.0]}}}}}}"#;
    assert!(matches!(
        parse_cluster_status(status),
        Err(RayJsonError::BadBody { .. })
    ));
    let groups = br#"{"result": true, "data": {"result": {"total": 1, "result": [{"placement_group_id": "g", "state": "CREATED", "bundles": [{"unit_resources": {"GPU": -1}}]}]}}}"#;
    assert!(matches!(
        parse_placement_groups(groups),
        Err(RayJsonError::BadNumber { .. })
    ));
    let error = parse_nodes(b"nope").unwrap_err();
    assert_eq!(
        miette::Diagnostic::code(&error)
            .map(|c| c.to_string())
            .as_deref(),
        Some("resource_pool::ray::bad_body")
    );
}

#[test]
fn no_accelerators_and_collisions_are_noted() {
    let nodes = node_body(r#"{"CPU": 8, "my_custom": 1, "myCustom": 2}"#);
    let status = br#"{"result": true, "data": {"clusterStatus": {"loadMetricsReport": {"usageByNode": {"n1": {"CPU": [2.0, 8.0], "myCustom": [1.0, 3.0]}}}}}}"#;
    let inventory = parse_inventory(nodes.as_bytes(), status, IDLE_GROUPS).unwrap();
    let node = &inventory.cluster.nodes[0];
    assert_eq!(
        node.available,
        res(&[("CPU", 6), ("my_custom", 1), ("myCustom", 2)])
    );
    assert!(inventory.notes.contains(&InventoryNote::NoAccelerators {
        listed_by: crate::SourceKind::Ray,
    }));
    assert!(
        inventory
            .notes
            .iter()
            .any(|n| matches!(n, InventoryNote::AmbiguousResourceNames { .. }))
    );
}

#[test]
fn a_node_missing_from_the_status_uses_groups() {
    let nodes = node_body(r#"{"GPU": 8, "CPU": 8}"#);
    let status = br#"{"result": true, "data": {"clusterStatus": {"loadMetricsReport": {"usageByNode": {}}}}}"#;
    let inventory = parse_inventory(nodes.as_bytes(), status, IDLE_GROUPS).unwrap();
    assert_eq!(
        inventory.cluster.nodes[0].available,
        res(&[("GPU", 8), ("CPU", 8)])
    );
    assert!(matches!(
        inventory.notes[0],
        InventoryNote::UsageFromPlacementGroups { .. }
    ));
}

#[test]
fn many_nodes_parse() {
    let mut body =
        String::from(r#"{"result": true, "data": {"result": {"total": 5000, "result": ["#);
    for i in 0..5000 {
        if i > 0 {
            body.push(',');
        }
        body.push_str(&format!(
            r#"{{"node_id": "n{i}", "node_ip": "10.0.{}.{}", "state": "ALIVE", "resources_total": {{"GPU": 8, "CPU": 64}}}}"#,
            i / 256,
            i % 256
        ));
    }
    body.push_str("]}}}");
    let status = br#"{"result": true, "data": {"clusterStatus": null}}"#;
    let inventory = parse_inventory(body.as_bytes(), status, IDLE_GROUPS).unwrap();
    assert_eq!(inventory.cluster.nodes.len(), 5000);
    assert_eq!(
        inventory.cluster.nodes[257].address.as_deref(),
        Some("10.0.1.1")
    );
}
