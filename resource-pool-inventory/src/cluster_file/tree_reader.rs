//! The reader of cluster TOML through the `toml` crate's whole document tree
//! (`DeTable`): how cluster files were read before the streaming reader. It is kept as
//! the oracle the streaming reader is tested against (the same cluster, the same
//! diagnostics), in tests and fuzzing only.

use std::collections::BTreeMap;

use super::{ClusterDiagnostic, ClusterLimits, LoadedCluster, NodeSpans};
use resource_pool_core::file_keys::{CLUSTER_KEYS, NODE_KEYS};
use resource_pool_core::model::{Cluster, Node, Resources};
use resource_pool_core::source::{SourceFile, Span, Spanned, to_source_span};
use resource_pool_core::toml_support::walk::{self as toml_walk, StructureError};

/// Where a node stands in its file, as the tree reader keeps it.
struct TreeSpans {
    id: Span,
    available: BTreeMap<String, Span>,
}

/// Reads a cluster file, collecting every problem.
pub fn load_cluster_tree(source: &SourceFile, limits: &ClusterLimits) -> LoadedCluster {
    let (root, mut errors) = toml_walk::parse(source);
    if !errors.is_empty() {
        // Recovered trees are guesses: report the syntax alone.
        let diagnostics = errors.into_iter().map(ClusterDiagnostic::from).collect();
        return LoadedCluster {
            source: source.clone(),
            cluster: None,
            spans: Vec::new(),
            diagnostics,
        };
    }
    let root = root.get_ref();
    toml_walk::check_keys(root, CLUSTER_KEYS, "the cluster file", &mut errors);
    let mut diagnostics = Vec::new();
    let mut nodes = Vec::new();
    let mut spans: Vec<TreeSpans> = Vec::new();
    let mut unreadable = false;
    match toml_walk::get(root, "nodes") {
        None => diagnostics.push(ClusterDiagnostic::NoNodes {
            span: to_source_span(&(0..0)),
        }),
        Some((key, value)) => {
            if let Some(items) = toml_walk::array("nodes", value, &mut errors) {
                if items.is_empty() {
                    diagnostics.push(ClusterDiagnostic::NoNodes {
                        span: to_source_span(&key.span()),
                    });
                }
                if items.len() > limits.max_nodes {
                    diagnostics.push(ClusterDiagnostic::TooManyNodes {
                        count: items.len(),
                        limit: limits.max_nodes,
                        span: to_source_span(&key.span()),
                    });
                } else {
                    nodes.reserve(items.len());
                    for item in items {
                        match read_node(item, &mut errors) {
                            Some((node, node_spans)) => {
                                nodes.push(node);
                                spans.push(node_spans);
                            }
                            None => unreadable = true,
                        }
                    }
                }
            }
        }
    }
    check_nodes(&nodes, &spans, &mut diagnostics);
    let mut all: Vec<ClusterDiagnostic> = errors.into_iter().map(ClusterDiagnostic::from).collect();
    all.extend(diagnostics);
    let valid = !unreadable && !all.iter().any(ClusterDiagnostic::is_error);
    LoadedCluster {
        source: source.clone(),
        cluster: valid.then(|| Cluster::new(nodes)),
        spans: spans.into_iter().map(|s| NodeSpans { id: s.id }).collect(),
        diagnostics: all,
    }
}

fn check_nodes(nodes: &[Node], spans: &[TreeSpans], out: &mut Vec<ClusterDiagnostic>) {
    let mut first_use: std::collections::HashMap<&str, &Span> =
        std::collections::HashMap::with_capacity(nodes.len());
    for (node, node_spans) in nodes.iter().zip(spans) {
        if node.id.is_empty() {
            // Said once per node, not again as an id used twice.
            out.push(ClusterDiagnostic::EmptyId {
                span: to_source_span(&node_spans.id),
            });
        } else if let Some(first) = first_use.get(node.id.as_str()) {
            out.push(ClusterDiagnostic::DuplicateNode {
                id: node.id.clone(),
                span: to_source_span(&node_spans.id),
                first: to_source_span(first),
            });
        } else {
            first_use.insert(&node.id, &node_spans.id);
        }
        if let Some(total) = &node.total {
            for (name, available) in node.available.iter() {
                let all = total.get(name);
                if available > all {
                    out.push(ClusterDiagnostic::AvailableOverTotal {
                        node: node.id.clone(),
                        resource: name.to_owned(),
                        available: available.to_string(),
                        total: all.to_string(),
                        span: to_source_span(
                            node_spans.available.get(name).unwrap_or(&node_spans.id),
                        ),
                    });
                }
            }
        }
    }
}

fn read_node(
    item: &toml_walk::Value<'_>,
    out: &mut Vec<StructureError>,
) -> Option<(Node, TreeSpans)> {
    let table = toml_walk::table("nodes entry", item, out)?;
    let id_text = toml_walk::get(table, "id")
        .and_then(|(_, v)| toml_walk::string("id", v, out))
        .map(|s| format!("node `{}`", s.value))
        .unwrap_or_else(|| "a node".to_owned());
    toml_walk::check_keys(table, NODE_KEYS, &id_text, out);
    let after_keys = out.len();
    let mut node = Node {
        alive: true,
        ..Node::default()
    };
    let mut spans = TreeSpans {
        id: item.span(),
        available: BTreeMap::new(),
    };
    let mut has_id = false;
    let mut has_available = false;
    for (key, value) in toml_walk::entries(table) {
        match key.get_ref().as_ref() {
            "id" => {
                if let Some(id) = toml_walk::string("id", value, &mut Vec::new()) {
                    node.id = id.value;
                    spans.id = id.span;
                    has_id = true;
                }
            }
            "address" => node.address = toml_walk::string("address", value, out).map(|s| s.value),
            "alive" => node.alive = toml_walk::boolean("alive", value, out).unwrap_or(true),
            "head" => node.head = toml_walk::boolean("head", value, out).unwrap_or(false),
            "available" => {
                if let Some(items) = toml_walk::resources("available", value, out) {
                    node.available = to_resources(&items, Some(&mut spans.available));
                    has_available = true;
                }
            }
            "total" => {
                node.total = toml_walk::resources("total", value, out)
                    .map(|items| to_resources(&items, None));
            }
            "labels" => {
                if let Some(labels) = toml_walk::table("labels", value, out) {
                    for (name, label) in toml_walk::entries(labels) {
                        let shown = format!("labels.{}", name.get_ref());
                        if let Some(text) = toml_walk::string(&shown, label, out) {
                            node.labels.insert(name.get_ref().to_string(), text.value);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    // Labelled on the id when there is one, else on the whole entry. A node read whole
    // has them all: the loop runs for broken nodes only (clusters have 100,000s of nodes).
    let complete = has_id && has_available;
    for required in NODE_KEYS.iter().filter(|k| k.required && !complete) {
        if toml_walk::get(table, required.name).is_none() {
            out.push(StructureError::MissingKey {
                key: required.name,
                table: id_text.clone(),
                example: required.example,
                span: to_source_span(&spans.id),
            });
        }
    }
    // An unknown key alone leaves the node usable; anything else does not.
    let readable = out.len() == after_keys;
    (readable && has_id && has_available).then_some((node, spans))
}

fn to_resources(
    items: &[(Spanned<String>, Spanned<resource_pool_core::model::Amount>)],
    mut spans: Option<&mut BTreeMap<String, Span>>,
) -> Resources {
    let mut resources = Resources::new();
    for (name, amount) in items {
        resources.set(name.value.clone(), amount.value);
        if let Some(spans) = spans.as_deref_mut() {
            spans.insert(name.value.clone(), amount.span.clone());
        }
    }
    resources
}
