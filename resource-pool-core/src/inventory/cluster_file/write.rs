//! Printing a cluster as cluster TOML: snapshots of live clusters.

use std::fmt::Write;

use crate::config::write::{toml_key, toml_string};
use crate::model::{Cluster, Resources};

fn inline(resources: &Resources) -> String {
    let items: Vec<String> = resources
        .iter()
        .map(|(name, amount)| format!("{} = {amount}", toml_key(name)))
        .collect();
    format!("{{ {} }}", items.join(", "))
}

/// The cluster file of a cluster, nodes in order. Reading it back gives the same cluster.
pub fn cluster_to_toml(cluster: &Cluster) -> String {
    let mut out = String::new();
    for (i, node) in cluster.nodes.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str("[[nodes]]\n");
        let _ = writeln!(out, "id = {}", toml_string(&node.id));
        if let Some(address) = &node.address {
            let _ = writeln!(out, "address = {}", toml_string(address));
        }
        if !node.alive {
            out.push_str("alive = false\n");
        }
        let _ = writeln!(out, "available = {}", inline(&node.available));
        if let Some(total) = &node.total {
            let _ = writeln!(out, "total = {}", inline(total));
        }
        if !node.labels.is_empty() {
            let items: Vec<String> = node
                .labels
                .iter()
                .map(|(k, v)| format!("{} = {}", toml_key(k), toml_string(v)))
                .collect();
            let _ = writeln!(out, "labels = {{ {} }}", items.join(", "));
        }
    }
    out
}
