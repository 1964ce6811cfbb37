//! One node entry's values read with the problems of each (wrong types, bad amounts,
//! missing keys), worded for the file's format; and the resource lists read so far, so
//! that equal lists are one shared [`Resources`]. [`super::nodes`] checks the nodes
//! together.

use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasher, RandomState};

use super::ClusterDiagnostic;
use super::document::{ClusterFormat, Kind, Table, Value};
use resource_pool_core::file_keys::NODE_KEYS;
use resource_pool_core::model::{Amount, Node, ResourceName, Resources};
use resource_pool_core::source::{Span, to_source_span};
use resource_pool_core::toml_support::walk::{self as toml_walk, StructureError};

pub(super) fn unknown_keys<K: toml_walk::KnownKey>(
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

pub(super) fn wrong_type(
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
pub(super) fn available_span<'v>(item: &'v Value<'_>, name: &str) -> Option<&'v Span> {
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
pub(super) fn read_node(
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
            "head" => node.head = read.boolean(&"head", value, out).unwrap_or(false),
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
pub(super) struct Read {
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
    pub(super) fn new(format: ClusterFormat) -> Read {
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
    pub(super) fn share(&mut self, items: &mut Vec<(ResourceName, Amount)>) -> Resources {
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
