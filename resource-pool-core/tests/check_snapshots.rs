//! One snapshot of the human report per check diagnostic code, on the config it points at.

mod common;

use miette::Diagnostic;
use resource_pool_core::check::{CheckOptions, CheckReport, check};
use resource_pool_core::load::load_config;
use resource_pool_core::placement::PlacementOptions;
use resource_pool_core::ray_sim::{RaySimOptions, RayVerdict};

const MAPPING: &str = "\n[mapping]\nactor_rollout = \"global_pool\"\nrm = \"reward_pool\"\n";

fn run(config: &str, cluster: &str, options: &CheckOptions) -> (CheckReport, String) {
    let config_source = common::source("pools.toml", config);
    let loaded = load_config(&config_source, &common::lint_options());
    assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
    let cluster = common::cluster_from_toml(cluster);
    let report = check(
        loaded.manager.as_ref().expect("valid"),
        &cluster,
        &loaded,
        options,
    );
    let text = common::report("pools.toml", config, &report.diagnostics);
    (report, text)
}

fn nodes(list: &[(&str, u32, u32)]) -> String {
    list.iter()
        .map(|(id, gpu, cpu)| {
            format!("[[nodes]]\nid = \"{id}\"\navailable = {{ GPU = {gpu}, CPU = {cpu} }}\n")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn slot_fits_no_node() {
    let config = format!(
        "[pools.global_pool]\nprocess_on_nodes = [8]\n\n[pools.reward_pool]\nprocess_on_nodes = [2]\n{MAPPING}"
    );
    let (report, text) = run(
        &config,
        &nodes(&[("node-a", 8, 16), ("node-b", 6, 64)]),
        &CheckOptions::default(),
    );
    assert_eq!(report.feasible(), Some(false));
    insta::assert_snapshot!(text);
}

#[test]
fn resource_runs_out() {
    let config = format!(
        "[pools.global_pool]\nprocess_on_nodes = [4, 4, 4]\n\n[pools.reward_pool]\nprocess_on_nodes = [4]\n{MAPPING}"
    );
    let (report, text) = run(
        &config,
        &nodes(&[("node-a", 8, 96), ("node-b", 4, 96)]),
        &CheckOptions::default(),
    );
    assert_eq!(report.feasible(), Some(false));
    // The total is both pools': each is labelled with its part, and the data has the parts.
    let [runs_out] = &report.diagnostics[..] else {
        panic!("one diagnostic: {:?}", report.diagnostics);
    };
    let labels: Vec<String> = runs_out
        .labels()
        .into_iter()
        .flatten()
        .filter_map(|l| l.label().map(str::to_owned))
        .collect();
    assert_eq!(labels, ["asks for 12 GPU", "asks for 4 GPU"]);
    let data = serde_json::to_value(runs_out).expect("serialises");
    assert_eq!(data["needed"], 16);
    assert_eq!(
        data["pools"],
        serde_json::json!([
            {"pool": "global_pool", "needed": 12},
            {"pool": "reward_pool", "needed": 4}
        ])
    );
    insta::assert_snapshot!(text);
}

#[test]
fn not_together() {
    let config = format!(
        "[pools.global_pool]\nprocess_on_nodes = [4, 4]\n\n[pools.reward_pool]\nprocess_on_nodes = [4]\n{MAPPING}"
    );
    let (report, text) = run(
        &config,
        &nodes(&[("node-a", 6, 96), ("node-b", 6, 96)]),
        &CheckOptions::default(),
    );
    assert_eq!(report.feasible(), Some(false));
    insta::assert_snapshot!(text);
}

#[test]
fn undecided_placement() {
    // No placement exists (neither 10 shares 18 GPUs with the 9), but no bound refutes it
    // (32 of 36 GPUs, each slot fits alone): only the search can tell, and with three
    // steps it must say undecided, not guess.
    let config = "[pools.global_pool]\nprocess_on_nodes = [10, 10, 9]\nmax_colocate_count = 1\n\n[pools.reward_pool]\nprocess_on_nodes = [3]\nmax_colocate_count = 1\n\n[mapping]\nactor_rollout = \"global_pool\"\nrm = \"reward_pool\"\n";
    let cluster = nodes(&[("node-a", 18, 18), ("node-b", 18, 18)]);
    let tight = CheckOptions {
        placement: PlacementOptions {
            max_steps: 3,
            ..PlacementOptions::default()
        },
        ..CheckOptions::default()
    };
    let (report, text) = run(config, &cluster, &tight);
    assert_eq!(report.feasible(), None);
    insta::assert_snapshot!(text);
    let (report, _) = run(config, &cluster, &CheckOptions::default());
    assert_eq!(report.feasible(), Some(false));
}

#[test]
fn ray_hangs() {
    let config = "[pools.reward_pool]\nprocess_on_nodes = [4]\n\n[pools.global_pool]\nprocess_on_nodes = [8]\n\n[mapping]\nrm = \"reward_pool\"\nactor_rollout = \"global_pool\"\n";
    let (report, text) = run(
        config,
        &nodes(&[("big", 8, 32), ("small", 4, 16)]),
        &CheckOptions::default(),
    );
    assert_eq!(
        (report.feasible(), report.ray_verdict()),
        (Some(true), RayVerdict::Hangs)
    );
    insta::assert_snapshot!(text);
}

/// Node A {GPU 8, CPU 12} and node B {GPU 4, CPU 24} score the same (1.25) for a group of
/// {GPU 2, CPU 6}: if Ray puts it on A, the next group {GPU 8, CPU 8} fits nowhere.
const TIE_CONFIG: &str = "[pools.reward_pool]\nprocess_on_nodes = [2]\n\n[pools.global_pool]\nprocess_on_nodes = [8]\nmax_colocate_count = 1\n\n[mapping]\nrm = \"reward_pool\"\nactor_rollout = \"global_pool\"\n";

#[test]
fn ray_depends_on_ties() {
    let (report, text) = run(
        TIE_CONFIG,
        &nodes(&[("node-a", 8, 12), ("node-b", 4, 24)]),
        &CheckOptions::default(),
    );
    assert_eq!(
        (report.feasible(), report.ray_verdict()),
        (Some(true), RayVerdict::DependsOnTies)
    );
    insta::assert_snapshot!(text);
}

#[test]
fn ray_undecided() {
    let options = CheckOptions {
        ray: RaySimOptions {
            max_branches: 1,
            ..RaySimOptions::default()
        },
        ..CheckOptions::default()
    };
    let (report, text) = run(
        TIE_CONFIG,
        &nodes(&[("node-a", 8, 12), ("node-b", 4, 24)]),
        &options,
    );
    assert_eq!(report.ray_verdict(), RayVerdict::Undecided);
    insta::assert_snapshot!(text);
}
