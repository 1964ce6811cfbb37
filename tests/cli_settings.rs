//! Settings from the command line: `--set`, `RESOURCE_POOL_*` environment variables,
//! `--quiet` and `--color`.

use std::process::{Command, Output};

use serde_json::Value;

const CONFIG: &str = "examples/configs/ascend.toml";

fn run_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_resource-pool"));
    command
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("NO_COLOR")
        .env_remove("RAY_ADDRESS");
    for name in ["SET", "FORMAT", "ROLES", "COLOR"] {
        command.env_remove(format!("RESOURCE_POOL_{name}"));
    }
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().expect("the binary runs")
}

fn run(args: &[&str]) -> Output {
    run_env(args, &[])
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

#[test]
fn a_lint_error_from_set_names_the_command_line() {
    let out = run(&[
        "lint",
        CONFIG,
        "--format",
        "json",
        "--set",
        "pools.global_pool.process_on_nodes=[8,0]",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    let d = &v["diagnostics"][0];
    assert_eq!(d["code"], "resource_pool::config::zero_slot");
    assert_eq!(d["file"], "command line");
    assert_eq!(d["line"], 1);
    assert_eq!(d["column"], 39);
}

#[test]
fn set_fixes_and_breaks_a_config() {
    assert_eq!(run(&["lint", CONFIG]).status.code(), Some(0));
    let out = run(&[
        "lint",
        CONFIG,
        "--set",
        "pools.global_pool.max_colocate_count=0",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let text = stderr(&out);
    assert!(text.contains("[command line:1:"), "{text}");
    assert!(text.contains("max_colocate_count=0"), "{text}");
}

#[test]
fn a_malformed_override_is_a_usage_error() {
    let out = run(&[
        "lint",
        CONFIG,
        "--set",
        "pools.global_pool",
        "--set",
        "mapping.ref.x=1",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let text = stderr(&out);
    assert!(text.contains("resource_pool::set::no_equals"), "{text}");
    assert!(text.contains("resource_pool::set::not_a_table"), "{text}");
    let out = run(&[
        "check",
        CONFIG,
        "--cluster",
        "examples/clusters/ascend.toml",
        "--set",
        "x=[1,",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("resource_pool::set::syntax"));
}

#[test]
fn environment_variables_apply_and_flags_win() {
    let env = [("RESOURCE_POOL_FORMAT", "json")];
    let out = run_env(&["lint", CONFIG], &env);
    assert_eq!(out.status.code(), Some(0));
    json(&out);
    let out = run_env(&["lint", CONFIG, "--format", "human"], &env);
    assert!(out.stdout.is_empty());
    assert!(stderr(&out).contains("valid"));
    let set = [(
        "RESOURCE_POOL_SET",
        "pools.global_pool.max_colocate_count=0\npools.global_pool.process_on_nodes=[8,0]",
    )];
    let out = run_env(&["lint", CONFIG, "--format", "json"], &set);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json(&out)["diagnostics"].as_array().unwrap().len(), 2);
    // A flag replaces the variable's overrides.
    let out = run_env(
        &[
            "lint",
            CONFIG,
            "--set",
            "pools.global_pool.max_colocate_count=2",
        ],
        &set,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn quiet_silences_the_summary_but_not_errors() {
    let out = run(&["lint", CONFIG, "-q"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
    let out = run(&[
        "lint",
        CONFIG,
        "-q",
        "--set",
        "pools.global_pool.max_colocate_count=0",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let text = stderr(&out);
    assert!(
        text.contains("zero_colocate") || text.contains("max_colocate_count"),
        "{text}"
    );
    assert!(!text.contains("invalid ("), "{text}");
}

#[test]
fn color_follows_the_flag_the_variable_and_no_color() {
    let bad = [
        "lint",
        CONFIG,
        "--set",
        "pools.global_pool.max_colocate_count=0",
    ];
    let with = |extra: &[&str], env: &[(&str, &str)]| {
        let args: Vec<&str> = bad.iter().chain(extra).copied().collect();
        stderr(&run_env(&args, env)).contains('\u{1b}')
    };
    assert!(with(&["--color", "always"], &[]));
    assert!(!with(&["--color", "never"], &[]));
    assert!(!with(&[], &[("NO_COLOR", "1")]));
    assert!(!with(&[], &[]), "auto on a pipe is plain");
    assert!(with(&[], &[("RESOURCE_POOL_COLOR", "always")]));
    assert!(!with(
        &["--color", "never"],
        &[("RESOURCE_POOL_COLOR", "always")]
    ));
}
