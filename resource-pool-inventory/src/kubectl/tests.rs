use super::*;
use resource_pool_core::model::Amount;

fn units(text: &str) -> Result<u64, QuantityError> {
    parse_quantity(text).map(Amount::units)
}

#[test]
fn quantities_parse_exactly() {
    assert_eq!(units("96"), Ok(960_000));
    assert_eq!(units("95500m"), Ok(955_000));
    assert_eq!(units("1.5"), Ok(15_000));
    assert_eq!(units("100u"), Ok(1));
    assert_eq!(units("1Ki"), Ok(10_240_000));
    assert_eq!(units("1056Gi"), Ok(1056 * (1 << 30) * 10_000));
    assert_eq!(units("1e9"), Ok(1_000_000_000 * 10_000));
    assert_eq!(units("500M"), Ok(500_000_000 * 10_000));
    assert_eq!(units("0"), Ok(0));
    assert_eq!(units("-0"), Ok(0));
    assert_eq!(units(".5"), Ok(5_000));
}

#[test]
fn quantities_refused() {
    assert_eq!(units("1n"), Err(QuantityError::TooFine));
    assert_eq!(units("0.00001"), Err(QuantityError::TooFine));
    assert_eq!(units("-1"), Err(QuantityError::Negative));
    assert_eq!(units("2E"), Err(QuantityError::TooLarge));
    assert_eq!(
        units("1e99999999999999999999"),
        Err(QuantityError::TooLarge)
    );
    assert_eq!(
        units("1e-99999999999999999999"),
        Err(QuantityError::TooFine)
    );
    assert_eq!(units(&"9".repeat(60)), Err(QuantityError::TooLarge));
    for bad in ["", "eight", "1.2.3", "2x", "1Gb", "1e", "."] {
        assert_eq!(units(bad), Err(QuantityError::Malformed), "{bad}");
    }
}

const NODES: &str = include_str!("../../tests/data/kubectl/nodes.json");
const PODS: &str = include_str!("../../tests/data/kubectl/pods.json");

fn whole(n: u64) -> Amount {
    Amount::from_whole(n).unwrap_or_default()
}

#[test]
fn nodes_map_and_not_ready_is_dead() {
    let nodes = parse_kubectl_nodes(NODES).expect("parses");
    let inventory = kubectl_inventory(nodes, &[]);
    let nodes = &inventory.cluster.nodes;
    assert_eq!(nodes.len(), 4);
    assert_eq!(nodes[0].available.get("GPU"), whole(8));
    assert_eq!(nodes[0].available.get("CPU").units(), 1_914_500);
    assert_eq!(nodes[0].address.as_deref(), Some("10.20.1.11"));
    assert_eq!(
        nodes[0]
            .labels
            .get("nvidia.com/gpu.product")
            .map(String::as_str),
        Some("NVIDIA-H100-80GB-HBM3")
    );
    assert_eq!(nodes[2].available.get("NPU"), whole(8));
    assert!(!nodes[3].alive);
    let dead: Vec<_> = inventory.dead_node_notes().collect();
    assert_eq!(dead.len(), 1);
    assert!(dead[0].to_string().contains("Ready=Unknown"), "{}", dead[0]);
}

#[test]
fn cordoned_node_is_dead() {
    let text = r#"{"kind":"Node","metadata":{"name":"n"},"spec":{"unschedulable":true},
        "status":{"capacity":{"nvidia.com/gpu":"1"},"conditions":[{"type":"Ready","status":"True"}]}}"#;
    let nodes = parse_kubectl_nodes(text).expect("parses");
    let unusable = nodes[0].unusable.as_ref().expect("unusable");
    assert!(unusable.reason.contains("cordoned"), "{unusable:?}");
    assert_eq!(
        unusable.remedy,
        "`kubectl uncordon n` if the job may use it"
    );
}

#[test]
fn pods_are_subtracted() {
    let pods = parse_kubectl_pods(PODS).expect("parses");
    // The Succeeded pod and the unassigned one do not count.
    assert_eq!(pods.len(), 3, "{pods:?}");
    let inventory = kubectl_inventory(parse_kubectl_nodes(NODES).expect("parses"), &pods);
    let nodes = &inventory.cluster.nodes;
    // 2 GPUs as limits only; 16 CPUs.
    assert_eq!(nodes[0].available.get("GPU"), whole(6));
    assert_eq!(nodes[0].available.get("CPU").units(), 1_914_500 - 160_000);
    assert_eq!(nodes[1].available.get("GPU"), whole(8));
    // Ascend pod: the init container's 24 CPUs (the sidecar starts after it) beat the
    // containers' 8 + 0.5 plus the sidecar's 0.1.
    assert_eq!(nodes[2].available.get("NPU"), whole(4));
    assert_eq!(nodes[2].available.get("CPU").units(), 1_900_000 - 240_000);
}

#[test]
fn bad_quantities_point_at_their_values() {
    let text = include_str!("../../tests/data/kubectl/bad_quantity.json");
    let errors = parse_kubectl_nodes(text).expect_err("bad");
    assert_eq!(errors.len(), 3, "{errors:?}");
    for error in &errors {
        let KubectlError::BadQuantity { span, value, .. } = error else {
            panic!("{errors:?}");
        };
        assert_eq!(
            &text[span.offset()..span.offset() + span.len()],
            format!("\"{value}\"")
        );
    }
}

#[test]
fn wrong_shape_is_reported() {
    let text = include_str!("../../tests/data/kubectl/wrong_shape.json");
    let errors = parse_kubectl_nodes(text).expect_err("bad");
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(
        errors
            .iter()
            .all(|e| matches!(e, KubectlError::Shape { .. }))
    );
    let errors = parse_kubectl_nodes("{\"items\": [\n  {\"x\": }\n]}").expect_err("bad");
    assert!(matches!(errors[0], KubectlError::Syntax { .. }));
    assert!(parse_kubectl_nodes("[]").is_err());
}

#[test]
fn a_node_listed_twice_is_an_error_on_both_names() {
    let node = |name: &str| {
        format!(
            r#"{{"kind":"Node","metadata":{{"name":"{name}"}},"status":{{"conditions":[{{"type":"Ready","status":"True"}}]}}}}"#
        )
    };
    let text = format!(
        r#"{{"kind":"List","items":[{},{},{}]}}"#,
        node("a"),
        node("b"),
        node("a")
    );
    let errors = parse_kubectl_nodes(&text).expect_err("duplicate");
    let [KubectlError::DuplicateNode { name, span, first }] = errors.as_slice() else {
        panic!("{errors:?}");
    };
    assert_eq!(name, "a");
    assert_eq!(span.offset(), text.rfind("\"a\"").expect("second"));
    assert_eq!(first.offset(), text.find("\"a\"").expect("first"));
}

#[test]
fn whole_ascend_npus_count_and_virtual_slices_do_not() {
    assert!(is_whole_ascend("huawei.com/Ascend910"));
    assert!(is_whole_ascend("huawei.com/Ascend310P"));
    assert!(!is_whole_ascend("huawei.com/Ascend910-4c"));
    assert!(!is_whole_ascend("huawei.com/Ascend310P-1c.1cpu"));
    assert!(!is_whole_ascend("huawei.com/Ascend"));
    let text = r#"{"kind":"Node","metadata":{"name":"n"},
        "status":{"allocatable":{"huawei.com/Ascend910":"8","huawei.com/Ascend910-4c":"4"},
        "conditions":[{"type":"Ready","status":"True"}]}}"#;
    let nodes = parse_kubectl_nodes(text).expect("parses");
    let inventory = kubectl_inventory(nodes, &[]);
    assert_eq!(
        inventory.cluster.nodes[0].available.get("NPU"),
        Amount::from_whole(8).unwrap_or_default()
    );
}

#[test]
fn a_node_with_an_empty_name_is_a_shape_error() {
    // Found by the tool_outputs fuzz target (through Slurm's twin): a node without an id
    // printed a cluster file that does not read back.
    let text = r#"{"kind": "List", "items": [{"metadata": {"name": ""}, "status": {"allocatable": {"cpu": "4"}}}]}"#;
    let errors = parse_kubectl_nodes(text).expect_err("an empty name");
    let [KubectlError::Shape { detail, span, .. }] = errors.as_slice() else {
        panic!("{errors:?}");
    };
    assert_eq!(detail, "node `metadata.name` is empty");
    assert_eq!(&text[span.offset()..span.offset() + span.len()], "\"\"");
}
