//! A key or table defined twice in a TOML file, said once and with both places.
//!
//! The `toml` crate reports a redefinition as "duplicate key" at the second definition
//! only, and a table header given twice also as one more "duplicate key" for every key
//! under the second header that the first table has (the parser merges the two tables
//! while it recovers). Neither says where the first definition is, and its recovered tree
//! keeps the second header's span. So, only when the parser reported a duplicate, the
//! document's events (`toml_parser`, the layer under `toml`) are walked once to give every
//! key its full path: each duplicate is told with its first definition, and the keys that
//! a redefined table repeats from the first one are left to the table's own error.

use std::borrow::Cow;
use std::ops::Range;

use toml_parser::Source;
use toml_parser::parser::{Event, EventKind, parse_document};

use crate::source::to_source_span;
use crate::toml_support::walk::StructureError;

/// The parser's message for a key or table defined twice.
const DUPLICATE: &str = "duplicate key";

/// A step of a key's path: a key, or an element of an array (of tables, or of values).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Key(String),
    Index(usize),
}

/// A key as written: its full path (its own name last), where its name stands, and the
/// table section (between headers) it stands in.
struct Written {
    path: Vec<Part>,
    span: Range<usize>,
    in_header: bool,
    section: usize,
}

/// The syntax errors of `text` with each "duplicate key" told with its first definition
/// ([`StructureError::DuplicateKey`]), and without the keys a redefined table repeats.
pub(crate) fn with_first_definitions(
    text: &str,
    errors: Vec<StructureError>,
) -> Vec<StructureError> {
    let duplicate = |e: &StructureError| matches!(e, StructureError::Syntax { message, .. } if message == DUPLICATE);
    if !errors.iter().any(duplicate) {
        return errors;
    }
    let written = written_keys(text);
    let at = |span: &miette::SourceSpan| {
        written
            .iter()
            .position(|w| w.span.start == span.offset() && w.span.len() == span.len())
    };
    // The sections whose header redefines a table: their keys' duplicates are its echo.
    let redefined: Vec<usize> = errors
        .iter()
        .filter(|e| duplicate(e))
        .filter_map(|e| match e {
            StructureError::Syntax { span, .. } => at(span),
            _ => None,
        })
        .filter(|&i| written[i].in_header)
        .map(|i| written[i].section)
        .collect();
    errors
        .into_iter()
        .filter_map(|error| {
            let StructureError::Syntax { message, span } = &error else {
                return Some(error);
            };
            if message != DUPLICATE {
                return Some(error);
            }
            let Some(second) = at(span).map(|i| &written[i]) else {
                return Some(error);
            };
            let Some(first) = written
                .iter()
                .take_while(|w| w.span.start < second.span.start)
                .find(|w| w.path == second.path)
            else {
                return Some(error);
            };
            let echo = !second.in_header
                && redefined.contains(&second.section)
                && first.section != second.section;
            (!echo).then(|| StructureError::DuplicateKey {
                key: dotted(&second.path),
                span: *span,
                first_span: to_source_span(&first.span),
            })
        })
        .collect()
}

/// `pools.global_pool`, `nodes[1].id`: a path as a TOML reader would write it.
fn dotted(path: &[Part]) -> String {
    let mut out = String::new();
    for part in path {
        match part {
            Part::Key(name) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&crate::toml_support::toml_key(name));
            }
            Part::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// A value being read that holds keys or elements: an inline table (its path) or an
/// array (its path and the element being read).
enum Open {
    Table(Vec<Part>),
    Array(Vec<Part>, usize),
}

/// Every key of the document with its full path, in file order. The walk follows the
/// parser's events as far as they go: in a broken file it is a best effort, which only
/// decides whether a duplicate gets its first definition.
fn written_keys(text: &str) -> Vec<Written> {
    let source = Source::new(text);
    let tokens: Vec<_> = source.lex().collect();
    let mut events: Vec<Event> = Vec::new();
    let mut error: Option<toml_parser::ParseError> = None;
    parse_document(&tokens, &mut events, &mut error);

    let mut walk = KeyWalk::default();
    for event in &events {
        match event.kind() {
            EventKind::StdTableOpen | EventKind::ArrayTableOpen => {
                walk.open_header(event.kind() == EventKind::ArrayTableOpen);
            }
            EventKind::StdTableClose | EventKind::ArrayTableClose => walk.close_header(),
            EventKind::SimpleKey => {
                let Some(raw) = source.get(event) else {
                    continue;
                };
                let mut name = Cow::Borrowed("");
                let mut ignored: Option<toml_parser::ParseError> = None;
                raw.decode_key(&mut name, &mut ignored);
                walk.key(name.into_owned(), event.span().start()..event.span().end());
            }
            EventKind::KeyValSep => walk.key_value_separator(),
            EventKind::InlineTableOpen | EventKind::ArrayOpen => {
                walk.open_value(event.kind() == EventKind::ArrayOpen);
            }
            EventKind::InlineTableClose | EventKind::ArrayClose => {
                walk.open.pop();
            }
            EventKind::ValueSep => {
                if let Some(Open::Array(_, i)) = walk.open.last_mut() {
                    *i += 1;
                }
            }
            EventKind::Scalar => walk.value = None,
            _ => {}
        }
    }
    walk.out
}

/// Where the walk over a document's events stands, and the keys it has found.
#[derive(Default)]
struct KeyWalk {
    out: Vec<Written>,
    /// The path of the table the last header opened.
    section: Vec<Part>,
    /// The headers seen so far: the section's number.
    section_index: usize,
    /// Each array of tables' path and count of tables.
    arrays: Vec<(Vec<Part>, usize)>,
    /// Inside a header: whether it opens an array of tables.
    header: Option<bool>,
    open: Vec<Open>,
    /// The dotted parts of the key being read.
    parts: Vec<Part>,
    /// The path of the value that follows `=`.
    value: Option<Vec<Part>>,
}

impl KeyWalk {
    /// `[` or `[[` of a header: a new section begins.
    fn open_header(&mut self, array: bool) {
        self.header = Some(array);
        self.section_index += 1;
        self.open.clear();
        self.parts.clear();
        self.value = None;
    }

    /// `]` or `]]` of a header: its key is the section's path, with the table's index
    /// in an array of tables.
    fn close_header(&mut self) {
        self.section = std::mem::take(&mut self.parts);
        if self.header == Some(true) {
            let section = &self.section;
            let count = match self.arrays.iter_mut().find(|(p, _)| p == section) {
                Some((_, n)) => {
                    *n += 1;
                    *n - 1
                }
                None => {
                    self.arrays.push((section.clone(), 1));
                    0
                }
            };
            self.section.push(Part::Index(count));
        }
        self.header = None;
    }

    /// One part of a (dotted) key, written at `span`: a key of its own, under the open
    /// inline table or the section (from the root, in a header).
    fn key(&mut self, name: String, span: Range<usize>) {
        self.parts.push(Part::Key(name));
        let mut path = match (self.header, self.open.last()) {
            (Some(_), _) => Vec::new(),
            (None, Some(Open::Table(p))) => p.clone(),
            (None, _) => self.section.clone(),
        };
        path.extend(self.parts.iter().cloned());
        self.out.push(Written {
            path,
            span,
            in_header: self.header.is_some(),
            section: self.section_index,
        });
    }

    /// `=`: the key read is the path of the value that follows.
    fn key_value_separator(&mut self) {
        let mut path = match self.open.last() {
            Some(Open::Table(p)) => p.clone(),
            _ => self.section.clone(),
        };
        path.append(&mut self.parts);
        self.value = Some(path);
    }

    /// `{` or `[` of a value: an inline table or an array opens, at the path of the key
    /// before it or of the array element it is.
    fn open_value(&mut self, array: bool) {
        let path = self.value.take().or_else(|| match self.open.last() {
            Some(Open::Array(p, i)) => {
                let mut p = p.clone();
                p.push(Part::Index(*i));
                Some(p)
            }
            _ => None,
        });
        let path = path.unwrap_or_default();
        self.open.push(if array {
            Open::Array(path, 0)
        } else {
            Open::Table(path)
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toml_support::walk::parse_text;

    /// What a text's errors say: the key and where its two definitions are.
    fn said(text: &str) -> Vec<(String, &str, Option<&str>)> {
        let (_, errors) = parse_text(text);
        let at = |s: &miette::SourceSpan| &text[s.offset()..s.offset() + s.len()];
        errors
            .iter()
            .map(|e| match e {
                StructureError::DuplicateKey {
                    key,
                    span,
                    first_span,
                } => (
                    format!("{key} at {}", span.offset()),
                    at(span),
                    Some(&text[first_span.offset()..]),
                ),
                StructureError::Syntax { message, span } => (message.clone(), at(span), None),
                other => (other.to_string(), "", None),
            })
            .map(|(k, s, f)| (k, s, f.map(|f| f.lines().next().unwrap_or(""))))
            .collect()
    }

    /// A pool table written twice is one error at the second header, with the first; the
    /// keys the second repeats are not errors of their own (QA rs#13).
    #[test]
    fn a_table_defined_twice_is_one_error_with_both_places() {
        let text = "[pools.global_pool]\nprocess_on_nodes = [8]\n\n[pools.global_pool]\nprocess_on_nodes = [4]\n";
        assert_eq!(
            said(text),
            [(
                "pools.global_pool at 51".to_owned(),
                "global_pool",
                Some("global_pool]")
            )]
        );
        // A derived struct's file: the pools at the top level.
        let text = "[global_pool]\nprocess_on_nodes = [8]\n[global_pool]\nprocess_on_nodes = [4]\n";
        let found = said(text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].2, Some("global_pool]"));
    }

    /// A key given twice points at its first line, in its own table, dotted or inline, in
    /// an array of tables' own entry; a key that a redefined table gives twice itself is
    /// still an error of its own.
    #[test]
    fn a_key_defined_twice_points_at_the_first() {
        let text = "[a]\nx = 1\n[b]\nx = 1\nx = 2\n";
        assert_eq!(said(text), [("b.x at 20".to_owned(), "x", Some("x = 1"))]);
        let text = "[h]\nb.c = 1\nb.c = 2\n";
        assert_eq!(said(text)[0].0, "h.b.c at 14");
        assert_eq!(said(text)[0].2, Some("c = 1"));
        let text = "x = {a = 1, a = 2}\n";
        assert_eq!(said(text)[0].0, "x.a at 12");
        let text = "[[n]]\na=1\n[[n]]\na=1\na=2\n";
        assert_eq!(said(text), [("n[1].a at 20".to_owned(), "a", Some("a=1"))]);
        let text = "[g]\na = 1\n[g]\nb = 1\nb = 2\n";
        let found = said(text);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[1].0, "g.b at 20");
        // Other syntax errors stay as the parser says them.
        assert_eq!(said("a = \n")[0].2, None);
    }
}
