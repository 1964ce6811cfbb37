//! `--kuberay FILE|-` and `--replicas`: a KubeRay RayCluster, before it exists, as the
//! cluster of `inventory`, `check` and `verl`.

use crate::common;

use common::run_with_stdin as run;

const GPU: &str = "resource-pool-inventory/tests/data/kuberay/gpu.yaml";
const GPU_JSON: &str = "resource-pool-inventory/tests/data/kuberay/raycluster-gpu.json";
const NPU: &str = "resource-pool-inventory/tests/data/kuberay/npu.yaml";
const BAD: &str = "resource-pool-inventory/tests/data/kuberay/bad.yaml";
const CONFIG: &str = "examples/configs/verl_default.toml";

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_inventory_reads_back_as_a_cluster_file() {
    let output = run(&["inventory", "--kuberay", GPU], None);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let toml = text(&output.stdout);
    let source = resource_pool::source::SourceFile::new("kuberay.toml", toml.as_str());
    let loaded = resource_pool::inventory::cluster_file::load_cluster(&source, &Default::default());
    assert!(
        loaded.diagnostics.is_empty(),
        "{toml}\n{:?}",
        loaded.diagnostics
    );
    let cluster = loaded.cluster.expect("a cluster");
    let ids: Vec<_> = cluster.nodes.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "verl-gpu-head",
            "verl-gpu-h100-0",
            "verl-gpu-h100-1",
            "verl-gpu-l4-0"
        ]
    );
    // The JSON of `kubectl get raycluster -o json`, on stdin, is the same cluster.
    let json =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(GPU_JSON))
            .expect("data");
    let piped = run(&["inventory", "--kuberay", "-"], Some(&json));
    assert_eq!(piped.status.code(), Some(0), "{}", text(&piped.stderr));
    assert_eq!(piped.stdout, output.stdout);
    let max = run(&["inventory", "--kuberay", GPU, "--replicas", "max"], None);
    assert_eq!(text(&max.stdout).matches("[[nodes]]").count(), 1 + 4 + 2);
    // --max-nodes bounds the nodes a manifest makes, as it bounds a cluster file's.
    let bounded = run(&["inventory", "--kuberay", GPU, "--max-nodes", "3"], None);
    assert_eq!(bounded.status.code(), Some(2));
    assert!(
        text(&bounded.stderr).contains("kuberay::too_many_nodes"),
        "{}",
        text(&bounded.stderr)
    );
}

#[test]
fn check_follows_the_chosen_replicas() {
    let current = run(
        &[
            "check",
            "--verl-version",
            "0.8.0",
            CONFIG,
            "--kuberay",
            GPU,
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(current.status.code(), Some(0), "{}", text(&current.stderr));
    let value = common::json(&current);
    assert_eq!(value["feasible"], true, "{value}");
    assert_eq!(value["ray"], "places", "{value}");
    // Not a live dashboard: no Ray version to state.
    assert!(value.get("ray_version").is_none(), "{value}");

    let min = run(
        &[
            "check",
            CONFIG,
            "--kuberay",
            GPU,
            "--replicas",
            "min",
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(min.status.code(), Some(1));
    let value = common::json(&min);
    assert_eq!(value["feasible"], false, "{value}");
    let codes: Vec<_> = value["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert!(
        codes.contains(&"resource_pool::inventory::too_few_nodes"),
        "{codes:?}"
    );
}

#[test]
fn verl_reads_kuberay_too() {
    let output = run(
        &[
            "verl",
            "--config",
            "resource-pool-verl/tests/data/verl/npu.yaml",
            "--kuberay",
            NPU,
            "--format",
            "json",
        ],
        None,
    );
    // Two 8-NPU workers cannot host the trainer's two nodes and the reward pool's third.
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let value = common::json(&output);
    assert_eq!(value["feasible"], false, "{value}");
    let ok = run(
        &[
            "verl",
            "--verl-version",
            "0.8.0",
            "--config",
            "resource-pool-verl/tests/data/verl/npu.yaml",
            "--kuberay",
            NPU,
            "--format",
            "json",
            "--",
            "trainer.nnodes=1",
        ],
        None,
    );
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stdout));
    // verl 0.9.1's TransferQueue pins a storage unit to every alive node, the head of no
    // CPUs (`num-cpus: "0"`) too: Ray refuses that unit at once, and verl stops before any
    // pool.
    let v09 = run(
        &[
            "verl",
            "--verl-version",
            "0.9.1",
            "--config",
            "resource-pool-verl/tests/data/verl/npu.yaml",
            "--kuberay",
            NPU,
            "--format",
            "json",
            "--",
            "trainer.nnodes=1",
        ],
        None,
    );
    assert_eq!(v09.status.code(), Some(1), "{}", text(&v09.stdout));
    let value = common::json(&v09);
    assert_eq!(value["verl"]["outcome"], "driver_fails", "{value}");
}

#[test]
fn a_broken_manifest_is_exit_2_with_every_problem_spanned() {
    let output = run(&["inventory", "--kuberay", BAD], None);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    for code in [
        "kuberay::unknown_cpus",
        "kuberay::shape",
        "kuberay::bad_start_param",
        "kuberay::bad_quantity",
        "kuberay::duplicate_group",
    ] {
        assert!(stderr.contains(code), "{code}: {stderr}");
    }
    assert!(
        stderr.contains("resource-pool-inventory/tests/data/kuberay/bad.yaml:24:53"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn replicas_needs_kuberay() {
    let output = run(
        &[
            "inventory",
            "--cluster",
            "examples/clusters/three_nodes.toml",
            "--replicas",
            "max",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("--kuberay"),
        "{}",
        text(&output.stderr)
    );
}
