//! A YAML or JSON text as a small tree whose every node knows its byte span.
//!
//! Both are read with `saphyr-parser` as events (JSON is YAML 1.2's flow style), so one
//! builder gives spans to both in one linear pass; a JSON text is first checked by
//! serde_json, so that what JSON refuses is refused with JSON's own message. Only plain
//! data is built, as `kubectl` builds it (`sigs.k8s.io/yaml`, a copy of go-yaml v2.4.0):
//! an alias is a copy of its anchor's value, a `<<` merge key writes its mappings' members
//! where it stands, and a mapping or list used as a key is an error, as is a null key
//! (go-yaml reads one, but `sigs.k8s.io/yaml` cannot make it a JSON key). The tree holds
//! each scalar of the input once, plus what anchors and aliases copy, at most
//! [`MAX_COPIED_NODES`] nodes, so its size is linear in the input's.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::ops::Range;

use saphyr_parser::{Event, Parser, ScalarStyle, Tag};

use super::go_resolve::{Resolved, resolve, tag_refusal};

use crate::yaml_text::{
    Shifts, char_to_byte, core_type, is_null_word, non_specific, parse_joining_pairs,
};

/// The deepest nesting read (a RayCluster is about 15 levels deep; serde_json stops at 128).
pub(crate) const MAX_DEPTH: usize = 128;

/// The most nodes anchors and aliases may copy in one text: a manifest's anchors copy a
/// few hundred, an expansion bomb (aliases of aliases of ...) far more.
pub(crate) const MAX_COPIED_NODES: usize = 100_000;

/// go-yaml v2's words for a mapping or list used as a mapping's key, which it refuses.
const INVALID_MAP_KEY: &str = "invalid map key: a mapping or list as a mapping's key";

/// go-yaml's key above `i64` (a `uint64`), which sigs.k8s.io/yaml's JSON conversion
/// refuses.
const UINT64_KEY: &str = "unsupported map key: an integer above 9223372036854775807 (go-yaml's uint64), which kubectl cannot turn into JSON";

/// sigs.k8s.io/yaml's words for a null key (`~:`, `null:`, an empty key): go-yaml reads it,
/// but turning the document into JSON fails, so kubectl refuses the manifest.
const NULL_KEY: &str = "unsupported map key: a null key, which kubectl cannot turn into JSON";

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
    /// A scalar: its text, and whether YAML types it by its text (plain and untagged, or
    /// tagged `!!int`, `!!float`, `!!bool`, `!!null`), so `null` and `8` can be told from
    /// `"null"` and `!!str 8`.
    Scalar { text: String, plain: bool },
    /// A mapping, members in order (a later duplicate key is found last).
    Map(Vec<(String, Node)>),
    /// A list.
    Seq(Vec<Node>),
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
        /// Its anchor id (0: none).
        anchor: usize,
        members: Vec<(String, Node)>,
        key: Option<Key>,
        /// The keys `<<` merges wrote in: where one is written twice, only the last counts.
        merged: Vec<String>,
    },
    Seq {
        start: usize,
        anchor: usize,
        items: Vec<Node>,
    },
}

/// A mapping's key, read, waiting for its value.
enum Key {
    /// A key, by its text.
    Text(String),
    /// YAML's merge key (see [`is_merge_key`]): its value's members are written
    /// into the mapping where it stands.
    Merge,
}

/// An anchored value, kept for its aliases.
struct Anchored {
    node: Node,
    /// Its nodes, counted against [`MAX_COPIED_NODES`] at every copy.
    size: usize,
    /// Its levels of nesting, counted against [`MAX_DEPTH`] where a copy stands.
    height: usize,
}

#[derive(Default)]
struct Builder {
    stack: Vec<Open>,
    documents: Vec<Node>,
    /// Anchored values by anchor id.
    anchors: HashMap<usize, Anchored>,
    /// Nodes copied for anchors and aliases so far.
    copied: usize,
}

/// An error: its message and char index in the parsed text.
type Failure = (String, usize);

impl Builder {
    /// One parse of `source` (`text`, or it with surrogate pairs joined: `shifts` maps
    /// back); an error is its message and char index in `source`.
    fn run(mut self, source: &str, text: &str, shifts: &Shifts) -> Result<Vec<Node>, Failure> {
        let mut parser = Parser::new_from_str(source);
        while let Some(event) = parser.next_event() {
            let (event, span) =
                event.map_err(|error| (error.info().to_owned(), error.marker().index()))?;
            let chars = span.start.index()..span.end.index();
            match event {
                Event::Scalar(value, style, anchor, tag) => {
                    self.scalar_event(value, style, anchor, tag.as_deref(), chars)?;
                }
                Event::Alias(anchor) => self.alias(anchor, chars)?,
                Event::MappingStart(anchor, _) => self.open(anchor, true, chars.start)?,
                Event::SequenceStart(anchor, _) => self.open(anchor, false, chars.start)?,
                Event::MappingEnd | Event::SequenceEnd => self.close(chars.end)?,
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

    /// A scalar at `chars`: refused when its tag's type does not fit its text, else a node
    /// (kept for its aliases when anchored), or a merge key.
    fn scalar_event(
        &mut self,
        value: Cow<'_, str>,
        style: ScalarStyle,
        anchor: usize,
        tag: Option<&Tag>,
        chars: Range<usize>,
    ) -> Result<(), Failure> {
        if let Some(why) = tag
            .and_then(core_type)
            .and_then(|core| tag_refusal(&core, &value))
        {
            return Err((
                format!(
                    "a tagged scalar its text does not fit (Kubernetes' YAML reader refuses this one: \"{why}\")"
                ),
                chars.start,
            ));
        }
        let plain = matches!(style, ScalarStyle::Plain);
        let merge = value == "<<" && is_merge_key(plain, tag);
        let plain = typed_by_text(plain, tag);
        let node = Node {
            value: Value::Scalar {
                text: value.into_owned(),
                plain,
            },
            span: chars,
        };
        if anchor > 0 {
            self.keep(anchor, &node)?;
        }
        self.scalar(node, merge)
    }

    /// Opens a mapping (`is_map`) or a list at char `start`: refused past [`MAX_DEPTH`],
    /// and as a mapping's key.
    fn open(&mut self, anchor: usize, is_map: bool, start: usize) -> Result<(), Failure> {
        if self.stack.len() >= MAX_DEPTH {
            return Err((format!("nested deeper than {MAX_DEPTH} levels"), start));
        }
        match self.stack.last_mut() {
            Some(Open::Map { key: None, .. }) => {
                return Err((INVALID_MAP_KEY.to_owned(), start));
            }
            _ if is_map => self.stack.push(Open::Map {
                start,
                anchor,
                members: Vec::new(),
                key: None,
                merged: Vec::new(),
            }),
            _ => self.stack.push(Open::Seq {
                start,
                anchor,
                items: Vec::new(),
            }),
        }
        Ok(())
    }

    /// Closes the innermost mapping or list at char `end`: its node (kept for its aliases
    /// when anchored) becomes a value where it stands.
    fn close(&mut self, end: usize) -> Result<(), Failure> {
        let (anchor, node) = match self.stack.pop() {
            Some(Open::Map {
                start,
                anchor,
                mut members,
                merged,
                ..
            }) => {
                keep_last_of(&mut members, &merged);
                let node = Node {
                    value: Value::Map(members),
                    span: start..end,
                };
                (anchor, node)
            }
            Some(Open::Seq {
                start,
                anchor,
                items,
            }) => {
                let node = Node {
                    value: Value::Seq(items),
                    span: start..end,
                };
                (anchor, node)
            }
            None => return Ok(()),
        };
        if anchor > 0 {
            self.keep(anchor, &node)?;
        }
        self.value(node)
    }

    /// Keeps a copy of an anchored value for its aliases.
    fn keep(&mut self, anchor: usize, node: &Node) -> Result<(), Failure> {
        let (size, height) = measure(node);
        self.spend(size, node.span.start)?;
        self.anchors.insert(
            anchor,
            Anchored {
                node: node.clone(),
                size,
                height,
            },
        );
        Ok(())
    }

    /// An alias: a copy of its anchor's value, as Kubernetes' YAML reader (go-yaml v2) builds
    /// it. A scalar's copy stands where the alias is; a mapping's or list's nodes keep the
    /// spans where the anchor writes them.
    fn alias(&mut self, anchor: usize, chars: Range<usize>) -> Result<(), Failure> {
        let Some(anchored) = self.anchors.get(&anchor) else {
            // The parser knows the anchor but its value is not finished: it holds itself.
            return Err((
                "an alias inside the value of its own anchor".to_owned(),
                chars.start,
            ));
        };
        if let Value::Scalar { .. } = anchored.node.value {
            let node = Node {
                value: anchored.node.value.clone(),
                span: chars,
            };
            return self.scalar(node, false);
        }
        if matches!(self.stack.last(), Some(Open::Map { key: None, .. })) {
            return Err((INVALID_MAP_KEY.to_owned(), chars.start));
        }
        if self.stack.len() + anchored.height > MAX_DEPTH {
            return Err((
                format!("nested deeper than {MAX_DEPTH} levels where the alias stands"),
                chars.start,
            ));
        }
        let (size, node) = (anchored.size, anchored.node.clone());
        self.spend(size, chars.start)?;
        self.value(node)
    }

    /// Counts `size` more copied nodes against [`MAX_COPIED_NODES`].
    fn spend(&mut self, size: usize, at: usize) -> Result<(), Failure> {
        self.copied += size;
        if self.copied > MAX_COPIED_NODES {
            return Err((
                format!(
                    "anchors and aliases copy more than {MAX_COPIED_NODES} values (a manifest holds a few hundred)"
                ),
                at,
            ));
        }
        Ok(())
    }

    /// A scalar: a mapping's key (`merge`: the merge key), or a value.
    fn scalar(&mut self, node: Node, merge: bool) -> Result<(), Failure> {
        match self.stack.last_mut() {
            Some(Open::Map {
                key: key @ None, ..
            }) => {
                if !merge && node.is_null() {
                    return Err((NULL_KEY.to_owned(), node.span.start));
                }
                if let Value::Scalar { text, plain: true } = &node.value
                    && let Resolved::Int(n) = resolve(text)
                    && i64::try_from(n).is_err()
                {
                    // go-yaml's `uint64`, a key type kubectl's JSON conversion lacks.
                    return Err((UINT64_KEY.to_owned(), node.span.start));
                }
                *key = Some(match node.value {
                    _ if merge => Key::Merge,
                    Value::Scalar { text, .. } => Key::Text(text),
                    _ => Key::Text(String::new()),
                });
                Ok(())
            }
            _ => self.value(node),
        }
    }

    /// A finished value: a member, what a `<<` merges, an item, or a whole document.
    fn value(&mut self, node: Node) -> Result<(), Failure> {
        if let Value::Scalar { text, plain: true } = &node.value
            && let Resolved::Float(f) = resolve(text)
            && !f.is_finite()
        {
            // go-yaml reads `.inf` and `.nan`, JSON has no such number.
            let shown = if f.is_nan() {
                "NaN"
            } else if f > 0.0 {
                "+Inf"
            } else {
                "-Inf"
            };
            return Err((
                format!(
                    "`{text}` is a number JSON cannot hold (Kubernetes' YAML reader refuses it when it turns the manifest into JSON: \"json: unsupported value: {shown}\")"
                ),
                node.span.start,
            ));
        }
        match self.stack.last_mut() {
            Some(Open::Map {
                members,
                key,
                merged,
                ..
            }) => match key.take() {
                Some(Key::Text(key)) => members.push((key, node)),
                Some(Key::Merge) => merge(members, merged, node)?,
                // A mapping or list as a key: refused where it starts (or its alias
                // stands) before it gets here; a scalar is a key in `scalar`.
                None => return Err((INVALID_MAP_KEY.to_owned(), node.span.start)),
            },
            Some(Open::Seq { items, .. }) => items.push(node),
            None => self.documents.push(node),
        }
        Ok(())
    }
}

/// Whether go-yaml v2 types a scalar by its text (a number, a boolean, null) rather than
/// keeping it a string: plain and untagged, or tagged with one of those types (`!!int
/// "2"` is 2); quoted, tagged `!!str`, or with a tag of its own (`!custom 8`), a string.
fn typed_by_text(plain: bool, tag: Option<&Tag>) -> bool {
    match tag {
        None => plain,
        Some(tag) => matches!(
            core_type(tag).as_deref(),
            Some("int" | "float" | "bool" | "null")
        ),
    }
}

/// Whether a scalar `<<` is YAML's merge key, as go-yaml v2 has it: plain and untagged,
/// under the non-specific `!` (quoted or not), or tagged `!!merge` (a quoted `"<<"` is a
/// key like any other, and so is `!!merge` on any other text).
fn is_merge_key(plain: bool, tag: Option<&Tag>) -> bool {
    match tag {
        None => plain,
        Some(tag) => non_specific(tag) || core_type(tag).as_deref() == Some("merge"),
    }
}

/// Writes what a `<<` merges into a mapping's members where the key stands, as go-yaml v2
/// (`sigs.k8s.io/yaml`, which `kubectl` reads manifests with) does: a mapping's members in
/// order, a list's mappings last to first (so the first one's value is written last and
/// counts), and any key written later in the mapping counts over them, one written
/// earlier does not. Anything else is the error go-yaml gives.
fn merge(
    members: &mut Vec<(String, Node)>,
    merged: &mut Vec<String>,
    node: Node,
) -> Result<(), Failure> {
    let at = node.span.start;
    let refused = || {
        (
            "a `<<` merge takes a mapping or a list of mappings (Kubernetes' YAML reader refuses this one: \"map merge requires map or sequence of maps as the value\")".to_owned(),
            at,
        )
    };
    let maps = match node.value {
        Value::Map(from) => vec![from],
        Value::Seq(items) => {
            let mut maps = Vec::with_capacity(items.len());
            for item in items.into_iter().rev() {
                match item.value {
                    Value::Map(from) => maps.push(from),
                    _ => return Err(refused()),
                }
            }
            maps
        }
        Value::Scalar { .. } => return Err(refused()),
    };
    for from in maps {
        merged.extend(from.iter().map(|(key, _)| key.clone()));
        members.extend(from);
    }
    Ok(())
}

/// Drops every member whose key `merged` names but a later member writes again: in a
/// mapping read as go-yaml reads it, the last write of a key is its value.
fn keep_last_of(members: &mut Vec<(String, Node)>, merged: &[String]) {
    if merged.is_empty() {
        return;
    }
    let merged: HashSet<&str> = merged.iter().map(String::as_str).collect();
    let mut seen: HashSet<String> = HashSet::new();
    let mut kept: Vec<(String, Node)> = Vec::with_capacity(members.len());
    for (key, node) in members.drain(..).rev() {
        if merged.contains(key.as_str()) && !seen.insert(key.clone()) {
            continue;
        }
        kept.push((key, node));
    }
    kept.reverse();
    *members = kept;
}

/// A value's node count and levels of nesting (1 for a scalar), without recursion.
fn measure(node: &Node) -> (usize, usize) {
    let (mut size, mut height) = (0, 0);
    let mut stack = vec![(node, 1)];
    while let Some((node, level)) = stack.pop() {
        size += 1;
        height = height.max(level);
        match &node.value {
            Value::Map(members) => stack.extend(members.iter().map(|(_, v)| (v, level + 1))),
            Value::Seq(items) => stack.extend(items.iter().map(|v| (v, level + 1))),
            Value::Scalar { .. } => {}
        }
    }
    (size, height)
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
    fn documents_and_aliases() {
        let text = "a: &x 1\nb: *x\nc: &m {k: v}\nd: *m\n---\nsecond: 2\n";
        let docs = parse_documents(text).unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[0].get("b").unwrap().text(), Some("1"));
        let d = docs[0].get("d").unwrap();
        assert_eq!(d.get("k").unwrap().text(), Some("v"));
        // A copied mapping is labelled where its anchor writes it.
        assert_eq!(at(text, d), "&m {k: v}");
        assert_eq!(docs[1].get("second").unwrap().text(), Some("2"));
    }

    #[test]
    fn container_keys_are_refused() {
        // go-yaml v2.4.0 (checked 2026-12-06): `yaml: invalid map key`, written or by alias.
        for (text, at) in [
            ("a: 1\n? [k]\n: v\n", "[k]"),
            ("a: &m {k: v}\nb:\n  *m : v\n", "*m :"),
            ("a:\n  {k: v}: 1\n", "{k: v}"),
        ] {
            let error = parse_documents(text).unwrap_err();
            assert!(
                error.message.contains("invalid map key"),
                "{text}: {error:?}"
            );
            assert!(
                text[error.span.start..].starts_with(at),
                "{text}: {error:?}"
            );
        }
        // sigs.k8s.io/yaml 1.3.0's YAMLToJSON (checked 2026-12-06): go-yaml reads a null
        // key, JSON cannot hold it ("Unsupported map key of type: <nil>").
        for (text, at) in [("a:\n  ~: 1\n", "~"), ("a: {null: 1}\n", "null")] {
            let error = parse_documents(text).unwrap_err();
            assert!(error.message.contains("null key"), "{text}: {error:?}");
            assert!(
                text[error.span.start..].starts_with(at),
                "{text}: {error:?}"
            );
        }
        let docs = parse_documents("a:\n  '~': 1\n").unwrap();
        assert!(docs[0].get("a").unwrap().get("~").is_some());
    }

    #[test]
    fn merge_keys_as_go_yaml_spells_them() {
        // go-yaml v2.4.0 (checked 2026-12-06): `<<` merges plain, under `!` (quoted or
        // not) and tagged `!!merge`; `!!merge x`, `'<<'`, `!!str <<` and an alias of an
        // anchored merge key are keys like any other.
        let base = "b: &b {k: 1}\nout:\n  &m <<: *b\nx:\n  ";
        for key in ["<<", "! <<", "! '<<'", "!!merge <<"] {
            let docs = parse_documents(&format!("{base}{key}: *b\n")).unwrap();
            let x = docs[0].get("x").unwrap();
            assert_eq!(x.get("k").and_then(Node::text), Some("1"), "{key}");
        }
        for (key, text) in [
            ("!!merge x", "x"),
            ("'<<'", "<<"),
            ("!!str <<", "<<"),
            ("*m ", "<<"),
        ] {
            let docs = parse_documents(&format!("{base}{key}: *b\n")).unwrap();
            let x = docs[0].get("x").unwrap();
            assert!(x.get("k").is_none(), "{key}");
            assert!(x.get(text).is_some(), "{key}");
        }
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
