//! From node entries to nodes: the checks of every entry (unknown keys, wrong types, bad
//! amounts, missing keys) and of the nodes together (ids used twice, more available than
//! in total), the same for TOML and JSON. Entries arrive one at a time and leave only the
//! node behind: its resources shared with every equal node's, its id and the id's span.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::hash::{BuildHasher, RandomState};

use super::document::{ClusterFormat, Kind, Table, Value};
use super::duplicate_ids;
use super::plain_entry::{Amounts, PlainEntry};
use super::{ClusterDiagnostic, ClusterLimits, LoadedCluster, NodeSpans};
use crate::file_keys::{CLUSTER_KEYS, NODE_KEYS};
use crate::model::{Amount, Cluster, Node, ResourceName, Resources};
use crate::source::{SourceFile, Span, to_source_span};
use crate::toml_walk::{self, StructureError};

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
                if !holds_no_more(&available, total) {
                    return false;
                }
                self.within = Some((available.clone(), total.clone()));
            }
        }
        self.count += 1;
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

    /// Every id used before, on its second (and later) use, in node order.
    fn duplicates(&self) -> Vec<(usize, ClusterDiagnostic)> {
        duplicate_ids::first_uses(&self.nodes)
            .into_iter()
            .map(|(i, first)| {
                let diagnostic = ClusterDiagnostic::DuplicateNode {
                    id: self.nodes[i].id.clone(),
                    span: to_source_span(&self.spans[i].id),
                    first: to_source_span(&self.spans[first].id),
                };
                (i, diagnostic)
            })
            .collect()
    }

    /// The file read: `root_errors` are the problems of the top level (unknown keys, a
    /// `nodes` of the wrong type), found in file order before the entries'.
    pub(super) fn finish(
        self,
        source: &SourceFile,
        root_errors: Vec<ClusterDiagnostic>,
        nodes_key: NodesKey,
    ) -> LoadedCluster {
        let duplicates = self.duplicates();
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
        // Per node, an id used again, then more available than in total.
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

/// Whether no amount of `available` is over its amount in `total`: both lists walked
/// once in their order of names (a name missing from `total` has none there).
fn holds_no_more(available: &Resources, total: &Resources) -> bool {
    let mut total = total.entries();
    let mut held = total.next();
    'available: for (name, amount) in available.entries() {
        while let Some((held_name, all)) = held {
            if held_name == name {
                if amount > all {
                    return false;
                }
                held = total.next();
                continue 'available;
            }
            if held_name.as_str() > name.as_str() {
                break;
            }
            held = total.next();
        }
        if !amount.is_zero() {
            return false;
        }
    }
    true
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

fn unknown_keys<K: toml_walk::KnownKey>(
    table: &Table<'_>,
    known: &[K],
    table_name: &str,
    out: &mut Vec<ClusterDiagnostic>,
) {
    for (key, _) in table.sorted() {
        if let Some(error) = toml_walk::unknown_key(&key.name, known, table_name, &key.span) {
            out.push(error.into());
        }
    }
}

fn wrong_type(
    key: &str,
    expected: &'static str,
    found: &'static str,
    span: &Span,
) -> StructureError {
    StructureError::WrongType {
        key: key.to_owned(),
        expected,
        found,
        span: to_source_span(span),
    }
}

/// Where the available amount of `name` stands in a node entry.
fn available_span<'v>(item: &'v Value<'_>, name: &str) -> Option<&'v Span> {
    let Kind::Table(node) = &item.kind else {
        return None;
    };
    let (_, available) = node.get("available")?;
    let Kind::Table(available) = &available.kind else {
        return None;
    };
    available.get(name).map(|(_, amount)| &amount.span)
}

/// One entry of `nodes`, or `None` when it does not make a node (its problems are in
/// `out`). An unknown key alone leaves the node usable. Names for messages are written
/// only when there is a problem to report.
fn read_node(
    item: &Value<'_>,
    read: &mut Read,
    out: &mut Vec<ClusterDiagnostic>,
) -> Option<(Node, Span)> {
    let table = read.table(&"nodes entry", item, out)?;
    let id = table
        .get("id")
        .and_then(|(_, v)| read.string(&"id", v, out));
    let id_text = || match id {
        Some(id) => format!("node `{id}`"),
        None => "a node".to_owned(),
    };
    if table
        .sorted()
        .any(|(key, _)| !NODE_KEYS.iter().any(|k| k.name == key.name))
    {
        unknown_keys(table, NODE_KEYS, &id_text(), out);
    }
    let after_keys = out.len();
    let mut node = Node {
        alive: true,
        ..Node::default()
    };
    let mut id_span = item.span.clone();
    let mut has_id = false;
    let mut has_available = false;
    for (key, value) in table.sorted() {
        match key.name.as_ref() {
            "id" => {
                // Reported above, when it is no string.
                if let Kind::String(id) = &value.kind {
                    node.id = id.to_string();
                    id_span = value.span.clone();
                    has_id = true;
                }
            }
            "address" => node.address = read.string(&"address", value, out).map(str::to_owned),
            "alive" => node.alive = read.boolean(&"alive", value, out).unwrap_or(true),
            "available" => {
                if let Some(resources) = read.resources("available", value, out) {
                    node.available = resources;
                    has_available = true;
                }
            }
            "total" => node.total = read.resources("total", value, out),
            "labels" => {
                if let Some(labels) = read.table(&"labels", value, out) {
                    for (name, label) in labels.sorted() {
                        let shown = Member("labels", &name.name);
                        if let Some(text) = read.string(&shown, label, out) {
                            node.labels.insert(name.name.to_string(), text.to_owned());
                        }
                    }
                }
            }
            _ => {}
        }
    }
    // Labelled on the id when there is one, else on the whole entry. A node read whole
    // has them all: the loop runs for broken nodes only.
    if !(has_id && has_available) {
        for required in NODE_KEYS.iter().filter(|k| k.required) {
            if !table.contains(required.name) {
                out.push(read.missing(required.name, &id_text(), required.example, &id_span));
            }
        }
    }
    let readable = out.len() == after_keys;
    (readable && has_id && has_available).then_some((node, id_span))
}

/// A key inside a table, as messages name it: `available.GPU`.
struct Member<'a>(&'a str, &'a str);

impl fmt::Display for Member<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.0, self.1)
    }
}

/// The typed reads of values, worded for one format, and the resource lists read so far:
/// equal lists are one shared [`Resources`], found without allocating.
struct Read {
    format: ClusterFormat,
    /// Shared resource lists by the hash of their entries.
    shared: HashMap<u64, Vec<Resources>>,
    hasher: RandomState,
    /// The last lists shared, newest last.
    recent: Vec<Resources>,
    /// A reused buffer of one table's amounts.
    items: Vec<(ResourceName, Amount)>,
}

/// How many of the last shared lists are looked at before hashing.
const RECENT: usize = 4;

impl Read {
    fn new(format: ClusterFormat) -> Read {
        Read {
            format,
            shared: HashMap::new(),
            hasher: RandomState::new(),
            recent: Vec::with_capacity(RECENT),
            items: Vec::new(),
        }
    }

    fn wrong(
        &self,
        key: &dyn fmt::Display,
        expected: &'static str,
        value: &Value<'_>,
    ) -> ClusterDiagnostic {
        wrong_type(
            &key.to_string(),
            expected,
            value.kind.found(self.format),
            &value.span,
        )
        .into()
    }

    fn table<'v, 'i>(
        &self,
        key: &dyn fmt::Display,
        value: &'v Value<'i>,
        out: &mut Vec<ClusterDiagnostic>,
    ) -> Option<&'v Table<'i>> {
        match &value.kind {
            Kind::Table(table) => Some(table),
            _ => {
                out.push(self.wrong(key, self.format.a_table(), value));
                None
            }
        }
    }

    fn string<'v>(
        &self,
        key: &dyn fmt::Display,
        value: &'v Value<'_>,
        out: &mut Vec<ClusterDiagnostic>,
    ) -> Option<&'v str> {
        match &value.kind {
            Kind::String(text) => Some(text),
            _ => {
                out.push(self.wrong(key, "a string", value));
                None
            }
        }
    }

    fn boolean(
        &self,
        key: &dyn fmt::Display,
        value: &Value<'_>,
        out: &mut Vec<ClusterDiagnostic>,
    ) -> Option<bool> {
        match value.kind {
            Kind::Boolean(b) => Some(b),
            _ => {
                out.push(self.wrong(key, "true or false", value));
                None
            }
        }
    }

    fn amount(
        &self,
        key: &dyn fmt::Display,
        value: &Value<'_>,
        out: &mut Vec<ClusterDiagnostic>,
    ) -> Option<Amount> {
        let parsed = match &value.kind {
            Kind::Integer { digits, radix } => toml_walk::integer_amount(digits, *radix),
            Kind::Float(text) => toml_walk::float_amount(text),
            _ => {
                out.push(self.wrong(key, "a number", value));
                return None;
            }
        };
        match parsed {
            Ok(amount) => Some(amount),
            Err(err) => {
                out.push(toml_walk::bad_amount(&key.to_string(), err, &value.span).into());
                None
            }
        }
    }

    /// A table of resource name to amount, shared with every equal list read before.
    fn resources(
        &mut self,
        key: &str,
        value: &Value<'_>,
        out: &mut Vec<ClusterDiagnostic>,
    ) -> Option<Resources> {
        let table = self.table(&key, value, out)?;
        let mut items = std::mem::take(&mut self.items);
        items.clear();
        for (name, amount) in table.sorted() {
            if let Some(parsed) = self.amount(&Member(key, &name.name), amount, out) {
                items.push((ResourceName::from(name.name.as_ref()), parsed));
            }
        }
        let resources = self.share(&mut items);
        self.items = items;
        Some(resources)
    }

    /// The resources of `items` (sorted here; the last amount of a name counts, zero
    /// amounts are dropped, as [`Resources`] collects them), shared when seen before.
    fn share(&mut self, items: &mut Vec<(ResourceName, Amount)>) -> Resources {
        items.sort_by(|a, b| a.0.cmp(&b.0));
        let mut kept = 0;
        for i in 0..items.len() {
            if kept > 0 && items[kept - 1].0 == items[i].0 {
                items[kept - 1].1 = items[i].1;
            } else {
                items.swap(kept, i);
                kept += 1;
            }
        }
        items.truncate(kept);
        items.retain(|(_, amount)| !amount.is_zero());
        let same = |r: &Resources| r.entries().eq(items.iter().map(|(n, a)| (n, *a)));
        // Most nodes repeat one of the last few lists: look there before hashing.
        if let Some(recent) = self.recent.iter().find(|r| same(r)) {
            return recent.clone();
        }
        let hash = self.hasher.hash_one(items.as_slice());
        let bucket = self.shared.entry(hash).or_default();
        let resources = match bucket.iter().find(|r| same(r)) {
            Some(shared) => shared.clone(),
            None => {
                let resources: Resources = items.iter().map(|(n, a)| (n.clone(), *a)).collect();
                bucket.push(resources.clone());
                resources
            }
        };
        if self.recent.len() == RECENT {
            self.recent.remove(0);
        }
        self.recent.push(resources.clone());
        resources
    }

    fn missing(
        &self,
        key: &'static str,
        table: &str,
        example: &'static str,
        span: &Span,
    ) -> ClusterDiagnostic {
        match self.format {
            ClusterFormat::Toml => StructureError::MissingKey {
                key,
                table: table.to_owned(),
                example,
                span: to_source_span(span),
            }
            .into(),
            ClusterFormat::Json => ClusterDiagnostic::MissingMember {
                key,
                table: table.to_owned(),
                example: toml_example_as_json(example),
                span: to_source_span(span),
            },
        }
    }
}

/// A key's TOML example (`{ GPU = 8, CPU = 96 }`) written as JSON (`{"CPU": 96, "GPU": 8}`).
fn toml_example_as_json(example: &str) -> String {
    fn json(value: &toml::Value) -> String {
        match value {
            toml::Value::Table(table) => {
                let entries: Vec<String> = table
                    .iter()
                    .map(|(k, v)| format!("{}: {}", json(&toml::Value::String(k.clone())), json(v)))
                    .collect();
                format!("{{{}}}", entries.join(", "))
            }
            toml::Value::Array(items) => {
                let items: Vec<String> = items.iter().map(json).collect();
                format!("[{}]", items.join(", "))
            }
            other => serde_json::to_string(other).unwrap_or_default(),
        }
    }
    toml::from_str::<toml::Table>(&format!("x = {example}"))
        .ok()
        .and_then(|table| table.get("x").map(json))
        .unwrap_or_else(|| example.to_owned())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn resources() -> impl Strategy<Value = Resources> {
        let name = prop::sample::select(vec!["CPU", "GPU", "NPU", "a", "accelerator_type:H100"]);
        prop::collection::vec((name, 0..4u64), 0..5).prop_map(|entries| {
            entries
                .into_iter()
                .fold(Resources::new(), |resources, (name, units)| {
                    resources.with(name, Amount::from_units(units))
                })
        })
    }

    proptest! {
        /// The walk of both lists answers as looking each amount up in `total` does.
        #[test]
        fn holds_no_more_is_each_amount_within_its_total(available in resources(), total in resources()) {
            let expected = available.iter().all(|(name, amount)| amount <= total.get(name));
            prop_assert_eq!(holds_no_more(&available, &total), expected);
        }
    }
}
