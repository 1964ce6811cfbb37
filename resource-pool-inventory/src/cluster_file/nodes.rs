//! From node entries to nodes: the checks of every entry (unknown keys, wrong types, bad
//! amounts, missing keys) and of the nodes together (ids used twice, more available than
//! in total), the same for TOML and JSON. Entries arrive one at a time and leave only the
//! node behind: its resources shared with every equal node's, its id and the id's span.

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::document::{ClusterFormat, Kind, Table, Value};
use super::duplicate_ids;
use super::node_entry::{Read, available_span, read_node, unknown_keys, wrong_type};
use super::plain_entry::{Amounts, PlainEntry};
use super::{ClusterDiagnostic, ClusterLimits, LoadedCluster, NodeSpans};
use resource_pool_core::file_keys::CLUSTER_KEYS;
use resource_pool_core::model::{Cluster, Node, Resources};
use resource_pool_core::source::{SourceFile, Span, to_source_span};

/// What became of the top-level `nodes` key.
pub(super) enum NodesKey {
    /// The file has none.
    Missing,
    /// An array, its entries pushed; the key's span.
    Array(Span),
    /// Something else (reported as a wrong type).
    Other,
}

/// The nodes read so far, and every problem found on the way.
pub(super) struct NodeReader {
    format: ClusterFormat,
    limit: usize,
    /// Entries pushed, read or not.
    count: usize,
    nodes: Vec<Node>,
    spans: Vec<NodeSpans>,
    /// Problems of the entries, in file order.
    errors: Vec<ClusterDiagnostic>,
    /// More available than in total, by node (in node order).
    over_total: Vec<(usize, ClusterDiagnostic)>,
    /// The nodes whose id is empty, in node order: noted as they are pushed, where the id
    /// is at hand, rather than in a second pass over 100,000 nodes.
    empty_ids: Vec<usize>,
    read: Read,
    /// Some entry did not make a node.
    unreadable: bool,
    /// The last `available` and `total` of a plain entry found to hold no more available
    /// than in total.
    within: Option<(Resources, Resources)>,
}

impl NodeReader {
    pub(super) fn new(format: ClusterFormat, limits: &ClusterLimits) -> NodeReader {
        NodeReader {
            format,
            limit: limits.max_nodes,
            count: 0,
            nodes: Vec::new(),
            spans: Vec::new(),
            errors: Vec::new(),
            over_total: Vec::new(),
            empty_ids: Vec::new(),
            read: Read::new(format),
            unreadable: false,
            within: None,
        }
    }

    /// Reads one entry of `nodes`. Past the limit entries are only counted: the file is
    /// refused whole, and what is kept stays bounded.
    pub(super) fn push(&mut self, item: &Value<'_>) {
        self.count += 1;
        if self.count > self.limit {
            if self.count == self.limit + 1 {
                *self = NodeReader {
                    count: self.count,
                    ..NodeReader::new(
                        self.format,
                        &ClusterLimits {
                            max_nodes: self.limit,
                        },
                    )
                };
            }
            return;
        }
        let Some((node, id_span)) = read_node(item, &mut self.read, &mut self.errors) else {
            self.unreadable = true;
            return;
        };
        self.check_totals(&node, &id_span, item);
        if node.id.is_empty() {
            self.empty_ids.push(self.nodes.len());
        }
        self.nodes.push(node);
        self.spans.push(NodeSpans { id: id_span });
    }

    /// Takes a node entry of the plain shape, read straight from the text; false, with
    /// nothing taken, when it has no id or no `available`, lists more available than in
    /// total, or would pass the limit: the caller then pushes the entry's value, whose
    /// reading words every problem.
    pub(super) fn push_plain(&mut self, entry: &mut PlainEntry<'_>) -> bool {
        let Some((id, id_span)) = entry.id.take() else {
            return false;
        };
        if !entry.has(Amounts::Available) || self.count >= self.limit {
            return false;
        }
        let read = &mut self.read;
        let available = entry.resources(Amounts::Available, |items| read.share(items));
        let total = entry
            .has(Amounts::Total)
            .then(|| entry.resources(Amounts::Total, |items| read.share(items)));
        if let Some(total) = &total {
            // The pair of lists last found within each other needs no second look.
            let checked = self
                .within
                .as_ref()
                .is_some_and(|(a, t)| a.shares_with(&available) && t.shares_with(total));
            if !checked {
                if !total.covers(&available) {
                    return false;
                }
                self.within = Some((available.clone(), total.clone()));
            }
        }
        self.count += 1;
        if id.is_empty() {
            self.empty_ids.push(self.nodes.len());
        }
        // Collected only when there are any: an empty collect still costs a call.
        let labels: BTreeMap<String, String> = if entry.labels.is_empty() {
            BTreeMap::new()
        } else {
            entry
                .labels
                .drain(..)
                .map(|(name, text)| (name.into_owned(), text.into_owned()))
                .collect()
        };
        self.nodes.push(Node {
            id: id.into_owned(),
            address: entry.address.take().map(Cow::into_owned),
            alive: entry.alive.take().unwrap_or(true),
            available,
            total,
            labels,
            // A head is said in an entry the fast path leaves to the general reading.
            head: false,
        });
        self.spans.push(NodeSpans { id: id_span });
        true
    }

    /// More of a resource available than in total: a warning on the available amount.
    fn check_totals(&mut self, node: &Node, id_span: &Span, item: &Value<'_>) {
        let Some(total) = &node.total else {
            return;
        };
        for (name, available) in node.available.iter() {
            let all = total.get(name);
            if available > all {
                let span = available_span(item, name).unwrap_or(id_span);
                self.over_total.push((
                    self.nodes.len(),
                    ClusterDiagnostic::AvailableOverTotal {
                        node: node.id.clone(),
                        resource: name.to_owned(),
                        available: available.to_string(),
                        total: all.to_string(),
                        span: to_source_span(span),
                    },
                ));
            }
        }
    }

    /// The ids findings cannot name a node by, in node order: an empty id, and every other
    /// id used before, on its second (and later) use.
    fn id_problems(&self) -> Vec<(usize, ClusterDiagnostic)> {
        let empty = self.empty_ids.iter().map(|&i| {
            let span = to_source_span(&self.spans[i].id);
            (i, ClusterDiagnostic::EmptyId { span })
        });
        // An empty id is said once per node, not again as an id used twice.
        let mut duplicates = duplicate_ids::first_uses(&self.nodes)
            .into_iter()
            .filter(|&(i, _)| !self.nodes[i].id.is_empty())
            .map(|(i, first)| {
                let diagnostic = ClusterDiagnostic::DuplicateNode {
                    id: self.nodes[i].id.clone(),
                    span: to_source_span(&self.spans[i].id),
                    first: to_source_span(&self.spans[first].id),
                };
                (i, diagnostic)
            })
            .peekable();
        let mut all = Vec::new();
        for (node, problem) in empty {
            while let Some(duplicate) = duplicates.next_if(|(d, _)| *d < node) {
                all.push(duplicate);
            }
            all.push((node, problem));
        }
        all.extend(duplicates);
        all
    }

    /// The file read: `root_errors` are the problems of the top level (unknown keys, a
    /// `nodes` of the wrong type), found in file order before the entries'.
    pub(super) fn finish(
        self,
        source: &SourceFile,
        root_errors: Vec<ClusterDiagnostic>,
        nodes_key: NodesKey,
    ) -> LoadedCluster {
        let duplicates = self.id_problems();
        let mut diagnostics = root_errors;
        let too_many = self.count > self.limit;
        diagnostics.extend(self.errors);
        match nodes_key {
            NodesKey::Missing => diagnostics.push(ClusterDiagnostic::NoNodes {
                span: to_source_span(&(0..0)),
            }),
            NodesKey::Array(key) => {
                if self.count == 0 {
                    diagnostics.push(ClusterDiagnostic::NoNodes {
                        span: to_source_span(&key),
                    });
                }
                if too_many {
                    diagnostics.push(ClusterDiagnostic::TooManyNodes {
                        count: self.count,
                        limit: self.limit,
                        span: to_source_span(&key),
                    });
                }
            }
            NodesKey::Other => {}
        }
        // Per node, an empty id or one used again, then more available than in total.
        let mut duplicates = duplicates.into_iter().peekable();
        for (node, over) in self.over_total {
            while let Some((_, duplicate)) = duplicates.next_if(|(d, _)| *d <= node) {
                diagnostics.push(duplicate);
            }
            diagnostics.push(over);
        }
        diagnostics.extend(duplicates.map(|(_, d)| d));
        let valid = !self.unreadable && !diagnostics.iter().any(ClusterDiagnostic::is_error);
        LoadedCluster {
            source: source.clone(),
            cluster: valid.then_some(Cluster { nodes: self.nodes }),
            spans: self.spans,
            diagnostics,
        }
    }
}

/// The problems of the top-level table: unknown keys, then a `nodes` that is no array.
pub(super) fn check_root(
    root: &Table<'_>,
    format: ClusterFormat,
    out: &mut Vec<ClusterDiagnostic>,
) -> NodesKey {
    unknown_keys(root, CLUSTER_KEYS, "the cluster file", out);
    match root.get("nodes") {
        None => NodesKey::Missing,
        Some((key, value)) => match &value.kind {
            Kind::Array(_) => NodesKey::Array(key.span.clone()),
            other => {
                out.push(wrong_type("nodes", "an array", other.found(format), &value.span).into());
                NodesKey::Other
            }
        },
    }
}
