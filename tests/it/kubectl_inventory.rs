//! `--kubectl FILE|-` and `--kubectl-pods FILE|-`: Kubernetes nodes (and what pods request)
//! as a cluster, with `inventory` and `check`.

use crate::common;

use common::run_with_stdin as run;

const NODES: &str = "resource-pool-inventory/tests/data/kubectl/nodes.json";
const PODS: &str = "resource-pool-inventory/tests/data/kubectl/pods.json";

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn inventory_of_nodes_less_pods_prints_cluster_toml() {
    let output = run(
        &["inventory", "--kubectl", NODES, "--kubectl-pods", PODS],
        None,
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    insta::assert_snapshot!("inventory_kubectl_with_pods", text(&output.stdout));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("gpu-h100-c is dead"), "{stderr}");
    // The remedy is Kubernetes', not Ray's.
    assert!(
        stderr.contains("help: `kubectl describe node gpu-h100-c` shows why it is not Ready"),
        "{stderr}"
    );
    assert!(!stderr.contains("raylet"), "{stderr}");
    let without_pods = run(&["inventory", "--kubectl", NODES], None);
    assert_eq!(without_pods.status.code(), Some(0));
    assert_ne!(
        without_pods.stdout, output.stdout,
        "running pods' requests are subtracted"
    );
    assert!(text(&without_pods.stdout).contains("available = { CPU = 191.45, GPU = 8"));
}

#[test]
fn stdin_is_the_same_as_the_file() {
    let nodes =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(NODES))
            .expect("data");
    let piped = run(
        &["inventory", "--kubectl", "-", "--kubectl-pods", PODS],
        Some(&nodes),
    );
    let file = run(
        &["inventory", "--kubectl", NODES, "--kubectl-pods", PODS],
        None,
    );
    assert_eq!(piped.status.code(), Some(0));
    assert_eq!(piped.stdout, file.stdout);
    let both = run(
        &["inventory", "--kubectl", "-", "--kubectl-pods", "-"],
        Some(&nodes),
    );
    assert_eq!(both.status.code(), Some(2));
    assert!(text(&both.stderr).contains("cannot both be `-`"));
}

#[test]
fn check_against_kubernetes_nodes() {
    let output = run(
        &[
            "check",
            "examples/configs/single_node.toml",
            "--kubectl",
            NODES,
            "--kubectl-pods",
            PODS,
            "--format",
            "json",
        ],
        None,
    );
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    // gpu-h100-b has 8 free GPUs; gpu-h100-a has 6 (a pod holds 2), gpu-h100-c is dead.
    assert_eq!(output.status.code(), Some(0), "{value}");
    assert_eq!(value["feasible"], true);
    assert_eq!(value["placement"][0]["node"], "gpu-h100-b");
}

#[test]
fn malformed_nodes_and_pods_are_labelled_in_their_own_files() {
    let output = run(
        &[
            "inventory",
            "--kubectl",
            "resource-pool-inventory/tests/data/kubectl/bad_quantity.json",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    insta::assert_snapshot!("kubectl_bad_quantity", text(&output.stderr));
    let output = run(
        &[
            "inventory",
            "--kubectl",
            NODES,
            "--kubectl-pods",
            "resource-pool-inventory/tests/data/kubectl/bad_pods.json",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("[resource-pool-inventory/tests/data/kubectl/bad_pods.json:"),
        "{stderr}"
    );
    assert!(
        stderr.contains("resource_pool::kubectl::bad_quantity"),
        "{stderr}"
    );
    let output = run(
        &[
            "inventory",
            "--kubectl",
            "resource-pool-inventory/tests/data/kubectl/wrong_shape.json",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("resource_pool::kubectl::shape"));
    let output = run(&["inventory", "--kubectl", "-"], Some("{\"items\": [1,"));
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("resource_pool::kubectl::syntax"));
}

#[test]
fn pods_without_nodes_and_mixed_sources_are_usage_errors() {
    let output = run(&["inventory", "--kubectl-pods", PODS], None);
    assert_eq!(output.status.code(), Some(2));
    let output = run(
        &[
            "inventory",
            "--kubectl",
            NODES,
            "--cluster",
            "examples/clusters/three_nodes.toml",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(2));
    // Each option without the source it applies to.
    let without_source = [
        (
            "--kubectl-pods",
            PODS,
            "resource_pool::cli::pods_without_kubectl",
        ),
        (
            "--replicas",
            "max",
            "resource_pool::cli::replicas_without_kuberay",
        ),
    ];
    // Alone, a diagnostic of ours like any other: in the JSON of `check` too.
    for (option, value, code) in without_source {
        let output = run(
            &[
                "check",
                "examples/configs/single_node.toml",
                option,
                value,
                "--format",
                "json",
            ],
            None,
        );
        assert_eq!(output.status.code(), Some(2), "{option}");
        let result: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_default();
        assert_eq!(
            result["diagnostics"][0]["code"],
            code,
            "{}",
            text(&output.stderr)
        );
    }
    // Beside another source: said, not ignored.
    for (option, value, code) in without_source {
        let output = run(
            &[
                "inventory",
                "--cluster",
                "examples/clusters/three_nodes.toml",
                option,
                value,
            ],
            None,
        );
        assert_eq!(output.status.code(), Some(2), "{option}");
        assert!(
            text(&output.stderr).contains(code),
            "{}",
            text(&output.stderr)
        );
        assert!(output.stdout.is_empty(), "{option}");
    }
}
