//! Suggested layouts on the command line: the JSON `suggestions` contract, overrides that
//! can be pasted (the suggested run passes), the human, GitHub and SARIF outputs, the
//! plan picture and the accelerator-type spelling (docs/how-it-works.md's example runs in
//! `docs_examples`).

use crate::common;

use common::{json, run};

use std::io::Read;
use std::process::Output;

use serde_json::Value;

const BUSY: &str = "examples/clusters/busy.toml";
const SPLIT: &str = "examples/configs/gpus_per_node.toml";

fn codes(value: &Value) -> Vec<String> {
    value["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["code"].as_str().expect("code").to_owned())
        .collect()
}

/// stdout and stderr through one pipe, in the order the binary wrote them: what a
/// terminal shows.
fn terminal(args: &[&str]) -> (String, Option<i32>) {
    let (mut reader, writer) = std::io::pipe().expect("a pipe");
    let mut command = common::resource_pool();
    command
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(writer.try_clone().expect("pipe clone"))
        .stderr(writer);
    let mut child = command.spawn().expect("the binary runs");
    // The parent's ends of the pipe go with `command`; the child holds the others.
    drop(command);
    let mut out = String::new();
    reader.read_to_string(&mut out).expect("utf-8 output");
    let status = child.wait().expect("the binary ends");
    (out, status.code())
}

fn suggestions(output: &Output) -> Vec<Value> {
    json(output)["suggestions"]
        .as_array()
        .expect("suggestions is an array")
        .clone()
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .expect("an array")
        .iter()
        .map(|v| v.as_str().expect("a string").to_owned())
        .collect()
}

#[test]
fn json_carries_now_and_idle_on_a_busy_cluster() {
    let output = run(&["check", SPLIT, "--cluster", BUSY, "--format", "json"]);
    assert_eq!(output.status.code(), Some(1));
    let value = json(&output);
    insta::assert_snapshot!(
        "suggestions_json_busy",
        serde_json::to_string_pretty(&value["suggestions"]).expect("json")
    );
    let found = suggestions(&output);
    assert_eq!(found.len(), 2);
    assert_eq!(found[0]["when"], "now");
    assert_eq!(found[1]["when"], "idle");
    assert_eq!(found[0]["accelerators"], 16);
    assert_eq!(found[1]["accelerators"], 20);
    assert_eq!(found[1]["holders"][0]["node"], "node-b");
    assert_eq!(
        codes(&value)
            .iter()
            .filter(|c| *c == "resource_pool::suggest::layout")
            .count(),
        2
    );
}

#[test]
fn the_suggested_overrides_pass_when_pasted() {
    // check: each override is a --set value.
    let output = run(&["check", SPLIT, "--cluster", BUSY, "--format", "json"]);
    let now = &suggestions(&output)[0];
    let mut args = vec![
        "check".to_owned(),
        SPLIT.to_owned(),
        "--cluster".to_owned(),
        BUSY.to_owned(),
    ];
    for o in strings(&now["overrides"]) {
        args.extend(["--set".to_owned(), o]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_eq!(run(&args).status.code(), Some(0), "{args:?}");

    // verl: the overrides go after the launch's own, as Hydra applies them.
    for (cluster, launch) in [
        (
            "examples/clusters/three_nodes.toml",
            vec!["trainer.nnodes=3"],
        ),
        (
            "examples/clusters/big_and_small.toml",
            vec![
                "trainer.n_gpus_per_node=4",
                "reward_model.enable=True",
                "reward_model.enable_resource_pool=True",
                "reward_model.n_gpus_per_node=8",
                "reward_model.nnodes=1",
            ],
        ),
    ] {
        let mut args = vec!["verl", "--cluster", cluster, "--format", "json", "--"];
        args.extend(&launch);
        let output = run(&args);
        assert_eq!(output.status.code(), Some(1));
        let found = suggestions(&output);
        assert_eq!(found.len(), 1, "one answer on an idle cluster");
        let overrides = strings(&found[0]["overrides"]);
        assert!(!overrides.is_empty());
        let mut again = vec![
            "verl".to_owned(),
            "--cluster".to_owned(),
            cluster.to_owned(),
            "--".to_owned(),
        ];
        again.extend(launch.iter().map(|s| s.to_string()));
        again.extend(overrides);
        let again: Vec<&str> = again.iter().map(String::as_str).collect();
        let output = run(&again);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{again:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

#[test]
fn verl_names_the_reward_pools_keys() {
    let output = run(&[
        "verl",
        "--cluster",
        "examples/clusters/big_and_small.toml",
        "--format",
        "json",
        "--",
        "trainer.n_gpus_per_node=4",
        "reward.reward_model.enable_resource_pool=True",
        "reward_model.enable=True",
        "reward.reward_model.n_gpus_per_node=8",
        "reward.reward_model.nnodes=1",
    ]);
    let found = suggestions(&output);
    assert_eq!(
        strings(&found[0]["overrides"]),
        [
            "reward.reward_model.n_gpus_per_node=4",
            "reward.reward_model.nnodes=2"
        ]
    );
    assert_eq!(found[0]["pools"]["reward_pool"], serde_json::json!([4, 4]));
}

#[test]
fn no_suggestion_when_it_fits_or_cannot_be_checked() {
    let fits = run(&[
        "check",
        "examples/configs/large_pool_first.toml",
        "--cluster",
        "examples/clusters/big_and_small.toml",
        "--format",
        "json",
    ]);
    assert_eq!(fits.status.code(), Some(0));
    assert_eq!(suggestions(&fits), Vec::<Value>::new());
    // A hang that reordering the pools fixes: the fix is the order, not a smaller layout.
    let reorder = run(&[
        "check",
        "examples/configs/small_pool_first.toml",
        "--cluster",
        "examples/clusters/big_and_small.toml",
        "--format",
        "json",
    ]);
    assert_eq!(reorder.status.code(), Some(1));
    assert_eq!(suggestions(&reorder), Vec::<Value>::new());
    let unreadable = run(&[
        "check",
        "no/such/file.toml",
        "--cluster",
        BUSY,
        "--format",
        "json",
    ]);
    assert_eq!(unreadable.status.code(), Some(2));
    assert_eq!(suggestions(&unreadable), Vec::<Value>::new());
}

#[test]
fn the_accelerator_type_is_named_as_the_nodes_declare_it() {
    let output = run(&[
        "check",
        "tests/data/suggest/h100.toml",
        "--cluster",
        "tests/data/suggest/h100_cluster.toml",
        "--format",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let value = json(&output);
    assert_eq!(
        codes(&value),
        [
            "resource_pool::placement::accelerator_type_name",
            "resource_pool::suggest::none_fits"
        ],
        "the generic missing-resource note is replaced"
    );
    // No pool of a config keeps a multiple: the advice says what every layout keeps, and
    // its data has no `multiples`.
    let none_fits = &value["diagnostics"][1];
    assert_eq!(
        none_fits["help"],
        "every pool keeps its bundles and at least one node-slot; fix what the errors above \
         say is missing, or add nodes"
    );
    assert_eq!(
        none_fits["data"],
        serde_json::json!({"when": "now", "busy": false, "idle_too": false})
    );
    let help = value["diagnostics"][0]["help"].as_str().expect("help");
    assert!(
        help.starts_with("write `accelerator_type = \"accelerator_type:H100\"`"),
        "{help}"
    );
    // Written as the nodes declare it, it fits.
    let fixed = run(&[
        "check",
        "tests/data/suggest/h100.toml",
        "--cluster",
        "tests/data/suggest/h100_cluster.toml",
        "--set",
        "pools.global_pool.accelerator_type=\"accelerator_type:H100\"",
    ]);
    assert_eq!(fixed.status.code(), Some(0));
}

#[test]
fn human_output_of_a_busy_cluster() {
    let (text, code) = terminal(&["check", SPLIT, "--cluster", BUSY]);
    assert_eq!(code, Some(1));
    insta::assert_snapshot!("suggestions_human_busy", text.replace(SPLIT, "[config]"));
}

#[test]
fn github_and_sarif_carry_the_suggestion_in_the_message() {
    let github = run(&["check", SPLIT, "--cluster", BUSY, "--format", "github"]);
    let text = String::from_utf8(github.stdout).expect("utf-8");
    let notices: Vec<&str> = text.lines().filter(|l| l.starts_with("::notice")).collect();
    assert_eq!(notices.len(), 2, "{text}");
    assert!(notices[0].contains("global_pool = [4, 4, 4, 4]"), "{text}");
    assert!(notices[0].contains("pools.global_pool.nnodes=4"), "{text}");
    insta::assert_snapshot!("suggestions_github_busy", text);

    let sarif = run(&["check", SPLIT, "--cluster", BUSY, "--format", "sarif"]);
    let mut log: Value = serde_json::from_slice(&sarif.stdout).expect("json");
    log["runs"][0]["tool"]["driver"]["version"] = Value::from("[version]");
    let results = log["runs"][0]["results"].as_array().expect("results");
    let notes: Vec<&Value> = results.iter().filter(|r| r["level"] == "note").collect();
    assert_eq!(notes.len(), 2);
    let message = notes[1]["message"]["text"].as_str().expect("text");
    assert!(message.contains("on the idle cluster"), "{message}");
    assert!(message.contains("pools.global_pool.nnodes=5"), "{message}");
    insta::assert_snapshot!(
        "suggestions_sarif_busy",
        serde_json::to_string_pretty(&log).expect("json")
    );
}

#[test]
fn the_svg_plan_draws_the_suggestions_under_the_attempt() {
    let dir = std::env::temp_dir().join(format!("rp-suggest-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("plan.svg");
    let path_text = path.display().to_string();
    let output = run(&[
        "check",
        SPLIT,
        "--cluster",
        BUSY,
        "-q",
        "--plan",
        "svg",
        &path_text,
    ]);
    assert_eq!(output.status.code(), Some(1));
    let svg = std::fs::read_to_string(&path).expect("the plan is written");
    let attempt = svg
        .find("Ray, in verl 0.9.1&apos;s order, would do:")
        .expect("the attempt");
    let now = svg
        .find("Suggested now: global_pool = [4, 4, 4, 4]")
        .expect("now");
    let idle = svg.find("Suggested for the idle cluster").expect("idle");
    assert!(attempt < now && now < idle);
    let _ = std::fs::remove_dir_all(&dir);
}
