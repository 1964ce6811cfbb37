//! The bodies of the inventory's fuzz targets (`fuzz/fuzz_targets/`), shared with the
//! corpus replay test so that both run exactly the same checks. Not part of the public API.

use resource_pool_core::fuzzing::assert_labels_in_file;
use resource_pool_core::model::Cluster;
use resource_pool_core::source::SourceFile;

use crate::cluster_file::{
    ClusterDiagnostic, ClusterFormat, ClusterLimits, cluster_to_json, cluster_to_toml,
    load_cluster, load_cluster_as,
};
use crate::kuberay::{KubeRayOptions, kuberay_inventory};
use crate::local::{LocalFacts, local_inventory, parse_meminfo, parse_npu_smi, parse_nvidia_smi};
use crate::{kubectl, ray_json, slurm};

/// Cluster TOML bytes: read with the default limits and with a limit of 2 nodes. Every
/// label lies in the file; a cluster read has no error, and prints (as TOML and as JSON)
/// to a file that reads back, without error, to an equal cluster. And the streaming reader
/// gives what the tree reader gives: the same diagnostics, cluster and spans.
pub fn cluster_toml(bytes: &[u8]) {
    let Ok(source) = SourceFile::from_bytes("fuzz.toml", bytes.to_vec()) else {
        return;
    };
    for limits in [ClusterLimits::default(), ClusterLimits { max_nodes: 2 }] {
        let loaded = load_cluster_as(&source, ClusterFormat::Toml, &limits);
        let tree = crate::cluster_file::tree_reader::load_cluster_tree(&source, &limits);
        assert_eq!(
            loaded.diagnostics, tree.diagnostics,
            "the readers' diagnostics differ"
        );
        assert_eq!(loaded.cluster, tree.cluster, "the readers' clusters differ");
        assert_eq!(loaded.spans, tree.spans, "the readers' spans differ");
        assert_cluster_file(&loaded, &source);
    }
}

/// Cluster JSON bytes: as [`cluster_toml`], without the tree reader but with the reading
/// that the fast path for plain node entries must agree with; and the syntax is
/// serde_json's: the reader finds a syntax error exactly when serde_json does, but for a
/// key repeated in one object (refused here, the last one wins in serde_json) and numbers
/// out of `f64`'s range (an amount too large here, an error in serde_json).
pub fn cluster_json(bytes: &[u8]) {
    let Ok(source) = SourceFile::from_bytes("fuzz.json", bytes.to_vec()) else {
        return;
    };
    let loaded = load_cluster_as(&source, ClusterFormat::Json, &ClusterLimits::default());
    assert_cluster_file(&loaded, &source);
    let general = crate::cluster_file::load_json_general(&source, &ClusterLimits::default());
    assert_eq!(
        loaded.cluster, general.cluster,
        "the fast path's cluster differs"
    );
    assert_eq!(loaded.spans, general.spans, "the fast path's spans differ");
    assert_eq!(
        loaded.diagnostics, general.diagnostics,
        "the fast path's diagnostics differ"
    );
    let syntax = loaded.diagnostics.iter().find(|d| d.is_syntax());
    let text = source.text();
    match (syntax, serde_json::from_str::<serde_json::Value>(text)) {
        (None, Ok(_)) | (Some(_), Err(_)) => {}
        (Some(ClusterDiagnostic::JsonSyntax { message, .. }), Ok(_)) => {
            assert!(
                message.starts_with("duplicate key"),
                "serde_json reads it: {message}"
            );
        }
        (None, Err(error)) => assert!(
            error.to_string().contains("number out of range") || text.starts_with('\u{feff}'),
            "serde_json does not read it ({error}), the cluster reader does"
        ),
        (Some(other), Ok(_)) => panic!("not a JSON syntax error: {other}"),
    }
}

/// What holds of any cluster file read: labels in the file, a cluster exactly when no
/// error, one span per node, and a cluster that prints and reads back.
fn assert_cluster_file(loaded: &crate::cluster_file::LoadedCluster, source: &SourceFile) {
    for diagnostic in &loaded.diagnostics {
        assert_labels_in_file(diagnostic, source);
    }
    let Some(cluster) = &loaded.cluster else {
        assert!(loaded.has_errors(), "no cluster but no error either");
        return;
    };
    assert!(!loaded.has_errors(), "a cluster despite errors");
    assert_eq!(loaded.spans.len(), cluster.nodes.len());
    assert_cluster_round_trips(cluster);
}

fn assert_cluster_round_trips(cluster: &Cluster) {
    for (name, printed) in [
        ("printed.toml", cluster_to_toml(cluster)),
        ("printed.json", cluster_to_json(cluster)),
    ] {
        let again = load_cluster(
            &SourceFile::new(name, printed.as_str()),
            &ClusterLimits::default(),
        );
        if cluster.nodes.is_empty() {
            // A cluster file needs a node; an empty cluster prints as a file without one.
            assert!(again.cluster.is_none());
            continue;
        }
        assert!(
            !again.has_errors(),
            "the printed cluster has errors: {:?}\n{printed}",
            again.diagnostics
        );
        assert_eq!(
            again.cluster.as_ref(),
            Some(cluster),
            "the printed cluster differs:\n{printed}"
        );
    }
}

/// Ray dashboard JSON bytes: each endpoint's parser on the whole input, and, when the
/// input holds three bodies separated by NUL bytes (nodes, cluster status, placement
/// groups), the whole inventory. Every node has no more available than its total; each
/// dead node (in the cluster, not alive, nothing available) has one dead-node note; the
/// cluster prints as a cluster file that reads back equal.
pub fn ray_json(bytes: &[u8]) {
    let _ = ray_json::parse_nodes(bytes);
    let _ = ray_json::parse_cluster_status(bytes);
    let _ = ray_json::parse_placement_groups(bytes);
    let mut parts = bytes.splitn(3, |&b| b == 0);
    let (Some(nodes), Some(status), Some(groups)) = (parts.next(), parts.next(), parts.next())
    else {
        return;
    };
    let Ok(inventory) = ray_json::parse_inventory(nodes, status, groups) else {
        return;
    };
    let dead = inventory.cluster.nodes.iter().filter(|n| !n.alive).count();
    assert_eq!(
        dead,
        inventory.dead_node_notes().count(),
        "one note per dead node"
    );
    for node in &inventory.cluster.nodes {
        if !node.alive {
            assert!(
                node.available.is_empty(),
                "dead node `{}` has resources free",
                node.id
            );
        }
        let total = node.total.as_ref().expect("Ray states every node's total");
        assert!(
            total.covers(&node.available),
            "node `{}`: available {} over total {total}",
            node.id,
            node.available
        );
    }
    assert_cluster_round_trips(&inventory.cluster);
}

/// The outputs of the other inventory sources, chosen by the first byte: `0` Slurm's
/// `scontrol show node --json`; `1` `kubectl get nodes -o json`, then after a NUL byte
/// `kubectl get pods -A -o json`; `2` nvidia-smi's CSV, a NUL, `npu-smi info -l`, a NUL,
/// `/proc/meminfo`; `3` a KubeRay manifest (YAML or JSON; at most 1,000 nodes made).
/// Each parser reads its part (as UTF-8); every error's label lies in its part, and every
/// inventory built prints as a cluster file that loads back equal.
pub fn tool_outputs(bytes: &[u8]) {
    let Some((&selector, rest)) = bytes.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let mut parts = text.splitn(3, '\0');
    let first = parts.next().unwrap_or_default();
    let second = parts.next().unwrap_or_default();
    let third = parts.next().unwrap_or_default();
    match selector % 4 {
        0 => match slurm::parse_slurm_nodes(text) {
            Ok(inventory) => assert_cluster_round_trips(&inventory.cluster),
            Err(errors) => assert_errors_in(&errors, text),
        },
        1 => {
            let nodes = kubectl::parse_kubectl_nodes(first);
            let pods = kubectl::parse_kubectl_pods(second);
            if let Err(errors) = &nodes {
                assert_errors_in(errors, first);
            }
            if let Err(errors) = &pods {
                assert_errors_in(errors, second);
            }
            if let (Ok(nodes), Ok(pods)) = (nodes, pods) {
                assert_cluster_round_trips(&kubectl::kubectl_inventory(nodes, &pods).cluster);
            }
        }
        3 => {
            let options = KubeRayOptions {
                max_nodes: 1_000,
                ..KubeRayOptions::default()
            };
            match kuberay_inventory(text, &options) {
                Ok(inventory) => assert_cluster_round_trips(&inventory.cluster),
                Err(errors) => assert_errors_in(&errors, text),
            }
        }
        _ => {
            let nvidia = parse_nvidia_smi(first);
            let ascend = parse_npu_smi(second);
            let memory = parse_meminfo(third);
            for (result, part) in [
                (nvidia.as_ref().err(), first),
                (ascend.as_ref().err(), second),
                (memory.as_ref().err(), third),
            ] {
                if let Some(errors) = result {
                    assert_errors_in(errors, part);
                }
            }
            if let (Ok(nvidia), Ok(ascend), Ok(memory)) = (nvidia, ascend, memory) {
                let facts = LocalFacts {
                    hostname: "fuzz".to_owned(),
                    cpus: 8,
                    memory,
                    nvidia: Some(nvidia),
                    ascend: Some(ascend),
                    cuda_visible_devices: None,
                    ascend_rt_visible_devices: None,
                };
                assert_cluster_round_trips(&local_inventory(&facts).cluster);
            }
        }
    }
}

fn assert_errors_in<E: miette::Diagnostic>(errors: &[E], text: &str) {
    assert!(!errors.is_empty(), "an error result without an error");
    let source = SourceFile::new("part", text);
    for error in errors {
        assert_labels_in_file(error, &source);
    }
}
