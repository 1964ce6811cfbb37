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
//! do. An entry written as the one before it is read by that entry's shape (see
//! [`EntryShape`]), the keys between its values not looked at again.
//!
//! [`Value`]: super::super::document::Value

use std::borrow::Cow;

use super::super::byte_search::{starts_with, string_end};
use super::super::document::Kind;
use super::super::plain_entry::{Amounts, PlainEntry};
use super::Scanner;
use super::entry_shape::EntryShape;
use resource_pool_core::model::{Amount, ResourceName};
use resource_pool_core::source::Span;
use resource_pool_core::toml_support::walk as toml_walk;

/// The keys of a node entry, as bits of a set: each may come once.
const ID: u8 = 1;
const ADDRESS: u8 = 2;
const ALIVE: u8 = 4;
const AVAILABLE: u8 = 8;
const TOTAL: u8 = 16;
const LABELS: u8 = 32;

/// The key at the start of `rest` and its length, when it is one of a node entry's
/// written without escapes (quotes included): a key of other text is not plain (an
/// escape neither, though it may spell one of these).
fn node_key(rest: &[u8]) -> Option<(u8, usize)> {
    let (key, text): (u8, &[u8]) = match rest.get(1)? {
        b'i' => (ID, b"\"id\""),
        b'a' => match rest.get(2)? {
            b'v' => (AVAILABLE, b"\"available\""),
            b'd' => (ADDRESS, b"\"address\""),
            _ => (ALIVE, b"\"alive\""),
        },
        b't' => (TOTAL, b"\"total\""),
        _ => (LABELS, b"\"labels\""),
    };
    starts_with(rest, text).then_some((key, text.len()))
}

/// The most entries of a resources or labels table read here: above, the general path's
/// index finds repeated keys without quadratic time.
const MAX_ENTRIES: usize = 12;

/// The most digits of an amount read here as a whole number: any 15 digits are below
/// [`Amount::MAX_WHOLE`]; longer numbers take the general path.
const MAX_DIGITS: usize = 15;

impl<'i> Scanner<'i> {
    /// Reads the node entry at the current position into `entry` when it is of the plain
    /// shape; `None` (the position anywhere inside it) when it is not. An entry written as
    /// the last plain one was (see [`EntryShape`]) is read value by value; any other is
    /// read key by key, and its shape remembered.
    pub(super) fn plain_node(
        &mut self,
        entry: &mut PlainEntry<'i>,
        shape: &mut EntryShape<'i>,
    ) -> Option<()> {
        let start = self.pos;
        entry.clear();
        if self.shaped_node(entry, shape).is_some() {
            return Some(());
        }
        self.pos = start;
        entry.clear();
        shape.forget();
        let mut seen = 0u8;
        // Where the text since the last value starts.
        let mut after_value = start;
        self.plain_object(
            |scanner| {
                let (key, length) = node_key(&scanner.bytes[scanner.pos..])?;
                scanner.pos += length;
                Some(key)
            },
            |scanner, key| {
                if seen & key != 0 {
                    return None;
                }
                seen |= key;
                shape.member(&scanner.bytes[after_value..scanner.pos], key);
                scanner.plain_value(key, entry)?;
                after_value = scanner.pos;
                Some(())
            },
        )?;
        shape.close(&self.bytes[after_value..self.pos]);
        Some(())
    }

    /// The entry at the current position when its text outside its values is `shape`'s.
    fn shaped_node(&mut self, entry: &mut PlainEntry<'i>, shape: &EntryShape<'i>) -> Option<()> {
        let (members, close) = shape.texts()?;
        for &(text, key) in members {
            self.plain_text(text)?;
            self.plain_value(key, entry)?;
        }
        self.plain_text(close)
    }

    /// Passes `text` when the text at the current position starts with it.
    fn plain_text(&mut self, text: &[u8]) -> Option<()> {
        starts_with(&self.bytes[self.pos..], text).then(|| self.pos += text.len())
    }

    /// The value of the node entry's `key` at the current position, into `entry`.
    fn plain_value(&mut self, key: u8, entry: &mut PlainEntry<'i>) -> Option<()> {
        match key {
            ID => {
                let (id, span) = self.plain_string()?;
                entry.id = Some((id, span));
            }
            ADDRESS => entry.address = Some(self.plain_string()?.0),
            ALIVE => entry.alive = Some(self.plain_boolean()?),
            AVAILABLE | TOTAL => {
                let which = if key == TOTAL {
                    Amounts::Total
                } else {
                    Amounts::Available
                };
                let start = self.pos;
                match entry.start(which, &self.bytes[start..]) {
                    Ok(length) => self.pos += length,
                    Err(items) => {
                        self.plain_amounts(items)?;
                        entry.read(which, &self.bytes[start..self.pos]);
                    }
                }
            }
            _ => {
                let labels = &mut entry.labels;
                self.plain_object(Self::plain_key, |scanner, name| {
                    if labels.len() == MAX_ENTRIES || labels.iter().any(|(seen, _)| *seen == name) {
                        return None;
                    }
                    let (text, _) = scanner.plain_string()?;
                    labels.push((Cow::Borrowed(name), text));
                    Some(())
                })?;
            }
        }
        Some(())
    }

    /// An object whose keys `key` reads (after the whitespace before them), each value
    /// read by `member` (called with the scanner at the value and the key); `None` at
    /// anything else.
    fn plain_object<K>(
        &mut self,
        mut key: impl FnMut(&mut Self) -> Option<K>,
        mut member: impl FnMut(&mut Self, K) -> Option<()>,
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
            let key = key(self)?;
            self.whitespace();
            if self.peek() != Some(b':') {
                return None;
            }
            self.pos += 1;
            self.whitespace();
            member(self, key)?;
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

    /// A key without escapes.
    fn plain_key(&mut self) -> Option<&'i str> {
        match self.plain_string()? {
            (Cow::Borrowed(name), _) => Some(name),
            (Cow::Owned(_), _) => None,
        }
    }

    /// A string, decoded as the general path decodes it: up to its closing quote
    /// straight from the text, unless an escape comes first.
    #[inline(always)]
    fn plain_string(&mut self) -> Option<(Cow<'i, str>, Span)> {
        if self.peek() != Some(b'"') {
            return None;
        }
        let start = self.pos;
        let length = string_end(&self.bytes[start + 1..])?;
        let end = start + 1 + length;
        match self.bytes[end] {
            b'"' => {
                self.pos = end + 1;
                // Both ends are at ASCII quotes, so on character boundaries.
                Some((Cow::Borrowed(&self.text[start + 1..end]), start..end + 1))
            }
            b'\\' => self.string().ok(),
            _ => None,
        }
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
        self.plain_object(Self::plain_key, |scanner, name| {
            if items.len() == MAX_ENTRIES || items.iter().any(|(seen, _)| seen.as_str() == name) {
                return None;
            }
            items.push((ResourceName::from(name), scanner.plain_amount()?));
            Some(())
        })
    }

    /// An amount: a whole number of a few digits read here, any other number as the
    /// general path reads it.
    fn plain_amount(&mut self) -> Option<Amount> {
        let rest = &self.bytes[self.pos..];
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let whole = (1..=MAX_DIGITS).contains(&digits)
            && (digits == 1 || rest[0] != b'0')
            && !matches!(rest.get(digits), Some(b'.' | b'e' | b'E'));
        if whole {
            let value = rest[..digits]
                .iter()
                .fold(0, |value, digit| value * 10 + u64::from(digit - b'0'));
            self.pos += digits;
            return Amount::from_whole(value).ok();
        }
        if !matches!(self.peek(), Some(b'-' | b'0'..=b'9')) {
            return None;
        }
        let number = self.number().ok()?;
        let amount = match &number.kind {
            Kind::Integer { digits, radix } => toml_walk::integer_amount(digits, *radix),
            Kind::Float(text) => toml_walk::float_amount(text),
            _ => return None,
        };
        amount.ok()
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
        scanner
            .plain_node(&mut PlainEntry::default(), &mut EntryShape::default())
            .is_some()
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
