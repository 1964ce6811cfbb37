//! `resource-pool verl --verl-version V`: the pools release V's entry point builds, the keys
//! it lacks or ignores; and pool-key typos in a YAML.

use crate::common::run;
use crate::verl_cli::{codes, json_of};

const THREE: &str = "examples/clusters/three_nodes.toml";

/// The line of the QA report: newer reward keys and distillation.
const LINE: &[&str] = &[
    "python3",
    "-m",
    "verl.trainer.main_ppo",
    "trainer.nnodes=2",
    "reward.reward_model.enable=True",
    "reward.reward_model.enable_resource_pool=True",
    "reward.reward_model.n_gpus_per_node=4",
    "reward.reward_model.nnodes=1",
    "distillation.enabled=True",
    "distillation.nnodes=1",
];

fn at(version: &str) -> (Option<i32>, serde_json::Value) {
    at_with(version, LINE)
}

fn at_with(version: &str, line: &[&str]) -> (Option<i32>, serde_json::Value) {
    let mut args = vec!["--verl-version", version, "--cluster", THREE, "--"];
    args.extend_from_slice(line);
    json_of(&args)
}

#[test]
fn verl_050_builds_global_pool_alone_and_says_the_keys_it_lacks() {
    // Its config lacks the keys that ask for a reward or teacher pool: Hydra stops on
    // each (one error each), and verl builds nothing.
    let (code, value) = at("0.5.0");
    assert_eq!(code, Some(1), "{value}");
    assert_eq!(value["pools"], serde_json::Value::Null, "{value}");
    let unknown = codes(&value)
        .iter()
        .filter(|c| **c == "resource_pool::verl::unknown_key")
        .count();
    assert_eq!(unknown, 6, "{value}");
    // Added (`+`), Hydra takes them, and verl 0.5.0 reads none: global_pool alone, whose
    // bundles hold 1 CPU each (hard-coded in create_resource_pool).
    let added: Vec<String> = LINE
        .iter()
        .map(
            |w| match w.starts_with("reward.") || w.starts_with("distillation.") {
                true => format!("+{w}"),
                false => (*w).to_owned(),
            },
        )
        .collect();
    let added: Vec<&str> = added.iter().map(String::as_str).collect();
    let (code, value) = at_with("0.5.0", &added);
    assert_eq!(code, Some(0), "{value}");
    assert_eq!(
        value["pools"],
        serde_json::json!([{"name": "global_pool", "process_on_nodes": [8, 8],
            "accelerator": "GPU", "max_colocate_count": 1}])
    );
    assert_eq!(
        value["mapping"],
        serde_json::json!({"actor_rollout": "global_pool", "critic": "global_pool"})
    );
}

#[test]
fn verl_09_builds_the_reward_and_teacher_pools() {
    let (code, value) = at("0.9.1");
    assert_eq!(code, Some(1), "{value}");
    let names: Vec<&str> = value["pools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["global_pool", "reward_pool", "teacher_pool"]);
    assert_eq!(value["mapping"]["rm"], "reward_pool");
    assert_eq!(value["mapping"]["teacher"], "teacher_pool");
}

#[test]
fn a_build_from_source_or_a_newer_release_is_judged_as_the_newest_release_before_it() {
    // `verl.__version__` of verl installed from git (main carries the next release's
    // `.dev`), or of a release past the key set.
    for (version, release) in [
        ("0.9.2.dev0", "0.9.1"),
        ("0.7.0.dev", "0.6.1"),
        ("0.10.0", "0.9.1"),
    ] {
        let (code, value) = at(version);
        assert_eq!(
            value["launch"]["releases"],
            serde_json::json!([release]),
            "{version}"
        );
        let (code_of_release, value_of_release) = at(release);
        assert_eq!(code, code_of_release, "{version}");
        assert_eq!(value["pools"], value_of_release["pools"], "{version}");
        let note = value["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["code"] == "resource_pool::verl::version_approximated")
            .unwrap_or_else(|| panic!("{version}: {value}"));
        assert_eq!(note["severity"], "warning");
        assert_eq!(
            note["data"],
            serde_json::json!({"version": version, "release": release})
        );
        assert!(!codes(&value_of_release).contains(&"resource_pool::verl::version_approximated"));
    }
    // Older than every release: not judged, one notice that says so.
    let (code, value) = at("0.4.0");
    assert_eq!(
        (code, codes(&value)),
        (Some(0), vec!["resource_pool::verl::not_judged"])
    );
    // Not a version: refused.
    for version in ["latest", "0.9.x"] {
        let (code, value) = at(version);
        assert_eq!(
            (code, codes(&value)),
            (Some(2), vec!["resource_pool::verl::unknown_version"]),
            "{version}"
        );
    }
}

#[test]
fn an_empty_verl_version_is_said_to_be_empty() {
    for version in ["", "  "] {
        let (code, value) = at(version);
        assert_eq!(
            (code, codes(&value)),
            (Some(2), vec!["resource_pool::verl::empty_version"]),
            "{version:?}"
        );
        let mut args = vec!["verl", "--verl-version", version, "--cluster", THREE, "--"];
        args.extend_from_slice(LINE);
        let output = run(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("the verl version is empty"), "{stderr}");
        assert!(!stderr.contains("verl  is"), "{stderr}");
    }
}

#[test]
fn verl_yaml_pool_key_typo_points_into_the_yaml() {
    let dir = std::env::temp_dir().join(format!("rp-verl-typo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("typo.yaml");
    std::fs::write(&path, "trainer:\n  nnode: 2\n").unwrap();
    let path = path.to_str().unwrap();
    let (code, value) = json_of(&["--config", path, "--cluster", THREE]);
    assert_eq!(code, Some(1), "{value}");
    assert_eq!(codes(&value), ["resource_pool::verl::pool_key_typo"]);
    let output = run(&["verl", "--config", path, "--cluster", THREE]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("in the YAML"), "{stderr}");
    assert!(stderr.contains("typo.yaml:2:3"), "{stderr}");
    std::fs::remove_dir_all(&dir).ok();
}
