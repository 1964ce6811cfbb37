//! Settings from the command line: `--set`, `RESOURCE_POOL_*` environment variables,
//! `--quiet` and `--color`.

use crate::common;

use std::process::{Output, Stdio};

use common::json;

const CONFIG: &str = "examples/configs/ascend.toml";

/// Runs the binary with `env` set, and no colour variable unless `env` sets it.
fn run_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = common::resource_pool();
    command
        .args(args)
        .stdin(Stdio::null())
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR")
        .env_remove("CLICOLOR_FORCE");
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
    assert!(
        with(&[], &[("CLICOLOR_FORCE", "1")]),
        "CLICOLOR_FORCE colours a pipe"
    );
    assert!(!with(&[], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]));
    assert!(!with(&["--color", "never"], &[("CLICOLOR_FORCE", "1")]));
    assert!(!with(
        &["--color", "never"],
        &[("RESOURCE_POOL_COLOR", "always")]
    ));
}

#[test]
fn the_set_variable_skips_blank_and_comment_lines() {
    // As a CI system's multi-line value gives it: a comment, a trailing blank line.
    let set = [(
        "RESOURCE_POOL_SET",
        "# from the workflow\npools.global_pool.max_colocate_count=0\r\n\n",
    )];
    let out = run_env(&["lint", CONFIG, "--format", "json"], &set);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let diagnostics = json(&out)["diagnostics"].clone();
    let diagnostics = diagnostics.as_array().expect("array");
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(
        diagnostics[0]["code"],
        "resource_pool::config::zero_colocate"
    );
    assert_eq!(diagnostics[0]["file"], "command line");
    assert_eq!(
        diagnostics[0]["line"], 1,
        "counted among the overrides kept"
    );
    let out = run_env(&["lint", CONFIG], &[("RESOURCE_POOL_SET", "\n\n")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn limits_and_budgets_come_from_variables_too() {
    // ascend.toml asks for two node-slots.
    let out = run_env(
        &["lint", CONFIG, "--format", "json"],
        &[("RESOURCE_POOL_MAX_SLOTS", "1")],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        json(&out)["diagnostics"][0]["code"],
        "resource_pool::config::too_many_slots"
    );
    let out = run_env(
        &["lint", CONFIG, "--max-slots", "2"],
        &[("RESOURCE_POOL_MAX_SLOTS", "1")],
    );
    assert_eq!(out.status.code(), Some(0), "the flag wins");
    let check = [
        "check",
        CONFIG,
        "--cluster",
        "examples/clusters/ascend.toml",
    ];
    let out = run_env(&check, &[("RESOURCE_POOL_MAX_FILE_SIZE", "10")]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "a 10-byte limit refuses the config"
    );
    let out = run_env(&check, &[("RESOURCE_POOL_MAX_NODES", "1")]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    for name in [
        "RESOURCE_POOL_BUDGET_MS",
        "RESOURCE_POOL_MAX_STEPS",
        "RESOURCE_POOL_MAX_RAY_BRANCHES",
    ] {
        let out = run_env(&check, &[(name, "not-a-number")]);
        assert_eq!(out.status.code(), Some(2), "{name} is read");
        assert!(stderr(&out).contains("invalid value"), "{name}");
        let out = run_env(&check, &[(name, "1000")]);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
    }
}

#[test]
fn the_format_variable_takes_the_ci_formats() {
    let bad = "resource-pool-core/tests/data/lint/many_problems.toml";
    let out = run_env(&["lint", bad], &[("RESOURCE_POOL_FORMAT", "github")]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.starts_with("::error file="), "{text}");
    let out = run_env(&["lint", bad], &[("RESOURCE_POOL_FORMAT", "sarif")]);
    assert_eq!(json(&out)["version"], "2.1.0");
}

#[test]
fn the_cluster_variable_names_a_cluster_file_when_no_source_is_given() {
    let config = "examples/configs/verl_default.toml";
    let cluster = "examples/clusters/three_nodes.toml";
    let flag = run(&["check", config, "--cluster", cluster, "--format", "json"]);
    let variable = run_env(
        &["check", config, "--format", "json"],
        &[("RESOURCE_POOL_CLUSTER", cluster)],
    );
    assert_eq!(variable.status.code(), flag.status.code());
    assert_eq!(json(&variable), json(&flag));
    // Before RAY_ADDRESS (nothing listens on port 9).
    let both = run_env(
        &["inventory"],
        &[
            ("RESOURCE_POOL_CLUSTER", cluster),
            ("RAY_ADDRESS", "http://127.0.0.1:9"),
        ],
    );
    assert_eq!(both.status.code(), Some(0), "{}", stderr(&both));
    assert!(String::from_utf8_lossy(&both.stdout).contains("[[nodes]]"));
    // A source on the command line wins; the variable is not even read.
    let slurm = run_env(
        &[
            "inventory",
            "--slurm",
            "resource-pool-inventory/tests/data/slurm/nodes.json",
        ],
        &[("RESOURCE_POOL_CLUSTER", "/nonexistent/cluster.toml")],
    );
    assert_eq!(slurm.status.code(), Some(0), "{}", stderr(&slurm));
    // A file that is not there is exit 2, naming it.
    let missing = run_env(
        &["inventory"],
        &[("RESOURCE_POOL_CLUSTER", "/nonexistent/cluster.toml")],
    );
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr(&missing).contains("/nonexistent/cluster.toml"),
        "{}",
        stderr(&missing)
    );
    // ... and saying the variable named it (it may be long forgotten).
    assert!(
        stderr(&missing).contains("is the one RESOURCE_POOL_CLUSTER names"),
        "{}",
        stderr(&missing)
    );
}

#[test]
fn a_ray_address_that_names_no_dashboard_is_said_as_such() {
    let config = "examples/configs/verl_default.toml";
    for address in ["127.0.0.1:6379", "auto", "ray://head:10001"] {
        let out = run_env(
            &["check", config, "--format", "json"],
            &[("RAY_ADDRESS", address)],
        );
        assert_eq!(out.status.code(), Some(2), "{address}");
        let diagnostic = &json(&out)["diagnostics"][0];
        assert_eq!(
            diagnostic["code"], "resource_pool::cli::ray_address_not_dashboard",
            "{address}"
        );
        assert_eq!(diagnostic["data"]["address"], address);
    }
    // Unset or empty: nothing was set, and the message says what to set.
    let out = run_env(
        &["check", config, "--format", "json"],
        &[("RAY_ADDRESS", "")],
    );
    assert_eq!(
        json(&out)["diagnostics"][0]["code"],
        "resource_pool::cli::no_cluster"
    );
}

#[test]
fn a_zero_timeout_is_a_usage_error() {
    let out = run(&[
        "inventory",
        "--ray",
        "http://127.0.0.1:9",
        "--ray-timeout-ms",
        "0",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--ray-timeout-ms"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("did not answer"), "{}", stderr(&out));
}
