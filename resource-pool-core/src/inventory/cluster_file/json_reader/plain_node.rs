//! The fast path of the JSON reader: a node entry of the plain shape read straight from
//! the text into a [`PlainEntry`], with no value tree built for it.
//!
//! Nearly every entry of a real cluster file is plain: `id`, `available`, maybe `total`,
//! `address`, `alive` and `labels`, each of its type. Building the generic [`Value`] of
//! such an entry and then reading the node out of it was most of a large file's reading
//! time. An entry of any other shape (an unknown or repeated key, a wrong type, an
//! unreadable amount, a syntax error) makes this path give up; the reader then goes back
//! to the entry's start and reads it the general way, which words every problem. So the
//! two ways agree by construction on everything but speed, and a test checks that they
//! do.
//!
//! [`Value`]: super::super::document::Value

use std::borrow::Cow;

use super::super::document::Kind;
use super::super::plain_entry::{Amounts, PlainEntry};
use super::Scanner;
use crate::model::{Amount, ResourceName};
use crate::source::Span;
use crate::toml_walk;

/// The keys of a node entry, as bits of a set: each may come once.
const ID: u8 = 1;
const ADDRESS: u8 = 2;
const ALIVE: u8 = 4;
const AVAILABLE: u8 = 8;
const TOTAL: u8 = 16;
const LABELS: u8 = 32;

/// The most entries of a resources or labels table read here: above, the general path's
/// index finds repeated keys without quadratic time.
const MAX_ENTRIES: usize = 12;

impl<'i> Scanner<'i> {
    /// Reads the node entry at the current position into `entry` when it is of the plain
    /// shape; `None` (the position anywhere inside it) when it is not.
    pub(super) fn plain_node(&mut self, entry: &mut PlainEntry<'i>) -> Option<()> {
        entry.clear();
        let mut seen = 0u8;
        self.plain_object(|scanner, name| {
            let key = match name {
                "id" => ID,
                "address" => ADDRESS,
                "alive" => ALIVE,
                "available" => AVAILABLE,
                "total" => TOTAL,
                "labels" => LABELS,
                _ => return None,
            };
            if seen & key != 0 {
                return None;
            }
            seen |= key;
            match key {
                ID => {
                    let (id, span) = scanner.plain_string()?;
                    entry.id = Some((id, span));
                }
                ADDRESS => entry.address = Some(scanner.plain_string()?.0),
                ALIVE => entry.alive = Some(scanner.plain_boolean()?),
                AVAILABLE | TOTAL => {
                    let which = if key == TOTAL {
                        Amounts::Total
                    } else {
                        Amounts::Available
                    };
                    let start = scanner.pos;
                    match entry.start(which, &scanner.bytes[start..]) {
                        Ok(length) => scanner.pos += length,
                        Err(items) => {
                            scanner.plain_amounts(items)?;
                            entry.read(which, &scanner.bytes[start..scanner.pos]);
                        }
                    }
                }
                _ => {
                    let labels = &mut entry.labels;
                    scanner.plain_object(|scanner, name| {
                        if labels.len() == MAX_ENTRIES
                            || labels.iter().any(|(seen, _)| seen == name)
                        {
                            return None;
                        }
                        let (text, _) = scanner.plain_string()?;
                        labels.push((Cow::Borrowed(name), text));
                        Some(())
                    })?;
                }
            }
            Some(())
        })
    }

    /// An object whose keys have no escapes, each value read by `member` (called with the
    /// scanner at the value and the key); `None` at anything else.
    fn plain_object(
        &mut self,
        mut member: impl FnMut(&mut Self, &'i str) -> Option<()>,
    ) -> Option<()> {
        if self.peek() != Some(b'{') {
            return None;
        }
        self.pos += 1;
        self.whitespace();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Some(());
        }
        loop {
            let (name, _) = self.plain_string()?;
            let Cow::Borrowed(name) = name else {
                return None;
            };
            self.whitespace();
            if self.peek() != Some(b':') {
                return None;
            }
            self.pos += 1;
            self.whitespace();
            member(self, name)?;
            self.whitespace();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.whitespace();
                }
                Some(b'}') => {
                    self.pos += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// A string, decoded as the general path decodes it.
    fn plain_string(&mut self) -> Option<(Cow<'i, str>, Span)> {
        if self.peek() != Some(b'"') {
            return None;
        }
        self.string().ok()
    }

    fn plain_boolean(&mut self) -> Option<bool> {
        for (word, value) in [("true", true), ("false", false)] {
            if self.bytes[self.pos..].starts_with(word.as_bytes()) {
                self.pos += word.len();
                return Some(value);
            }
        }
        None
    }

    /// A table of resource amounts, in file order, into `items`.
    fn plain_amounts(&mut self, items: &mut Vec<(ResourceName, Amount)>) -> Option<()> {
        self.plain_object(|scanner, name| {
            if items.len() == MAX_ENTRIES || items.iter().any(|(seen, _)| seen.as_str() == name) {
                return None;
            }
            if !matches!(scanner.peek(), Some(b'-' | b'0'..=b'9')) {
                return None;
            }
            let number = scanner.number().ok()?;
            let amount = match &number.kind {
                Kind::Integer { digits, radix } => toml_walk::integer_amount(digits, *radix),
                Kind::Float(text) => toml_walk::float_amount(text),
                _ => return None,
            };
            items.push((ResourceName::from(name), amount.ok()?));
            Some(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the first node entry of `json` takes the fast path.
    fn plain(json: &str) -> bool {
        let at = json.find("[{").expect("a node entry") + 1;
        let mut scanner = Scanner {
            text: json,
            bytes: json.as_bytes(),
            pos: at,
            plain: true,
        };
        scanner.plain_node(&mut PlainEntry::default()).is_some()
    }

    #[test]
    fn plain_entries_take_the_fast_path_and_others_do_not() {
        assert!(plain(
            r#"{"nodes": [{"id": "a\n", "available": {"GPU": 8, "CPU": 96.5}, "total": {"GPU": 8, "CPU": 1e3}, "address": "h", "alive": false, "labels": {"zone": "z"}}]}"#
        ));
        assert!(
            plain(r#"{"nodes": [{ }]}"#),
            "an empty entry is plain: push_plain refuses it"
        );
        for other in [
            r#"{"nodes": [{"id": "a", "available": {"GPU": 8}, "availble": 1}]}"#,
            r#"{"nodes": [{"id": "a", "available": {"GPU": -1}}]}"#,
            r#"{"nodes": [{"id": "a", "available": {"GPU": 8, "GPU": 8}}]}"#,
            r#"{"nodes": [{"id": "a", "id": "b", "available": {}}]}"#,
            r#"{"nodes": [{"id": 1, "available": {}}]}"#,
            r#"{"nodes": [{"id": "a", "alive": null, "available": {}}]}"#,
            r#"{"nodes": [{"id": "a", "labels": {"zone": 1}, "available": {}}]}"#,
            r#"{"nodes": [{"\u0069d": "a", "available": {}}]}"#,
            r#"{"nodes": [{"id": "a", "available": {"GPU": 8,}}]}"#,
            r#"{"nodes": [{"id": "a", "available": {"a": 1, "b": 1, "c": 1, "d": 1, "e": 1, "f": 1, "g": 1, "h": 1, "i": 1, "j": 1, "k": 1, "l": 1, "m": 1}}]}"#,
        ] {
            assert!(!plain(other), "{other}");
        }
    }
}
