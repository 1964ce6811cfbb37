use proptest::prelude::*;
use resource_pool_core::check::CheckOptions;
use resource_pool_core::model::{
    Amount, Cluster, Node, PoolSpec, ResourcePool, ResourcePoolManager, Resources, RoleName,
};
use serde_json::{Value, json};

use super::super::check_result_of;
use super::*;
use crate::report::CheckRun;

fn written(write: impl FnOnce(&mut Vec<u8>) -> io::Result<()>) -> String {
    let mut out = Vec::new();
    write(&mut out).expect("writing into a Vec");
    String::from_utf8(out).expect("JSON is UTF-8")
}

fn row_text(row: &(impl Serialize + ?Sized)) -> String {
    let mut out = Vec::new();
    row_of(&mut out, row);
    String::from_utf8(out).expect("JSON is UTF-8")
}

fn gpu_node(id: &str, gpus: u64, cpus: u64) -> Node {
    let whole = |n| Amount::from_whole(n).expect("small amounts");
    Node::new(
        id,
        Resources::new()
            .with("GPU", whole(gpus))
            .with("CPU", whole(cpus)),
    )
}

/// `check`'s report of pools (name, node-slots) on a cluster, every role mapped to the first.
fn checked(pools: &[(&str, Vec<u32>)], cluster: Cluster) -> CheckRun {
    let pools = pools
        .iter()
        .map(|(name, slots)| ResourcePool::new(*name, PoolSpec::with_slots(slots.clone())))
        .collect();
    let first = "pool0";
    let manager = ResourcePoolManager::new(pools, [(RoleName("actor_rollout".to_owned()), first)])
        .expect("a valid layout");
    CheckRun::check_manager(&manager, cluster, &CheckOptions::default())
}

fn result_of(run: &CheckRun) -> CheckResult<'_> {
    check_result_of(&run.findings, run.report.as_ref(), &run.cluster)
}

#[test]
fn placements_stand_one_per_line_and_the_rest_is_pretty() {
    // Two pools that fit, the 8-GPU one created first: Ray places both (and the
    // diagnostic set by hand shows a nested value in the pretty layout).
    let cluster = Cluster::new(vec![gpu_node("big", 8, 32), gpu_node("small", 4, 16)]);
    let run = checked(&[("pool0", vec![8]), ("pool1", vec![4])], cluster);
    let mut result = result_of(&run);
    result.diagnostics =
        vec![json!({"code": "resource_pool::ray::hangs", "data": {"pool": "pool0"}})];
    result.ray_version = Some("2.60.0");
    let expected = r#"{
  "diagnostics": [
    {
      "code": "resource_pool::ray::hangs",
      "data": {
        "pool": "pool0"
      }
    }
  ],
  "feasible": true,
  "placement": [
    {"node": "big", "pool": "pool0", "slot": 0},
    {"node": "small", "pool": "pool1", "slot": 0}
  ],
  "ray": "places",
  "ray_placement": [
    {"node": "big", "pool": "pool0", "slot": 0},
    {"node": "small", "pool": "pool1", "slot": 0}
  ],
  "ray_version": "2.60.0",
  "suggestions": []
}
"#;
    assert_eq!(written(|out| result.write_json(out)), expected);
    let nothing = check_result_of(&[], None, &run.cluster);
    assert!(written(|out| nothing.write_json(out)).contains("\"placement\": [],\n"));
}

#[test]
fn an_empty_object_and_other_values_are_written_as_serde_writes_them() {
    assert_eq!(written(|out| write_value(out, &json!({}))), "{}\n");
    for value in [json!([1, {"a": [2]}]), json!("text"), json!(null)] {
        let pretty = serde_json::to_string_pretty(&value).unwrap() + "\n";
        assert_eq!(written(|out| write_value(out, &value)), pretty);
    }
}

/// Strings with what JSON escapes (quotes, backslashes, line breaks, control
/// characters) and what it does not (non-ASCII, DEL).
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z0-9_-]{0,12}",
        "[\"\\\\\n\t\u{1}\u{1f}\u{7f}é日 a-z]{0,12}",
        any::<String>(),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        // Quarters: floats that read back exactly.
        (-4000i32..4000).prop_map(|n| Value::from(f64::from(n) / 4.0)),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(text(), inner, 0..4)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

fn placed_rows() -> impl Strategy<Value = Vec<(Option<String>, String, usize)>> {
    prop::collection::vec((prop::option::of(text()), text(), any::<usize>()), 0..6)
}

/// Small clusters (ids with what JSON escapes among them) and layouts of up to three
/// pools: feasible and not, Ray placing and hanging.
fn layouts() -> impl Strategy<Value = (Vec<(String, Vec<u32>)>, Cluster)> {
    let node = (text(), 0u64..9, 0u64..40);
    let pools = prop::collection::vec(prop::collection::vec(1u32..9, 1..4), 1..4);
    (prop::collection::vec(node, 0..5), pools).prop_map(|(nodes, pools)| {
        let nodes = nodes
            .iter()
            .map(|(id, gpus, cpus)| gpu_node(id, *gpus, *cpus))
            .collect();
        let pools = pools
            .into_iter()
            .enumerate()
            .map(|(i, slots)| (format!("pool{i}"), slots))
            .collect();
        (pools, Cluster::new(nodes))
    })
}

proptest! {
    /// The fast row of a placed slot is the row serde writes for it.
    #[test]
    fn placed_rows_are_the_rows_serde_writes(rows in placed_rows()) {
        for (node, pool, slot) in &rows {
            let row = Placed { node: node.as_deref(), pool, slot: *slot };
            let mut fast = Vec::new();
            placed_row(&mut fast, row);
            prop_assert_eq!(String::from_utf8(fast).unwrap(), row_text(&row));
        }
    }

    /// Without placement arrays, the layout is serde_json's pretty one, byte for byte.
    #[test]
    fn other_objects_are_pretty(fields in prop::collection::btree_map(text(), json_value(), 0..5)) {
        let value = Value::Object(
            fields.into_iter().filter(|(k, _)| !ROW_ARRAYS.contains(&k.as_str())).collect(),
        );
        let pretty = serde_json::to_string_pretty(&value).unwrap() + "\n";
        prop_assert_eq!(written(|out| write_value(out, &value)), pretty);
    }

    /// `check`'s result written from the report is its JSON value laid out, and reads
    /// back as that value.
    #[test]
    fn a_check_result_is_written_as_its_value(
        (pools, cluster) in layouts(),
        diagnostics in prop::collection::vec(json_value(), 0..3),
        ray_version in prop::option::of(text()),
        suggestions in json_value(),
    ) {
        let pools: Vec<(&str, Vec<u32>)> =
            pools.iter().map(|(name, slots)| (name.as_str(), slots.clone())).collect();
        let run = checked(&pools, cluster);
        let mut result = result_of(&run);
        result.diagnostics.extend(diagnostics);
        result.ray_version = ray_version.as_deref();
        result.suggestions = suggestions;
        let value = serde_json::to_value(&result).unwrap();
        let text = written(|out| result.write_json(out));
        prop_assert_eq!(&text, &written(|out| write_value(out, &value)));
        prop_assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), value);
    }
}
