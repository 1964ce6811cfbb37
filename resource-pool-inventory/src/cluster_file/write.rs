//! Printing a cluster as a cluster file, TOML or JSON: snapshots of live clusters.

use std::fmt::Write;

use resource_pool_core::model::{Cluster, Resources};
use resource_pool_core::toml_support::{toml_key, toml_string};

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
        if node.head {
            out.push_str("head = true\n");
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

fn json_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

fn json_resources(resources: &Resources) -> String {
    let items: Vec<String> = resources
        .iter()
        .map(|(name, amount)| format!("{}: {amount}", json_string(name)))
        .collect();
    format!("{{{}}}", items.join(", "))
}

/// The cluster file of a cluster as JSON, one node per line, nodes in order. Reading it
/// back gives the same cluster.
pub fn cluster_to_json(cluster: &Cluster) -> String {
    let mut out = String::from("{\"nodes\": [");
    for (i, node) in cluster.nodes.iter().enumerate() {
        out.push_str(if i > 0 { ",\n  " } else { "\n  " });
        let _ = write!(out, "{{\"id\": {}", json_string(&node.id));
        if let Some(address) = &node.address {
            let _ = write!(out, ", \"address\": {}", json_string(address));
        }
        if !node.alive {
            out.push_str(", \"alive\": false");
        }
        if node.head {
            out.push_str(", \"head\": true");
        }
        let _ = write!(out, ", \"available\": {}", json_resources(&node.available));
        if let Some(total) = &node.total {
            let _ = write!(out, ", \"total\": {}", json_resources(total));
        }
        if !node.labels.is_empty() {
            let items: Vec<String> = node
                .labels
                .iter()
                .map(|(k, v)| format!("{}: {}", json_string(k), json_string(v)))
                .collect();
            let _ = write!(out, ", \"labels\": {{{}}}", items.join(", "));
        }
        out.push('}');
    }
    if !cluster.nodes.is_empty() {
        out.push('\n');
    }
    out.push_str("]}\n");
    out
}
