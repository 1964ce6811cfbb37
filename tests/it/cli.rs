//! The command line's contract: exit codes, the JSON shape, stdout and stderr.

use crate::common;

use common::{json, run};

use std::path::Path;

use serde_json::Value;

fn codes(value: &Value) -> Vec<String> {
    value["diagnostics"]
        .as_array()
        .expect("diagnostics is an array")
        .iter()
        .map(|d| d["code"].as_str().expect("code is a string").to_owned())
        .collect()
}

#[test]
fn every_example_config_lints_clean() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/configs");
    let mut paths: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .collect();
    paths.sort();
    assert!(paths.len() >= 5);
    let mut args = vec!["lint", "--format", "json"];
    args.extend(paths.iter().map(String::as_str));
    let output = run(&args);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert_eq!(json(&output)["diagnostics"], Value::Array(Vec::new()));
}

#[test]
fn lint_json_follows_the_contract() {
    let output = run(&[
        "lint",
        "--format",
        "json",
        "resource-pool-core/tests/data/lint/many_problems.toml",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let value = json(&output);
    let first = &value["diagnostics"][0];
    assert_eq!(first["code"], "resource_pool::config::zero_slot");
    assert_eq!(first["severity"], "error");
    assert_eq!(
        first["file"],
        "resource-pool-core/tests/data/lint/many_problems.toml"
    );
    assert_eq!(first["line"], 2);
    assert_eq!(first["column"], 24);
    assert!(first["message"].as_str().unwrap().contains("global_pool"));
    assert!(first["help"].is_string());
    let severities: Vec<&str> = value["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["severity"].as_str().unwrap())
        .collect();
    assert!(severities.contains(&"warning"));
    assert_eq!(codes(&value).len(), 11, "every problem of the file at once");
}

#[test]
fn warnings_alone_pass_lint() {
    let dir = tempdir();
    let path = dir.join("warn.toml");
    std::fs::write(
        &path,
        "[pools.p]\nprocess_on_nodes = [8, 4]\n\n[mapping]\nactor_rollout = \"p\"\n",
    )
    .unwrap();
    let output = run(&["lint", "--format", "json", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        codes(&json(&output)),
        ["resource_pool::config::uneven_slots"]
    );
}

#[test]
fn human_lint_renders_snippets_on_stderr() {
    let output = run(&[
        "lint",
        "resource-pool-core/tests/data/lint/many_problems.toml",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("process_on_nodes = [8, 0, 4]"), "{stderr}");
    assert!(stderr.contains("did you mean `accelerator`?"), "{stderr}");
    assert!(
        stderr.contains(
            "resource-pool-core/tests/data/lint/many_problems.toml: invalid (8 errors, 3 warnings)"
        ),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn unreadable_files_exit_2_with_one_line() {
    for path in ["does/not/exist.toml", "examples"] {
        let output = run(&["lint", path]);
        assert_eq!(output.status.code(), Some(2), "{path}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("resource_pool::file::unreadable"),
            "{stderr}"
        );
    }
    // Unreadable beats invalid when several files are given.
    let output = run(&[
        "lint",
        "resource-pool-core/tests/data/lint/many_problems.toml",
        "missing.toml",
    ]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(run(&["lint"]).status.code(), Some(2));
    assert_eq!(run(&["frobnicate"]).status.code(), Some(2));
    assert_eq!(
        run(&["lint", "--format", "yaml", "x.toml"]).status.code(),
        Some(2)
    );
}

#[test]
fn check_without_a_cluster_is_a_usage_error() {
    let output = run(&["check", "examples/configs/verl_default.toml"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("resource_pool::cli::no_cluster"));
}

fn check_json(config: &str, cluster: &str) -> (Option<i32>, Value) {
    let output = run(&[
        "check",
        &format!("examples/configs/{config}.toml"),
        "--cluster",
        &format!("examples/clusters/{cluster}.toml"),
        "--format",
        "json",
    ]);
    (output.status.code(), json(&output))
}

#[test]
fn check_places_a_layout_that_fits() {
    let (code, value) = check_json("verl_default", "three_nodes");
    assert_eq!(code, Some(0), "{value:#}");
    assert_eq!(value["feasible"], true);
    let placement = value["placement"].as_array().unwrap();
    assert_eq!(placement.len(), 3);
    for entry in placement {
        assert!(
            entry["pool"].is_string() && entry["slot"].is_u64() && entry["node"].is_string(),
            "{entry}"
        );
    }
    assert_eq!(value["diagnostics"], Value::Array(Vec::new()));
}

#[test]
fn check_catches_the_hang_of_ray_order() {
    let (code, value) = check_json("small_pool_first", "big_and_small");
    assert_eq!(code, Some(1), "{value:#}");
    assert_eq!(value["feasible"], true);
    assert_eq!(value["ray"], "hangs");
    assert_eq!(value["placement"].as_array().unwrap().len(), 2);
    // Ray places the small pool on the big node, and the large pool then pends.
    assert_eq!(
        value["ray_placement"],
        serde_json::json!([{"pool": "critic_pool", "slot": 0, "node": "big"}])
    );
    let hang = &value["diagnostics"][0];
    assert_eq!(hang["code"], "resource_pool::ray::hangs");
    assert_eq!(hang["line"], 8);
    assert!(
        hang["help"]
            .as_str()
            .unwrap()
            .contains("global_pool, critic_pool"),
        "{hang}"
    );

    let (code, value) = check_json("large_pool_first", "big_and_small");
    assert_eq!(code, Some(0), "{value:#}");
    assert_eq!(value["ray"], "places");
    assert_eq!(value["ray_placement"].as_array().unwrap().len(), 2);
}

#[test]
fn human_check_shows_the_plan_on_stdout() {
    let output = run(&[
        "check",
        "examples/configs/small_pool_first.toml",
        "--cluster",
        "examples/clusters/big_and_small.toml",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    insta::assert_snapshot!(stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("resource_pool::ray::hangs"), "{stderr}");
    assert!(
        stderr.contains("check: placeable; Ray hangs (1 error, 0 warnings)"),
        "{stderr}"
    );
}

#[test]
fn check_colours_the_plan_only_when_asked() {
    let args = [
        "check",
        "examples/configs/verl_default.toml",
        "--cluster",
        "examples/clusters/three_nodes.toml",
    ];
    let plain = run(&args);
    assert_eq!(plain.status.code(), Some(0));
    assert!(
        !plain.stdout.contains(&0x1b),
        "NO_COLOR and no terminal: no colour"
    );
    let mut always = args.to_vec();
    always.extend(["--color", "always"]);
    let coloured = run(&always);
    assert_eq!(coloured.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&coloured.stdout);
    assert!(stdout.contains("\x1b[1;32mA0\x1b[0m"), "{stdout}");
}

#[test]
fn check_writes_the_plan_as_svg() {
    let dir = tempdir();
    let path = dir.join("plan.svg");
    let output = run(&[
        "check",
        "examples/configs/small_pool_first.toml",
        "--cluster",
        "examples/clusters/big_and_small.toml",
        "--plan",
        "svg",
        path.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1), "the hang still fails");
    let svg = std::fs::read_to_string(&path).expect("the SVG is written");
    assert!(svg.starts_with("<?xml"), "{svg}");
    assert!(svg.trim_end().ends_with("</svg>"), "{svg}");
    assert!(svg.contains("A placement exists:"), "{svg}");
    assert!(svg.contains("PENDING global_pool[0]"), "{svg}");
    // The text on stdout is unchanged by --plan.
    assert!(String::from_utf8_lossy(&output.stdout).contains("PENDING global_pool[0]"));
}

#[test]
fn check_of_an_invalid_config_writes_an_svg_that_says_there_is_no_plan() {
    let dir = tempdir();
    let path = dir.join("invalid.svg");
    let output = run(&[
        "check",
        "resource-pool-core/tests/data/lint/many_problems.toml",
        "--cluster",
        "examples/clusters/three_nodes.toml",
        "--plan",
        "svg",
        path.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    let svg = std::fs::read_to_string(&path).expect("the SVG is written");
    assert!(svg.contains("No plan: nothing to draw."), "{svg}");
}

#[test]
fn check_of_a_layout_nothing_fits_draws_where_ray_stops() {
    // 20 GPUs wanted, 16 free: Ray places the first 8, and the second group pends.
    let output = run(&[
        "check",
        "examples/configs/verl_default.toml",
        "--cluster",
        "examples/clusters/busy.toml",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("\nRay, in verl 0.9.1's order, would do:"),
        "{stdout}"
    );
    assert!(stdout.contains("PENDING global_pool[1]"), "{stdout}");
    assert!(stdout.contains("not created: reward_pool[0]"), "{stdout}");
}

#[test]
fn check_plan_of_an_unknown_kind_is_a_usage_error() {
    let output = run(&[
        "check",
        "examples/configs/verl_default.toml",
        "--cluster",
        "examples/clusters/three_nodes.toml",
        "--plan",
        "png",
        "plan.png",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("invalid kind 'png'"), "{stderr}");
    assert!(
        !Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("plan.png")
            .exists()
    );
}

#[test]
fn check_plan_to_stdout_is_a_usage_error() {
    let output = run(&[
        "check",
        "examples/configs/verl_default.toml",
        "--cluster",
        "examples/clusters/three_nodes.toml",
        "--plan",
        "svg",
        "-",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("invalid file '-'"), "{stderr}");
    assert!(output.stdout.is_empty());
    assert!(!Path::new(env!("CARGO_MANIFEST_DIR")).join("-").exists());
}

#[test]
fn check_plan_that_cannot_be_written_exits_2() {
    let dir = tempdir();
    let path = dir.join("no-such-dir").join("plan.svg");
    let output = run(&[
        "check",
        "examples/configs/verl_default.toml",
        "--cluster",
        "examples/clusters/three_nodes.toml",
        "--plan",
        "svg",
        path.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let value = json(&output);
    assert_eq!(codes(&value), ["resource_pool::plan::unwritable"]);
    assert_eq!(value["ray"], "places", "the check itself still ran");
    let human = run(&[
        "check",
        "examples/configs/verl_default.toml",
        "--cluster",
        "examples/clusters/three_nodes.toml",
        "--plan",
        "svg",
        path.to_str().unwrap(),
    ]);
    assert_eq!(human.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&human.stderr);
    assert!(
        stderr.contains("error[resource_pool::plan::unwritable]: cannot write the plan to"),
        "{stderr}"
    );
}

#[test]
fn check_explains_what_does_not_fit() {
    let (code, value) = check_json("verl_default", "cpu_starved");
    assert_eq!(code, Some(1));
    assert_eq!(value["feasible"], false);
    assert_eq!(value["placement"], Value::Array(Vec::new()));
    let codes = codes(&value);
    assert!(
        codes.contains(&"resource_pool::placement::slot_fits_no_node".to_owned()),
        "{codes:?}"
    );
    let unfit = value["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "resource_pool::placement::slot_fits_no_node")
        .unwrap();
    assert!(
        unfit["message"]
            .as_str()
            .unwrap()
            .contains("gpu-box: CPU 7 of 24"),
        "{unfit}"
    );
    assert_eq!(unfit["line"], 4, "points at the node-slot in the config");
}

#[test]
fn check_tells_busy_now_from_never() {
    let (code, value) = check_json("verl_default", "busy");
    assert_eq!(code, Some(1));
    let text = value["diagnostics"].to_string();
    assert!(text.contains("busy now"), "{text}");
    let (_, value) = check_json("verl_default", "cpu_starved");
    assert!(value["diagnostics"].to_string().contains("never"));
}

#[test]
fn check_of_an_invalid_config_exits_1_with_null_verdicts() {
    let output = run(&[
        "check",
        "resource-pool-core/tests/data/lint/many_problems.toml",
        "--cluster",
        "examples/clusters/three_nodes.toml",
        "--format",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let value = json(&output);
    assert_eq!(value["feasible"], Value::Null);
    assert_eq!(value["ray"], Value::Null);
}

#[test]
fn a_bad_cluster_file_exits_2() {
    let dir = tempdir();
    let path = dir.join("cluster.toml");
    std::fs::write(&path, "[[nodes]]\nid = \"a\"\navailable = { GPU = -1 }\n").unwrap();
    let output = run(&[
        "check",
        "examples/configs/verl_default.toml",
        "--cluster",
        path.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(codes(&json(&output)), ["resource_pool::toml::bad_number"]);
}

#[test]
fn inventory_prints_a_cluster_file_that_reads_back() {
    let output = run(&["inventory", "--cluster", "examples/clusters/busy.toml"]);
    assert_eq!(output.status.code(), Some(0));
    let dir = tempdir();
    let path = dir.join("copy.toml");
    std::fs::write(&path, &output.stdout).unwrap();
    let again = run(&["inventory", "--cluster", path.to_str().unwrap()]);
    assert_eq!(again.stdout, output.stdout);
}

#[test]
fn json_cluster_files_read_as_toml_ones_do() {
    // `inventory --format json` writes the cluster file as JSON; `--cluster` reads it by
    // its extension, and from stdin by its content.
    let toml = run(&["inventory", "--cluster", "examples/clusters/busy.toml"]);
    let printed = run(&[
        "inventory",
        "--cluster",
        "examples/clusters/busy.toml",
        "--format",
        "json",
    ]);
    assert_eq!(printed.status.code(), Some(0));
    let value: Value = serde_json::from_slice(&printed.stdout).expect("JSON");
    assert!(value["nodes"].as_array().is_some_and(|n| !n.is_empty()));
    let dir = tempdir();
    let path = dir.join("busy.json");
    std::fs::write(&path, &printed.stdout).unwrap();
    let from_file = run(&["inventory", "--cluster", path.to_str().unwrap()]);
    assert_eq!(from_file.stdout, toml.stdout);
    let text = String::from_utf8(printed.stdout.clone()).unwrap();
    let from_stdin = crate::common::run_with_stdin(&["inventory", "--cluster", "-"], Some(&text));
    assert_eq!(
        from_stdin.stdout,
        toml.stdout,
        "{}",
        String::from_utf8_lossy(&from_stdin.stderr)
    );
    // A broken JSON file: its problem on its span, exit 2.
    std::fs::write(
        &path,
        "{\"nodes\": [{\"id\": \"a\", \"available\": {\"GPU\": -1}}]}",
    )
    .unwrap();
    let output = run(&[
        "check",
        "examples/configs/verl_default.toml",
        "--cluster",
        path.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let value = json(&output);
    assert_eq!(codes(&value), ["resource_pool::toml::bad_number"]);
    assert_eq!(value["diagnostics"][0]["column"], 45);
}

/// A fresh directory under the target dir (no tempfile dependency).
fn tempdir() -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "cli-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn quiet_shows_errors_only() {
    let output = run(&[
        "lint",
        "-q",
        "resource-pool-core/tests/data/lint/many_problems.toml",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("resource_pool::config::zero_slot"),
        "{stderr}"
    );
    // The file's three warnings, and the verdict line, are not shown.
    for warning in ["uneven_slots", "unused_pool", "unknown_role", "invalid ("] {
        assert!(!stderr.contains(warning), "{warning} in {stderr}");
    }
    let output = run(&[
        "check",
        "-q",
        "examples/configs/verl_default.toml",
        "--cluster",
        "examples/clusters/three_nodes.toml",
    ]);
    assert!(output.status.success());
    assert!(output.stdout.is_empty() && output.stderr.is_empty());
}

/// The diagnostic of `code` in a `--format json` result.
fn diagnostic<'a>(result: &'a serde_json::Value, code: &str) -> &'a serde_json::Value {
    result["diagnostics"]
        .as_array()
        .and_then(|all| all.iter().find(|d| d["code"] == code))
        .unwrap_or_else(|| panic!("no {code} in {result}"))
}

#[test]
fn json_diagnostics_carry_their_typed_fields_as_data() {
    let check_as = |version: &str, config: &str, cluster: &str| {
        json(&run(&[
            "check",
            "--format",
            "json",
            "--verl-version",
            version,
            &format!("examples/configs/{config}.toml"),
            "--cluster",
            &format!("examples/clusters/{cluster}.toml"),
        ]))
    };
    let check = |config: &str, cluster: &str| check_as("0.9.1", config, cluster);
    // A slot that fits no node: its pool and slots, what one needs, the nearest node and
    // what it lacks per resource, and the advice by kind. verl 0.6.1 asks for GPUs as
    // written, also of Ascend nodes.
    let result = check_as("0.6.1", "h100_reward", "ascend");
    let data = &diagnostic(&result, "resource_pool::placement::slot_fits_no_node")["data"];
    assert_eq!(data["pool"], "global_pool");
    assert_eq!(data["slots"], serde_json::json!([0]));
    assert_eq!(data["demand"], serde_json::json!({"CPU": 8, "GPU": 8}));
    assert_eq!(data["nearest"]["id"], "ascend-0");
    assert_eq!(
        data["nearest"]["lacks"],
        serde_json::json!([{"resource": "GPU", "free": 0, "needed": 8}])
    );
    assert_eq!(
        data["advice"],
        serde_json::json!([{"kind": "other_accelerator", "asked": "GPU", "found": "NPU"}])
    );
    // Busy now, as data rather than a phrase.
    let result = check("verl_default", "busy");
    let data = &diagnostic(&result, "resource_pool::placement::resource_runs_out")["data"];
    assert_eq!(
        data,
        &serde_json::json!({
            "resource": "GPU",
            "needed": 20,
            "free": 16,
            "idle": "busy_now",
            "pools": [
                {"pool": "global_pool", "needed": 16},
                {"pool": "reward_pool", "needed": 4}
            ]
        })
    );
    // Ray's hang: the pending group, Ray's order step by step, and the fix.
    let result = check("small_pool_first", "big_and_small");
    let data = &diagnostic(&result, "resource_pool::ray::hangs")["data"];
    assert_eq!(
        (&data["pool"], &data["slot"]),
        (&"global_pool".into(), &0.into())
    );
    assert_eq!(data["placement_exists"], true);
    assert_eq!(data["state"], "NO_RESOURCES");
    let steps = data["order"]["steps"].as_array().expect("steps");
    assert_eq!(steps[0]["kind"], "placed");
    assert_eq!(
        steps[0]["group"],
        serde_json::json!({"pool": "critic_pool", "slot": 0})
    );
    assert_eq!(steps[0]["node"], "big");
    assert_eq!(steps[1]["kind"], "pends");
    assert_eq!(
        data["fix"],
        serde_json::json!({"kind": "pool_order", "pools": ["global_pool", "critic_pool"]})
    );
    // Spans and prose are not data: the JSON has file, line, column and help for them.
    assert!(data.get("span").is_none() && data.get("help").is_none());
    // A config diagnostic carries its fields too.
    let lint = json(&run(&[
        "lint",
        "--format",
        "json",
        "resource-pool-core/tests/data/lint/many_problems.toml",
    ]));
    let data = &diagnostic(&lint, "resource_pool::config::incomplete_slot_form")["data"];
    assert_eq!(
        data,
        &serde_json::json!({"pool": "reward_pool", "given": "gpus_per_node", "missing": "nnodes"})
    );
}

#[test]
fn a_reader_that_goes_away_is_not_a_crash() {
    use std::io::Read;
    // Far more output than a pipe buffer holds: a 20,000-node cluster printed back.
    let mut text = String::new();
    for i in 0..20_000 {
        text.push_str(&format!(
            "[[nodes]]\nid = \"node-{i}\"\navailable = {{ GPU = 8, CPU = 96 }}\n"
        ));
    }
    let dir = std::env::temp_dir().join(format!("rp-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.toml");
    std::fs::write(&path, text).unwrap();
    let mut child = common::resource_pool()
        .args(["inventory", "--cluster", path.to_str().unwrap()])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Read a little, then hang up, as `| head` does.
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 64];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(output.status.code().is_some(), "killed by a signal");
    std::fs::remove_dir_all(&dir).ok();
}

/// verl's YAML given to `check` or `lint` is one error that says it is YAML and how verl's
/// config is checked, not a page of TOML syntax errors.
#[test]
fn a_verl_yaml_given_as_a_config_is_one_error() {
    let yaml = "resource-pool-verl/tests/data/verl/reward_pool.yaml";
    for args in [
        &[
            "check",
            yaml,
            "--cluster",
            "examples/clusters/three_nodes.toml",
        ][..],
        &["lint", yaml],
    ] {
        let output = run(args);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(stderr.matches("resource_pool::").count(), 1, "{stderr}");
        assert!(stderr.contains("resource_pool::config::yaml"), "{stderr}");
        assert!(stderr.contains("resource-pool verl --config"), "{stderr}");
    }
}
