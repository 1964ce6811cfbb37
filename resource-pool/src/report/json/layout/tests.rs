use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;

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

#[test]
fn placements_stand_one_per_line_and_the_rest_is_pretty() {
    let placed = [
        Placed {
            node: Some("big"),
            pool: "global_pool",
            slot: 0,
        },
        Placed {
            node: Some("small"),
            pool: "reward_pool",
            slot: 0,
        },
    ];
    let result = CheckResult {
        diagnostics: vec![
            json!({"code": "resource_pool::ray::hangs", "data": {"pool": "global_pool"}}),
        ],
        feasible: Some(true),
        placement: placed.into(),
        ray: Some("hangs".to_owned()),
        ray_placement: Vec::new(),
        ray_version: Some("2.60.0"),
        suggestions: Value::Array(Vec::new()),
    };
    let expected = r#"{
  "diagnostics": [
    {
      "code": "resource_pool::ray::hangs",
      "data": {
        "pool": "global_pool"
      }
    }
  ],
  "feasible": true,
  "placement": [
    {"node": "big", "pool": "global_pool", "slot": 0},
    {"node": "small", "pool": "reward_pool", "slot": 0}
  ],
  "ray": "hangs",
  "ray_placement": [],
  "ray_version": "2.60.0",
  "suggestions": []
}
"#;
    assert_eq!(written(|out| result.write_json(out)), expected);
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

fn as_placed(rows: &[(Option<String>, String, usize)]) -> Vec<Placed<'_>> {
    rows.iter()
        .map(|(node, pool, slot)| Placed {
            node: node.as_deref(),
            pool,
            slot: *slot,
        })
        .collect()
}

proptest! {
    /// The fast row of a placed slot is the row serde writes for it.
    #[test]
    fn placed_rows_are_the_rows_serde_writes(rows in placed_rows()) {
        for row in as_placed(&rows) {
            let mut fast = Vec::new();
            placed_row(&mut fast, &row);
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
        diagnostics in prop::collection::vec(json_value(), 0..3),
        feasible in prop::option::of(any::<bool>()),
        placement in placed_rows(),
        ray in prop::option::of(text()),
        ray_placement in placed_rows(),
        ray_version in prop::option::of(text()),
        suggestions in json_value(),
    ) {
        let result = CheckResult {
            diagnostics,
            feasible,
            placement: as_placed(&placement),
            ray,
            ray_placement: as_placed(&ray_placement),
            ray_version: ray_version.as_deref(),
            suggestions,
        };
        let value = serde_json::to_value(&result).unwrap();
        let text = written(|out| result.write_json(out));
        prop_assert_eq!(&text, &written(|out| write_value(out, &value)));
        prop_assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), value);
    }
}
