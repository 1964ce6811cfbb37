//! `resource-pool schema config|cluster`: the schemas are valid draft 2020-12, every
//! example file passes them, they reject what the lint rejects where a schema can say it,
//! and they never reject what the lint accepts (an editor must not underline a file that
//! `resource-pool lint` passes).

use crate::common;

use common::run;

use std::path::Path;

use proptest::prelude::*;
use resource_pool::inventory::cluster_file::{ClusterLimits, load_cluster};
use resource_pool::json_schema::{DIALECT, cluster_schema, config_schema};
use resource_pool::lint::{LintOptions, RoleSet};
use resource_pool::load::load_config;
use resource_pool::source::SourceFile;
use serde_json::{Value, json};

fn printed_schema(format: &str) -> Value {
    let output = run(&["schema", format]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(output.stderr.is_empty(), "{output:?}");
    serde_json::from_slice(&output.stdout).expect("the schema is JSON")
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::draft202012::new(schema).expect("the schema compiles")
}

/// A TOML file as the JSON an editor validates (taplo converts the same way).
fn toml_as_json(text: &str) -> Value {
    let table: toml::Table = toml::from_str(text).expect("the TOML parses");
    serde_json::to_value(table).expect("TOML values are JSON values")
}

fn errors(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

fn toml_files(dir: &str) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths: Vec<String> = std::fs::read_dir(root.join(dir))
        .expect("the directory exists")
        .map(|e| {
            format!(
                "{dir}/{}",
                e.expect("an entry").file_name().to_string_lossy()
            )
        })
        .filter(|p| p.ends_with(".toml"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no TOML files in {dir}");
    paths
}

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).expect(path)
}

/// The codes of the errors (not warnings) `lint` reports, and its exit status.
fn lint_errors(text: &str) -> (Option<i32>, Vec<String>) {
    static FILES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("resource-pool-schema-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let number = FILES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = dir.join(format!("config-{number}.toml"));
    std::fs::write(&path, text).expect("the file is written");
    let path = path.to_string_lossy().into_owned();
    let output = run(&["lint", "--format", "json", &path]);
    let report: Value = serde_json::from_slice(&output.stdout).expect("lint prints JSON");
    let codes = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["severity"] == "error")
        .map(|d| d["code"].as_str().unwrap_or_default().to_owned())
        .collect();
    (output.status.code(), codes)
}

#[test]
fn the_printed_schemas_are_the_librarys_and_valid_draft_2020_12() {
    let config = printed_schema("config");
    let cluster = printed_schema("cluster");
    assert_eq!(config, config_schema(&resource_pool::verl::role_set()));
    assert_eq!(cluster, cluster_schema());
    assert_eq!(
        printed_schema_with(&["schema", "config", "--roles", "any"]),
        config_schema(&RoleSet::Any)
    );
    for schema in [&config, &cluster] {
        assert_eq!(schema["$schema"], DIALECT);
        if let Err(error) = jsonschema::draft202012::meta::validate(schema) {
            panic!("not a valid draft 2020-12 schema: {error}");
        }
    }
}

fn printed_schema_with(args: &[&str]) -> Value {
    let output = run(args);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    serde_json::from_slice(&output.stdout).expect("JSON")
}

#[test]
fn schema_needs_a_known_format() {
    let output = run(&["schema", "pools"]);
    assert_eq!(output.status.code(), Some(2));
    let output = run(&["schema"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn the_schemas_have_descriptions_and_the_readers_defaults() {
    let config = config_schema(&resource_pool::verl::role_set());
    let pool = &config["$defs"]["pool"]["properties"];
    assert_eq!(pool["accelerator"]["default"], "GPU");
    assert_eq!(
        pool["max_colocate_count"]["default"],
        resource_pool::DEFAULT_MAX_COLOCATE_COUNT
    );
    let cluster = cluster_schema();
    assert_eq!(
        cluster["$defs"]["node"]["properties"]["alive"]["default"],
        true
    );
    for (name, key) in pool.as_object().expect("properties") {
        assert!(key["description"].is_string(), "{name}");
    }
    // verl's role names are offered for completion, by both their spellings.
    let mapping = &config["properties"]["mapping"]["properties"];
    for role in [
        "actor_rollout",
        "critic",
        "ref",
        "ref_policy",
        "rm",
        "reward_model",
    ] {
        assert!(mapping[role]["description"].is_string(), "{role}");
    }
}

#[test]
fn every_example_config_passes_the_config_schema() {
    let schema = validator(&config_schema(&resource_pool::verl::role_set()));
    for path in toml_files("examples/configs") {
        let problems = errors(&schema, &toml_as_json(&read(&path)));
        assert!(problems.is_empty(), "{path}: {problems:#?}");
    }
    // The derived struct's file holds pool tables with the same keys.
    let pools = toml_as_json(&read("examples/trainer_pools.toml"));
    let problems = errors(&schema, &json!({ "pools": pools }));
    assert!(problems.is_empty(), "trainer_pools.toml: {problems:#?}");
}

#[test]
fn every_example_cluster_passes_the_cluster_schema() {
    let schema = validator(&cluster_schema());
    for path in toml_files("examples/clusters") {
        let problems = errors(&schema, &toml_as_json(&read(&path)));
        assert!(problems.is_empty(), "{path}: {problems:#?}");
    }
}

#[test]
fn every_json_example_cluster_and_json_inventory_passes_the_cluster_schema() {
    let schema = validator(&cluster_schema());
    let mut checked = 0;
    for entry in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/clusters"))
        .expect("examples/clusters")
    {
        let path = entry.expect("an entry").path();
        if path.extension().is_some_and(|e| e == "json") {
            let instance: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).expect("readable"))
                    .expect("JSON");
            let problems = errors(&schema, &instance);
            assert!(problems.is_empty(), "{}: {problems:#?}", path.display());
            checked += 1;
        }
    }
    assert!(checked > 0, "no JSON example cluster");
    let output = run(&[
        "inventory",
        "--cluster",
        "examples/clusters/busy.toml",
        "--format",
        "json",
    ]);
    let instance: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let problems = errors(&schema, &instance);
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn the_inventory_of_each_source_passes_the_cluster_schema() {
    let schema = validator(&cluster_schema());
    for args in [
        vec!["inventory", "--cluster", "examples/clusters/busy.toml"],
        vec![
            "inventory",
            "--slurm",
            "resource-pool-inventory/tests/data/slurm/nodes.json",
        ],
        vec![
            "inventory",
            "--kubectl",
            "resource-pool-inventory/tests/data/kubectl/nodes.json",
            "--kubectl-pods",
            "resource-pool-inventory/tests/data/kubectl/pods.json",
        ],
    ] {
        let output = run(&args);
        assert_eq!(output.status.code(), Some(0), "{args:?}: {output:?}");
        let text = String::from_utf8(output.stdout).expect("utf-8");
        let problems = errors(&schema, &toml_as_json(&text));
        assert!(problems.is_empty(), "{args:?}: {problems:#?}");
    }
}

/// Configs the lint rejects, the error code it gives, and whether a schema can say so.
const REJECTED_CONFIGS: &[(&str, &str, &str)] = &[
    (
        "zero colocate",
        "[pools.p]\nprocess_on_nodes = [8]\nmax_colocate_count = 0\n[mapping]\nactor_rollout = \"p\"\n",
        "resource_pool::config::zero_colocate",
    ),
    (
        "a zero node-slot",
        "[pools.p]\nprocess_on_nodes = [8, 0]\n[mapping]\nactor_rollout = \"p\"\n",
        "resource_pool::config::zero_slot",
    ),
    (
        "zero gpus_per_node",
        "[pools.p]\ngpus_per_node = 0\nnnodes = 2\n[mapping]\nactor_rollout = \"p\"\n",
        "resource_pool::config::zero_slot",
    ),
    (
        "empty process_on_nodes",
        "[pools.p]\nprocess_on_nodes = []\n[mapping]\nactor_rollout = \"p\"\n",
        "resource_pool::config::empty_process_on_nodes",
    ),
    (
        "zero nnodes",
        "[pools.p]\ngpus_per_node = 8\nnnodes = 0\n[mapping]\nactor_rollout = \"p\"\n",
        "resource_pool::config::empty_process_on_nodes",
    ),
    (
        "both slot forms",
        "[pools.p]\nprocess_on_nodes = [8]\ngpus_per_node = 8\nnnodes = 1\n[mapping]\nactor_rollout = \"p\"\n",
        "resource_pool::config::both_slot_forms",
    ),
    (
        "a list and half a pair",
        "[pools.p]\nprocess_on_nodes = [8]\nnnodes = 1\n[mapping]\nactor_rollout = \"p\"\n",
        "resource_pool::config::both_slot_forms",
    ),
    (
        "half a pair",
        "[pools.p]\ngpus_per_node = 8\n[mapping]\nactor_rollout = \"p\"\n",
        "resource_pool::config::incomplete_slot_form",
    ),
    (
        "no slot form",
        "[pools.p]\naccelerator = \"GPU\"\n[mapping]\nactor_rollout = \"p\"\n",
        "resource_pool::config::missing_slots",
    ),
    (
        "an unknown accelerator",
        "[pools.p]\nprocess_on_nodes = [8]\naccelerator = \"gpu\"\n[mapping]\nactor_rollout = \"p\"\n",
        "resource_pool::config::unknown_accelerator",
    ),
    (
        "an empty accelerator_type",
        "[pools.p]\nprocess_on_nodes = [8]\naccelerator_type = \"\"\n[mapping]\nactor_rollout = \"p\"\n",
        "resource_pool::config::empty_accelerator_type",
    ),
    (
        "CPU in bundle_resources",
        "[pools.p]\nprocess_on_nodes = [8]\nbundle_resources = { CPU = 1 }\n[mapping]\nactor_rollout = \"p\"\n",
        "resource_pool::config::bad_bundle_resource",
    ),
    (
        "NPU in bundle_resources",
        "[pools.p]\nprocess_on_nodes = [8]\nbundle_resources = { NPU = 1 }\n[mapping]\nactor_rollout = \"p\"\n",
        "resource_pool::config::bad_bundle_resource",
    ),
    (
        "a Ray-internal bundle resource",
        "[pools.p]\nprocess_on_nodes = [8]\nbundle_resources = { \"node:10.0.0.1\" = 1 }\n[mapping]\nactor_rollout = \"p\"\n",
        "resource_pool::config::bad_bundle_resource",
    ),
    (
        "a placement-group bundle resource",
        "[pools.p]\nprocess_on_nodes = [8]\nbundle_resources = { GPU_group_abc = 1 }\n[mapping]\nactor_rollout = \"p\"\n",
        "resource_pool::config::bad_bundle_resource",
    ),
    (
        "an empty bundle resource name",
        "[pools.p]\nprocess_on_nodes = [8]\nbundle_resources = { \"\" = 1 }\n[mapping]\nactor_rollout = \"p\"\n",
        "resource_pool::config::bad_bundle_resource",
    ),
    (
        "a negative bundle resource",
        "[pools.p]\nprocess_on_nodes = [8]\nbundle_resources = { my_custom = -1 }\n[mapping]\nactor_rollout = \"p\"\n",
        "resource_pool::toml::bad_number",
    ),
    (
        "no pools",
        "[mapping]\nactor_rollout = \"p\"\n",
        "resource_pool::config::no_pools",
    ),
    (
        "an empty pools table",
        "[pools]\n[mapping]\nactor_rollout = \"p\"\n",
        "resource_pool::config::no_pools",
    ),
    (
        "an unknown top-level key",
        "[pools.p]\nprocess_on_nodes = [8]\n[mappings]\nactor_rollout = \"p\"\n",
        "resource_pool::toml::unknown_key",
    ),
    (
        "an unknown pool key",
        "[pools.p]\nprocess_on_node = [8]\n[mapping]\nactor_rollout = \"p\"\n",
        "resource_pool::toml::unknown_key",
    ),
    (
        "a count as a string",
        "[pools.p]\nprocess_on_nodes = [\"8\"]\n[mapping]\nactor_rollout = \"p\"\n",
        "resource_pool::toml::wrong_type",
    ),
    (
        "a fractional count",
        "[pools.p]\ngpus_per_node = 2.5\nnnodes = 1\n[mapping]\nactor_rollout = \"p\"\n",
        "resource_pool::toml::bad_number",
    ),
    (
        "a negative count",
        "[pools.p]\nprocess_on_nodes = [-8]\n[mapping]\nactor_rollout = \"p\"\n",
        "resource_pool::toml::bad_number",
    ),
    (
        "a count past u32",
        "[pools.p]\nprocess_on_nodes = [4294967296]\n[mapping]\nactor_rollout = \"p\"\n",
        "resource_pool::toml::bad_number",
    ),
    (
        "a pool that is not a table",
        "pools = { p = 8 }\n[mapping]\nactor_rollout = \"p\"\n",
        "resource_pool::toml::wrong_type",
    ),
    (
        "a mapping to a number",
        "[pools.p]\nprocess_on_nodes = [8]\n[mapping]\nactor_rollout = 1\n",
        "resource_pool::toml::wrong_type",
    ),
    (
        "an accelerator that is not a string",
        "[pools.p]\nprocess_on_nodes = [8]\naccelerator = 1\n[mapping]\nactor_rollout = \"p\"\n",
        "resource_pool::toml::wrong_type",
    ),
];

/// Cluster files the reader rejects, and the error code it gives.
const REJECTED_CLUSTERS: &[(&str, &str, &str)] = &[
    ("no nodes", "", "resource_pool::cluster::no_nodes"),
    (
        "an empty node list",
        "nodes = []\n",
        "resource_pool::cluster::no_nodes",
    ),
    (
        "a node without id",
        "[[nodes]]\navailable = { GPU = 8 }\n",
        "resource_pool::toml::missing_key",
    ),
    (
        "a node without available",
        "[[nodes]]\nid = \"a\"\n",
        "resource_pool::toml::missing_key",
    ),
    (
        "an unknown node key",
        "[[nodes]]\nid = \"a\"\navailable = { GPU = 8 }\ngpus = 8\n",
        "resource_pool::toml::unknown_key",
    ),
    (
        "an unknown top-level key",
        "node = 1\n[[nodes]]\nid = \"a\"\navailable = { GPU = 8 }\n",
        "resource_pool::toml::unknown_key",
    ),
    (
        "alive as a string",
        "[[nodes]]\nid = \"a\"\navailable = { GPU = 8 }\nalive = \"yes\"\n",
        "resource_pool::toml::wrong_type",
    ),
    (
        "a negative amount",
        "[[nodes]]\nid = \"a\"\navailable = { GPU = -8 }\n",
        "resource_pool::toml::bad_number",
    ),
    (
        "an amount past Ray's",
        "[[nodes]]\nid = \"a\"\navailable = { GPU = 1e20 }\n",
        "resource_pool::toml::bad_number",
    ),
    (
        "a label that is not a string",
        "[[nodes]]\nid = \"a\"\navailable = { GPU = 8 }\nlabels = { zone = 1 }\n",
        "resource_pool::toml::wrong_type",
    ),
    (
        "an id that is not a string",
        "[[nodes]]\nid = 1\navailable = { GPU = 8 }\n",
        "resource_pool::toml::wrong_type",
    ),
];

#[test]
fn the_config_schema_rejects_what_lint_rejects() {
    let schema = validator(&config_schema(&resource_pool::verl::role_set()));
    for (case, text, code) in REJECTED_CONFIGS {
        let (status, codes) = lint_errors(text);
        assert_eq!(status, Some(1), "{case}: lint must fail");
        assert!(codes.iter().any(|c| c == code), "{case}: {codes:?}");
        assert!(
            !schema.is_valid(&toml_as_json(text)),
            "{case}: the schema accepts it"
        );
    }
    let many = read("resource-pool-core/tests/data/lint/many_problems.toml");
    assert!(!schema.is_valid(&toml_as_json(&many)));
}

#[test]
fn the_cluster_schema_rejects_what_the_reader_rejects() {
    let schema = validator(&cluster_schema());
    for (case, text, code) in REJECTED_CLUSTERS {
        let loaded = load_cluster(&SourceFile::new("c.toml", *text), &ClusterLimits::default());
        let codes: Vec<String> = loaded
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .filter_map(|d| miette::Diagnostic::code(d).map(|c| c.to_string()))
            .collect();
        assert!(codes.iter().any(|c| c == code), "{case}: {codes:?}");
        assert!(
            !schema.is_valid(&toml_as_json(text)),
            "{case}: the schema accepts it"
        );
    }
}

#[test]
fn unknown_roles_and_warnings_pass_the_schema() {
    // The lint only warns about these; an editor must not underline them.
    let schema = validator(&config_schema(&resource_pool::verl::role_set()));
    let text = "[pools.p]\nprocess_on_nodes = [8, 4]\n[pools.unused]\nprocess_on_nodes = [8]\n\
                [mapping]\nmy_own_role = \"p\"\n";
    let (status, codes) = lint_errors(text);
    assert_eq!((status, codes), (Some(0), Vec::new()));
    assert!(schema.is_valid(&toml_as_json(text)));
}

// Random configs and clusters, mostly valid, each value now and then one its reader
// refuses, so both sides of each rule are seen.

type Judged<T> = (T, bool);

fn int(n: i64) -> toml::Value {
    toml::Value::Integer(n)
}

fn text(s: &str) -> toml::Value {
    toml::Value::String(s.to_owned())
}

fn count_value() -> impl Strategy<Value = toml::Value> {
    prop_oneof![
        60 => (1i64..=9).prop_map(int),
        1 => Just(int(0)),
        1 => Just(int(-1)),
        1 => Just(int(4_294_967_296)),
        1 => Just(toml::Value::Float(2.5)),
        1 => Just(text("8")),
        1 => Just(toml::Value::Boolean(true)),
    ]
}

/// An amount, and whether a schema can judge it (it cannot see Ray's 0.0001 steps).
fn amount_value() -> impl Strategy<Value = Judged<toml::Value>> {
    prop_oneof![
        40 => (0i64..=96).prop_map(|n| (int(n), true)),
        2 => Just((toml::Value::Float(0.5), true)),
        1 => Just((int(-1), true)),
        1 => Just((toml::Value::Float(1e20), true)),
        1 => Just((toml::Value::Float(0.00001), false)),
        1 => Just((text("8"), true)),
    ]
}

fn resources_value(
    names: &'static [(u32, &'static str)],
) -> impl Strategy<Value = Judged<toml::Value>> {
    let name = proptest::strategy::Union::new_weighted(
        names.iter().map(|(w, n)| (*w, Just(*n).boxed())).collect(),
    );
    prop_oneof![
        12 => proptest::collection::vec((name, amount_value()), 0..3).prop_map(|items| {
            let judged = items.iter().all(|(_, (_, judged))| *judged);
            let table: toml::Table = items
                .into_iter()
                .map(|(name, (amount, _))| (name.to_owned(), amount))
                .collect();
            (toml::Value::Table(table), judged)
        }),
        1 => Just((text("GPU = 8"), true)),
    ]
}

/// `Some` four times in five.
fn sometimes<T: std::fmt::Debug + Clone + 'static>(
    strategy: impl Strategy<Value = T> + 'static,
) -> BoxedStrategy<Option<T>> {
    prop_oneof![1 => Just(None), 4 => strategy.prop_map(Some)].boxed()
}

/// `Some` one time in five.
fn rarely<T: std::fmt::Debug + Clone + 'static>(
    strategy: impl Strategy<Value = T> + 'static,
) -> BoxedStrategy<Option<T>> {
    prop_oneof![4 => Just(None), 1 => strategy.prop_map(Some)].boxed()
}

/// The keys that size a pool: one form, both, half of one or none.
fn slot_keys() -> impl Strategy<Value = Vec<(&'static str, toml::Value)>> {
    let list = prop_oneof![
        12 => proptest::collection::vec(count_value(), 1..4).prop_map(toml::Value::Array),
        1 => Just(toml::Value::Array(Vec::new())),
        1 => Just(text("8, 8")),
    ];
    prop_oneof![
        6 => list.clone().prop_map(|l| vec![("process_on_nodes", l)]),
        6 => (count_value(), count_value())
            .prop_map(|(g, n)| vec![("gpus_per_node", g), ("nnodes", n)]),
        1 => (list, count_value(), count_value()).prop_map(|(l, g, n)| {
            vec![("process_on_nodes", l), ("gpus_per_node", g), ("nnodes", n)]
        }),
        1 => count_value().prop_map(|g| vec![("gpus_per_node", g)]),
        1 => count_value().prop_map(|n| vec![("nnodes", n)]),
        1 => Just(Vec::new()),
    ]
}

/// A pool table, and whether a schema can judge everything in it.
fn pool_table() -> impl Strategy<Value = Judged<toml::Value>> {
    let accelerator = prop_oneof![
        8 => Just(text("GPU")),
        4 => Just(text("NPU")),
        1 => Just(text("gpu")),
        1 => Just(text("TPU")),
        1 => Just(int(1)),
    ];
    let bundle_names: &'static [(u32, &'static str)] = &[
        (12, "my_custom"),
        (1, "CPU"),
        (1, "GPU"),
        (1, ""),
        (1, "node:10.0.0.1"),
        (1, "bundle_group_x"),
    ];
    (
        slot_keys(),
        rarely(accelerator),
        rarely(count_value()),
        rarely(Just(text("accelerator_type:H100"))),
        rarely(resources_value(bundle_names)),
        proptest::bool::weighted(0.05),
    )
        .prop_map(|(slots, accelerator, colocate, kind, bundle, typo)| {
            let mut table: toml::Table =
                slots.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
            let mut judged = true;
            let mut put = |key: &str, value: Option<toml::Value>| {
                if let Some(value) = value {
                    table.insert(key.to_owned(), value);
                }
            };
            put("accelerator", accelerator);
            put("max_colocate_count", colocate);
            put("accelerator_type", kind);
            if let Some((bundle, bundle_judged)) = bundle {
                judged &= bundle_judged;
                put("bundle_resources", Some(bundle));
            }
            if typo {
                put("process_on_node", Some(int(8)));
            }
            (toml::Value::Table(table), judged)
        })
}

const POOL_NAMES: &[&str] = &["global_pool", "reward_pool", "p"];
const ROLES: &[&str] = &[
    "actor_rollout",
    "critic",
    "ref",
    "ref_policy",
    "rm",
    "my_role",
];

/// A config, and whether a schema can judge everything in it: the lint alone sees a
/// mapping to a pool that is not there, a role mapped under two names, and 0.0001 steps.
fn config() -> impl Strategy<Value = Judged<toml::Table>> {
    let pool = prop_oneof![12 => pool_table(), 1 => Just((int(8), true))];
    let pools = proptest::collection::btree_map(proptest::sample::select(POOL_NAMES), pool, 1..3);
    let pools = prop_oneof![
        12 => pools.prop_map(Some),
        1 => Just(Some(Default::default())),
        1 => Just(None),
    ];
    pools
        .prop_flat_map(|pools| {
            // Roles mapped to the pools there are, now and then to one that is not.
            let names: Vec<String> = pools
                .iter()
                .flat_map(|p| p.keys())
                .map(|n| (*n).to_owned())
                .collect();
            let missing = prop_oneof![Just(text("missing_pool")), Just(int(1))];
            let target = if names.is_empty() {
                missing.boxed()
            } else {
                prop_oneof![
                    12 => proptest::sample::select(names).prop_map(|p| text(&p)),
                    1 => missing,
                ]
                .boxed()
            };
            let mapping =
                proptest::collection::btree_map(proptest::sample::select(ROLES), target, 0..4);
            (
                Just(pools),
                sometimes(mapping),
                proptest::bool::weighted(0.05),
            )
        })
        .prop_map(|(pools, mapping, typo)| {
            let mut root = toml::Table::new();
            let mut judged = true;
            let mut pool_names = Vec::new();
            if let Some(pools) = pools {
                let mut table = toml::Table::new();
                for (name, (pool, pool_judged)) in pools {
                    judged &= pool_judged;
                    pool_names.push(name);
                    table.insert(name.to_owned(), pool);
                }
                root.insert("pools".into(), toml::Value::Table(table));
            }
            if let Some(mapping) = mapping {
                let mut table = toml::Table::new();
                for (role, target) in mapping {
                    if let toml::Value::String(pool) = &target {
                        judged &= pool_names.contains(&pool.as_str());
                    }
                    table.insert(role.to_owned(), target);
                }
                judged &= !(table.contains_key("ref") && table.contains_key("ref_policy"));
                root.insert("mapping".into(), toml::Value::Table(table));
            }
            if typo {
                root.insert("mappings".into(), toml::Value::Table(toml::Table::new()));
            }
            (root, judged)
        })
}

/// A node entry with the id `id`, and whether a schema can judge everything in it.
fn node(id: String) -> impl Strategy<Value = Judged<toml::Value>> {
    let id = prop_oneof![
        12 => Just(text(&id)),
        1 => Just(text("node-0")),
        1 => Just(int(1)),
    ];
    let names: &'static [(u32, &'static str)] =
        &[(4, "GPU"), (4, "CPU"), (1, "NPU"), (1, "memory")];
    let alive = prop_oneof![
        8 => any::<bool>().prop_map(toml::Value::Boolean),
        1 => Just(text("yes")),
    ];
    let label = prop_oneof![4 => Just(text("a")), 1 => Just(int(1))];
    let labels =
        label.prop_map(|v| toml::Value::Table(toml::Table::from_iter([("zone".into(), v)])));
    (
        prop_oneof![12 => id.prop_map(Some), 1 => Just(None)],
        prop_oneof![12 => resources_value(names).prop_map(Some), 1 => Just(None)],
        rarely(resources_value(names)),
        rarely(alive),
        rarely(Just(text("10.0.0.1"))),
        rarely(labels),
        proptest::bool::weighted(0.05),
    )
        .prop_map(|(id, available, total, alive, address, labels, typo)| {
            let mut table = toml::Table::new();
            let mut judged = true;
            for (key, value) in [("available", available), ("total", total)] {
                if let Some((value, value_judged)) = value {
                    judged &= value_judged;
                    table.insert(key.into(), value);
                }
            }
            for (key, value) in [
                ("id", id),
                ("alive", alive),
                ("address", address),
                ("labels", labels),
            ] {
                if let Some(value) = value {
                    table.insert(key.into(), value);
                }
            }
            if typo {
                table.insert("gpus".into(), int(8));
            }
            (toml::Value::Table(table), judged)
        })
}

/// A cluster file; duplicate ids are for the reader alone to see.
fn cluster() -> impl Strategy<Value = Judged<toml::Table>> {
    let nodes = prop_oneof![1 => Just(0usize), 12 => 1usize..4].prop_flat_map(|n| {
        (0..n)
            .map(|i| node(format!("node-{i}")))
            .collect::<Vec<_>>()
    });
    (
        prop_oneof![12 => nodes.prop_map(Some), 1 => Just(None)],
        proptest::bool::weighted(0.05),
    )
        .prop_map(|(nodes, typo)| {
            let mut root = toml::Table::new();
            let mut judged = true;
            if let Some(nodes) = nodes {
                let mut ids = Vec::new();
                let mut items = Vec::new();
                for (node, node_judged) in nodes {
                    judged &= node_judged;
                    if let Some(toml::Value::String(id)) = node.get("id") {
                        judged &= !ids.contains(id);
                        ids.push(id.clone());
                    }
                    items.push(node);
                }
                root.insert("nodes".into(), toml::Value::Array(items));
            }
            if typo {
                root.insert("node".into(), int(1));
            }
            (root, judged)
        })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// The schema accepts every config the lint accepts, and where it can judge the whole
    /// file, rejects every config the lint rejects.
    #[test]
    fn the_config_schema_agrees_with_the_lint((root, judged) in config()) {
        let text = toml::to_string(&root).expect("the config is TOML");
        let loaded = load_config(&SourceFile::new("c.toml", text.clone()), &verl_lint());
        agrees(config_validator(), &root, &text, judged, &loaded.diagnostics, loaded.has_errors())?;
    }

    /// The same for cluster files and their reader.
    #[test]
    fn the_cluster_schema_agrees_with_the_reader((root, judged) in cluster()) {
        let text = toml::to_string(&root).expect("the cluster is TOML");
        let loaded = load_cluster(&SourceFile::new("c.toml", text.clone()), &ClusterLimits::default());
        agrees(cluster_validator(), &root, &text, judged, &loaded.diagnostics, loaded.has_errors())?;
    }

    /// And for the same cluster files written as JSON: one schema for both formats.
    #[test]
    fn the_cluster_schema_agrees_with_the_json_reader((root, judged) in cluster()) {
        let text = serde_json::to_string_pretty(&root).expect("the cluster is JSON");
        let loaded = load_cluster(&SourceFile::new("c.json", text.clone()), &ClusterLimits::default());
        agrees(cluster_validator(), &root, &text, judged, &loaded.diagnostics, loaded.has_errors())?;
    }
}

/// The schema accepts `root` when the reader found no error, and, when `judged` (nothing
/// in it is for the reader alone to see), refuses it when the reader found one.
fn agrees<D: std::fmt::Debug>(
    schema: &jsonschema::Validator,
    root: &toml::Table,
    text: &str,
    judged: bool,
    diagnostics: &[D],
    reader_refuses: bool,
) -> Result<(), TestCaseError> {
    let instance = serde_json::to_value(root).expect("JSON");
    let schema_accepts = schema.is_valid(&instance);
    if !reader_refuses {
        prop_assert!(
            schema_accepts,
            "the schema refuses what the reader accepts:\n{text}\n{:#?}",
            errors(schema, &instance)
        );
    } else if judged {
        prop_assert!(
            !schema_accepts,
            "the schema accepts what the reader refuses:\n{text}\n{diagnostics:?}"
        );
    }
    Ok(())
}

fn config_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: std::sync::OnceLock<jsonschema::Validator> = std::sync::OnceLock::new();
    VALIDATOR.get_or_init(|| validator(&config_schema(&resource_pool::verl::role_set())))
}

fn cluster_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: std::sync::OnceLock<jsonschema::Validator> = std::sync::OnceLock::new();
    VALIDATOR.get_or_init(|| validator(&cluster_schema()))
}

/// The schemas in `schemas/`, which a TOML file can name in its `#:schema` line, are the
/// printed ones. After a change to a format: `resource-pool schema config >
/// schemas/config.schema.json` (and `cluster`).
#[test]
fn the_committed_schemas_are_current() {
    for (format, path) in [
        ("config", "schemas/config.schema.json"),
        ("cluster", "schemas/cluster.schema.json"),
    ] {
        let printed = String::from_utf8(run(&["schema", format]).stdout).expect("utf-8");
        assert!(
            read(path) == printed,
            "{path} is stale: run `cargo run -q -- schema {format} > {path}`"
        );
    }
}

/// The CLI's lint options: verl's roles.
fn verl_lint() -> LintOptions {
    LintOptions {
        roles: resource_pool::verl::role_set(),
        ..LintOptions::default()
    }
}
