//! The offline reader on real launch lines: tests/verl-corpus/lines.jsonl holds lines taken
//! by running the launch scripts of verl's recipes and of public projects built on verl
//! (scripts/verl-corpus), each with Hydra's own record of composing it against the config
//! its verl loads (the release's wheel, or the snapshot's own folders for recipes and forks).
//!
//! Each line runs through `resource-pool verl --format json` against a cluster sized from
//! Hydra's composed values (so a layout that is what the line means places), with
//! `--verl-version` of the release when the line runs an upstream release. Held:
//!
//! - **no false error**: where Hydra composed the line, the reader reports no error. The
//!   one exception is an error that verl itself would stop on at start-up and that Hydra's
//!   composed values confirm (the rollout's parallel size does not divide the pool:
//!   `rollout_parallel_size`, `rollout_replica_nodes`). Where Hydra refused the line, verl
//!   stops, and any finding is allowed;
//! - **the pools are Hydra's**: where the reader builds pools for a line Hydra composed, its
//!   `global_pool` is `[trainer.n_gpus_per_node] * trainer.nnodes` of Hydra's values, its
//!   accelerator follows `trainer.device`, and its reward and teacher pools are those the
//!   release's rules build from Hydra's values (docs/verl.md, "What is built"; for a fork or
//!   a commit of verl, the reward pool only where every release's reading agrees). A pool
//!   size Hydra composes to what is not an integer (`trainer.nnodes=TO_BE_FILLED`) stops
//!   verl too, so `wrong_type` is allowed there;
//! - **not seen, not judged**: a line whose entry point is not one of verl's own (a recipe's
//!   main, a project's trainer), or whose config is outside verl's (`--config-path`,
//!   `--config-dir`, `hydra.searchpath`), gets exactly one `resource_pool::verl::not_judged`
//!   warning and no key judged (`launch.keys_judged` false), and, where Hydra composes it,
//!   no error. verl's own other entry points (`main_generation`, the fully async trainer)
//!   are held to no false error only. A fork's `verl.trainer.main_ppo` looks like verl's
//!   own on the line and is held like it.
//!
//! Warnings are counted per code and printed, not asserted (but for the rule above).
//! `cargo test --test it verl_corpus -- --nocapture` shows the summary;
//! `RP_VERL_CORPUS_OUT=FILE` also writes each line's findings and pools there (JSON lines).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Mutex;

use serde_json::Value;

use crate::common;

const NOT_JUDGED: &str = "resource_pool::verl::not_judged";

/// Errors verl itself stops on at start-up, allowed where Hydra's values confirm them.
const VERL_STOPS: [&str; 2] = [
    "resource_pool::verl::rollout_parallel_size",
    "resource_pool::verl::rollout_replica_nodes",
];

/// Findings about the cluster checked rather than the line.
const CLUSTER_CODES: [&str; 5] = [
    "resource_pool::placement::",
    "resource_pool::inventory::",
    "resource_pool::check::",
    "resource_pool::verl::pre_check",
    "resource_pool::verl::ray_hangs",
];

fn corpus() -> Vec<Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/verl-corpus/lines.jsonl");
    let text = std::fs::read_to_string(&path).expect("tests/verl-corpus/lines.jsonl");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// Hydra's composed value of `key`, when it is a positive integer.
fn int(values: &Value, key: &str) -> Option<u64> {
    values.get(key).and_then(Value::as_u64).filter(|n| *n > 0)
}

fn flag(values: &Value, key: &str) -> Option<bool> {
    values.get(key).and_then(Value::as_bool)
}

/// How a release reads the reward model's pool keys (docs/verl.md, "What is built").
#[derive(Clone, Copy)]
enum RewardKeys {
    /// verl 0.5.0: no reward pool.
    None,
    /// 0.6.0-0.7.0: `reward_model.*`.
    Legacy,
    /// 0.7.1 and 0.8.0: each `reward_model.*` key that is set wins over `reward.reward_model.*`.
    LegacyWins,
    /// 0.9.x: `reward.reward_model.*` only.
    Newer,
}

fn reward_keys(release: &str) -> RewardKeys {
    match release {
        "0.5.0" => RewardKeys::None,
        "0.6.0" | "0.6.1" | "0.7.0" => RewardKeys::Legacy,
        "0.7.1" | "0.8.0" => RewardKeys::LegacyWins,
        _ => RewardKeys::Newer,
    }
}

/// The reward pool `rules` build from Hydra's values: Ok(None) for none, Err(()) when a size
/// is not a positive integer.
fn reward_pool(values: &Value, rules: RewardKeys) -> Result<Option<Vec<u64>>, ()> {
    let legacy = |leaf: &str| {
        values
            .get(format!("reward_model.{leaf}"))
            .filter(|v| !v.is_null())
    };
    let newer = |leaf: &str| {
        values
            .get(format!("reward.reward_model.{leaf}"))
            .filter(|v| !v.is_null())
    };
    let read = |leaf: &str| -> Option<&Value> {
        match rules {
            RewardKeys::None => None,
            RewardKeys::Legacy => legacy(leaf),
            RewardKeys::LegacyWins => legacy(leaf).or_else(|| newer(leaf)),
            RewardKeys::Newer => newer(leaf),
        }
    };
    if read("enable_resource_pool").and_then(Value::as_bool) != Some(true) {
        return Ok(None);
    }
    match (
        read("n_gpus_per_node").and_then(Value::as_u64),
        read("nnodes").and_then(Value::as_u64),
    ) {
        (Some(n), Some(nn)) if n > 0 && nn > 0 => Ok(Some(vec![n; nn as usize])),
        _ => Err(()),
    }
}

/// The pools verl builds from Hydra's values, by the rules of the line's release: name →
/// process_on_nodes. For a fork or a commit of verl (no release's rules), the reward pool is
/// left out when the releases' readings of its keys disagree on it (`certain` false). None
/// when a size is not a positive integer.
fn expected_pools(line: &Value) -> Option<(BTreeMap<String, Vec<u64>>, bool)> {
    let values = &line["hydra"]["values"];
    let mut pools = BTreeMap::new();
    let n = int(values, "trainer.n_gpus_per_node")?;
    let nn = int(values, "trainer.nnodes")?;
    pools.insert("global_pool".to_owned(), vec![n; nn as usize]);
    let release = line["verl"]["version"]
        .as_str()
        .filter(|_| line["verl"]["kind"] == "release");
    let mut certain = true;
    let reward = match release {
        Some(v) => reward_pool(values, reward_keys(v)).ok()?,
        None => {
            let readings: Vec<_> = [
                RewardKeys::Legacy,
                RewardKeys::LegacyWins,
                RewardKeys::Newer,
            ]
            .into_iter()
            .map(|r| reward_pool(values, r))
            .collect();
            if readings.iter().all(|r| *r == readings[0]) {
                readings[0].clone().ok()?
            } else {
                certain = false;
                None
            }
        }
    };
    if let Some(slots) = reward {
        pools.insert("reward_pool".to_owned(), slots);
    }
    let teacher = !matches!(
        release,
        Some("0.5.0" | "0.6.0" | "0.6.1" | "0.7.0" | "0.7.1")
    );
    if teacher && flag(values, "distillation.enabled") == Some(true) {
        pools.insert(
            "teacher_pool".to_owned(),
            vec![
                int(values, "distillation.n_gpus_per_node")?;
                int(values, "distillation.nnodes")? as usize
            ],
        );
    }
    Some((pools, certain))
}

/// Whether a key that sizes the pools holds, by Hydra, what is not an integer (a script's
/// `TO_BE_FILLED`): verl's `[n_gpus_per_node] * nnodes` stops on it.
fn pool_size_not_integer(line: &Value) -> bool {
    let values = &line["hydra"]["values"];
    ["trainer.nnodes", "trainer.n_gpus_per_node"]
        .iter()
        .any(|k| values.get(*k).is_some_and(|v| !v.is_u64() && !v.is_null()))
}

/// Whether verl stops at start-up on the rollout's parallel sizes, by Hydra's values.
fn verl_stops_on_rollout(line: &Value) -> bool {
    let values = &line["hydra"]["values"];
    let (Some(n), Some(nn)) = (
        int(values, "trainer.n_gpus_per_node"),
        int(values, "trainer.nnodes"),
    ) else {
        return false;
    };
    let tp = int(
        values,
        "actor_rollout_ref.rollout.tensor_model_parallel_size",
    )
    .unwrap_or(1);
    let mut replica = tp;
    if line["verl"]["version"].as_str() != Some("0.5.0") {
        replica *= int(values, "actor_rollout_ref.rollout.data_parallel_size").unwrap_or(1);
        replica *= int(
            values,
            "actor_rollout_ref.rollout.pipeline_model_parallel_size",
        )
        .unwrap_or(1);
    }
    let world = n * nn;
    if !world.is_multiple_of(replica) {
        return true;
    }
    let per_node = int(values, "actor_rollout_ref.rollout.n_gpus_per_node").unwrap_or(n);
    replica > per_node && !replica.is_multiple_of(per_node)
}

/// A cluster that holds what Hydra's values mean: enough nodes of the largest pool slot,
/// the accelerator `trainer.device` names, CPUs to spare.
fn cluster_for(line: &Value, index: usize) -> PathBuf {
    let values = &line["hydra"]["values"];
    let composed = line["hydra"]["composed"] == Value::Bool(true);
    let mut nodes = 2;
    let mut per_node = 8;
    if composed {
        if let Some((pools, _)) = expected_pools(line) {
            nodes = pools.values().map(Vec::len).sum::<usize>().max(1) as u64;
            per_node = pools.values().flatten().copied().max().unwrap_or(8);
            // Room for a reward pool any release's reading would build.
            for rules in [RewardKeys::Legacy, RewardKeys::Newer] {
                if let Ok(Some(slots)) = reward_pool(values, rules) {
                    nodes += slots.len() as u64;
                    per_node = per_node.max(slots[0]);
                }
            }
        }
        nodes += values
            .get("rollout.nnodes")
            .and_then(Value::as_u64)
            .unwrap_or(0);
    }
    let accelerator = if values.get("trainer.device").and_then(Value::as_str) == Some("npu") {
        "NPU"
    } else {
        "GPU"
    };
    let mut text = String::new();
    for i in 0..nodes {
        let _ = writeln!(
            text,
            "[[nodes]]\nid = \"n{i}\"\navailable = {{ {accelerator} = {per_node}, CPU = {} }}",
            per_node * 4 + 32
        );
    }
    let path = std::env::temp_dir().join(format!(
        "resource-pool-verl-corpus-{}-{index}.toml",
        std::process::id()
    ));
    std::fs::write(&path, text).expect("a temporary cluster file");
    path
}

/// The reader's JSON for one line.
fn read_line(line: &Value, index: usize) -> Value {
    let release = (line["verl"]["kind"] == "release")
        .then(|| line["verl"]["version"].as_str().expect("a version"));
    read_line_as(line, index, release)
}

/// The reader's JSON for one line, with `--verl-version VERSION` when given.
fn read_line_as(line: &Value, index: usize, version: Option<&str>) -> Value {
    let cluster = cluster_for(line, index);
    let mut args: Vec<String> = vec![
        "verl".into(),
        "--format".into(),
        "json".into(),
        "--cluster".into(),
        cluster.display().to_string(),
    ];
    if let Some(version) = version {
        args.push("--verl-version".into());
        args.push(version.to_owned());
    }
    args.push("--".into());
    for word in line["argv"].as_array().expect("argv") {
        args.push(word.as_str().expect("a word").to_owned());
    }
    let output = common::resource_pool()
        .args(&args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("the binary runs");
    let _ = std::fs::remove_file(&cluster);
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{}: not JSON ({e}); stderr: {}",
            line["id"],
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// What one line came to.
#[derive(Default)]
struct Verdict {
    false_errors: Vec<String>,
    pool_differs: Vec<String>,
    not_judged_rule: Vec<String>,
    allowed_errors: Vec<String>,
    warnings: Vec<String>,
    advice: Vec<String>,
    /// Warnings that a key is unknown or already there, on a line Hydra composed: Hydra took
    /// the key as written, so the line's config has it (or, with `+`, lacks it).
    false_warnings: Vec<String>,
    pools_checked: bool,
    refused_and_said: Option<bool>,
    /// The line and what the reader said, for `RP_VERL_CORPUS_OUT`.
    dump: Value,
}

fn judge(line: &Value, out: &Value) -> Verdict {
    let mut v = Verdict::default();
    let id = line["id"].as_str().unwrap_or("?");
    v.dump = serde_json::json!({
        "id": id,
        "kind": line["kind"],
        "verl": line["verl"],
        "offline_view": line["offline_view"],
        "composed": line["hydra"]["composed"],
        "diagnostics": out["diagnostics"].as_array().map(|ds| ds.iter().map(|d| serde_json::json!({
            "code": d["code"], "severity": d["severity"], "message": d["message"],
        })).collect::<Vec<_>>()),
        "pools": out["pools"],
        "launch": out["launch"],
    });
    let diagnostics = out["diagnostics"].as_array().cloned().unwrap_or_default();
    let of = |severity: &str| -> Vec<&Value> {
        diagnostics
            .iter()
            .filter(|d| d["severity"] == severity)
            .collect()
    };
    let code = |d: &Value| d["code"].as_str().unwrap_or("?").to_owned();
    v.warnings = of("warning").into_iter().map(code).collect();
    v.advice = of("advice").into_iter().map(code).collect();
    let errors = of("error");
    let composed = line["hydra"]["composed"].as_bool();
    if composed == Some(true) {
        for d in of("warning") {
            let c = code(d);
            if c.ends_with("::unknown_key") || c.ends_with("::add_existing") {
                v.false_warnings.push(format!(
                    "{id} ({} verl {}): {c}: {}",
                    line["verl"]["kind"].as_str().unwrap_or("?"),
                    line["verl"]["version"]
                        .as_str()
                        .or(line["verl"]["version_file"].as_str())
                        .unwrap_or("?"),
                    d["message"].as_str().unwrap_or("")
                ));
            }
        }
    }
    // verl's main_ppo with verl's own config: what the reader reads (fork or not: the line
    // cannot tell). A recipe's or a project's entry point, or a config outside verl: not seen.
    let seen = line["offline_view"] == "verl_main_ppo";
    let unseen = matches!(
        line["offline_view"].as_str(),
        Some("entry_point_outside_verl" | "config_outside_verl")
    );
    match composed {
        Some(true) => {
            for d in &errors {
                let c = code(d);
                let text = format!("{id}: {c}: {}", d["message"].as_str().unwrap_or(""));
                let stops = (VERL_STOPS.contains(&c.as_str()) && verl_stops_on_rollout(line))
                    || (c == "resource_pool::verl::wrong_type" && pool_size_not_integer(line));
                if stops {
                    v.allowed_errors.push(text);
                } else {
                    v.false_errors.push(text);
                }
            }
        }
        // Whether the reader says an error of the line itself (not of the cluster, which is
        // sized from Hydra's values only where Hydra composes).
        Some(false) => {
            v.refused_and_said = Some(errors.iter().any(|d| {
                let c = code(d);
                !CLUSTER_CODES.iter().any(|p| c.starts_with(p))
            }));
        }
        None => {}
    }
    if unseen && composed.is_some() {
        let notices = diagnostics
            .iter()
            .filter(|d| d["code"] == NOT_JUDGED)
            .count();
        let keys_judged = &out["launch"]["keys_judged"];
        if notices != 1 || *keys_judged != Value::Bool(false) {
            v.not_judged_rule.push(format!(
                "{id} ({}): {notices} `not_judged` notices, keys_judged {keys_judged}, findings {:?}",
                line["offline_view"].as_str().unwrap_or("?"),
                diagnostics.iter().map(code).collect::<Vec<_>>()
            ));
        }
    }
    if seen
        && composed == Some(true)
        && out["pools"].is_array()
        && let Some((expected, certain)) = expected_pools(line)
    {
        v.pools_checked = true;
        let mut got: BTreeMap<String, Vec<u64>> = out["pools"]
            .as_array()
            .expect("pools")
            .iter()
            .map(|p| {
                let nodes = p["process_on_nodes"]
                    .as_array()
                    .map(|a| a.iter().filter_map(Value::as_u64).collect())
                    .unwrap_or_default();
                (p["name"].as_str().unwrap_or("?").to_owned(), nodes)
            })
            .collect();
        if !certain {
            got.remove("reward_pool");
        }
        if got != expected {
            v.pool_differs
                .push(format!("{id}: reader {got:?}, Hydra's values {expected:?}"));
        }
        let device = line["hydra"]["values"]["trainer.device"].as_str();
        let accelerator = if device == Some("npu") { "NPU" } else { "GPU" };
        for p in out["pools"].as_array().expect("pools") {
            if p["accelerator"] != accelerator {
                v.pool_differs.push(format!(
                    "{id}: {} on {}, Hydra's trainer.device {device:?}",
                    p["name"], p["accelerator"]
                ));
            }
        }
    }
    v
}

#[test]
fn real_launch_lines_make_no_false_error() {
    let lines = corpus();
    assert!(lines.len() >= 200, "the corpus has {} lines", lines.len());
    let verdicts: Mutex<Vec<(usize, Verdict)>> = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(8);
    std::thread::scope(|scope| {
        for t in 0..threads {
            let lines = &lines;
            let verdicts = &verdicts;
            scope.spawn(move || {
                for (i, line) in lines.iter().enumerate().skip(t).step_by(threads) {
                    let out = read_line(line, i);
                    let verdict = judge(line, &out);
                    verdicts.lock().expect("verdicts").push((i, verdict));
                }
            });
        }
    });
    let mut verdicts = verdicts.into_inner().expect("verdicts");
    verdicts.sort_by_key(|(i, _)| *i);

    // The summary.
    let composed = lines
        .iter()
        .filter(|l| l["hydra"]["composed"] == true)
        .count();
    let refused = lines
        .iter()
        .filter(|l| l["hydra"]["composed"] == false)
        .count();
    let seen = lines
        .iter()
        .filter(|l| l["offline_view"] == "verl_main_ppo" && l["hydra"]["composed"] == true)
        .count();
    let mut warnings: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut advice: BTreeMap<String, usize> = BTreeMap::new();
    let (mut false_errors, mut pool_differs, mut not_judged_rule, mut allowed) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut lines_with_false_error = 0;
    let mut pools_checked = 0;
    let (mut refused_said, mut refused_silent) = (0, 0);
    for (i, v) in &verdicts {
        let composed_line = lines[*i]["hydra"]["composed"] == true;
        for w in &v.warnings {
            let e = warnings.entry(w.clone()).or_default();
            e.0 += 1;
            if composed_line {
                e.1 += 1;
            }
        }
        for a in &v.advice {
            *advice.entry(a.clone()).or_default() += 1;
        }
        if !v.false_errors.is_empty() {
            lines_with_false_error += 1;
        }
        false_errors.extend(v.false_errors.iter().cloned());
        pool_differs.extend(v.pool_differs.iter().cloned());
        not_judged_rule.extend(v.not_judged_rule.iter().cloned());
        allowed.extend(v.allowed_errors.iter().cloned());
        pools_checked += usize::from(v.pools_checked);
        match v.refused_and_said {
            Some(true) => refused_said += 1,
            Some(false) => refused_silent += 1,
            None => {}
        }
    }
    let false_warnings: Vec<&String> = verdicts
        .iter()
        .flat_map(|(_, v)| &v.false_warnings)
        .collect();
    let warned_lines = verdicts
        .iter()
        .filter(|(_, v)| !v.false_warnings.is_empty())
        .count();
    let missed: Vec<&str> = verdicts
        .iter()
        .filter(|(i, v)| {
            v.refused_and_said == Some(false) && lines[*i]["offline_view"] == "verl_main_ppo"
        })
        .map(|(i, _)| lines[*i]["id"].as_str().unwrap_or("?"))
        .collect();
    let mut by_code: BTreeMap<String, Vec<&String>> = BTreeMap::new();
    for e in &false_errors {
        let code = e.split(": ").nth(1).unwrap_or("?").to_owned();
        by_code.entry(code).or_default().push(e);
    }
    let mut report = String::new();
    let _ = writeln!(
        report,
        "verl corpus: {} lines; Hydra composes {composed}, refuses {refused}; {seen} composed lines run verl.trainer.main_ppo with verl's config (forks included), {} another entry point or config",
        lines.len(),
        composed - seen
    );
    let _ = writeln!(
        report,
        "false errors: {} on {lines_with_false_error} lines; pools differing from Hydra's values: {}; not-judged rule broken: {}; pools compared: {pools_checked}; errors verl stops on too (allowed): {}",
        false_errors.len(),
        pool_differs.len(),
        not_judged_rule.len(),
        allowed.len()
    );
    let _ = writeln!(
        report,
        "lines Hydra refuses: the reader says an error of the line on {refused_said}, none on {refused_silent}"
    );
    for (code, list) in &by_code {
        let _ = writeln!(report, "  false {code}: {}", list.len());
        for e in list.iter().take(3) {
            let _ = writeln!(report, "    {}", e.chars().take(300).collect::<String>());
        }
    }
    let _ = writeln!(
        report,
        "false warnings (unknown_key or add_existing where Hydra took the key as written): {} on {warned_lines} lines",
        false_warnings.len()
    );
    let mut by_kind: BTreeMap<String, Vec<&String>> = BTreeMap::new();
    for w in &false_warnings {
        let kind = w
            .split(" (")
            .nth(1)
            .and_then(|r| r.split(')').next())
            .unwrap_or("?");
        let code = w.split(": ").nth(1).unwrap_or("?");
        by_kind
            .entry(format!("{code} on {kind}"))
            .or_default()
            .push(w);
    }
    for (k, list) in &by_kind {
        let _ = writeln!(report, "  {k}: {}", list.len());
        for w in list.iter().take(2) {
            let _ = writeln!(report, "    {}", w.chars().take(240).collect::<String>());
        }
    }
    let _ = writeln!(
        report,
        "verl.trainer.main_ppo lines Hydra refuses where the reader says no error of the line: {} {missed:?}",
        missed.len()
    );
    let _ = writeln!(
        report,
        "warnings per code (all lines / lines Hydra composes):"
    );
    for (code, (all, on_composed)) in &warnings {
        let _ = writeln!(report, "  {code}: {all} / {on_composed}");
    }
    let _ = writeln!(report, "advice per code: {advice:?}");
    for e in pool_differs.iter().take(10) {
        let _ = writeln!(report, "  pools: {e}");
    }
    for e in not_judged_rule.iter().take(10) {
        let _ = writeln!(report, "  not judged: {e}");
    }
    println!("{report}");
    if let Some(path) = std::env::var_os("RP_VERL_CORPUS_OUT") {
        let text: String = verdicts
            .iter()
            .map(|(_, v)| format!("{}\n", v.dump))
            .collect();
        std::fs::write(&path, text).expect("RP_VERL_CORPUS_OUT written");
    }
    assert!(
        false_errors.is_empty() && pool_differs.is_empty() && not_judged_rule.is_empty(),
        "{report}"
    );
}

#[test]
fn the_corpus_records_are_hydras() {
    // Every line carries Hydra's record, and what decides the checks above is in it.
    for line in corpus() {
        let id = line["id"].as_str().expect("id");
        let hydra = &line["hydra"];
        assert!(hydra.get("composed").is_some(), "{id}: no Hydra record");
        match hydra["composed"].as_bool() {
            Some(true) => assert!(hydra["values"].is_object(), "{id}: composed, no values"),
            Some(false) => assert!(hydra["error"].is_string(), "{id}: refused, no error"),
            None => assert!(hydra["why"].is_string(), "{id}: not composed, no reason"),
        }
        assert!(
            line["source"]
                .as_str()
                .is_some_and(|s| s.contains('@') && s.contains(':')),
            "{id}: source is owner/repo@commit:path"
        );
    }
}

/// Whether a fork's `verl/version/version` is older than every release the reader knows.
fn older_than_known(version: &str) -> bool {
    let mut parts = version.split('.').map(|p| p.parse::<u64>().ok());
    matches!(
        (parts.next().flatten(), parts.next().flatten()),
        (Some(0), Some(minor)) if minor < 5
    )
}

#[test]
fn forks_older_than_every_release_named_by_their_version_are_one_notice() {
    // A fork's `python3 -m verl.trainer.main_ppo` looks like verl's own on the line; its user
    // knows its version (`verl.__version__`, the fork's verl/version/version). Told so, the
    // reader cannot see its config: one notice, no key judged, no error where Hydra composes.
    let lines = corpus();
    let mut broken = Vec::new();
    let mut held = 0;
    for (i, line) in lines.iter().enumerate() {
        let Some(version) = line["verl"]["version_file"].as_str() else {
            continue;
        };
        if line["verl"]["kind"] != "fork"
            || line["offline_view"] != "verl_main_ppo"
            || !older_than_known(version)
            || line["hydra"]["composed"].as_bool().is_none()
        {
            continue;
        }
        held += 1;
        let out = read_line_as(line, i, Some(version));
        let diagnostics = out["diagnostics"].as_array().cloned().unwrap_or_default();
        let notices = diagnostics
            .iter()
            .filter(|d| d["code"] == NOT_JUDGED)
            .count();
        let errors: Vec<&str> = diagnostics
            .iter()
            .filter(|d| d["severity"] == "error")
            .filter_map(|d| d["code"].as_str())
            .collect();
        let composed = line["hydra"]["composed"] == true;
        if notices != 1 || out["launch"]["keys_judged"] != false || (composed && !errors.is_empty())
        {
            broken.push(format!(
                "{} (--verl-version {version}): {notices} notices, keys_judged {}, errors {errors:?}",
                line["id"].as_str().unwrap_or("?"),
                out["launch"]["keys_judged"]
            ));
        }
    }
    println!(
        "forks older than 0.5, named by version: {held} lines, {} broken",
        broken.len()
    );
    assert!(held > 0, "no fork line older than 0.5 in the corpus");
    assert!(
        broken.is_empty(),
        "{} of {held}:\n{}",
        broken.len(),
        broken.join("\n")
    );
}
