//! Reading cluster JSON (`{"nodes": [...]}`, the schema of cluster TOML) with the span
//! of every key and value.
//!
//! A small scanner of RFC 8259 JSON: strings (escapes decoded by serde_json, so exactly
//! as every other JSON of ours), numbers, literals, objects and arrays, nesting bounded
//! at serde_json's 128 levels. The entries of the top-level `nodes` array go to the node
//! reader one at a time as they are scanned and are then dropped. A key given twice in
//! one object is an error, as a key defined twice is in TOML. A syntax error ends the
//! read and is reported alone.

use std::borrow::Cow;

use super::document::{Array, ClusterFormat, Key, Kind, Table, Value};
use super::nodes::{NodeReader, NodesKey, check_root};
use super::plain_entry::PlainEntry;
use super::{ClusterDiagnostic, ClusterLimits, LoadedCluster};
use entry_shape::EntryShape;
use resource_pool_core::source::{SourceFile, Span, to_source_span};
use resource_pool_core::toml_support::walk::StructureError;

mod entry_shape;
mod plain_node;

/// serde_json's nesting limit: 127 arrays and objects in one another are read, not 128.
const NESTING_LIMIT: usize = 128;

/// A syntax error: what and where.
struct SyntaxError {
    message: String,
    span: Span,
}

type Step<T> = Result<T, SyntaxError>;

/// Reads a cluster JSON file.
pub(super) fn read_json(source: &SourceFile, limits: &ClusterLimits) -> LoadedCluster {
    read_json_with(source, limits, true)
}

/// Reads a cluster JSON file, node entries of the plain shape through the fast path
/// ([`plain_node`]) when `plain`: the tests read with it and without.
pub(super) fn read_json_with(
    source: &SourceFile,
    limits: &ClusterLimits,
    plain: bool,
) -> LoadedCluster {
    let mut nodes = NodeReader::new(ClusterFormat::Json, limits);
    let text = source.base_text();
    let mut scanner = Scanner {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        plain,
    };
    match scanner.document(&mut nodes) {
        Ok(root) => {
            let mut root_errors = Vec::new();
            let nodes_key = match &root.kind {
                Kind::Table(table) => check_root(table, ClusterFormat::Json, &mut root_errors),
                other => {
                    root_errors.push(
                        StructureError::WrongType {
                            key: "the file".to_owned(),
                            expected: "an object",
                            found: other.found(ClusterFormat::Json),
                            span: to_source_span(&root.span),
                        }
                        .into(),
                    );
                    NodesKey::Other
                }
            };
            nodes.finish(source, root_errors, nodes_key)
        }
        Err(error) => LoadedCluster {
            source: source.clone(),
            cluster: None,
            spans: Vec::new(),
            diagnostics: vec![ClusterDiagnostic::JsonSyntax {
                message: error.message,
                span: to_source_span(&error.span),
            }],
        },
    }
}

struct Scanner<'i> {
    text: &'i str,
    bytes: &'i [u8],
    pos: usize,
    /// Whether node entries of the plain shape take the fast path.
    plain: bool,
}

impl<'i> Scanner<'i> {
    fn error<T>(&self, message: impl Into<String>, span: Span) -> Step<T> {
        Err(SyntaxError {
            message: message.into(),
            span,
        })
    }

    /// An error at the current byte (the end of the file when there is none).
    fn error_here<T>(&self, message: &str) -> Step<T> {
        let end = (self.pos + 1).min(self.bytes.len());
        let mut end = end;
        while !self.text.is_char_boundary(end) {
            end += 1;
        }
        self.error(message, self.pos..end)
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    /// The whole text: one value, its `nodes` entries handed to `nodes` when it is an
    /// object; a byte-order mark and surrounding whitespace allowed.
    fn document(&mut self, nodes: &mut NodeReader) -> Step<Value<'i>> {
        if self.text.starts_with('\u{feff}') {
            self.pos = '\u{feff}'.len_utf8();
        }
        self.whitespace();
        let root = if self.peek() == Some(b'{') {
            self.object(1, Some(nodes))?
        } else {
            self.value(1)?
        };
        self.whitespace();
        if self.pos < self.bytes.len() {
            return self.error_here("trailing characters after the top-level value");
        }
        Ok(root)
    }

    fn value(&mut self, depth: usize) -> Step<Value<'i>> {
        match self.peek() {
            Some(b'{') => self.object(depth, None),
            Some(b'[') => self.array(depth, None),
            Some(b'"') => {
                let (text, span) = self.string()?;
                Ok(Value {
                    span,
                    kind: Kind::String(text),
                })
            }
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') => self.literal("true", Kind::Boolean(true)),
            Some(b'f') => self.literal("false", Kind::Boolean(false)),
            Some(b'n') => self.literal("null", Kind::Null),
            Some(_) => self.error_here("expected a value"),
            None => self.error_here("expected a value, found the end of the file"),
        }
    }

    fn literal(&mut self, word: &'static str, kind: Kind<'i>) -> Step<Value<'i>> {
        let start = self.pos;
        if !self.bytes[start..].starts_with(word.as_bytes()) {
            return self.error_here("expected a value");
        }
        self.pos += word.len();
        Ok(Value {
            span: start..self.pos,
            kind,
        })
    }

    fn enter(&self, depth: usize, open: usize) -> Step<()> {
        if depth >= NESTING_LIMIT {
            return self.error(
                format!(
                    "more than {} arrays and objects in one another",
                    NESTING_LIMIT - 1
                ),
                open..open + 1,
            );
        }
        Ok(())
    }

    /// An object; at the top level (`nodes` given) the entries of its `nodes` array go
    /// to the node reader instead of into the value.
    fn object(&mut self, depth: usize, mut nodes: Option<&mut NodeReader>) -> Step<Value<'i>> {
        let open = self.pos;
        self.enter(depth, open)?;
        self.pos += 1;
        let mut table = Table::default();
        self.whitespace();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Value {
                span: open..self.pos,
                kind: Kind::Table(table),
            });
        }
        loop {
            if self.peek() != Some(b'"') {
                return self.error_here("expected a key (a string in double quotes)");
            }
            let (name, span) = self.string()?;
            let key = Key { name, span };
            self.whitespace();
            if self.peek() != Some(b':') {
                return self.error_here("expected `:` after the key");
            }
            self.pos += 1;
            self.whitespace();
            if table.contains(&key.name) {
                return self.error(format!("duplicate key `{}`", key.name), key.span);
            }
            let value = match nodes.as_deref_mut() {
                Some(reader) if key.name == "nodes" && self.peek() == Some(b'[') => {
                    self.array(depth + 1, Some(reader))?
                }
                _ => self.value(depth + 1)?,
            };
            table.insert_new(key, value);
            self.whitespace();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.whitespace();
                }
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Value {
                        span: open..self.pos,
                        kind: Kind::Table(table),
                    });
                }
                _ => return self.error_here("expected `,` or `}`"),
            }
        }
    }

    /// An array; with `nodes`, its entries go to the node reader and the value keeps none.
    fn array(&mut self, depth: usize, mut nodes: Option<&mut NodeReader>) -> Step<Value<'i>> {
        let open = self.pos;
        self.enter(depth, open)?;
        self.pos += 1;
        let mut items = Vec::new();
        self.whitespace();
        if self.peek() == Some(b']') {
            self.pos += 1;
        } else {
            let mut plain = PlainEntry::default();
            let mut shape = EntryShape::default();
            loop {
                match nodes.as_deref_mut() {
                    Some(reader) => {
                        let start = self.pos;
                        let fast = self.plain
                            && self.plain_node(&mut plain, &mut shape).is_some()
                            && reader.push_plain(&mut plain);
                        if !fast {
                            self.pos = start;
                            reader.push(&self.value(depth + 1)?);
                        }
                    }
                    None => items.push(self.value(depth + 1)?),
                }
                self.whitespace();
                match self.peek() {
                    Some(b',') => {
                        self.pos += 1;
                        self.whitespace();
                    }
                    Some(b']') => {
                        self.pos += 1;
                        break;
                    }
                    _ => return self.error_here("expected `,` or `]`"),
                }
            }
        }
        Ok(Value {
            span: open..self.pos,
            kind: Kind::Array(Array {
                items,
                of_tables: false,
            }),
        })
    }

    /// A string at the current `"`: its text and its span, quotes included.
    fn string(&mut self) -> Step<(Cow<'i, str>, Span)> {
        let start = self.pos;
        let mut pos = start + 1;
        let mut escaped = false;
        loop {
            match self.bytes.get(pos) {
                None => return self.error("unterminated string", start..self.bytes.len()),
                Some(b'"') => break,
                Some(b'\\') => {
                    escaped = true;
                    pos += 2;
                }
                Some(&b) if b < 0x20 => {
                    return self.error("control character in a string (escape it)", pos..pos + 1);
                }
                Some(_) => pos += 1,
            }
        }
        self.pos = pos + 1;
        let span = start..self.pos;
        let quoted = &self.text[span.clone()];
        if !escaped {
            return Ok((Cow::Borrowed(&quoted[1..quoted.len() - 1]), span));
        }
        match serde_json::from_str::<String>(quoted) {
            Ok(text) => Ok((Cow::Owned(text), span)),
            Err(error) => {
                let message = error.to_string();
                let message = message
                    .rsplit_once(" at line ")
                    .map_or(message.as_str(), |(m, _)| m);
                self.error(message.to_owned(), span)
            }
        }
    }

    /// A number: `-`? (`0` | digits) (`.` digits)? ((`e` | `E`) (`+` | `-`)? digits)?.
    fn number(&mut self) -> Step<Value<'i>> {
        let start = self.pos;
        let digits = |s: &mut Self| {
            let from = s.pos;
            while let Some(b'0'..=b'9') = s.peek() {
                s.pos += 1;
            }
            s.pos > from
        };
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return self.error_here("expected a digit"),
        }
        let mut whole = true;
        if self.peek() == Some(b'.') {
            whole = false;
            self.pos += 1;
            if !digits(self) {
                return self.error_here("expected a digit after `.`");
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            whole = false;
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if !digits(self) {
                return self.error_here("expected a digit in the exponent");
            }
        }
        let span = start..self.pos;
        let text = Cow::Borrowed(&self.text[span.clone()]);
        let kind = if whole {
            Kind::Integer {
                digits: text,
                radix: 10,
            }
        } else {
            Kind::Float(text)
        };
        Ok(Value { span, kind })
    }
}
