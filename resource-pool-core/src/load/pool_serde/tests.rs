//! The serde form against the spanned reader: the same tables load to the same pools and
//! the same tables are refused, from TOML and from JSON; errors carry the position of the
//! value at fault.

use proptest::prelude::*;
use serde::Deserialize;

use super::*;
use crate::config::PoolField;
use crate::load::load_struct_pools;
use crate::model::Accelerator;

/// What the spanned reader (a derived struct's loader, one field with verl's defaults)
/// makes of a pool table's text.
fn spanned(table: &str) -> Result<PoolSpec, Vec<String>> {
    let field = PoolField {
        name: UNNAMED_POOL,
        defaults: PoolDefaults::default(),
        worker_groups: 1,
    };
    // Under `[pool]`, subtables (`[bundle_resources]`) included.
    let table: toml::Table = toml::from_str(table).expect("TOML");
    let text = toml::to_string(&toml::Table::from_iter([(
        UNNAMED_POOL.to_owned(),
        table.into(),
    )]))
    .expect("a table");
    match load_struct_pools(&SourceFile::new("t.toml", text.as_str()), &[field]) {
        Ok(loaded) => Ok(loaded.specs.into_iter().next().expect("one field")),
        Err(errors) => Err(errors
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            // As serde's messages name a pool read on its own.
            .map(|d| {
                d.to_string()
                    .replace(&format!("pool `{UNNAMED_POOL}`"), "this pool")
            })
            .collect()),
    }
}

/// The same table as JSON text.
fn as_json(table: &str) -> Option<String> {
    let value: toml::Value = toml::from_str(table).ok()?;
    serde_json::to_string_pretty(&value).ok()
}

#[test]
fn every_described_key_is_read() {
    // Each key of the format with its documented example, in the two slot forms.
    let example = |names: &[&str]| -> String {
        POOL_KEYS
            .iter()
            .filter(|key| names.contains(&key.name))
            .map(|key| format!("{} = {}\n", key.name, key.example))
            .collect()
    };
    let others = [
        "accelerator",
        "max_colocate_count",
        "accelerator_type",
        "bundle_resources",
    ];
    for form in crate::file_keys::SLOT_FORMS {
        let names: Vec<&str> = form.iter().copied().chain(others).collect();
        let table = example(&names);
        let expected = spanned(&table).expect("the examples are valid");
        let from_toml: PoolSpec = toml::from_str(&table).unwrap();
        assert_eq!(from_toml, expected, "{table}");
        let from_json: PoolSpec = serde_json::from_str(&as_json(&table).unwrap()).unwrap();
        assert_eq!(from_json, expected);
        assert!(!expected.bundle_resources.is_empty());
        assert!(expected.accelerator_type.is_some());
    }
    // Every described key is one of them, so none is left untried.
    let tried: Vec<&str> = crate::file_keys::SLOT_FORMS
        .iter()
        .flat_map(|form| form.iter().copied())
        .chain(others)
        .collect();
    for key in POOL_KEYS {
        assert!(tried.contains(&key.name), "{} is not tried", key.name);
    }
}

#[test]
fn a_bad_value_fails_at_its_line_naming_its_key() {
    let cases = [
        (
            "process_on_nodes = []",
            3,
            "`process_on_nodes`: this pool has no node-slot",
        ),
        (
            "process_on_nodes = [8, 0]",
            3,
            "`process_on_nodes`: this pool has a node-slot of 0",
        ),
        (
            "max_colocate_count = 0",
            3,
            "`max_colocate_count`: this pool has max_colocate_count = 0",
        ),
        (
            "proces_on_nodes = [8]",
            3,
            "unknown key `proces_on_nodes` in this pool; did you mean `process_on_nodes`?",
        ),
        (
            "process_on_nodes = [-1]",
            3,
            "`process_on_nodes[0]` is negative",
        ),
        (
            "accelerator = \"gpu\"",
            3,
            "`accelerator`: unknown accelerator `gpu`; did you mean `GPU`?",
        ),
        (
            "bundle_resources = { CPU = 1 }",
            3,
            "bundle resource `CPU` is set by verl itself",
        ),
        (
            "accelerator_type = \"\"",
            3,
            "`accelerator_type`: this pool has an empty accelerator_type",
        ),
    ];
    for (bad, line, expected) in cases {
        let text = format!("# a pool\nnnodes = 1\n{bad}\ngpus_per_node = 8\n");
        let err = toml::from_str::<PoolSpec>(&text).unwrap_err();
        let shown = err.to_string();
        assert!(shown.contains(expected), "{bad}: {shown}");
        assert!(
            shown.starts_with(&format!("TOML parse error at line {line}, column")),
            "{bad}: {shown}"
        );
        let span = err.span().expect("toml gives the span");
        let at = &text[span];
        assert!(bad.contains(at), "{bad}: the span is on `{at}`");
    }
}

#[test]
fn json_errors_have_line_and_column_of_the_value() {
    let text = "{\n  \"process_on_nodes\": [],\n  \"accelerator\": \"GPU\"\n}";
    let err = serde_json::from_str::<PoolSpec>(text).unwrap_err();
    assert_eq!((err.line(), err.column()), (2, 24), "{err}");
    assert!(
        err.to_string().contains("`process_on_nodes`: this pool"),
        "{err}"
    );
    // JSON writes a large whole number as a float: it is too large, not fractional.
    let huge = "{\"gpus_per_node\": 8, \"nnodes\": 1e30}";
    let err = serde_json::from_str::<PoolSpec>(huge).unwrap_err();
    assert!(err.to_string().contains("`nnodes` is too large"), "{err}");
    // Keys may repeat in JSON: the second is refused.
    let twice = "{\"nnodes\": 1, \"gpus_per_node\": 8, \"nnodes\": 2}";
    let err = serde_json::from_str::<PoolSpec>(twice).unwrap_err();
    assert!(
        err.to_string().contains("duplicate field `nnodes`"),
        "{err}"
    );
}

#[test]
fn a_problem_of_the_whole_table_fails_at_the_table_naming_the_keys() {
    let cases = [
        (
            "accelerator = \"NPU\"\n",
            "does not say how many accelerators it needs",
        ),
        (
            "gpus_per_node = 8\n",
            "gives `gpus_per_node` without `nnodes`",
        ),
        (
            "process_on_nodes = [8]\nnnodes = 2\ngpus_per_node = 8\n",
            "gives both `process_on_nodes` and `gpus_per_node`/`nnodes`",
        ),
        (
            "gpus_per_node = 0\nnnodes = 2\n",
            "`gpus_per_node`: this pool has a node-slot of 0",
        ),
    ];
    for (table, expected) in cases {
        let text = format!("[pool]\n{table}");
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        struct Holder {
            pool: PoolSpec,
        }
        let err = toml::from_str::<Holder>(&text).unwrap_err();
        assert!(err.to_string().contains(expected), "{table}: {err}");
        assert!(
            err.to_string().starts_with("TOML parse error at line 1"),
            "{err}"
        );
        assert!(spanned(table).is_err());
    }
}

#[test]
fn a_value_that_is_not_a_table_says_what_a_pool_is() {
    let err =
        toml::from_str::<std::collections::BTreeMap<String, PoolSpec>>("pool = 8\n").unwrap_err();
    assert!(err.to_string().contains("expected a pool table"), "{err}");
}

fn struct_fields() -> Vec<PoolField> {
    vec![
        PoolField {
            name: "global_pool",
            defaults: PoolDefaults::default(),
            worker_groups: 1,
        },
        PoolField {
            name: "reward_pool",
            defaults: PoolDefaults {
                process_on_nodes: Some(vec![4]),
                max_colocate_count: 1,
                ..PoolDefaults::default()
            },
            worker_groups: 1,
        },
    ]
}

/// A derived struct's pools, through serde, from TOML.
fn struct_from_toml(text: &str) -> Result<Vec<PoolSpec>, toml::de::Error> {
    let fields = struct_fields();
    let deserializer = toml::de::Deserializer::parse(text)?;
    deserialize_struct_pools(deserializer, "Pools", &fields)
}

#[test]
fn a_derived_struct_takes_its_attributes_as_defaults_as_its_loader_does() {
    let texts = [
        "[global_pool]\nprocess_on_nodes = [8, 8]\n",
        "[global_pool]\nprocess_on_nodes = [8]\n[reward_pool]\ngpus_per_node = 2\nnnodes = 2\n",
        "[global_pool]\nprocess_on_nodes = [8]\n[reward_pool]\nmax_colocate_count = 3\naccelerator = \"NPU\"\n",
    ];
    for text in texts {
        let loader = load_struct_pools(&SourceFile::new("p.toml", text), &struct_fields())
            .unwrap()
            .specs;
        assert_eq!(struct_from_toml(text).unwrap(), loader, "{text}");
    }
    let pools = struct_from_toml(texts[0]).unwrap();
    assert_eq!(pools[1].process_on_nodes, [4]);
    assert_eq!(pools[1].max_colocate_count, 1);
}

#[test]
fn a_derived_struct_refuses_unknown_and_missing_pools() {
    let err = struct_from_toml("[global_pool]\nprocess_on_nodes = [8]\n[rewad_pool]\nnnodes = 1\n")
        .unwrap_err();
    assert!(
        err.to_string().contains(
            "unknown key `rewad_pool` in the pools of `Pools`; did you mean `reward_pool`?"
        ),
        "{err}"
    );
    assert!(
        err.to_string().starts_with("TOML parse error at line 3"),
        "{err}"
    );
    let err = struct_from_toml("[reward_pool]\nnnodes = 1\ngpus_per_node = 1\n").unwrap_err();
    assert!(
        err.to_string().contains("missing field `global_pool`"),
        "{err}"
    );
}

#[test]
fn worker_groups_are_checked_against_the_file() {
    let fields = [PoolField {
        name: "global_pool",
        defaults: PoolDefaults {
            max_colocate_count: 4,
            ..PoolDefaults::default()
        },
        worker_groups: 4,
    }];
    let json = r#"{"global_pool": {"process_on_nodes": [8], "max_colocate_count": 2}}"#;
    let mut deserializer = serde_json::Deserializer::from_str(json);
    let err = deserialize_struct_pools(&mut deserializer, "Separate", &fields).unwrap_err();
    assert!(
        err.to_string()
            .contains("pool `global_pool` hosts 4 worker groups but max_colocate_count is 2"),
        "{err}"
    );
    // Just past the value.
    assert_eq!(err.column(), json.find(": 2}").unwrap() + 4, "{err}");
}

#[test]
fn written_pools_read_back() {
    let spec = PoolSpec {
        accelerator: Accelerator::Npu,
        max_colocate_count: 1,
        accelerator_type: Some("accelerator_type:910B".into()),
        bundle_resources: Resources::new()
            .with("my_custom", Amount::from_units(15_000))
            .with("whole", Amount::from_units(20_000))
            .with("tiny", Amount::EPSILON),
        ..PoolSpec::with_slots([16, 16])
    };
    let text = toml::to_string(&spec).unwrap();
    assert_eq!(
        text,
        "process_on_nodes = [16, 16]\naccelerator = \"NPU\"\nmax_colocate_count = 1\n\
         accelerator_type = \"accelerator_type:910B\"\n\n[bundle_resources]\n\
         my_custom = 1.5\ntiny = 0.0001\nwhole = 2\n"
    );
    assert_eq!(toml::from_str::<PoolSpec>(&text).unwrap(), spec);
    let json = serde_json::to_string(&spec).unwrap();
    assert_eq!(serde_json::from_str::<PoolSpec>(&json).unwrap(), spec);
}

/// Pool tables near and past the rules: some keys, each with a value of the right type or
/// a wrong one, and now and then a key that is not the format's.
fn table() -> impl Strategy<Value = String> {
    let count = prop_oneof![
        Just("0".to_owned()),
        Just("1".to_owned()),
        Just("8".to_owned()),
        Just("-1".to_owned()),
        Just("2000000".to_owned()),
        Just("4294967296".to_owned()),
        Just("1.5".to_owned()),
        Just("\"8\"".to_owned()),
    ];
    let list = prop_oneof![
        Just("[]".to_owned()),
        Just("[8, 8]".to_owned()),
        Just("[8, 4]".to_owned()),
        Just("[0]".to_owned()),
        Just("[4294967295]".to_owned()),
        Just("8".to_owned()),
        Just("[\"8\"]".to_owned()),
    ];
    let text = prop_oneof![
        Just("\"GPU\"".to_owned()),
        Just("\"NPU\"".to_owned()),
        Just("\"gpu\"".to_owned()),
        Just("\"\"".to_owned()),
        Just("3".to_owned()),
    ];
    let resources = prop_oneof![
        Just("{ my_custom = 1 }".to_owned()),
        Just("{ CPU = 1 }".to_owned()),
        Just("{ x = 0.00001 }".to_owned()),
        Just("{ x = -1 }".to_owned()),
        Just("{}".to_owned()),
        Just("2".to_owned()),
    ];
    (
        proptest::option::weighted(0.6, list),
        proptest::option::weighted(0.4, count.clone()),
        proptest::option::weighted(0.4, count.clone()),
        proptest::option::weighted(0.3, text.clone()),
        proptest::option::weighted(0.3, count),
        proptest::option::weighted(0.2, text),
        proptest::option::weighted(0.2, resources),
        proptest::option::weighted(0.05, Just("1".to_owned())),
    )
        .prop_map(|(list, gpus, nnodes, acc, mcc, kind, resources, unknown)| {
            let mut out = String::new();
            let keys = [
                ("process_on_nodes", list),
                ("gpus_per_node", gpus),
                ("nnodes", nnodes),
                ("accelerator", acc),
                ("max_colocate_count", mcc),
                ("accelerator_type", kind),
                ("bundle_resources", resources),
                ("nnode", unknown),
            ];
            for (key, value) in keys {
                if let Some(value) = value {
                    out.push_str(&format!("{key} = {value}\n"));
                }
            }
            out
        })
}

proptest! {
    #[test]
    fn serde_and_the_spanned_reader_agree(table in table()) {
        let expected = spanned(&table);
        let from_toml = toml::from_str::<PoolSpec>(&table);
        prop_assert_eq!(from_toml.as_ref().ok(), expected.as_ref().ok(), "{} {:?}", table, from_toml);
        let json = as_json(&table).expect("every generated table is TOML");
        let from_json = serde_json::from_str::<PoolSpec>(&json);
        prop_assert_eq!(from_json.as_ref().ok(), expected.as_ref().ok(), "{} {:?}", json, from_json);
        if let (Err(serde_error), Err(reader_errors)) = (&from_toml, &expected) {
            // The one serde reports is one the reader reports, except that a table with
            // both slot forms may fail first on the values of one form, which the reader
            // leaves unchecked once it has found both.
            let shown = serde_error.message();
            let both = reader_errors.iter().any(|e| e.contains("gives both"));
            prop_assert!(
                both || reader_errors.iter().any(|e| shown.contains(e.as_str())),
                "{} {} {:?}", table, shown, reader_errors
            );
        }
    }

    #[test]
    fn every_pool_reads_back_as_written(
        slots in proptest::collection::vec(1u32..=16, 1..4),
        npu in any::<bool>(),
        mcc in 1u32..5,
        kind in proptest::option::of("[a-z:0-9]{1,12}"),
        custom in proptest::collection::btree_map("c_[a-z]{1,6}", 0u64..200_000, 0..3),
    ) {
        let spec = PoolSpec {
            accelerator: if npu { Accelerator::Npu } else { Accelerator::Gpu },
            max_colocate_count: mcc,
            accelerator_type: kind,
            bundle_resources: custom
                .into_iter()
                .map(|(name, units)| (name, Amount::from_units(units)))
                .collect(),
            ..PoolSpec::with_slots(slots)
        };
        let text = toml::to_string(&spec).unwrap();
        prop_assert_eq!(spanned(&text), Ok(spec.clone()));
        prop_assert_eq!(toml::from_str::<PoolSpec>(&text).unwrap(), spec.clone());
        let json = serde_json::to_string(&spec).unwrap();
        prop_assert_eq!(serde_json::from_str::<PoolSpec>(&json).unwrap(), spec);
    }
}

#[test]
fn a_table_with_both_forms_may_fail_first_on_one_forms_values() {
    // toml hands the keys over sorted: the pair is read, and checked, before the list.
    let table = "process_on_nodes = [8, 8]\ngpus_per_node = 0\nnnodes = 0\n";
    let err = toml::from_str::<PoolSpec>(table).unwrap_err();
    assert!(
        err.message()
            .starts_with("`nnodes`: this pool has no node-slot"),
        "{err}"
    );
    // The reader, which sees the whole table, names the two forms; both refuse the table.
    assert_eq!(
        spanned(table),
        Err(vec![
            "this pool gives both `process_on_nodes` and `gpus_per_node`/`nnodes`".to_owned()
        ])
    );
}

#[test]
fn the_slot_limit_fails_at_the_count_that_passes_it() {
    // (the text, the value the error is at, what it says)
    let cases = [
        // `reward_pool`, left out, has one node-slot at least: `global_pool`'s count
        // passes the limit (a file of its own gets the same error at the same value).
        (
            "[global_pool]\ngpus_per_node = 8\nnnodes = 1000000\n",
            "1000000",
            "`nnodes`: pool `global_pool` brings the node-slots to at least 1000001, over \
             the limit of 1000000 (its own 1000000 and at least one for the pool not read \
             yet); is this a typo?",
        ),
        // The pool that passes the limit is a small one: the large one is named.
        (
            "[global_pool]\ngpus_per_node = 8\nnnodes = 999999\n[reward_pool]\n\
             process_on_nodes = [8, 8]\n",
            "[8, 8]",
            "`process_on_nodes`: pool `reward_pool` brings the node-slots to 1000001, over \
             the limit of 1000000 (its own 2 and 999999 of the pools before it); the \
             largest is pool `global_pool`, with 999999; is this a typo?",
        ),
    ];
    for (text, value, expected) in cases {
        let err = struct_from_toml(text).unwrap_err();
        let span = err.span().expect("toml gives the span");
        assert_eq!(&text[span], value, "{err}");
        assert!(err.message().starts_with(expected), "{err}");
    }
    // toml reads tables by name; JSON in the text's order.
    let json = r#"{"reward_pool": {"process_on_nodes": [8, 8]},
                   "global_pool": {"gpus_per_node": 8, "nnodes": 999999}}"#;
    let mut deserializer = serde_json::Deserializer::from_str(json);
    let err = deserialize_struct_pools(&mut deserializer, "Pools", &struct_fields()).unwrap_err();
    assert!(
        err.to_string().starts_with(
            "`nnodes`: pool `global_pool` brings the node-slots to 1000001, over the limit \
             of 1000000 (its own 999999 and 2 of the pools before it); is this a typo?"
        ),
        "{err}"
    );
    // Just past the value.
    let line = json.lines().nth(err.line() - 1).unwrap();
    assert_eq!(err.column(), line.find("}}").unwrap() + 1, "{err}");
    // `nnodes` first: the pair is complete at `gpus_per_node`, and the message names the
    // count's key.
    let json = r#"{"nnodes": 2000000, "gpus_per_node": 8}"#;
    let err = serde_json::from_str::<PoolSpec>(json).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("`nnodes`: this pool asks for 2000000 node-slots, more than the limit"),
        "{err}"
    );
    assert_eq!(err.column(), json.find('}').unwrap() + 1, "{err}");
    let text = "gpus_per_node = 8\nnnodes = 2000000\n";
    let err = toml::from_str::<PoolSpec>(text).unwrap_err();
    assert_eq!(&text[err.span().unwrap()], "2000000", "{err}");
    assert!(
        err.message()
            .starts_with("`nnodes`: this pool asks for 2000000 node-slots, more than the limit"),
        "{err}"
    );
    // Node-slots that no value gives (three of an attribute's) pass the limit at their
    // table, or at the pools' table when the pool is left out.
    let mut fields = struct_fields();
    fields[1].defaults.process_on_nodes = Some(vec![4; 3]);
    let expected = "pool `reward_pool` brings the node-slots to 1000001, over the limit of \
                    1000000 (its own 3 and 999998 of the pools before it); the largest is \
                    pool `global_pool`, with 999998; is this a typo?";
    for (text, at) in [
        (
            "[global_pool]\ngpus_per_node = 8\nnnodes = 999998\n[reward_pool]\naccelerator = \"NPU\"\n",
            "[reward_pool]",
        ),
        ("[global_pool]\ngpus_per_node = 8\nnnodes = 999998\n", ""),
    ] {
        let deserializer = toml::de::Deserializer::parse(text).unwrap();
        let Err(err) = deserialize_struct_pools(deserializer, "Pools", &fields) else {
            panic!("{text} loads")
        };
        assert_eq!(&text[err.span().unwrap()], at, "{err}");
        assert!(err.message().starts_with(expected), "{err}");
    }
}
