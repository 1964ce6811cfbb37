//! The advice is worded for where the layout was written ([`LayoutWording`]): a config
//! file, Rust code, verl's settings or a front end's own words; its JSON data is the same
//! whatever the words.

use miette::Diagnostic;

use super::diagnostics::SlotRef;
use super::ray_advice::{Pin, RayAdvice};
use super::suggest::{SuggestOptions, suggest, wanted};
use super::*;
use crate::lint::LintOptions;
use crate::load::load_config;
use crate::model::{Cluster, RoleName};
use crate::source::SourceFile;
use crate::test_support::node;

/// Ray's ordering trap (examples/configs/small_pool_first.toml): the 4-GPU pool first.
const SMALL_FIRST: &str = "[pools.reward_pool]\nprocess_on_nodes = [4]\n\n[pools.global_pool]\nprocess_on_nodes = [8]\n\n[mapping]\nrm = \"reward_pool\"\nactor_rollout = \"global_pool\"\n";
/// A layout that does not fit: two 8-GPU slots, then the reward pool.
const TOO_BIG: &str = "[pools.global_pool]\nprocess_on_nodes = [8, 8]\n\n[pools.reward_pool]\nprocess_on_nodes = [4]\n\n[mapping]\nactor_rollout = \"global_pool\"\nrm = \"reward_pool\"\n";

/// examples/clusters/big_and_small.toml: an 8-GPU node and a 4-GPU node.
fn big_and_small() -> Cluster {
    Cluster::new(vec![node("big", 8, 32), node("small", 4, 16)])
}

fn loaded(text: &str) -> LoadedConfig {
    let loaded = load_config(
        &SourceFile::new("pools.toml", text),
        &LintOptions::default(),
    );
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    loaded
}

/// A front end's own words: its pools are a dict to reorder, and a suggested layout is
/// pasted whole.
struct DictWords;

impl LayoutWords for DictWords {
    fn name(&self) -> &'static str {
        "dict"
    }
    fn how_to_reorder(&self) -> String {
        "reorder the dict's keys".to_owned()
    }
    fn other_accelerator(&self, asked: &str, found: &str) -> String {
        CONFIG_FILE.other_accelerator(asked, found)
    }
    fn accelerator_mismatch(&self, wanted: &str, found: &str) -> String {
        CONFIG_FILE.accelerator_mismatch(wanted, found)
    }
    fn too_large(&self, resource: &str, needed: crate::model::Amount) -> String {
        CONFIG_FILE.too_large(resource, needed)
    }
    fn cpus(&self, needed: crate::model::Amount, per_bundle: u32) -> String {
        CONFIG_FILE.cpus(needed, per_bundle)
    }
    fn fewer_or_smaller_slots(&self) -> String {
        CONFIG_FILE.fewer_or_smaller_slots()
    }
    fn fewer_nodes(&self) -> String {
        CONFIG_FILE.fewer_nodes()
    }
    fn smaller_slots(&self) -> String {
        CONFIG_FILE.smaller_slots()
    }
    fn whole_layout(&self, pools: &[crate::model::ResourcePool]) -> Option<String> {
        let names: Vec<&str> = pools.iter().map(|p| p.name.as_str()).collect();
        Some(format!("paste the dict of {}", names.join(" and ")))
    }
}

static DICT: DictWords = DictWords;

fn manager(loaded: &LoadedConfig) -> &ResourcePoolManager<RoleName> {
    loaded.manager.as_ref().expect("valid")
}

/// The check's one diagnostic: its help, and its JSON data.
fn hang_help(
    manager: &ResourcePoolManager<RoleName>,
    spans: &dyn SlotSpans,
) -> (String, serde_json::Value) {
    let report = check(manager, &big_and_small(), spans, &CheckOptions::default());
    let [hang] = &report.diagnostics[..] else {
        panic!("one diagnostic: {:?}", report.diagnostics);
    };
    assert_eq!(
        hang.code().map(|c| c.to_string()).as_deref(),
        Some("resource_pool::ray::hangs")
    );
    let help = hang.help().map(|h| h.to_string()).unwrap_or_default();
    (help, serde_json::to_value(hang).expect("serialises"))
}

const ORDER: &str =
    "Ray places every group when the pools are created in this order: global_pool, reward_pool";

#[test]
fn a_config_file_reorders_its_tables() {
    let file = loaded(SMALL_FIRST);
    let (help, _) = hang_help(manager(&file), &file);
    assert!(
        help.ends_with(&format!("{ORDER} (reorder the [pools.*] tables)")),
        "{help}"
    );
}

#[test]
fn a_front_end_words_the_reorder_with_the_same_json() {
    let file = loaded(SMALL_FIRST);
    let dict = wording::WordedAs(&file, LayoutWording(&DICT));
    let (help, data) = hang_help(manager(&file), &dict);
    assert!(
        help.ends_with(&format!("{ORDER} (reorder the dict's keys)")),
        "{help}"
    );
    assert!(!help.contains("[pools.*]"), "{help}");
    assert_eq!(data, hang_help(manager(&file), &file).1);
    assert_eq!(
        data["fix"],
        serde_json::json!({"kind": "pool_order", "pools": ["global_pool", "reward_pool"]})
    );
}

#[test]
fn rust_code_reorders_the_struct_fields_or_the_pools_given_to_new() {
    let file = loaded(SMALL_FIRST);
    let (help, data) = hang_help(manager(&file), &NoSpans);
    assert!(
        help.ends_with(&format!(
            "{ORDER} (reorder the fields of the #[derive(ResourcePools)] struct, or the pools given to ResourcePoolManager::new)"
        )),
        "{help}"
    );
    assert_eq!(data, hang_help(manager(&file), &file).1);
}

/// The suggestion's help and JSON data for `terms`.
fn suggestion_help(
    manager: &ResourcePoolManager<RoleName>,
    terms: &dyn suggest::LayoutTerms,
) -> (String, serde_json::Value) {
    let cluster = big_and_small();
    let report = check(manager, &cluster, terms, &CheckOptions::default());
    assert!(wanted(&report, terms));
    let found = suggest(&report, &cluster, terms, &SuggestOptions::default());
    let [advice] = &found.diagnostics(terms)[..] else {
        panic!("one suggestion");
    };
    let help = advice.help().map(|h| h.to_string()).unwrap_or_default();
    (help, serde_json::to_value(advice).expect("serialises"))
}

#[test]
fn a_config_files_suggestion_is_set_values() {
    let file = loaded(TOO_BIG);
    let (help, _) = suggestion_help(manager(&file), &file);
    assert_eq!(
        help,
        "check it with `--set 'pools.global_pool.process_on_nodes=[8]'`, then write it into the config"
    );
}

#[test]
fn a_front_ends_suggestion_may_be_the_whole_layout_with_the_same_json() {
    let file = loaded(TOO_BIG);
    let dict = wording::WordedAs(&file, LayoutWording(&DICT));
    let (help, data) = suggestion_help(manager(&file), &dict);
    assert_eq!(help, "paste the dict of global_pool and reward_pool");
    // The data is the generated config's: `--set` values on `Report.config`.
    assert_eq!(data, suggestion_help(manager(&file), &file).1);
    assert_eq!(data["style"], "set");
}

#[test]
fn rust_codes_suggestion_names_the_lists() {
    let file = loaded(TOO_BIG);
    let (help, _) = suggestion_help(manager(&file), &NoSpans);
    assert_eq!(help, "set the pools' process_on_nodes to these lists");
}

#[test]
fn ray_nodes_are_named_by_address_in_words_and_by_id_in_data() {
    // big_and_small with Ray's ids and addresses: the hang's order names the nodes by
    // address and short id; its JSON keeps the ids.
    let ids = ["ab".repeat(28), "cd".repeat(28)];
    let mut cluster = big_and_small();
    for (i, (node, id)) in cluster.nodes.iter_mut().zip(&ids).enumerate() {
        node.id = id.clone();
        node.address = Some(format!("10.0.0.{}", i + 1));
    }
    let file = loaded(SMALL_FIRST);
    let report = check(manager(&file), &cluster, &file, &CheckOptions::default());
    let [hang] = &report.diagnostics[..] else {
        panic!("one diagnostic: {:?}", report.diagnostics);
    };
    let help = hang.help().map(|h| h.to_string()).unwrap_or_default();
    assert!(
        help.starts_with(
            "Ray's order: reward_pool[0] → 10.0.0.1 (abababab…), global_pool[0] pends, \
             NO_RESOURCES (10.0.0.1 (abababab…): CPU 20 of 24, GPU 4 of 8)."
        ),
        "{help}"
    );
    let json = serde_json::to_value(hang).expect("serialises");
    let steps = &json["order"]["steps"];
    assert_eq!(steps[0]["node"], ids[0].as_str(), "{json}");
    assert_eq!(steps[1]["nearest"]["id"], ids[0].as_str(), "{json}");
    // A pin names its node as the order does.
    let pin = RayAdvice::Pin {
        pins: vec![Pin {
            group: SlotRef {
                pool: "global_pool".into(),
                slot: 0,
            },
            node: cluster.nodes[1].name(),
        }],
    };
    assert!(
        pin.to_string()
            .ends_with("global_pool[0] → 10.0.0.2 (cdcdcdcd…)"),
        "{pin}"
    );
    assert_eq!(
        serde_json::to_value(&pin).expect("serialises")["pins"][0]["node"],
        ids[1].as_str()
    );
}
