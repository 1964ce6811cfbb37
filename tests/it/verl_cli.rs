//! `resource-pool verl`: verl's YAML and overrides to checked pools, end to end.

use crate::common;

use common::run;

use serde_json::{Value, json};

fn json_of(args: &[&str]) -> (Option<i32>, Value) {
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

fn codes(value: &Value) -> Vec<&str> {
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
            "tests/data/verl/colocated.yaml",
            THREE,
            json!([{"name": "global_pool", "process_on_nodes": [8], "accelerator": "GPU", "max_colocate_count": 3}]),
            json!({"actor_rollout": "global_pool", "critic": "global_pool", "ref": "global_pool"}),
        ),
        (
            "tests/data/verl/reward_pool.yaml",
            THREE,
            json!([
                {"name": "global_pool", "process_on_nodes": [8, 8], "accelerator": "GPU", "max_colocate_count": 3},
                {"name": "reward_pool", "process_on_nodes": [4], "accelerator": "GPU", "max_colocate_count": 3}
            ]),
            json!({"actor_rollout": "global_pool", "critic": "global_pool", "rm": "reward_pool", "ref": "global_pool"}),
        ),
        (
            "tests/data/verl/npu.yaml",
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
        "tests/data/verl/reward_pool.yaml",
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
        "tests/data/verl/broken.yaml",
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
            .all(|d| d["file"] == "tests/data/verl/broken.yaml")
    );
}

#[test]
fn unreadable_yaml_and_missing_cluster_exit_2() {
    let (code, _) = json_of(&["--config", "tests/data/verl/nope.yaml", "--cluster", THREE]);
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
        "tests/data/verl/broken.yaml",
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
        "tests/data/verl/reward_pool.yaml",
        "--cluster",
        THREE
    ]));
}

#[test]
fn uneven_nodes_and_nnodes_against_the_cluster() {
    let (_, value) = json_of(&[
        "--cluster",
        "tests/data/verl/uneven_cluster.toml",
        "--",
        "trainer.nnodes=4",
    ]);
    let c = codes(&value);
    assert!(
        c.contains(&"resource_pool::verl::nnodes_vs_cluster"),
        "{c:?}"
    );
    assert!(c.contains(&"resource_pool::verl::uneven_nodes"), "{c:?}");
    // Node sizes the slots fill: no uneven warning.
    let (code, value) = json_of(&[
        "--config",
        "tests/data/verl/reward_pool.yaml",
        "--cluster",
        THREE,
    ]);
    assert_eq!((code, codes(&value)), (Some(0), vec![]));
}
