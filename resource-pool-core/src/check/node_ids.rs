//! Node ids the check cannot name nodes by: ids two nodes share, and empty ones. The
//! check's findings, its plan and the JSON name nodes by id, so these would name nodes
//! ambiguously (`nearest is : CPU 0 of 24`). The cluster files and the inventories
//! refuse shared ids as they read, with a span; a `Cluster::new` in code reaches the
//! check unread, so the check says it (an error: the layout does not pass), whatever
//! front end built the cluster.

use std::collections::BTreeMap;

use super::CheckDiagnostic;
use crate::model::{Cluster, repeated_ids};

/// The cluster's empty ids (one finding), then each shared id (one finding each, in the
/// order of its first use). A reader's cluster needs no second look
/// ([`CheckOptions::node_ids_checked`](super::CheckOptions::node_ids_checked)).
pub(super) fn findings(cluster: &Cluster) -> Vec<CheckDiagnostic> {
    let mut found = Vec::new();
    let empty: Vec<usize> = (cluster.nodes.iter().enumerate())
        .filter(|(_, n)| n.id.is_empty())
        .map(|(i, _)| i)
        .collect();
    if !empty.is_empty() {
        found.push(CheckDiagnostic::EmptyNodeId { nodes: empty });
    }
    // Each later use by its first, the empty id left out (said above).
    let mut shared: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, first) in repeated_ids(&cluster.nodes) {
        if !cluster.nodes[i].id.is_empty() {
            shared.entry(first).or_insert_with(|| vec![first]).push(i);
        }
    }
    found.extend(
        shared
            .into_values()
            .map(|nodes| CheckDiagnostic::DuplicateNode {
                id: cluster.nodes[nodes[0]].id.clone(),
                nodes,
            }),
    );
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::LintOptions;
    use crate::load::load_config;
    use crate::model::{Node, Resources};
    use crate::source::SourceFile;
    use crate::test_support::node;

    fn cluster(ids: &[&str]) -> Cluster {
        Cluster::new(
            ids.iter()
                .map(|id| Node::new(*id, Resources::new()))
                .collect(),
        )
    }

    #[test]
    fn distinct_ids_say_nothing() {
        assert_eq!(findings(&cluster(&["a", "b", "c"])), []);
        assert_eq!(findings(&cluster(&[])), []);
    }

    #[test]
    fn shared_and_empty_ids_are_each_said_once() {
        let found = findings(&cluster(&["a", "", "b", "a", "", "b", "a", "c"]));
        assert_eq!(
            found,
            [
                CheckDiagnostic::EmptyNodeId { nodes: vec![1, 4] },
                CheckDiagnostic::DuplicateNode {
                    id: "a".into(),
                    nodes: vec![0, 3, 6]
                },
                CheckDiagnostic::DuplicateNode {
                    id: "b".into(),
                    nodes: vec![2, 5]
                },
            ]
        );
        let text: Vec<String> = found.iter().map(ToString::to_string).collect();
        assert_eq!(
            text,
            [
                "nodes 1, 4 of the cluster have an empty id",
                "nodes 0, 3, 6 of the cluster share the id `a`",
                "nodes 2, 5 of the cluster share the id `b`",
            ]
        );
        assert!(found.iter().all(CheckDiagnostic::is_error));
        assert_eq!(
            findings(&cluster(&["", "x"]))[0].to_string(),
            "node 0 of the cluster has an empty id"
        );
    }

    /// A layout that places on the cluster does not pass when the cluster names two nodes
    /// alike: `ResourcePoolManager::check`, the path of code-built clusters, says so first.
    #[test]
    fn the_check_of_a_cluster_with_shared_ids_does_not_pass() {
        let loaded = load_config(
            &SourceFile::new(
                "pools.toml",
                "[pools.global_pool]\nprocess_on_nodes = [8, 8]\n\n[mapping]\nactor_rollout = \"global_pool\"\n",
            ),
            &LintOptions::default(),
        );
        let manager = loaded.manager.as_ref().expect("valid");
        let distinct = Cluster::new(vec![node("a", 8, 32), node("b", 8, 32)]);
        assert!(manager.check(&distinct).passes());
        let shared = Cluster::new(vec![node("a", 8, 32), node("a", 8, 32)]);
        let report = manager.check(&shared);
        assert!(!report.passes());
        assert_eq!(
            report.diagnostics,
            [CheckDiagnostic::DuplicateNode {
                id: "a".into(),
                nodes: vec![0, 1]
            }]
        );
        let code = miette::Diagnostic::code(&report.diagnostics[0]).map(|c| c.to_string());
        assert_eq!(
            code.as_deref(),
            Some("resource_pool::cluster::duplicate_node")
        );
        let empty = Cluster::new(vec![node("", 8, 32), node("b", 8, 32)]);
        assert!(!manager.check(&empty).passes());
        // A reader's cluster (its ids refused as read) is not looked at again.
        let read = super::super::CheckOptions {
            node_ids_checked: true,
            ..Default::default()
        };
        let check = |cluster| super::super::check(manager, cluster, &super::super::NoSpans, &read);
        assert!(check(&shared).diagnostics.is_empty());
        assert!(check(&empty).diagnostics.is_empty());
    }
}
