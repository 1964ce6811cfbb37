//! A YAML or JSON text as a small tree whose every node knows its byte span.
//!
//! Both are read with `saphyr-parser` as events (JSON is YAML 1.2's flow style), so one
//! builder gives spans to both in one linear pass; a JSON text is first checked by
//! serde_json, so that what JSON refuses is refused with JSON's own message. Only plain
//! data is built: an alias of a scalar reads as that scalar, an alias of a mapping or a
//! list is not followed (no expansion bombs), a mapping used as a key is skipped. The tree
//! holds each scalar of the input once, so its size is linear in the input's.

use std::collections::HashMap;
use std::ops::Range;

use saphyr_parser::{Event, Parser, ScalarStyle};

use crate::yaml_text::{Shifts, char_to_byte, is_null_word, parse_joining_pairs};

/// The deepest nesting read (a RayCluster is about 15 levels deep; serde_json stops at 128).
pub(crate) const MAX_DEPTH: usize = 128;

/// A node of the tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Node {
    /// What it holds.
    pub value: Value,
    /// Where it stands, in bytes.
    pub span: Range<usize>,
}

/// A node's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Value {
    /// A scalar: its text, and whether it was plain (unquoted), so `null` can be told
    /// from `"null"`.
    Scalar { text: String, plain: bool },
    /// A mapping, members in order (a later duplicate key is found last).
    Map(Vec<(String, Node)>),
    /// A list.
    Seq(Vec<Node>),
    /// An alias of a mapping or list, not followed.
    Alias,
}

impl Node {
    /// Whether it is YAML's null (`null`, `~`, nothing) or JSON's.
    pub fn is_null(&self) -> bool {
        matches!(&self.value, Value::Scalar { text, plain: true } if text.is_empty() || is_null_word(text))
    }

    /// The member `key` of a mapping (the last one when repeated, as Kubernetes reads it).
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Value::Map(members) => members.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The text of a scalar that is not null.
    pub fn text(&self) -> Option<&str> {
        match &self.value {
            Value::Scalar { text, .. } if !self.is_null() => Some(text),
            _ => None,
        }
    }

    /// What kind of value it is, for messages.
    pub fn kind(&self) -> &'static str {
        match &self.value {
            _ if self.is_null() => "null",
            Value::Scalar { .. } => "a scalar",
            Value::Map(_) => "a mapping",
            Value::Seq(_) => "a list",
            Value::Alias => "an alias",
        }
    }
}

/// A text that is neither YAML nor JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    /// The parser's message.
    pub message: String,
    /// Where, in bytes.
    pub span: Range<usize>,
}

/// The documents of a YAML text (one for JSON, which is checked by serde_json first; its
/// surrogate pairs read as one character each: [`parse_joining_pairs`]).
pub(crate) fn parse_documents(text: &str) -> Result<Vec<Node>, SyntaxError> {
    let looks_like_json = text.trim_start().starts_with(['{', '[']);
    if looks_like_json && let Err(error) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
        let offset =
            super::super::json_spans::offset_of_line_column(text, error.line(), error.column());
        return Err(SyntaxError {
            message: error.to_string(),
            span: offset..offset,
        });
    }
    parse_joining_pairs(text, |source, shifts| {
        Builder::default().run(source, text, shifts)
    })
    .map_err(|error| SyntaxError {
        message: error.message,
        span: error.span,
    })
}

/// A container being built.
enum Open {
    Map {
        start: usize,
        members: Vec<(String, Node)>,
        key: Option<String>,
    },
    Seq {
        start: usize,
        items: Vec<Node>,
    },
    /// A mapping or list used as a key: read past, not kept.
    Key {
        depth: usize,
    },
}

#[derive(Default)]
struct Builder {
    stack: Vec<Open>,
    documents: Vec<Node>,
    /// Scalars by anchor id.
    anchors: HashMap<usize, (String, bool)>,
}

impl Builder {
    /// One parse of `source` (`text`, or it with surrogate pairs joined: `shifts` maps
    /// back); an error is its message and char index in `source`.
    fn run(
        mut self,
        source: &str,
        text: &str,
        shifts: &Shifts,
    ) -> Result<Vec<Node>, (String, usize)> {
        let mut parser = Parser::new_from_str(source);
        while let Some(event) = parser.next_event() {
            let (event, span) =
                event.map_err(|error| (error.info().to_owned(), error.marker().index()))?;
            let chars = span.start.index()..span.end.index();
            match event {
                Event::Scalar(value, style, anchor, _) => {
                    let plain = matches!(style, ScalarStyle::Plain);
                    if anchor > 0 {
                        self.anchors.insert(anchor, (value.to_string(), plain));
                    }
                    self.scalar(value.into_owned(), plain, chars);
                }
                Event::Alias(anchor) => match self.anchors.get(&anchor).cloned() {
                    Some((value, plain)) => self.scalar(value, plain, chars),
                    None => self.value(Node {
                        value: Value::Alias,
                        span: chars,
                    }),
                },
                Event::MappingStart(..) | Event::SequenceStart(..) => {
                    if self.stack.len() >= MAX_DEPTH {
                        return Err((
                            format!("nested deeper than {MAX_DEPTH} levels"),
                            chars.start,
                        ));
                    }
                    let is_map = matches!(event, Event::MappingStart(..));
                    match self.stack.last_mut() {
                        Some(Open::Key { depth }) => *depth += 1,
                        Some(Open::Map { key: None, .. }) => {
                            self.stack.push(Open::Key { depth: 1 })
                        }
                        _ if is_map => self.stack.push(Open::Map {
                            start: chars.start,
                            members: Vec::new(),
                            key: None,
                        }),
                        _ => self.stack.push(Open::Seq {
                            start: chars.start,
                            items: Vec::new(),
                        }),
                    }
                }
                Event::MappingEnd | Event::SequenceEnd => match self.stack.pop() {
                    Some(Open::Key { depth }) if depth > 1 => {
                        self.stack.push(Open::Key { depth: depth - 1 });
                    }
                    Some(Open::Key { .. }) => {
                        // The complex key is done: its value follows, under an empty key
                        // that no reader asks for.
                        if let Some(Open::Map { key, .. }) = self.stack.last_mut() {
                            *key = Some(String::new());
                        }
                    }
                    Some(Open::Map { start, members, .. }) => self.value(Node {
                        value: Value::Map(members),
                        span: start..chars.end,
                    }),
                    Some(Open::Seq { start, items }) => self.value(Node {
                        value: Value::Seq(items),
                        span: start..chars.end,
                    }),
                    None => {}
                },
                Event::DocumentStart(_)
                | Event::DocumentEnd
                | Event::Nothing
                | Event::StreamStart
                | Event::StreamEnd => {}
            }
        }
        let mut documents = self.documents;
        to_bytes(text, shifts, &mut documents);
        Ok(documents)
    }

    fn scalar(&mut self, text: String, plain: bool, chars: Range<usize>) {
        match self.stack.last_mut() {
            Some(Open::Key { .. }) => {}
            Some(Open::Map {
                key: key @ None, ..
            }) => *key = Some(text),
            _ => self.value(Node {
                value: Value::Scalar { text, plain },
                span: chars,
            }),
        }
    }

    /// A finished value: a member, an item, or a whole document.
    fn value(&mut self, node: Node) {
        match self.stack.last_mut() {
            Some(Open::Map { members, key, .. }) => match key.take() {
                Some(key) => members.push((key, node)),
                // A container as a key (its scalar case is handled in `scalar`).
                None => *key = Some(String::new()),
            },
            Some(Open::Seq { items, .. }) => items.push(node),
            Some(Open::Key { .. }) => {}
            None => self.documents.push(node),
        }
    }
}

/// Converts every span of the tree from characters of the parsed text to bytes of `text`,
/// in one pass over it, and trims the whitespace a block container's end marker takes in
/// (it stands at the next token).
fn to_bytes(text: &str, shifts: &Shifts, documents: &mut [Node]) {
    if !shifts.is_empty() {
        visit_mut(documents, &mut |node| {
            node.span = shifts.original(node.span.start)..shifts.original(node.span.end);
        });
    }
    let at: Option<HashMap<usize, usize>> = (!text.is_ascii()).then(|| {
        let mut wanted = Vec::new();
        visit(documents, &mut |node| {
            wanted.extend([node.span.start, node.span.end]);
        });
        let bytes = char_to_byte(text, &wanted);
        wanted.into_iter().zip(bytes).collect()
    });
    let bytes = text.as_bytes();
    visit_mut(documents, &mut |node| {
        let (mut start, mut end) = match &at {
            Some(at) => {
                let start = at.get(&node.span.start).copied().unwrap_or(0);
                (start, at.get(&node.span.end).copied().unwrap_or(start))
            }
            None => (node.span.start, node.span.end),
        };
        end = end.min(bytes.len());
        start = start.min(end);
        while end > start && bytes[end - 1].is_ascii_whitespace() {
            end -= 1;
        }
        node.span = start..end;
    });
}

/// Every node, depth first, without recursion.
fn visit(documents: &[Node], f: &mut impl FnMut(&Node)) {
    let mut stack: Vec<&Node> = documents.iter().collect();
    while let Some(node) = stack.pop() {
        f(node);
        match &node.value {
            Value::Map(members) => stack.extend(members.iter().map(|(_, v)| v)),
            Value::Seq(items) => stack.extend(items.iter()),
            _ => {}
        }
    }
}

fn visit_mut(documents: &mut [Node], f: &mut impl FnMut(&mut Node)) {
    let mut stack: Vec<&mut Node> = documents.iter_mut().collect();
    while let Some(node) = stack.pop() {
        f(node);
        match &mut node.value {
            Value::Map(members) => stack.extend(members.iter_mut().map(|(_, v)| v)),
            Value::Seq(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Node {
        let mut docs = parse_documents(text).expect("parses");
        assert_eq!(docs.len(), 1, "{docs:?}");
        docs.remove(0)
    }

    fn at<'t>(text: &'t str, node: &Node) -> &'t str {
        &text[node.span.clone()]
    }

    #[test]
    fn yaml_values_carry_byte_spans() {
        let text = "# 注释\nspec:\n  name: \"é\"\n  list: [1, two]\n  empty:\n";
        let root = doc(text);
        let spec = root.get("spec").unwrap();
        assert_eq!(at(text, spec.get("name").unwrap()), "\"é\"");
        assert_eq!(spec.get("name").unwrap().text(), Some("é"));
        let list = spec.get("list").unwrap();
        assert_eq!(at(text, list), "[1, two]");
        assert!(matches!(&list.value, Value::Seq(items) if items.len() == 2));
        assert!(spec.get("empty").unwrap().is_null());
    }

    #[test]
    fn json_minified_and_pretty_reads_the_same() {
        let pretty = "{\n  \"a\": {\"b\": [1, \"x\"]},\n  \"c\": null\n}\n";
        let minified = "{\"a\":{\"b\":[1,\"x\"]},\"c\":null}";
        for text in [pretty, minified] {
            let root = doc(text);
            let b = root.get("a").and_then(|a| a.get("b")).unwrap();
            assert_eq!(at(text, b).replace([' ', '\n'], ""), "[1,\"x\"]");
            assert!(root.get("c").unwrap().is_null());
        }
        // A quoted "null" is a string.
        assert_eq!(
            doc("{\"c\": \"null\"}").get("c").unwrap().text(),
            Some("null")
        );
    }

    #[test]
    fn json_errors_are_json_errors() {
        let error = parse_documents("{\"a\": 1,}").unwrap_err();
        assert!(error.message.contains("line 1 column 9"), "{error:?}");
        assert!(error.span.start <= 9);
    }

    #[test]
    fn json_surrogate_pairs_are_one_character_with_spans_in_the_text() {
        // Python's json.dumps writes U+1F600 as a pair; YAML's parser alone refuses it.
        let text = "{\"note\": \"gpu \\ud83d\\ude00 \\uD83D\\uDE80\", \"é\": [\"\\ud83d\\ude00\"], \"n\": 8}";
        let root = doc(text);
        assert_eq!(
            root.get("note").unwrap().text(),
            Some("gpu \u{1F600} \u{1F680}")
        );
        let list = root.get("é").unwrap();
        assert_eq!(at(text, list), "[\"\\ud83d\\ude00\"]");
        assert_eq!(at(text, root.get("n").unwrap()), "8");
        assert_eq!(at(text, &root), text);
        // The same pairs in a YAML file's double-quoted scalar.
        let yaml = "a: \"\\ud83d\\ude00\"\nb: 2\n";
        assert_eq!(at(yaml, doc(yaml).get("b").unwrap()), "2");
        // A lone surrogate stays an error, on its escape (serde_json refuses it in JSON).
        let error = parse_documents("a: \"x \\ud83d y\"\n").unwrap_err();
        assert!(error.message.contains("lone UTF-16 surrogate"), "{error:?}");
        assert_eq!(error.span, 6..12);
    }

    #[test]
    fn documents_aliases_and_complex_keys() {
        let text = "a: &x 1\nb: *x\nc: &m {k: v}\nd: *m\n? [k]\n: skipped\n---\nsecond: 2\n";
        let docs = parse_documents(text).unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[0].get("b").unwrap().text(), Some("1"));
        assert_eq!(docs[0].get("d").unwrap().value, Value::Alias);
        assert_eq!(docs[0].get("").unwrap().text(), Some("skipped"));
        assert_eq!(docs[1].get("second").unwrap().text(), Some("2"));
    }

    #[test]
    fn yaml_errors_point_into_the_text() {
        let error = parse_documents("a: [1, 2\n").unwrap_err();
        assert!(error.span.start <= 9 && !error.message.is_empty());
    }

    #[test]
    fn deep_nesting_does_not_recurse() {
        let text = format!("{}{}", "[".repeat(50_000), "]".repeat(50_000));
        // serde_json refuses past its recursion limit; that is an error, not a crash.
        assert!(parse_documents(&text).is_err());
        let flow = format!("a: {}{}", "[".repeat(200), "]".repeat(200));
        assert!(
            parse_documents(&flow)
                .unwrap_err()
                .message
                .contains("deeper")
        );
        let block = format!("{}x\n", "- ".repeat(100_000));
        assert!(
            parse_documents(&block)
                .unwrap_err()
                .message
                .contains("deeper")
        );
    }
}
