//! `resource-pool verl --python PYTHON`: the command's side of the probe, with stand-in
//! Pythons that answer as the probe does (`python/resource_pool/_verl_probe.py`). The probe
//! itself runs in verl's own environments in tests/guard/run.sh.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{json, run};

/// `script` written to `path`, executable.
fn executable(path: &Path, script: &str) {
    std::fs::write(path, script).unwrap();
    let mut perms = std::fs::metadata(path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(path, perms).unwrap();
}

/// `resource-pool verl [FLAGS] --python PY --cluster big_and_small -- LINE`.
fn verl_with(py: &Path, flags: &[&str], line: &[&str]) -> Output {
    let py = py.to_str().unwrap();
    let mut args = vec!["verl"];
    args.extend(flags);
    args.extend([
        "--python",
        py,
        "--cluster",
        "examples/clusters/big_and_small.toml",
        "--",
    ]);
    args.extend(line);
    run(&args)
}

/// A stand-in Python: it writes the request it was given (`-c SCRIPT REQUEST`) beside
/// itself and prints `answer` as the probe's last line, after what verl prints.
fn python(dir: &Path, answer: &str) -> PathBuf {
    let path = dir.join("python");
    // The probe prints its answer on one line.
    let answer = answer.replace('\n', " ");
    let script = format!(
        "#!/bin/sh\nprintf '%s' \"$3\" > \"{}\"\necho 'verl prints this' >&2\necho 'and this'\ncat <<'EOF'\n{answer}\nEOF\n",
        dir.join("request.json").display()
    );
    executable(&path, &script);
    path
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rp-verl-python-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const RECIPE_POOLS: &str = r#"{"outcome": "built", "verl": {"version": "0.8.0", "path": "/v/verl"},
  "hydra": {"main": "recipe.one_step.main", "config_path": "config", "config_name": "one_step"},
  "config": {"trainer.device": "cuda"}, "stand_in_model_for": ["Qwen/Qwen3-8B"],
  "built_at": "/v/recipe/one_step/main.py:120 (init_resource_pool_mgr)",
  "pools": [{"name": "global_pool", "process_on_nodes": [8]}, {"name": "rollout_pool", "process_on_nodes": [4]}],
  "mapping": [{"role": "Actor", "pool": "global_pool"}, {"role": "Rollout", "pool": "rollout_pool"}],
  "max_colocate_count": 3}"#;

#[test]
fn the_pools_verl_built_are_checked_and_the_request_is_the_line() {
    let dir = scratch("built");
    let py = python(&dir, RECIPE_POOLS);
    let out = verl_with(
        &py,
        &[],
        &[
            "python3",
            "-m",
            "recipe.one_step.main",
            "--config-name",
            "one_step",
            "trainer.nnodes=1",
            "+x.y=1",
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.starts_with(&format!(
            "verl 0.8.0 of {} built at recipe/one_step/main.py:120 (init_resource_pool_mgr): global_pool = [8], rollout_pool = [4]; actor → global_pool, rollout → rollout_pool\n",
            py.display()
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("verl 0.8.0 creates the groups of"),
        "{stdout}"
    );
    let request: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("request.json")).unwrap()).unwrap();
    assert_eq!(
        request,
        serde_json::json!({"entry": {"module": "recipe.one_step.main"},
            "args": ["--config-name=one_step", "trainer.nnodes=1", "+x.y=1"]})
    );
}

#[test]
fn the_json_says_what_was_installed() {
    let dir = scratch("json");
    let py = python(&dir, RECIPE_POOLS);
    let out = verl_with(&py, &["--format", "json"], &["trainer.nnodes=1"]);
    let value = json(&out);
    assert_eq!(value["installed"]["verl"]["version"], "0.8.0");
    assert_eq!(value["installed"]["stand_in_model_for"][0], "Qwen/Qwen3-8B");
    assert_eq!(value["pools"][1]["name"], "rollout_pool");
    assert_eq!(value["mapping"]["rollout"], "rollout_pool");
    assert_eq!(value["verl"]["release"], "0.8.0");
}

#[test]
fn where_hydra_refuses_the_line_that_is_the_error() {
    let dir = scratch("hydra");
    let answer = r#"{"outcome": "hydra_refuses", "verl": {"version": "0.9.1", "path": "/v"},
        "error_type": "ConfigCompositionException", "message": "Could not override 'trainer.nnodez'.",
        "where": "hydra/_internal/config_loader_impl.py:100"}"#;
    let py = python(&dir, answer);
    let out = verl_with(
        &py,
        &["--format", "json"],
        &["python3", "-m", "verl.trainer.main_ppo", "trainer.nnodez=2"],
    );
    assert_eq!(out.status.code(), Some(1));
    let value = json(&out);
    let codes: Vec<&str> = (value["diagnostics"].as_array().unwrap().iter())
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(
        codes,
        ["resource_pool::verl::installed::hydra_refuses"],
        "{value}"
    );
    assert!(value["pools"].is_null());
}

#[test]
fn an_older_verl_is_checked_as_the_oldest_release_known_and_said() {
    let dir = scratch("old");
    let answer = RECIPE_POOLS.replace("\"0.8.0\"", "\"0.3.1\"");
    let py = python(&dir, &answer);
    let out = verl_with(&py, &["--format", "json"], &["trainer.nnodes=1"]);
    let value = json(&out);
    let codes: Vec<&str> = (value["diagnostics"].as_array().unwrap().iter())
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert!(
        codes.contains(&"resource_pool::verl::installed::release_not_known"),
        "{codes:?}"
    );
    assert_eq!(value["verl"]["release"], "0.5.0");
}

#[test]
fn a_python_without_an_answer_is_an_input_error() {
    let dir = scratch("none");
    let py = dir.join("python");
    executable(
        &py,
        "#!/bin/sh\necho 'Traceback: ModuleNotFoundError: torch' >&2\nexit 1\n",
    );
    let out = verl_with(&py, &[], &["trainer.nnodes=1"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("installed::no_answer"), "{stderr}");
    assert!(stderr.contains("ModuleNotFoundError: torch"), "{stderr}");
}

#[test]
fn python_and_verl_version_exclude_each_other() {
    let out = run(&[
        "verl",
        "--python",
        "python3",
        "--verl-version",
        "0.9.1",
        "--",
        "trainer.nnodes=1",
    ]);
    assert_eq!(out.status.code(), Some(2));
}
