//! `resource-pool verl`: verl's YAML and overrides to checked pools, end to end.

use crate::common;

use common::run;

use serde_json::{Value, json};

pub(crate) fn json_of(args: &[&str]) -> (Option<i32>, Value) {
    let mut all = vec!["verl", "--format", "json"];
    all.extend_from_slice(args);
    let output = run(&all);
    let value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    });
    (output.status.code(), value)
}

pub(crate) fn codes(value: &Value) -> Vec<&str> {
    value["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["code"].as_str().expect("code"))
        .collect()
}

/// The human report (stderr) and plan (stdout) together.
fn human(args: &[&str]) -> String {
    let mut all = vec!["verl"];
    all.extend_from_slice(args);
    let output = run(&all);
    format!(
        "exit: {:?}\n--- stdout\n{}--- stderr\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

const THREE: &str = "examples/clusters/three_nodes.toml";
const ASCEND: &str = "examples/clusters/ascend.toml";

#[test]
fn each_supported_layout_builds_verls_pools() {
    let cases = [
        (
            "resource-pool-verl/tests/data/verl/colocated.yaml",
            THREE,
            json!([{"name": "global_pool", "process_on_nodes": [8], "accelerator": "GPU", "max_colocate_count": 3}]),
            json!({"actor_rollout": "global_pool", "critic": "global_pool", "ref": "global_pool"}),
        ),
        (
            "resource-pool-verl/tests/data/verl/reward_pool.yaml",
            THREE,
            json!([
                {"name": "global_pool", "process_on_nodes": [8, 8], "accelerator": "GPU", "max_colocate_count": 3},
                {"name": "reward_pool", "process_on_nodes": [4], "accelerator": "GPU", "max_colocate_count": 3}
            ]),
            json!({"actor_rollout": "global_pool", "critic": "global_pool", "rm": "reward_pool", "ref": "global_pool"}),
        ),
        (
            "resource-pool-verl/tests/data/verl/npu.yaml",
            ASCEND,
            json!([
                {"name": "global_pool", "process_on_nodes": [8, 8], "accelerator": "NPU", "max_colocate_count": 3},
                {"name": "reward_pool", "process_on_nodes": [8], "accelerator": "NPU", "max_colocate_count": 3}
            ]),
            json!({"actor_rollout": "global_pool", "critic": "global_pool", "rm": "reward_pool"}),
        ),
    ];
    for (yaml, cluster, pools, mapping) in cases {
        let (code, value) = json_of(&["--config", yaml, "--cluster", cluster]);
        assert_eq!(value["pools"], pools, "{yaml}");
        assert_eq!(value["mapping"], mapping, "{yaml}");
        assert_eq!(
            code,
            Some(if value["feasible"] == json!(true) {
                0
            } else {
                1
            }),
            "{yaml}: {value}"
        );
    }
}

#[test]
fn overrides_change_the_yaml_and_diagnostics_point_at_them() {
    let (code, value) = json_of(&[
        "--config",
        "resource-pool-verl/tests/data/verl/reward_pool.yaml",
        "--cluster",
        THREE,
        "--",
        "trainer.nnodes=3",
    ]);
    assert_eq!(value["pools"][0]["process_on_nodes"], json!([8, 8, 8]));
    assert_eq!(code, Some(1), "three 8s and a 4 do not fit 8+8+4: {value}");
    let d = value["diagnostics"].as_array().unwrap();
    let placed = d
        .iter()
        .find(|d| {
            d["code"]
                .as_str()
                .unwrap()
                .starts_with("resource_pool::placement")
        })
        .expect("a placement error");
    assert_eq!(placed["file"], "command line", "{placed}");
}

#[test]
fn verl_rejections_are_errors_on_the_yaml() {
    let (code, value) = json_of(&[
        "--config",
        "resource-pool-verl/tests/data/verl/broken.yaml",
        "--cluster",
        THREE,
    ]);
    assert_eq!(code, Some(1));
    assert_eq!(
        codes(&value),
        [
            "resource_pool::verl::wrong_type",
            "resource_pool::verl::not_positive",
            "resource_pool::verl::reward_pool_size",
            "resource_pool::verl::reward_pool_unused",
            "resource_pool::verl::unknown_device",
        ]
    );
    assert!(
        value["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["file"] == "resource-pool-verl/tests/data/verl/broken.yaml")
    );
}

#[test]
fn a_value_the_reader_does_not_read_is_said_once_and_the_pools_are_not_claimed() {
    // OmegaConf's `${oc.env:GPUS,8}` is resolved when verl runs: not read offline, one
    // warning on the value, and no layout claimed from verl's default.
    let (_, value) = json_of(&[
        "--cluster",
        THREE,
        "--",
        "trainer.n_gpus_per_node=${oc.env:GPUS,8}",
    ]);
    assert_eq!(codes(&value), ["resource_pool::verl::unresolved"]);
    let d = &value["diagnostics"][0];
    assert_eq!(d["file"], "command line");
    assert_eq!(d["column"], 25);
    assert_eq!(d["severity"], "warning");
    assert_eq!(
        d["data"],
        json!({
            "key": "trainer.n_gpus_per_node",
            "text": "${oc.env:GPUS,8}",
            "form": "interpolation",
            "part": "pools"
        })
    );
    assert_eq!(value["pools"], Value::Null);
    assert_eq!(
        value["launch"]["not_judged"],
        json!({"what": "value_not_read", "key": "trainer.n_gpus_per_node"})
    );
}

#[test]
fn unreadable_yaml_and_missing_cluster_exit_2() {
    let (code, _) = json_of(&[
        "--config",
        "resource-pool-verl/tests/data/verl/nope.yaml",
        "--cluster",
        THREE,
    ]);
    assert_eq!(code, Some(2));
    let (code, value) = json_of(&["--", "trainer.nnodes=1"]);
    assert_eq!(code, Some(2));
    assert_eq!(codes(&value), ["resource_pool::cli::no_cluster"]);
}

#[test]
fn snapshot_a_ray_hang_in_verls_terms() {
    insta::assert_snapshot!(human(&[
        "--cluster",
        "examples/clusters/big_and_small.toml",
        "--",
        "trainer.n_gpus_per_node=4",
        "reward_model.enable=True",
        "reward_model.enable_resource_pool=True",
        "reward_model.n_gpus_per_node=8",
        "reward_model.nnodes=1",
    ]));
}

#[test]
fn snapshot_settings_verl_rejects() {
    insta::assert_snapshot!(human(&[
        "--config",
        "resource-pool-verl/tests/data/verl/broken.yaml",
        "--cluster",
        THREE,
        "--",
        "+trainer.nnodes=2",
        "trainer.nnode=2",
        "trainer",
    ]));
}

#[test]
fn snapshot_a_separate_reward_pool_that_places() {
    insta::assert_snapshot!(human(&[
        "--config",
        "resource-pool-verl/tests/data/verl/reward_pool.yaml",
        "--cluster",
        THREE
    ]));
}

#[test]
fn uneven_nodes_and_nnodes_against_the_cluster() {
    let (_, value) = json_of(&[
        "--cluster",
        "resource-pool-verl/tests/data/verl/uneven_cluster.toml",
        "--",
        "trainer.nnodes=4",
    ]);
    let c = codes(&value);
    assert!(
        c.contains(&"resource_pool::verl::nnodes_vs_cluster"),
        "{c:?}"
    );
    assert!(c.contains(&"resource_pool::verl::uneven_nodes"), "{c:?}");
    // A layout the nodes of its own size hold: the idle 4-GPU node is no reason to warn.
    for line in [
        &["trainer.nnodes=2"][..],
        &["trainer.nnodes=1"],
        &["trainer.nnodes=2", "trainer.n_gpus_per_node=4"],
    ] {
        let args: Vec<&str> = ["--cluster", THREE, "--"]
            .iter()
            .chain(line)
            .copied()
            .collect();
        let (code, value) = json_of(&args);
        assert_eq!((code, codes(&value)), (Some(0), vec![]), "{line:?}");
    }
    // verl#1182's shape: three 8-GPU slots on 8/8/4 need the 4-GPU node they cannot fill.
    let (_, value) = json_of(&["--cluster", THREE, "--", "trainer.nnodes=3"]);
    assert!(codes(&value).contains(&"resource_pool::verl::uneven_nodes"));
    // Node sizes the slots fill: no uneven warning.
    let (code, value) = json_of(&[
        "--config",
        "resource-pool-verl/tests/data/verl/reward_pool.yaml",
        "--cluster",
        THREE,
    ]);
    assert_eq!((code, codes(&value)), (Some(0), vec![]));
}

/// One `trainer.nnodes` mistake is said once: `nnodes_vs_cluster` names the count, and the
/// generic `too_few_nodes` does not repeat it; a CPU shortage on a node that holds every
/// slot is `resource_runs_out`'s, not "at least 2 nodes" (QA N3).
#[test]
fn a_node_shortage_is_said_once() {
    for (cluster, line) in [
        (
            THREE,
            &["trainer.nnodes=4", "trainer.n_gpus_per_node=8"][..],
        ),
        (
            "examples/clusters/cpu_starved.toml",
            &["trainer.nnodes=6", "trainer.n_gpus_per_node=1"],
        ),
    ] {
        let args: Vec<&str> = ["--cluster", cluster, "--"]
            .iter()
            .chain(line)
            .copied()
            .collect();
        let (code, value) = json_of(&args);
        let c = codes(&value);
        assert_eq!(code, Some(1), "{line:?}");
        assert!(
            c.contains(&"resource_pool::verl::nnodes_vs_cluster"),
            "{c:?}"
        );
        assert!(
            c.contains(&"resource_pool::placement::resource_runs_out"),
            "{c:?}"
        );
        assert!(
            !c.contains(&"resource_pool::inventory::too_few_nodes"),
            "{c:?}"
        );
    }
}

#[test]
fn the_rollouts_parallel_size_must_divide_actor_rollouts_pool() {
    // verl's ActorRolloutRefWorker asserts it at start-up; the check still runs (verl
    // builds the pools), and the suggestion keeps the size.
    let tp3 = "actor_rollout_ref.rollout.tensor_model_parallel_size=3";
    let (code, value) = json_of(&["--cluster", THREE, "--", "trainer.nnodes=1", tp3]);
    assert_eq!(code, Some(1));
    assert_eq!(
        codes(&value),
        ["resource_pool::verl::rollout_parallel_size"]
    );
    let d = &value["diagnostics"][0];
    assert_eq!(d["severity"], "error");
    assert_eq!(d["data"]["divisor"], 3);
    assert_eq!(d["data"]["world_size"], 8);
    assert_eq!(
        d["data"]["key"],
        "actor_rollout_ref.rollout.tensor_model_parallel_size"
    );
    assert!(value["feasible"].as_bool().expect("checked"));
    // verl's default size (2) against one GPU per node-slot: labelled on that key.
    let (code, value) = json_of(&["--cluster", THREE, "--", "trainer.n_gpus_per_node=1"]);
    assert_eq!(code, Some(1));
    let d = &value["diagnostics"][0];
    assert_eq!(d["code"], "resource_pool::verl::rollout_parallel_size");
    assert_eq!(d["data"]["key"], "trainer.n_gpus_per_node");
    assert_eq!(d["data"]["divisor"], 2);
}

#[test]
fn a_rollout_replica_over_several_nodes_must_take_whole_nodes() {
    // Three node-slots of 4 GPUs hold two replicas of 2 × 3 = 6 GPUs, but verl's rollout
    // replica asserts that one larger than a node is a multiple of it: verl stops at
    // start-up, though the pools place.
    let line = [
        "--cluster",
        THREE,
        "--",
        "trainer.nnodes=3",
        "trainer.n_gpus_per_node=4",
        "actor_rollout_ref.rollout.tensor_model_parallel_size=2",
        "actor_rollout_ref.rollout.data_parallel_size=3",
    ];
    let (code, value) = json_of(&line);
    assert_eq!(code, Some(1));
    assert_eq!(
        codes(&value),
        ["resource_pool::verl::rollout_replica_nodes"]
    );
    let d = &value["diagnostics"][0];
    assert_eq!(d["severity"], "error");
    assert_eq!(d["data"]["replica"], 6);
    assert_eq!(d["data"]["per_node"], 4);
    assert_eq!(d["data"]["per_node_key"], "trainer.n_gpus_per_node");
    assert_eq!(
        d["data"]["key"],
        "actor_rollout_ref.rollout.tensor_model_parallel_size"
    );
    assert!(value["feasible"].as_bool().expect("checked"));
    // verl 0.6.x builds the replicas only in async mode, its default being sync.
    let mut at_06: Vec<&str> = vec!["--verl-version", "0.6.0"];
    at_06.extend(line);
    let (_, value) = json_of(&at_06);
    assert!(codes(&value).is_empty(), "{:?}", codes(&value));
    at_06.push("actor_rollout_ref.rollout.mode=async");
    let (code, value) = json_of(&at_06);
    assert_eq!(code, Some(1));
    assert_eq!(
        codes(&value),
        ["resource_pool::verl::rollout_replica_nodes"]
    );
}

#[test]
fn a_suggested_layout_keeps_the_rollouts_parallel_size() {
    // One node of 8 GPUs and 16 CPUs holds at most 5 GPUs at verl 0.8.0's 3 CPUs per GPU,
    // beside its TaskRunner's CPU.
    const ONE: &str = "resource-pool-verl/tests/data/verl/one_node_8g16c.toml";
    let suggested = |line: &[&str]| {
        let args: Vec<&str> = ["--verl-version", "0.8.0", "--cluster", ONE, "--"]
            .iter()
            .chain(line)
            .copied()
            .collect();
        let (_, value) = json_of(&args);
        (
            codes(&value)
                .iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>(),
            value["suggestions"].clone(),
        )
    };
    // A size of 8: 4 GPUs would fit, but verl refuses a pool 8 does not divide, and no
    // layout it accepts fits: none is suggested, and it says so.
    let (codes, found) = suggested(&[
        "trainer.n_gpus_per_node=8",
        "trainer.nnodes=2",
        "actor_rollout_ref.rollout.tensor_model_parallel_size=8",
    ]);
    assert_eq!(found, json!([]));
    assert!(
        codes.contains(&"resource_pool::suggest::none_fits".to_owned()),
        "{codes:?}"
    );
    // The advice says that the pool keeps that size, and what it is made of.
    let none_fits_at = |flags: &[&str], line: &[&str]| {
        let args: Vec<&str> = flags
            .iter()
            .chain(&["--cluster", ONE, "--"])
            .chain(line)
            .copied()
            .collect();
        let (_, value) = json_of(&args);
        value["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .find(|d| d["code"] == "resource_pool::suggest::none_fits")
            .cloned()
            .expect("none_fits")
    };
    let none_fits = |line: &[&str]| none_fits_at(&["--verl-version", "0.8.0"], line);
    let d = none_fits(&[
        "trainer.n_gpus_per_node=8",
        "trainer.nnodes=2",
        "actor_rollout_ref.rollout.tensor_model_parallel_size=8",
    ]);
    assert_eq!(
        d["data"]["multiples"],
        json!([{"pool": "global_pool", "multiple": 8, "factors": [
            {"key": "actor_rollout_ref.rollout.tensor_model_parallel_size", "value": 8}]}])
    );
    assert_eq!(
        d["help"],
        "every pool keeps its bundles and at least one node-slot, and `global_pool` a multiple \
         of 8 GPUs, the rollout's replica size \
         (`actor_rollout_ref.rollout.tensor_model_parallel_size=8`); lower the rollout's \
         parallel sizes, fix what the errors above say is missing, or add nodes"
    );
    // The data parallel size multiplies in; verl 0.5.0 divides by the tensor parallel
    // size alone.
    let d = none_fits(&[
        "trainer.n_gpus_per_node=8",
        "actor_rollout_ref.rollout.tensor_model_parallel_size=4",
        "actor_rollout_ref.rollout.data_parallel_size=2",
    ]);
    assert_eq!(d["data"]["multiples"][0]["multiple"], 8);
    let help = d["help"].as_str().expect("help");
    assert!(
        help.contains(
            "(`actor_rollout_ref.rollout.tensor_model_parallel_size=4` × \
             `actor_rollout_ref.rollout.data_parallel_size=2`)"
        ),
        "{help}"
    );
    // (At 0.5.0's 1 CPU per bundle the node holds all its 8 GPUs: 16 are asked.)
    let d = none_fits_at(
        &["--verl-version", "0.5.0"],
        &[
            "trainer.n_gpus_per_node=16",
            "actor_rollout_ref.rollout.tensor_model_parallel_size=16",
        ],
    );
    let help = d["help"].as_str().expect("help");
    assert!(
        help.contains(
            "a multiple of 16 GPUs, the rollout's tensor parallel size (`actor_rollout_ref.rollout.tensor_model_parallel_size=16`); lower the rollout's tensor parallel size, "
        ),
        "{help}"
    );
    // A size of 3: one node-slot of 3, not the 4 that 3 does not divide.
    let (_, found) = suggested(&[
        "trainer.n_gpus_per_node=8",
        "trainer.nnodes=1",
        "actor_rollout_ref.rollout.tensor_model_parallel_size=3",
    ]);
    assert_eq!(found[0]["overrides"], json!(["trainer.n_gpus_per_node=3"]));
    assert_eq!(found[0]["pools"]["global_pool"], json!([3]));
    // verl's default size of 2 keeps the 4.
    let (_, found) = suggested(&["trainer.n_gpus_per_node=8", "trainer.nnodes=1"]);
    assert_eq!(found[0]["overrides"], json!(["trainer.n_gpus_per_node=4"]));
}

// ---------------------------------------------------------------- launch lines as pasted

/// The corpus: launch lines recorded from verl's example scripts (see its `about`).
fn corpus() -> Vec<Value> {
    let text = std::fs::read_to_string("resource-pool-verl/tests/data/verl/commands.json")
        .expect("corpus");
    let doc: Value = serde_json::from_str(&text).expect("corpus JSON");
    doc["commands"].as_array().expect("commands").clone()
}

fn argv_of(entry: &Value) -> Vec<String> {
    entry["argv"]
        .as_array()
        .expect("argv")
        .iter()
        .map(|w| w.as_str().expect("word").to_owned())
        .collect()
}

/// A cluster file of `nodes` idle nodes of `per_node` accelerators each, in a temp file;
/// no nodes at all is one node with one accelerator too few (a cluster has a node). Each
/// node has 3 CPUs per accelerator and 16 more: what verl holds before its pools (its
/// TaskRunner's CPU, TransferQueue's) fits beside them.
fn cluster_file(name: &str, nodes: u64, per_node: u64, accelerator: &str) -> std::path::PathBuf {
    let mut text = String::new();
    for i in 0..nodes {
        text.push_str(&format!(
            "[[nodes]]\nid = \"n{i}\"\navailable = {{ {accelerator} = {per_node}, CPU = {} }}\n",
            per_node * 3 + 16
        ));
    }
    if nodes == 0 {
        text.push_str(&format!(
            "[[nodes]]\nid = \"n0\"\navailable = {{ {accelerator} = {}, CPU = {} }}\n",
            per_node - 1,
            per_node * 3 + 16
        ));
    }
    let path = std::env::temp_dir().join(format!(
        "resource-pool-verl-{}-{name}.toml",
        std::process::id()
    ));
    std::fs::write(&path, text).expect("temp cluster");
    path
}

fn verl_json(cluster: &std::path::Path, extra: &[&str], words: &[String]) -> (Option<i32>, Value) {
    let mut args: Vec<&str> = vec!["--cluster", cluster.to_str().expect("utf-8 path")];
    args.extend_from_slice(extra);
    args.push("--");
    args.extend(words.iter().map(String::as_str));
    json_of(&args)
}

/// The line as recorded (after `python3`), through `ray job submit ... --`, and both.
fn pasted_forms(argv: &[String]) -> Vec<(&'static str, Vec<String>)> {
    let python: Vec<String> = match argv.iter().position(|w| w == "--") {
        Some(dash) if argv[0] == "ray" => argv[dash + 1..].to_vec(),
        _ => argv.to_vec(),
    };
    let mut ray: Vec<String> = [
        "ray",
        "job",
        "submit",
        "--address",
        "http://127.0.0.1:8265",
        "--working-dir",
        ".",
        "--",
    ]
    .iter()
    .map(|w| w.to_string())
    .collect();
    ray.extend(python.iter().cloned());
    vec![("python3 -m", python), ("ray job submit --", ray)]
}

#[test]
fn every_corpus_line_passes_where_it_fits_and_fails_one_node_short() {
    let corpus = corpus();
    assert!(corpus.len() >= 20, "{} lines", corpus.len());
    for (n, entry) in corpus.iter().enumerate() {
        let source = entry["source"].as_str().expect("source");
        let expect = &entry["expect"];
        let nnodes = expect["nnodes"].as_u64().expect("nnodes");
        let per_node = expect["per_node"].as_u64().expect("per_node");
        let accelerator = expect["accelerator"].as_str().expect("accelerator");
        let fits = cluster_file(&format!("{n}-fits"), nnodes, per_node, accelerator);
        let short = cluster_file(&format!("{n}-short"), nnodes - 1, per_node, accelerator);
        // A line known to stop verl (its `why` says how): that error and nothing else.
        let known: Vec<&str> = expect["codes"]
            .as_array()
            .map_or(Vec::new(), |c| c.iter().filter_map(Value::as_str).collect());
        for (form, words) in pasted_forms(&argv_of(entry)) {
            let (code, value) = verl_json(&fits, &[], &words);
            if !known.is_empty() {
                // Its exit status: 1 for an error, else `status` (a warning's 0).
                let status = expect["status"]
                    .as_i64()
                    .map_or(Some(1), |s| Some(s as i32));
                assert_eq!(
                    (code, codes(&value)),
                    (status, known.clone()),
                    "{source} ({form})"
                );
                continue;
            }
            assert_eq!(
                (code, codes(&value)),
                (Some(0), vec![]),
                "{source} ({form}): {value}"
            );
            assert_eq!(
                value["pools"][0]["process_on_nodes"],
                json!(vec![per_node; nnodes as usize]),
                "{source} ({form})"
            );
            assert_eq!(value["pools"][0]["accelerator"], accelerator, "{source}");
            assert_eq!(
                value["launch"]["entry_point"], "verl.trainer.main_ppo",
                "{source}"
            );
            let (code, value) = verl_json(&short, &[], &words);
            assert_eq!(code, Some(1), "{source} ({form}) on one node less: {value}");
        }
        let _ = std::fs::remove_file(fits);
        let _ = std::fs::remove_file(short);
    }
}

#[test]
fn the_json_names_the_entry_point_config_and_key_set() {
    let corpus = corpus();
    let megatron = corpus
        .iter()
        .find(|e| {
            argv_of(e)
                .iter()
                .any(|w| w == "--config-name=ppo_megatron_trainer.yaml")
        })
        .expect("a line with --config-name");
    let cluster = cluster_file("json", 1, 8, "GPU");
    let (_, value) = verl_json(&cluster, &[], &argv_of(megatron));
    let launch = &value["launch"];
    assert_eq!(launch["entry"], "verl.trainer.main_ppo");
    assert_eq!(launch["config"], "ppo_megatron_trainer");
    assert_eq!(launch["keys_judged"], true);
    assert!(
        launch["evidence"]
            .as_str()
            .unwrap()
            .contains("verl/trainer/main_ppo.py")
    );
    assert_eq!(launch["releases"][0], "0.5.0");
    let (_, value) = verl_json(&cluster, &["--verl-version", "0.9.1"], &argv_of(megatron));
    assert_eq!(value["launch"]["releases"], json!(["0.9.1"]));
    // A release older than every known one is not judged: one notice, no finding.
    let (code, value) = verl_json(&cluster, &["--verl-version", "0.1"], &argv_of(megatron));
    assert_eq!(
        (code, codes(&value)),
        (Some(0), vec!["resource_pool::verl::not_judged"])
    );
    let _ = std::fs::remove_file(cluster);
}

/// A corpus line with one word replaced.
fn with_word(source_part: &str, from: &str, to: &str) -> Vec<String> {
    let entry = corpus()
        .into_iter()
        .find(|e| e["source"].as_str().unwrap().contains(source_part))
        .expect("corpus line");
    let mut argv = argv_of(&entry);
    let at = argv.iter().position(|w| w == from).expect("word in line");
    argv[at] = to.to_owned();
    argv
}

#[test]
fn typos_of_each_kind_on_a_real_line() {
    let cluster = cluster_file("typos", 1, 8, "GPU");
    // A key that sizes the pools: an error that names it.
    let argv = with_word(
        "grpo_trainer/run_qwen2-7b_seq_balance.sh",
        "trainer.n_gpus_per_node=8",
        "trainer.n_gpu_per_node=8",
    );
    let (code, value) = verl_json(&cluster, &[], &argv);
    assert_eq!(code, Some(1));
    assert_eq!(codes(&value), ["resource_pool::verl::pool_key_typo"]);
    assert!(
        value["diagnostics"][0]["message"]
            .as_str()
            .unwrap()
            .contains("`trainer.n_gpus_per_node`"),
        "{value}"
    );
    // Another key: naming the sibling a few edits away; without `--verl-version` a warning
    // (the line's verl may be a fork that has it), so the launch still passes; with it,
    // Hydra's error.
    let argv = with_word(
        "grpo_trainer/run_qwen2-7b_seq_balance.sh",
        "actor_rollout_ref.actor.ppo_mini_batch_size=256",
        "actor_rollout_ref.actor.ppo_mini_batchsize=256",
    );
    let (code, value) = verl_json(&cluster, &["--verl-version", "0.9.1"], &argv);
    assert_eq!(code, Some(1), "{value}");
    assert_eq!(codes(&value), ["resource_pool::verl::unknown_key"]);
    let (code, value) = verl_json(&cluster, &[], &argv);
    assert_eq!(code, Some(0));
    assert_eq!(codes(&value), ["resource_pool::verl::unknown_key"]);
    let message = value["diagnostics"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("did you mean `actor_rollout_ref.actor.ppo_mini_batch_size`?"),
        "{message}"
    );
    // A Megatron key on the FSDP config names the choice that has it.
    let argv = with_word(
        "grpo_trainer/run_qwen2-7b_seq_balance.sh",
        "actor_rollout_ref.actor.fsdp_config.param_offload=False",
        "actor_rollout_ref.actor.megatron.param_offload=False",
    );
    let (_, value) = verl_json(&cluster, &[], &argv);
    let message = value["diagnostics"][0]["message"].as_str().unwrap();
    assert!(message.contains("exists with `"), "{message}");
    let _ = std::fs::remove_file(cluster);
}

#[test]
fn entry_points_the_reader_cannot_see_are_one_notice() {
    let cluster = cluster_file("entries", 1, 8, "GPU");
    let line = |entry: &'static str| {
        json_of(&[
            "--cluster",
            cluster.to_str().unwrap(),
            "--",
            "python3",
            "-m",
            entry,
            "+trainer.remove_previous_ckpt_in_save=False",
            "trainer.debug=True",
        ])
    };
    // One of verl's own that builds its pools otherwise: said what it builds instead.
    let (_, value) = line("verl.experimental.one_step_off_policy.main_ppo");
    assert_eq!(codes(&value), ["resource_pool::verl::not_judged"]);
    let d = &value["diagnostics"][0];
    assert_eq!(d["severity"], "warning");
    assert!(
        d["message"].as_str().unwrap().contains("trainer_pool"),
        "{d}"
    );
    assert_eq!(d["data"]["why"]["what"], "builds_otherwise");
    // A recipe's main: not seen, no claim about what it builds, no key judged.
    let (_, value) = line("recipe.dapo.main_dapo");
    assert_eq!(codes(&value), ["resource_pool::verl::not_judged"]);
    let d = &value["diagnostics"][0];
    assert_eq!(
        d["data"]["why"],
        json!({"what": "entry_point", "entry": "recipe.dapo.main_dapo"})
    );
    let help = d["help"].as_str().unwrap();
    assert!(
        help.contains("resource-pool verl --python PYTHON -- LINE"),
        "{help}"
    );
    assert!(help.contains("python -m resource_pool.guard"), "{help}");
    assert_eq!(value["pools"], Value::Null);
    assert_eq!(value["launch"]["keys_judged"], false);
    assert_eq!(value["launch"]["not_judged"], d["data"]["why"]);
    let _ = std::fs::remove_file(cluster);
}

/// The human report's diagnostics (stderr) of a line, for snapshots.
fn stderr_of(args: &[&str], words: &[String]) -> String {
    let mut all = vec!["verl"];
    all.extend_from_slice(args);
    all.push("--");
    all.extend(words.iter().map(String::as_str));
    String::from_utf8_lossy(&run(&all).stderr).into_owned()
}

#[test]
fn snapshot_a_long_line_windowed_around_the_override() {
    let argv = with_word(
        "gspo_trainer/run_qwen30b_gspo.sh",
        "trainer.nnodes=2",
        "trainer.nnode=2",
    );
    let cluster = cluster_file("window", 2, 8, "GPU");
    insta::assert_snapshot!(stderr_of(&["--cluster", cluster.to_str().unwrap()], &argv));
    let _ = std::fs::remove_file(cluster);
}

#[test]
fn snapshot_windows_at_the_ends_of_the_line() {
    // The overrides alone: the first has no cut on the left, the last none on the right.
    let mut argv = with_word(
        "remax_trainer/run_qwen2.5-3b_seq_balance.sh",
        "algorithm.adv_estimator=remax",
        "algorithm.adv_estimater=remax",
    );
    argv.drain(..3);
    let last = argv.len() - 1;
    argv[last] = "trainer.total_epoch=5".to_owned();
    let cluster = cluster_file("ends", 1, 8, "GPU");
    insta::assert_snapshot!(stderr_of(&["--cluster", cluster.to_str().unwrap()], &argv));
    let _ = std::fs::remove_file(cluster);
}

/// verl 0.7 and later set `trainer.device` from the machine they start on: on an Ascend
/// cluster a GPU script asks for NPUs. Checked with NPU bundles and said, unless the
/// release is one before 0.7 or the cluster's head has GPUs.
#[test]
fn gpu_scripts_on_ascend_are_checked_as_verl_0_7_runs_them() {
    let line = [
        "python3",
        "-m",
        "verl.trainer.main_ppo",
        "trainer.n_gpus_per_node=8",
        "trainer.nnodes=2",
    ];
    let with = |extra: &[&str], cluster: &str| {
        let mut args = vec!["--cluster", cluster];
        args.extend_from_slice(extra);
        args.push("--");
        args.extend_from_slice(&line);
        json_of(&args)
    };
    let (code, value) = with(&[], ASCEND);
    assert_eq!(code, Some(0), "{value}");
    assert_eq!(value["pools"][0]["accelerator"], "NPU", "{value}");
    assert_eq!(codes(&value), ["resource_pool::verl::accelerator_chosen"]);
    let chosen = &value["diagnostics"][0];
    assert_eq!(chosen["severity"], "warning");
    assert_eq!(
        (&chosen["data"]["written"], &chosen["data"]["used"]),
        (&"GPU".into(), &"NPU".into())
    );
    assert_eq!(chosen["data"]["ascend"], true);

    // verl 0.6.1 asks for GPUs there: the layout cannot be placed.
    let (code, value) = with(&["--verl-version", "0.6.1"], ASCEND);
    assert_eq!(code, Some(1), "{value}");
    assert_eq!(value["pools"][0]["accelerator"], "GPU");
    assert!(!codes(&value).contains(&"resource_pool::verl::accelerator_chosen"));

    // Written `trainer.device=npu`: nothing to say. A GPU cluster: GPUs, as written.
    let mut args = vec!["--cluster", ASCEND, "--"];
    args.extend_from_slice(&line);
    args.push("trainer.device=npu");
    let (code, value) = json_of(&args);
    assert_eq!((code, codes(&value)), (Some(0), vec![]), "{value}");
    let (_, value) = with(&[], THREE);
    assert_eq!(value["pools"][0]["accelerator"], "GPU");
    assert!(!codes(&value).contains(&"resource_pool::verl::accelerator_chosen"));
}

/// Distillation (verl 0.8 and later) adds teacher_pool after the other pools; a layout
/// that does not fit is fixed in its own keys.
#[test]
fn distillation_checks_the_teacher_pool_too() {
    let cluster = cluster_file("distill", 3, 8, "GPU");
    let cluster = cluster.to_str().expect("utf-8 path");
    let line = [
        "python3",
        "-m",
        "verl.trainer.main_ppo",
        "trainer.nnodes=2",
        "distillation.enabled=True",
        "distillation.n_gpus_per_node=8",
    ];
    let with = |teacher_nodes: &str| {
        let mut args = vec!["--cluster", cluster, "--"];
        args.extend_from_slice(&line);
        let nnodes = format!("distillation.nnodes={teacher_nodes}");
        args.push(&nnodes);
        json_of(&args)
    };
    let (code, value) = with("1");
    assert_eq!(code, Some(0), "{value}");
    assert_eq!(value["pools"][1]["name"], "teacher_pool");
    assert_eq!(value["pools"][1]["process_on_nodes"], json!([8]));
    assert_eq!(value["mapping"]["teacher"], "teacher_pool");

    // One teacher node-slot more than the cluster holds: not placeable, and the suggested
    // layout keeps global_pool and gives the teacher one node-slot.
    let (code, value) = with("2");
    assert_eq!(code, Some(1), "{value}");
    assert_eq!(value["feasible"], false);
    let suggestion = &value["suggestions"][0];
    assert_eq!(
        suggestion["pools"],
        json!({"global_pool": [8, 8], "teacher_pool": [8]})
    );
    assert_eq!(suggestion["overrides"], json!(["distillation.nnodes=1"]));

    let (code, value) = with("0");
    assert_eq!(code, Some(1), "{value}");
    assert!(codes(&value).contains(&"resource_pool::verl::teacher_pool_size"));
}

#[test]
fn the_launch_line_may_come_without_the_double_dash() {
    let line = [
        "python3",
        "-u",
        "-m",
        "verl.trainer.main_ppo",
        "trainer.nnodes=2",
        "trainer.n_gpus_per_node=8",
    ];
    let mut with = vec!["--cluster", THREE, "--"];
    with.extend_from_slice(&line);
    let mut without = vec!["--cluster", THREE];
    without.extend_from_slice(&line);
    let (with_code, with_json) = json_of(&with);
    let (without_code, without_json) = json_of(&without);
    assert_eq!(with_code, Some(0), "{with_json}");
    assert_eq!((without_code, without_json), (with_code, with_json));
    // Our own options go before the line: after its first word they are the line's, and
    // one error says so.
    let (code, value) = json_of(&["--cluster", THREE, "trainer.nnodes=2", "--budget-ms", "5"]);
    assert_eq!(code, Some(1), "{value}");
    assert_eq!(
        codes(&value),
        ["resource_pool::cli::option_after_launch_line"],
        "{value}"
    );
}

#[test]
fn a_long_layout_is_shortened_in_the_heading() {
    let out = human(&["--cluster", THREE, "--", "trainer.nnodes=1000"]);
    let heading = out
        .lines()
        .find(|l| l.starts_with("verl builds:"))
        .unwrap_or_else(|| panic!("no heading: {out}"));
    assert_eq!(
        heading,
        "verl builds: global_pool = 1000 node-slots of 8; actor_rollout → global_pool, critic → global_pool"
    );
}

/// `verl --format json` with `env` set, and what it printed.
fn json_with_env(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, Value) {
    let mut command = common::resource_pool();
    command.args(["verl", "--format", "json"]).args(args);
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().expect("the binary runs");
    (output.status.code(), common::json(&output))
}

/// The diagnostic of `code` in a JSON result.
fn diagnostic<'a>(value: &'a Value, code: &str) -> &'a Value {
    value["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .find(|d| d["code"] == code)
        .unwrap_or_else(|| panic!("no {code}: {value}"))
}

const MAIN_PPO: &str =
    "python3 -m verl.trainer.main_ppo trainer.nnodes=2 trainer.n_gpus_per_node=8";

#[test]
fn a_pasted_ray_job_submit_line_is_checked_on_the_dashboard_it_names() {
    use crate::ray_http::{FakeDashboard, fixtures};
    let server = FakeDashboard::start(fixtures("idle"));
    let url = server.url.as_str();
    let nodes_read = |server: &FakeDashboard| {
        server
            .seen()
            .iter()
            .filter(|s| s.target.starts_with("/api/v0/nodes"))
            .count()
    };
    let closed = "http://127.0.0.1:9";
    // The line, the environment it runs in, and where the note says the address was.
    type Case<'a> = (String, &'a [(&'a str, &'a str)], &'a str);
    let cases: [Case; 4] = [
        // The QA report's line: `--address URL`...
        (
            format!("ray job submit --address {url} -- {MAIN_PPO}"),
            &[],
            "--address",
        ),
        // ...`--address=URL`, before the environment's RAY_ADDRESS of ours...
        (
            format!("ray job submit --address={url} --no-wait -- {MAIN_PPO}"),
            &[("RAY_ADDRESS", "")],
            "--address",
        ),
        // ...RAY_ADDRESS set on the line, which wins over the environment's...
        (
            format!("RAY_ADDRESS={url} ray job submit -- {MAIN_PPO}"),
            &[("RAY_ADDRESS", closed)],
            "RAY_ADDRESS",
        ),
        // ...and over `--address`, as Ray has it.
        (
            format!("env RAY_ADDRESS={url} ray job submit --address {closed} -- {MAIN_PPO}"),
            &[],
            "RAY_ADDRESS",
        ),
    ];
    for (line, env, via) in cases {
        let before = nodes_read(&server);
        let mut args = vec!["--"];
        args.extend(line.split(' '));
        let (code, value) = json_with_env(&args, env);
        // A verdict (two 8-GPU node-slots do not fit: one node has 8), not "no cluster".
        assert_eq!(code, Some(1), "{line}: {value}");
        assert_eq!(value["ray_version"], "2.60.0", "{line}");
        assert!(
            nodes_read(&server) > before,
            "{line}: the dashboard was not read"
        );
        let note = diagnostic(&value, "resource_pool::verl::launch_cluster");
        assert_eq!(note["severity"], "advice", "{line}");
        assert_eq!(
            note["data"],
            json!({"url": url, "via": via, "from": "line"}),
            "{line}"
        );
    }
    // Human output says where the cluster came from, on the line's address.
    let output = common::run(&[
        "verl",
        "--",
        "ray",
        "job",
        "submit",
        "--address",
        url,
        "--",
        "python3",
        "-m",
        "verl.trainer.main_ppo",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "the cluster checked is {url}, the dashboard the launch line's --address names"
        )),
        "{stderr}"
    );
    // A source of ours wins: a flag, or RESOURCE_POOL_CLUSTER; the line's dashboard is not read.
    let before = nodes_read(&server);
    let line = format!("ray job submit --address {url} -- {MAIN_PPO}");
    let mut args = vec!["--cluster", THREE, "--"];
    args.extend(line.split(' '));
    let (code, value) = json_with_env(&args, &[]);
    assert_eq!(code, Some(0), "{value}");
    let (code, value) = json_with_env(&args[2..], &[("RESOURCE_POOL_CLUSTER", THREE)]);
    assert_eq!(code, Some(0), "{value}");
    assert!(!codes(&value).contains(&"resource_pool::verl::launch_cluster"));
    assert_eq!(nodes_read(&server), before);
}

#[test]
fn a_launch_address_that_is_not_read_is_said_not_dropped() {
    use crate::ray_http::{FakeDashboard, fixtures};
    // A Ray Client or GCS address is no dashboard URL: said, beside "no cluster".
    for address in ["ray://127.0.0.1:10001", "127.0.0.1:6379"] {
        let line = format!("ray job submit --address {address} -- {MAIN_PPO}");
        let mut args = vec!["--"];
        args.extend(line.split(' '));
        let (code, value) = json_with_env(&args, &[]);
        assert_eq!(code, Some(2), "{value}");
        assert_eq!(
            codes(&value),
            [
                "resource_pool::verl::launch_address_not_dashboard",
                "resource_pool::cli::no_cluster"
            ]
        );
        let note = diagnostic(&value, "resource_pool::verl::launch_address_not_dashboard");
        assert_eq!(
            note["data"],
            json!({"address": address, "via": "--address", "from": "line"})
        );
    }
    // The environment's RAY_ADDRESS overrides `--address` in `ray job submit`: the check
    // reads that cluster, as the job would go there, and warns.
    let server = FakeDashboard::start(fixtures("idle"));
    let line = format!("ray job submit --address http://127.0.0.1:9 -- {MAIN_PPO}");
    let mut args = vec!["--"];
    args.extend(line.split(' '));
    let (code, value) = json_with_env(&args, &[("RAY_ADDRESS", &server.url)]);
    assert_eq!(code, Some(1), "{value}");
    assert_eq!(value["ray_version"], "2.60.0");
    let note = diagnostic(&value, "resource_pool::verl::launch_address_overridden");
    assert_eq!(note["severity"], "warning");
    assert_eq!(
        note["data"],
        json!({"address": "http://127.0.0.1:9", "via": "--address", "by": "RAY_ADDRESS"})
    );
    let help = note["help"].as_str().unwrap();
    assert!(
        help.contains("(and this check) to http://127.0.0.1:9"),
        "{help}"
    );
    // An address that is no dashboard URL: the check would not go there; --ray would.
    let line = format!("ray job submit --address ray://127.0.0.1:10001 -- {MAIN_PPO}");
    let mut args = vec!["--"];
    args.extend(line.split(' '));
    let (_, value) = json_with_env(&args, &[("RAY_ADDRESS", &server.url)]);
    let note = diagnostic(&value, "resource_pool::verl::launch_address_overridden");
    let help = note["help"].as_str().unwrap();
    assert!(!help.contains("and this check"), "{help}");
    assert!(help.contains("--ray http://HEAD:8265"), "{help}");
}

/// `verl --format json -- LINE` in `env`, and whether the fake dashboard's nodes were read.
fn line_with_env(
    line: &str,
    env: &[(&str, &str)],
    server: &crate::ray_http::FakeDashboard,
) -> (Option<i32>, Value, bool) {
    let nodes = || {
        server
            .seen()
            .iter()
            .filter(|s| s.target.starts_with("/api/v0/nodes"))
            .count()
    };
    let before = nodes();
    let mut args = vec!["--"];
    args.extend(line.split(' '));
    let (code, value) = json_with_env(&args, env);
    (code, value, nodes() > before)
}

#[test]
fn ray_api_server_address_names_the_jobs_cluster_before_ray_address() {
    use crate::ray_http::{FakeDashboard, fixtures};
    let server = FakeDashboard::start(fixtures("idle"));
    let url = server.url.as_str();
    let closed = "http://127.0.0.1:9";
    // Set on the line: before RAY_ADDRESS and --address.
    let line = format!(
        "RAY_API_SERVER_ADDRESS={url} RAY_ADDRESS={closed} ray job submit --address {closed} -- {MAIN_PPO}"
    );
    let (code, value, read) = line_with_env(&line, &[("RAY_API_SERVER_ADDRESS", closed)], &server);
    assert_eq!((code, read), (Some(1), true), "{value}");
    let note = diagnostic(&value, "resource_pool::verl::launch_cluster");
    assert_eq!(
        note["data"],
        json!({"url": url, "via": "RAY_API_SERVER_ADDRESS", "from": "line"})
    );
    // In the environment, the line naming nothing: read, though RAY_ADDRESS names another.
    let line = format!("ray job submit -- {MAIN_PPO}");
    let env = [("RAY_API_SERVER_ADDRESS", url), ("RAY_ADDRESS", closed)];
    let (code, value, read) = line_with_env(&line, &env, &server);
    assert_eq!((code, read), (Some(1), true), "{value}");
    let note = diagnostic(&value, "resource_pool::verl::launch_cluster");
    assert_eq!(
        note["data"],
        json!({"url": url, "via": "RAY_API_SERVER_ADDRESS", "from": "environment"})
    );
    // In the environment, overriding the line's --address: warned, and read.
    let line = format!("ray job submit --address {closed} -- {MAIN_PPO}");
    let (code, value, read) = line_with_env(&line, &env, &server);
    assert_eq!((code, read), (Some(1), true), "{value}");
    let note = diagnostic(&value, "resource_pool::verl::launch_address_overridden");
    assert_eq!(
        note["data"],
        json!({"address": closed, "via": "--address", "by": "RAY_API_SERVER_ADDRESS"})
    );
    let help = note["help"].as_str().unwrap();
    assert!(
        help.contains("unset RAY_API_SERVER_ADDRESS and RAY_ADDRESS"),
        "{help}"
    );
    // Removed by the line: --address is the job's.
    let line =
        format!("env -u RAY_API_SERVER_ADDRESS ray job submit --address {url} -- {MAIN_PPO}");
    let (code, value, read) = line_with_env(&line, &[("RAY_API_SERVER_ADDRESS", closed)], &server);
    assert_eq!((code, read), (Some(1), true), "{value}");
    // Not a dashboard URL: said, and RAY_ADDRESS (not the job's) is not read.
    let (code, value, read) = line_with_env(
        &line.replace(
            &format!("env -u RAY_API_SERVER_ADDRESS ray job submit --address {url}"),
            "ray job submit",
        ),
        &[
            ("RAY_API_SERVER_ADDRESS", "ray://127.0.0.1:10001"),
            ("RAY_ADDRESS", url),
        ],
        &server,
    );
    assert_eq!((code, read), (Some(2), false), "{value}");
    assert_eq!(
        codes(&value),
        [
            "resource_pool::verl::launch_address_not_dashboard",
            "resource_pool::cli::no_cluster"
        ]
    );
}

#[test]
fn a_line_that_removes_ray_address_does_not_check_the_environments() {
    use crate::ray_http::{FakeDashboard, fixtures};
    let server = FakeDashboard::start(fixtures("idle"));
    let url = server.url.as_str();
    for line in [
        format!("env -u RAY_ADDRESS ray job submit -- {MAIN_PPO}"),
        format!("env -i ray job submit -- {MAIN_PPO}"),
        format!("RAY_ADDRESS= ray job submit -- {MAIN_PPO}"),
    ] {
        let (code, value, read) = line_with_env(&line, &[("RAY_ADDRESS", url)], &server);
        assert_eq!((code, read), (Some(2), false), "{line}: {value}");
        assert_eq!(
            codes(&value),
            [
                "resource_pool::verl::launch_address_cleared",
                "resource_pool::cli::no_cluster"
            ],
            "{line}"
        );
    }
    // A source of ours still wins.
    let line = format!("env -u RAY_ADDRESS ray job submit -- {MAIN_PPO}");
    let mut args = vec!["--ray", url, "--"];
    args.extend(line.split(' '));
    let (code, value) = json_with_env(&args, &[("RAY_ADDRESS", url)]);
    assert_eq!(code, Some(1), "{value}");
    assert!(!codes(&value).contains(&"resource_pool::verl::launch_address_cleared"));
}

#[test]
fn ray_address_is_a_dashboard_url_in_any_case_and_with_spaces() {
    use crate::ray_http::{FakeDashboard, fixtures};
    let server = FakeDashboard::start(fixtures("idle"));
    let upper = server.url.replacen("http://", "HTTP://", 1);
    for address in [upper, format!(" {} ", server.url)] {
        let (code, value, read) = line_with_env(MAIN_PPO, &[("RAY_ADDRESS", &address)], &server);
        assert_eq!((code, read), (Some(1), true), "{address:?}: {value}");
    }
}

/// The Python front end passes a config dict as JSON text named `<config>`: its values are
/// "set in the config", never "the YAML" (the dict is no file the user wrote).
#[test]
fn a_config_given_as_data_is_labelled_as_the_config() {
    use resource_pool::source::SourceFile;
    use resource_pool::verl::launch::parse_launch;
    use resource_pool::verl::{CONFIG_DATA_NAME, VerlOptions};
    let config = SourceFile::new(CONFIG_DATA_NAME, "{\"trainer\": {\"nnodes\": \"2\"}}");
    let load = resource_pool::report::VerlLoad::new(
        Some(&config),
        &parse_launch(&[]),
        &VerlOptions::new(1000),
    );
    let text = resource_pool::report::render_human(&load.findings, false);
    assert!(text.contains("set in the config"), "{text}");
    assert!(!text.contains("YAML"), "{text}");
}

/// An option of `verl` written after the launch line is said to go before it, once, for
/// the option and its value (not "`--cluster` is not an override" and "`FILE` is not an
/// override").
#[test]
fn an_option_after_the_launch_line_says_where_options_go() {
    let output = run(&[
        "verl",
        "--format",
        "json",
        "python3",
        "-m",
        "verl.trainer.main_ppo",
        "trainer.nnodes=1",
        "--cluster",
        "examples/clusters/three_nodes.toml",
        "-q",
    ]);
    let value: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let found = codes(&value);
    assert_eq!(
        found
            .iter()
            .filter(|c| **c == "resource_pool::cli::option_after_launch_line")
            .count(),
        2,
        "{found:?}"
    );
    assert!(
        !found.contains(&"resource_pool::verl::override_syntax"),
        "{found:?}"
    );
    let first = &value["diagnostics"][0];
    assert_eq!(first["data"]["option"], "--cluster");
    assert!(
        first["help"]
            .as_str()
            .unwrap()
            .contains("go before the launch line (before `--`)"),
        "{first}"
    );
}

/// A word that is not UTF-8 is read with `�` for its bad bytes: a data path stops nothing,
/// and a pool key's value holding one is no integer.
#[cfg(unix)]
#[test]
fn launch_words_that_are_not_utf8() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let json_of_bytes = |last: &[u8]| {
        let output = common::resource_pool()
            .args([
                "verl",
                "--format",
                "json",
                "--cluster",
                "examples/clusters/three_nodes.toml",
                "--",
                "python3",
                "-m",
                "verl.trainer.main_ppo",
                "trainer.nnodes=2",
            ])
            .arg(OsStr::from_bytes(last))
            .output()
            .expect("the binary runs");
        let value: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
        (output.status.code(), value)
    };
    let (status, value) = json_of_bytes(b"data.train_files=/data/caf\xe9/train.parquet");
    assert_eq!(status, Some(0), "{value}");
    let (status, value) = json_of_bytes(b"trainer.n_gpus_per_node=8\xe9");
    assert_eq!(status, Some(1));
    let wrong = &value["diagnostics"][0];
    assert_eq!(wrong["code"], "resource_pool::verl::wrong_type");
    assert_eq!(
        wrong["data"]["found"],
        json!({"form": "plain", "text": "8\u{fffd}"})
    );
}

/// A line held as words keeps the shell's leftovers: blank words are skipped, and a
/// `2>&1 | tee log` tail is one advice, not an error per word.
#[test]
fn shell_leftovers_in_the_launch_words() {
    let (status, value) = json_of(&[
        "--cluster",
        "examples/clusters/three_nodes.toml",
        "--",
        "python3",
        "-m",
        "verl.trainer.main_ppo",
        "\n",
        "trainer.nnodes=2",
        "  ",
        "$@",
        "2>&1",
        "|",
        "tee",
        "verl_demo.log",
    ]);
    assert_eq!(status, Some(0), "{value}");
    assert_eq!(codes(&value), ["resource_pool::verl::shell_syntax"]);
    assert_eq!(value["diagnostics"][0]["severity"], "advice");
    assert_eq!(
        value["diagnostics"][0]["data"]["ignored"],
        "$@ 2>&1 | tee verl_demo.log"
    );
}

/// `pools` and `mapping` are always in the JSON, `null` when verl would stop before its
/// layout: the same keys as Python's `as_dict()`.
#[test]
fn the_json_always_has_pools_and_mapping() {
    let (_, value) = json_of(&[
        "--cluster",
        "examples/clusters/three_nodes.toml",
        "--",
        "trainer.nnodes=2",
        "trainer.nnode=2",
    ]);
    let object = value.as_object().expect("an object");
    assert_eq!(object.get("pools"), Some(&Value::Null), "{value}");
    assert_eq!(object.get("mapping"), Some(&Value::Null), "{value}");
}

/// Hydra's own arguments: a cut long flag is the flag, a dashed word that is none of
/// Hydra's flags is refused (with the word and data), and `--cfg` starts no training.
#[test]
fn hydra_flags_as_hydras_argument_parser_reads_them() {
    let line = |words: &[&'static str]| {
        let mut all = vec![
            "--cluster",
            THREE,
            "--",
            "python3",
            "-m",
            "verl.trainer.main_ppo",
        ];
        all.extend_from_slice(words);
        json_of(&all)
    };
    let (code, value) = line(&[
        "--config-n=ppo_trainer",
        "trainer.nnodes=1",
        "trainer.n_gpus_per_node=8",
    ]);
    assert_eq!(code, Some(0), "{value}");
    assert!(
        !codes(&value).contains(&"resource_pool::verl::hydra_args"),
        "{value}"
    );
    let (code, value) = line(&["trainer.nnodes=1", "--nnodes=2"]);
    assert_eq!(code, Some(1), "{value}");
    assert_eq!(codes(&value), ["resource_pool::verl::hydra_args"]);
    assert_eq!(value["diagnostics"][0]["data"]["problem"], "unknown_flag");
    assert_eq!(value["diagnostics"][0]["data"]["word"], "--nnodes");
    let (code, value) = line(&["--cfg", "job", "trainer.nnodes=1"]);
    assert_eq!(code, Some(1), "{value}");
    let first = &value["diagnostics"][0];
    assert_eq!(first["data"]["problem"], "starts_no_training", "{value}");
    assert_eq!(first["data"]["flags"], json!(["--cfg"]));
}
