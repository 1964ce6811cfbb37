//! The values of a cluster file as its readers hand them on, one node entry at a time:
//! what the node reader needs (kinds, decoded text, spans) and, for TOML, the flags its
//! table rules need (implicit, dotted, inline tables; arrays of tables).
//!
//! Text is borrowed from the file unless it had escapes. A table looks its keys up in a
//! list while it is small (a node has a handful) and through an index once it is large,
//! so a hostile table of a million keys costs no quadratic time.

use std::borrow::Cow;
use std::collections::HashMap;

use resource_pool_core::source::Span;

/// The file format, for the words of diagnostics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClusterFormat {
    /// `[[nodes]]` tables.
    Toml,
    /// `{"nodes": [...]}`.
    Json,
}

impl ClusterFormat {
    /// The format of a file named `name` holding `text`: by the extension (`.json`,
    /// `.toml`), else by the content (a JSON cluster file starts with `{`, which no TOML
    /// file can).
    pub fn of(name: &str, text: &str) -> ClusterFormat {
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".json") {
            return ClusterFormat::Json;
        }
        if lower.ends_with(".toml") {
            return ClusterFormat::Toml;
        }
        let start = text.trim_start_matches('\u{feff}').trim_start();
        if start.starts_with('{') {
            ClusterFormat::Json
        } else {
            ClusterFormat::Toml
        }
    }

    /// How a table value is named: `a table` or `an object`.
    pub(super) fn a_table(self) -> &'static str {
        match self {
            ClusterFormat::Toml => "a table",
            ClusterFormat::Json => "an object",
        }
    }
}

/// A key with its span (quotes included).
#[derive(Clone, Debug)]
pub(super) struct Key<'i> {
    pub(super) name: Cow<'i, str>,
    pub(super) span: Span,
}

/// A value with its span.
#[derive(Debug)]
pub(super) struct Value<'i> {
    pub(super) span: Span,
    pub(super) kind: Kind<'i>,
}

/// What a value is.
#[derive(Debug)]
pub(super) enum Kind<'i> {
    String(Cow<'i, str>),
    /// The digits (sign included, `_` and radix prefix removed) and their radix.
    Integer {
        digits: Cow<'i, str>,
        radix: u32,
    },
    Float(Cow<'i, str>),
    Boolean(bool),
    Datetime,
    /// JSON's `null`.
    Null,
    Array(Array<'i>),
    Table(Table<'i>),
}

impl Kind<'_> {
    /// The name of the kind in `format`'s words, as a wrong-type diagnostic shows it.
    pub(super) fn found(&self, format: ClusterFormat) -> &'static str {
        match (self, format) {
            (Kind::String(_), _) => "string",
            (Kind::Integer { .. }, ClusterFormat::Toml) => "integer",
            (Kind::Float(_), ClusterFormat::Toml) => "float",
            (Kind::Integer { .. } | Kind::Float(_), ClusterFormat::Json) => "number",
            (Kind::Boolean(_), _) => "boolean",
            (Kind::Datetime, _) => "datetime",
            (Kind::Null, _) => "null",
            (Kind::Array(_), _) => "array",
            (Kind::Table(_), ClusterFormat::Toml) => "table",
            (Kind::Table(_), ClusterFormat::Json) => "object",
        }
    }
}

/// An array; `of_tables` for TOML's `[[name]]` arrays.
#[derive(Debug, Default)]
pub(super) struct Array<'i> {
    pub(super) items: Vec<Value<'i>>,
    pub(super) of_tables: bool,
}

/// A table's entries looked up by a scan up to this many, through an index above.
const SCAN_LIMIT: usize = 12;

/// A table (a JSON object): its entries in no particular order (read them sorted by
/// key span with [`Table::sorted`]), and TOML's flags.
#[derive(Debug, Default)]
pub(super) struct Table<'i> {
    entries: Vec<(Key<'i>, Value<'i>)>,
    /// Boxed: a node's tables never have one, and stay one pointer larger, not six.
    #[allow(clippy::box_collection)]
    index: Option<Box<HashMap<Cow<'i, str>, usize>>>,
    /// Created by a dotted key or a header path, not defined by itself (TOML).
    pub(super) implicit: bool,
    /// Created or extended by a dotted key (TOML).
    pub(super) dotted: bool,
    /// Written inline, `{ ... }`: closed to later keys (TOML).
    pub(super) inline: bool,
}

impl<'i> Table<'i> {
    /// An empty table with these flags.
    pub(super) fn with_flags(implicit: bool, dotted: bool, inline: bool) -> Table<'i> {
        Table {
            implicit,
            dotted,
            inline,
            ..Table::default()
        }
    }

    /// Where the entry of `name` is (for [`Table::value_at`]).
    pub(super) fn position(&self, name: &str) -> Option<usize> {
        match &self.index {
            Some(index) => index.get(name).copied(),
            None => self.entries.iter().position(|(key, _)| key.name == name),
        }
    }

    /// The entry of `name`.
    pub(super) fn get(&self, name: &str) -> Option<(&Key<'i>, &Value<'i>)> {
        self.position(name)
            .map(|i| (&self.entries[i].0, &self.entries[i].1))
    }

    /// The value at a [`Table::position`], to change.
    pub(super) fn value_at(&mut self, position: usize) -> &mut Value<'i> {
        &mut self.entries[position].1
    }

    /// Whether `name` is a key.
    pub(super) fn contains(&self, name: &str) -> bool {
        self.position(name).is_some()
    }

    /// Adds an entry whose key is not in the table yet; returns its position.
    pub(super) fn insert_new(&mut self, key: Key<'i>, value: Value<'i>) -> usize {
        let at = self.entries.len();
        if let Some(index) = &mut self.index {
            index.insert(key.name.clone(), at);
        } else if at >= SCAN_LIMIT {
            let mut index: HashMap<Cow<'i, str>, usize> = self
                .entries
                .iter()
                .enumerate()
                .map(|(i, (k, _))| (k.name.clone(), i))
                .collect();
            index.insert(key.name.clone(), at);
            self.index = Some(Box::new(index));
        }
        self.entries.push((key, value));
        at
    }

    /// Takes the entry of `name` out.
    pub(super) fn remove(&mut self, name: &str) -> Option<(Key<'i>, Value<'i>)> {
        let at = self.position(name)?;
        let removed = self.entries.swap_remove(at);
        if let Some(index) = &mut self.index {
            index.remove(name);
            if let Some((moved, _)) = self.entries.get(at) {
                index.insert(moved.name.clone(), at);
            }
        }
        Some(removed)
    }

    /// The entries in file order (by the start of their key's span). Readers add them
    /// in file order but for a table reopened by a header, so this seldom sorts.
    pub(super) fn sorted(&self) -> Sorted<'_, 'i> {
        let in_order = self
            .entries
            .windows(2)
            .all(|pair| pair[0].0.span.start <= pair[1].0.span.start);
        if in_order {
            return Sorted::InOrder(self.entries.iter());
        }
        let mut order: Vec<usize> = (0..self.entries.len()).collect();
        order.sort_by_key(|&i| self.entries[i].0.span.start);
        Sorted::ByPosition {
            entries: &self.entries,
            order: order.into_iter(),
        }
    }
}

/// The entries of a table in file order ([`Table::sorted`]).
pub(super) enum Sorted<'t, 'i> {
    InOrder(std::slice::Iter<'t, (Key<'i>, Value<'i>)>),
    ByPosition {
        entries: &'t [(Key<'i>, Value<'i>)],
        order: std::vec::IntoIter<usize>,
    },
}

impl<'t, 'i> Iterator for Sorted<'t, 'i> {
    type Item = (&'t Key<'i>, &'t Value<'i>);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Sorted::InOrder(entries) => entries.next().map(|(k, v)| (k, v)),
            Sorted::ByPosition { entries, order } => {
                order.next().map(|i| (&entries[i].0, &entries[i].1))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(name: &str, at: usize) -> Key<'_> {
        Key {
            name: Cow::Borrowed(name),
            span: at..at + name.len(),
        }
    }

    fn value(at: usize) -> Value<'static> {
        Value {
            span: at..at + 1,
            kind: Kind::Boolean(true),
        }
    }

    #[test]
    fn large_tables_find_keys_through_the_index_after_removals() {
        let names: Vec<String> = (0..40).map(|i| format!("k{i}")).collect();
        let mut table = Table::default();
        for (i, name) in names.iter().enumerate() {
            table.insert_new(key(name, i * 10), value(i));
        }
        assert!(table.index.is_some());
        for name in ["k0", "k17", "k39"] {
            assert!(table.remove(name).is_some());
            assert!(!table.contains(name));
        }
        for (i, name) in names.iter().enumerate() {
            let removed = ["k0", "k17", "k39"].contains(&name.as_str());
            assert_eq!(
                table.get(name).map(|(_, v)| v.span.start),
                (!removed).then_some(i)
            );
        }
        assert_eq!(table.sorted().count(), 37);
        let order: Vec<usize> = table.sorted().map(|(k, _)| k.span.start).collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn formats_follow_the_extension_then_the_content() {
        assert_eq!(ClusterFormat::of("c.JSON", ""), ClusterFormat::Json);
        assert_eq!(ClusterFormat::of("c.toml", "{"), ClusterFormat::Toml);
        assert_eq!(
            ClusterFormat::of("<stdin>", "\u{feff}  \n{\"nodes\": []}"),
            ClusterFormat::Json
        );
        assert_eq!(
            ClusterFormat::of("<stdin>", "[[nodes]]"),
            ClusterFormat::Toml
        );
        assert_eq!(ClusterFormat::of("cluster", ""), ClusterFormat::Toml);
    }
}
