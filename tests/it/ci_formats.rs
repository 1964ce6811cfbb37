//! `--format github` (workflow commands) and `--format sarif` (SARIF 2.1.0, validated
//! against the vendored OASIS schema), on the example configs and clusters.

use crate::common;

use common::run;

use std::path::Path;
use std::process::Output;

use serde_json::Value;

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("utf-8")
}

fn files(dir: &str) -> Vec<String> {
    let mut paths: Vec<String> = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(dir))
        .expect("dir")
        .map(|e| format!("{dir}/{}", e.expect("entry").file_name().to_string_lossy()))
        .filter(|p| p.ends_with(".toml"))
        .collect();
    paths.sort();
    paths
}

/// The same command's `--format json` diagnostics.
fn json_diagnostics(args: &[&str]) -> Vec<Value> {
    let mut with_json = args.to_vec();
    with_json.extend(["--format", "json"]);
    let value: Value = serde_json::from_slice(&run(&with_json).stdout).expect("json");
    value["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .clone()
}

fn with_format<'a>(args: &[&'a str], format: &'a str) -> Vec<&'a str> {
    let mut all = args.to_vec();
    all.extend(["--format", format]);
    all
}

/// The commands the tests run: lint of every example and of a file with many problems,
/// check of every example config against every example cluster (most fail), verl.
fn commands() -> Vec<Vec<String>> {
    let mut all = vec![
        vec![
            "lint".to_owned(),
            "resource-pool-core/tests/data/lint/many_problems.toml".to_owned(),
        ],
        vec![
            "lint".to_owned(),
            "examples/configs/single_node.toml".to_owned(),
            "--set".to_owned(),
            "pools.global_pool.nnodes=0".to_owned(),
        ],
        vec![
            "verl".to_owned(),
            "--config".to_owned(),
            "resource-pool-verl/tests/data/verl/broken.yaml".to_owned(),
            "--cluster".to_owned(),
            "resource-pool-verl/tests/data/verl/uneven_cluster.toml".to_owned(),
        ],
    ];
    let mut lint_all = vec!["lint".to_owned()];
    lint_all.extend(files("examples/configs"));
    all.push(lint_all);
    for config in files("examples/configs") {
        for cluster in files("examples/clusters") {
            all.push(vec![
                "check".to_owned(),
                config.clone(),
                "--cluster".to_owned(),
                cluster,
            ]);
        }
    }
    all
}

/// `::error file=F,line=L,col=C,...,title=T::MESSAGE` split into command, properties and
/// message.
fn parse_command(line: &str) -> (String, Vec<(String, String)>, String) {
    let rest = line.strip_prefix("::").expect("starts with ::");
    let (head, message) = rest.split_once("::").expect("a second ::");
    let (command, properties) = head.split_once(' ').unwrap_or((head, ""));
    let properties = properties
        .split(',')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').expect("key=value");
            (k.to_owned(), v.to_owned())
        })
        .collect();
    (command.to_owned(), properties, message.to_owned())
}

fn unescape(text: &str) -> String {
    text.replace("%0A", "\n")
        .replace("%0D", "\r")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
}

#[test]
fn github_commands_say_what_the_json_says() {
    for command in commands() {
        let args: Vec<&str> = command.iter().map(String::as_str).collect();
        let output = run(&with_format(&args, "github"));
        let json = json_diagnostics(&args);
        let text = stdout(&output);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), json.len(), "{args:?}:\n{text}");
        for (line, diagnostic) in lines.iter().zip(&json) {
            let (kind, properties, message) = parse_command(line);
            let expected_kind = match diagnostic["severity"].as_str() {
                Some("error") => "error",
                Some("warning") => "warning",
                _ => "notice",
            };
            assert_eq!(kind, expected_kind, "{line}");
            let get = |key: &str| {
                properties
                    .iter()
                    .find(|(k, _)| k == key)
                    .map(|(_, v)| unescape(v))
            };
            assert_eq!(
                get("title").as_deref(),
                diagnostic["code"].as_str(),
                "{line}"
            );
            let message = unescape(&message);
            assert!(
                message.contains(diagnostic["message"].as_str().expect("message")),
                "{line}"
            );
            if let Some(help) = diagnostic["help"].as_str() {
                assert!(message.ends_with(&format!("\nhelp: {help}")), "{line}");
            }
            if diagnostic["file"] == "command line" {
                assert!(message.starts_with("command line (column "), "{line}");
                assert_eq!(get("file").as_deref(), args.get(1).copied(), "{line}");
                assert_eq!(get("line"), None, "{line}");
            } else {
                assert_eq!(
                    get("file").as_deref(),
                    diagnostic["file"].as_str(),
                    "{line}"
                );
                let number = |key: &str| get(key).map(|v| v.parse::<u64>().expect("a number"));
                assert_eq!(number("line"), diagnostic["line"].as_u64(), "{line}");
                assert_eq!(number("col"), diagnostic["column"].as_u64(), "{line}");
                if let (Some(col), Some(end)) = (number("col"), number("endColumn")) {
                    assert!(end >= col, "{line}");
                }
            }
        }
        assert_eq!(
            output.status.code(),
            run(&args).status.code(),
            "the exit status does not depend on the format: {args:?}"
        );
    }
}

#[test]
fn github_commands_of_a_file_with_many_problems() {
    let output = run(&[
        "lint",
        "resource-pool-core/tests/data/lint/many_problems.toml",
        "--format",
        "github",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stderr.is_empty(), "nothing else is printed");
    insta::assert_snapshot!("github_many_problems", stdout(&output));
}

#[test]
fn valid_configs_give_no_annotations() {
    let mut args = vec!["lint".to_owned()];
    args.extend(files("examples/configs"));
    args.extend(["--format".to_owned(), "github".to_owned()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = run(&args);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), "");
}

fn sarif_validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sarif/sarif-schema-2.1.0.json"),
    )
    .expect("the vendored schema");
    // The schema's `run.language` pattern has an unescaped `]`, which ECMAScript regexes
    // take literally and the validator's meta-schema check refuses: escape it here, in
    // memory (the vendored file stays as OASIS published it).
    let unbalanced = r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$""#;
    assert!(
        text.contains(unbalanced),
        "the known pattern is still there"
    );
    let text = text.replace(
        unbalanced,
        r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}\\]?$""#,
    );
    let schema: Value = serde_json::from_str(&text).expect("schema JSON");
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft7)
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF schema compiles")
}

#[test]
fn sarif_logs_are_valid_and_say_what_the_json_says() {
    let validator = sarif_validator();
    for command in commands() {
        let args: Vec<&str> = command.iter().map(String::as_str).collect();
        let output = run(&with_format(&args, "sarif"));
        let log: Value = serde_json::from_slice(&output.stdout).expect("one JSON value");
        let errors: Vec<String> = validator
            .iter_errors(&log)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{args:?}: {errors:#?}");
        let run_ = &log["runs"][0];
        let rules = run_["tool"]["driver"]["rules"].as_array().expect("rules");
        let results = run_["results"].as_array().expect("results");
        let json = json_diagnostics(&args);
        assert_eq!(results.len(), json.len(), "{args:?}");
        for (result, diagnostic) in results.iter().zip(&json) {
            assert_eq!(result["ruleId"], diagnostic["code"]);
            let index = result["ruleIndex"].as_u64().expect("index") as usize;
            assert_eq!(rules[index]["id"], diagnostic["code"]);
            let level = match diagnostic["severity"].as_str() {
                Some("error") => "error",
                Some("warning") => "warning",
                _ => "note",
            };
            assert_eq!(result["level"], level);
            let text = result["message"]["text"].as_str().expect("text");
            assert!(text.contains(diagnostic["message"].as_str().expect("message")));
            let location = &result["locations"][0]["physicalLocation"];
            if diagnostic["line"].is_u64() && diagnostic["file"] != "command line" {
                assert_eq!(location["artifactLocation"]["uri"], diagnostic["file"]);
                assert_eq!(location["region"]["startLine"], diagnostic["line"]);
                assert_eq!(location["region"]["startColumn"], diagnostic["column"]);
            } else {
                assert!(location["region"].is_null(), "{result}");
            }
        }
        assert_eq!(output.status.code(), run(&args).status.code(), "{args:?}");
    }
}

#[test]
fn the_schema_check_is_not_vacuous() {
    let validator = sarif_validator();
    let output = run(&[
        "lint",
        "resource-pool-core/tests/data/lint/many_problems.toml",
        "--format",
        "sarif",
    ]);
    let mut log: Value = serde_json::from_slice(&output.stdout).expect("json");
    assert!(validator.is_valid(&log));
    log["runs"][0]["results"][0]["level"] = Value::from("fatal");
    assert!(!validator.is_valid(&log), "an unknown level is refused");
    log["runs"][0]["results"][0]["level"] = Value::from("error");
    log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        Value::from(0);
    assert!(!validator.is_valid(&log), "line 0 is refused");
}

#[test]
fn sarif_of_a_ray_hang() {
    let output = run(&[
        "check",
        "examples/configs/small_pool_first.toml",
        "--cluster",
        "examples/clusters/big_and_small.toml",
        "--format",
        "sarif",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let mut log: Value = serde_json::from_slice(&output.stdout).expect("json");
    log["runs"][0]["tool"]["driver"]["version"] = Value::from("[version]");
    let pretty = serde_json::to_string_pretty(&log).expect("json");
    insta::assert_snapshot!("sarif_ray_hang", pretty);
}
