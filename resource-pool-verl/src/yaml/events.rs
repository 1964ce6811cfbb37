//! One pass over a YAML text's events: the known keys' scalars, every key path, the
//! top-level `defaults:` list (kept in [`super::found`]), and the anchored mappings that
//! aliases and `<<` merges bring in ([`super::anchors`]). Positions are in characters of
//! the parsed source.

use std::collections::{HashMap, HashSet};

use saphyr_parser::{Event, Parser, ScalarStyle, Tag};

use super::anchors::{Anchors, Item, Path};
use super::construction::Shape;
use super::found::Found;
use super::frames::{Frame, MAX_KNOWN_KEY, MAX_PATH, dotted, frame_path, joined};
use super::refusals::refused_scalar;
use super::tabs::{REFUSED_TAB, Written, first_refused_tab};
use super::tag::{NodeKind, no_constructor, refusal, tagged_scalar};
use super::{ReadError, StringMark};
use crate::keys::{Kind, interpret, is_null};
use resource_pool_inventory::yaml_text::{CORE_TAG, core_type, non_specific};

/// PyYAML's words for a mapping or list used as a key (a Python dict or list hashes not).
const UNHASHABLE_KEY: &str = "found unhashable key: a mapping or list as a mapping's key";

/// OmegaConf's words for a null key (`~:`, `null:`, an empty key), which it refuses.
const NULL_KEY: &str =
    "Incompatible key type 'NoneType': a null key (`~`, `null` or empty), which OmegaConf refuses";

/// PyYAML's words for the merge tag on a value (a plain `<<`, or an alias of an anchored
/// merge key, anywhere but a key): it has no constructor for it.
fn merge_tag_value() -> String {
    no_constructor(&format!("{CORE_TAG}merge"))
}

/// PyYAML's words for a `<<` whose value is no mapping.
fn not_mergeable(found: &str) -> String {
    format!("expected a mapping or list of mappings for merging (`<<`), but found {found}")
}

/// One parse of `source`. A tab PyYAML's scanner refuses ([`super::tabs`]) is the error
/// when it stands before any other the parse finds: PyYAML scans the whole document
/// before it constructs a value.
pub(super) fn read_events(source: &str) -> Result<Found, ReadError> {
    let mut written = Vec::new();
    let read = read_document(source, &mut written);
    let upto = match &read {
        Ok(_) => usize::MAX,
        Err(error) => error.at,
    };
    match first_refused_tab(source, &written, upto) {
        Some(at) => Err((REFUSED_TAB.to_owned(), at).into()),
        None => read,
    }
}

/// The events of `source`, noting in `written` where quoted and block scalars start.
fn read_document(source: &str, written: &mut Vec<(usize, Written)>) -> Result<Found, ReadError> {
    let mut reader = Reader {
        source,
        stack: Vec::new(),
        scalars: HashMap::new(),
        anchors: Anchors::default(),
        shape: Shape::default(),
        node_of_anchor: HashMap::new(),
        merge_anchors: HashSet::new(),
        lists: HashMap::new(),
        found: Found::default(),
    };
    let mut parser = Parser::new_from_str(source);
    let mut documents = 0;
    while let Some(event) = parser.next_event() {
        let (event, span) = match event {
            Ok(pair) => pair,
            Err(error) => return Err((error.info().to_owned(), error.marker().index()).into()),
        };
        let chars = (span.start.index(), span.end.index());
        match event {
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    // PyYAML's `load`, which OmegaConf and Hydra read a file with, takes
                    // one document and stops at the start of another.
                    let message =
                        "expected a single document in the stream, but found another document";
                    return Err((message.to_owned(), chars.0).into());
                }
            }
            Event::Scalar(value, style, anchor, tag) => {
                let how = match style {
                    ScalarStyle::SingleQuoted => Some(Written::SingleQuoted),
                    ScalarStyle::DoubleQuoted => Some(Written::DoubleQuoted),
                    // An empty block scalar has no content to start at.
                    ScalarStyle::Literal | ScalarStyle::Folded if !value.trim().is_empty() => {
                        Some(Written::Block)
                    }
                    _ => None,
                };
                written.extend(how.map(|how| (chars.0, how)));
                reader.scalar(value.into_owned(), style, anchor, tag.as_deref(), chars)?
            }
            Event::Alias(anchor) => reader.alias(anchor, chars)?,
            Event::MappingStart(anchor, tag) => {
                reader.start(NodeKind::Mapping, anchor, tag.as_deref(), chars)?
            }
            Event::SequenceStart(anchor, tag) => {
                reader.start(NodeKind::Sequence, anchor, tag.as_deref(), chars)?
            }
            Event::MappingEnd | Event::SequenceEnd => reader.end(chars)?,
            Event::DocumentEnd | Event::Nothing | Event::StreamStart | Event::StreamEnd => {}
        }
    }
    if let Some(duplicate) = reader.shape.duplicate() {
        return Err(duplicate.into());
    }
    Ok(reader.found)
}

struct Reader<'s> {
    source: &'s str,
    stack: Vec<Frame>,
    /// Anchored scalars: their text and what made them strings.
    scalars: HashMap<usize, (String, Option<StringMark>)>,
    anchors: Anchors,
    /// The document's mappings and lists, for OmegaConf 2.3's duplicate check.
    shape: Shape,
    /// Anchored mappings' and lists' nodes in `shape`.
    node_of_anchor: HashMap<usize, usize>,
    /// Anchored merge keys (`&m <<`), also in `scalars`: an alias of one is the merge key.
    merge_anchors: HashSet<usize>,
    /// Anchored lists, by node, as a `<<` would merge them (`<<: *list`): the mappings
    /// they hold in order (kept as anchored ones are), or what else one holds first.
    lists: HashMap<usize, Result<Vec<usize>, &'static str>>,
    found: Found,
}

impl Reader<'_> {
    fn scalar(
        &mut self,
        value: String,
        style: ScalarStyle,
        anchor: usize,
        tag: Option<&Tag>,
        chars: (usize, usize),
    ) -> Result<(), ReadError> {
        // Read as plain: written so, or under the non-specific `!`, whatever its quotes.
        let plain = matches!(style, ScalarStyle::Plain) || tag.is_some_and(non_specific);
        // PyYAML resolves a plain `<<` to the merge tag wherever it stands, and takes any
        // key tagged `!!merge` (whatever its text) as the merge key.
        let merge_tag = match tag {
            Some(tag) if !non_specific(tag) => core_type(tag).as_deref() == Some("merge"),
            _ => plain && value == "<<",
        };
        let is_key = self.stack.last().is_some_and(Frame::expects_key);
        if !(is_key && merge_tag)
            && let Some(message) = refusal(tag, NodeKind::Scalar)
        {
            return Err(ReadError {
                message,
                at: chars.0,
                refused_tag: true,
            });
        }
        if !(is_key && merge_tag)
            && let Some(error) = refused_scalar(tag, &value, plain, is_key, chars.0)
        {
            return Err(error);
        }
        let quoted = (!plain).then_some(StringMark::Quotes);
        if is_key && merge_tag {
            if anchor > 0 {
                // An alias of it is the merge key too (PyYAML reads the tag of the node).
                self.merge_anchors.insert(anchor);
                self.scalars.insert(anchor, (value, quoted));
            }
            self.merge_key();
            return Ok(());
        }
        if self.stack.last().is_some_and(Frame::expects_merge) {
            return Err((not_mergeable("a scalar"), chars.0).into());
        }
        if merge_tag {
            // A plain `<<` that is no key: PyYAML has no constructor for what it resolves to.
            return Err((merge_tag_value(), chars.0).into());
        }
        if is_key {
            // A key keeps its text (its path); its tag says only what type it is.
            let typed = tagged_scalar(tag, value.clone(), quoted);
            if anchor > 0 {
                self.scalars.insert(anchor, (value.clone(), quoted));
            }
            return self.key(value, (&typed.0, typed.1), chars);
        }
        let (value, quoted) = tagged_scalar(tag, value, quoted);
        if anchor > 0 {
            self.scalars.insert(anchor, (value.clone(), quoted));
        }
        self.found.default_item(&self.stack, &value);
        self.in_anchored_list(Err("a scalar in the list"));
        self.value(Item::Scalar((value, quoted, chars)))
    }

    /// A mapping's key, `text` as written and `typed` as its tag makes it (see
    /// [`tagged_scalar`]): kept as a path; refused when null (OmegaConf takes no `None`
    /// key) or when the mapping has it already (OmegaConf's loader refuses such a mapping;
    /// PyYAML alone would keep the later value).
    fn key(
        &mut self,
        text: String,
        typed: (&str, Option<StringMark>),
        chars: (usize, usize),
    ) -> Result<(), ReadError> {
        let top = self.stack.len() - 1;
        let (typed, quoted) = (typed.0, typed.1.is_some());
        if is_null(typed, quoted, true) {
            return Err((NULL_KEY.to_owned(), chars.0).into());
        }
        // OmegaConf's duplicate check counts the keys that are strings (`1:` twice is the
        // later one's, as PyYAML builds it; a float key is taken for a string here).
        let string = quoted
            || !(interpret(typed, false, Kind::Int, true).is_some()
                || interpret(typed, false, Kind::Bool, true).is_some());
        self.shape
            .key(self.stack[top].node(), &text, string, chars.0);
        if let Some(path) = dotted(&self.stack[..top], [text.as_str()], MAX_PATH) {
            self.found.key(path, chars);
        }
        if self.anchors.keeping() {
            let stack = &self.stack;
            let item = Item::Key(chars);
            self.anchors
                .keep(
                    |frame| {
                        let mut p = frame_path(&stack[frame..top])?;
                        p.push(text.clone());
                        Some(p)
                    },
                    &item,
                )
                .map_err(|message| (message, chars.0))?;
        }
        if let Some(Frame::Map {
            key,
            expecting_key,
            seen,
            ..
        }) = self.stack.last_mut()
        {
            if string {
                if let Some(&first) = seen.get(&text) {
                    let line = 1 + self
                        .source
                        .chars()
                        .take(first)
                        .filter(|&c| c == '\n')
                        .count();
                    return Err((
                        format!("found duplicate key `{text}` (first on line {line})"),
                        chars.0,
                    )
                        .into());
                }
                seen.insert(text.clone(), chars.0);
            }
            (*key, *expecting_key) = (Some(text), false);
        }
        Ok(())
    }

    /// A value where the stack stands: kept for its known key, and in the mappings being
    /// kept; then the enclosing mapping expects a key.
    fn value(&mut self, item: Item) -> Result<(), ReadError> {
        let at = match &item {
            Item::Scalar((_, _, chars)) | Item::Container(chars) | Item::Key(chars) => chars.0,
        };
        if let Some(path) = dotted(&self.stack, [], MAX_KNOWN_KEY) {
            self.found.value(&path, &item);
        }
        let stack = &self.stack;
        self.anchors
            .keep(|frame| frame_path(&stack[frame..]), &item)
            .map_err(|message| (message, at))?;
        if matches!(item, Item::Scalar(_)) {
            self.after_value();
        }
        Ok(())
    }

    fn alias(&mut self, anchor: usize, chars: (usize, usize)) -> Result<(), ReadError> {
        let node = self.node_of_anchor.get(&anchor).copied();
        let is_list = node.is_some_and(|node| self.lists.contains_key(&node));
        if self.stack.last().is_some_and(Frame::expects_merge) {
            let in_list = matches!(self.stack.last(), Some(Frame::Seq { .. }));
            // Cloned only here: an alias merges a list's mappings, elsewhere it only
            // needs to know that the node is a list.
            let list = node.and_then(|node| self.lists.get(&node).cloned());
            return match (list, in_list) {
                _ if self.scalars.contains_key(&anchor) => {
                    Err((not_mergeable("a scalar"), chars.0).into())
                }
                (Some(_), true) => Err((not_mergeable("a list in the list"), chars.0).into()),
                (Some(Err(found)), false) => Err((not_mergeable(found), chars.0).into()),
                // An anchored list merges as if its mappings were written there as a
                // `<<` list (PyYAML's `flatten_mapping` reads the same node).
                (Some(Ok(mappings)), false) => {
                    if let Some(Frame::Map { sources, .. }) = self.stack.last_mut() {
                        sources.push(mappings);
                    }
                    self.merge_done();
                    Ok(())
                }
                (None, _) => {
                    if let Some(node) = node {
                        self.link(node);
                    }
                    // In a list, the list's end closes the merge.
                    if !in_list {
                        self.merge_done();
                    }
                    Ok(())
                }
            };
        }
        if self.stack.last().is_some_and(Frame::expects_key) && !self.scalars.contains_key(&anchor)
        {
            return Err((UNHASHABLE_KEY.to_owned(), chars.0).into());
        }
        let item = match (node, is_list) {
            (Some(node), false) => Ok(node),
            _ if self.scalars.contains_key(&anchor) => Err("a scalar in the list"),
            _ => Err("a list in the list"),
        };
        self.in_anchored_list(item);
        if let Some(node) = node {
            self.link(node);
        }
        if let Some((value, quoted)) = self.scalars.get(&anchor).cloned() {
            let merge_key = self.merge_anchors.contains(&anchor);
            return match (self.stack.last().is_some_and(Frame::expects_key), merge_key) {
                (true, true) => {
                    self.merge_key();
                    Ok(())
                }
                (true, false) => self.key(value.clone(), (&value, quoted), chars),
                (false, true) => Err((merge_tag_value(), chars.0).into()),
                (false, false) => self.value(Item::Scalar((value, quoted, chars))),
            };
        }
        self.value(Item::Container(chars))?;
        if let Some(items) = node.and_then(|node| self.anchors.items(node)) {
            // The mapping, as if written here: a copy, counted against the bound.
            self.anchors
                .spend(items.len())
                .map_err(|message| (message, chars.0))?;
            self.place(self.stack.len(), &items, chars)?;
        }
        self.after_value();
        Ok(())
    }

    fn start(
        &mut self,
        node: NodeKind,
        anchor: usize,
        tag: Option<&Tag>,
        chars: (usize, usize),
    ) -> Result<(), ReadError> {
        if let Some(message) = refusal(tag, node) {
            return Err(ReadError {
                message,
                at: chars.0,
                refused_tag: true,
            });
        }
        let is_map = node == NodeKind::Mapping;
        let top = self.stack.last();
        if top.is_some_and(Frame::expects_key) {
            return Err((UNHASHABLE_KEY.to_owned(), chars.0).into());
        }
        let id = self.shape.node(is_map, chars.0);
        if anchor > 0 {
            self.node_of_anchor.insert(anchor, id);
        }
        if top.is_some_and(Frame::expects_merge) {
            let in_list = matches!(top, Some(Frame::Seq { .. }));
            if is_map {
                self.link(id);
                self.stack.push(Frame::map(id));
                self.anchors.open(self.stack.len() - 1, id);
            } else if in_list {
                return Err((not_mergeable("a list in the list"), chars.0).into());
            } else {
                // A `<<` list: its mappings are merged when it ends.
                self.stack.push(Frame::Seq {
                    node: id,
                    merging: Some(Vec::new()),
                });
            }
            return Ok(());
        }
        self.link(id);
        self.value(Item::Container(chars))?;
        // A mapping in an anchored list is kept too: `<<: *list` merges it.
        let in_list = self.in_anchored_list(if is_map {
            Ok(id)
        } else {
            Err("a list in the list")
        });
        if is_map {
            self.stack.push(Frame::map(id));
            if anchor > 0 || in_list {
                self.anchors.open(self.stack.len() - 1, id);
            }
        } else {
            self.stack.push(Frame::Seq {
                node: id,
                merging: None,
            });
            if anchor > 0 {
                self.lists.insert(id, Ok(Vec::new()));
            }
        }
        Ok(())
    }

    /// Notes an item of the list being read, when it is anchored: a mapping (by node), or
    /// what else it is (`Err`), which makes the list one that `<<` cannot merge. Whether
    /// the list is anchored.
    fn in_anchored_list(&mut self, item: Result<usize, &'static str>) -> bool {
        let Some(Frame::Seq { node, .. }) = self.stack.last() else {
            return false;
        };
        let Some(Ok(mappings)) = self.lists.get_mut(node) else {
            return self.lists.contains_key(node);
        };
        match item {
            Ok(mapping) => mappings.push(mapping),
            Err(found) => {
                self.lists.insert(*node, Err(found));
            }
        }
        true
    }

    /// Mapping or list `id` (new, or named by an alias) in [`Shape`], where the stack
    /// stands: a key's value, a list's item, or what a `<<` merges.
    fn link(&mut self, id: usize) {
        match self.stack.last_mut() {
            Some(Frame::Seq {
                merging: Some(list),
                ..
            }) => list.push(id),
            Some(Frame::Seq { node, .. }) => self.shape.item(*node, id),
            Some(Frame::Map {
                merging: true,
                expecting_key: false,
                sources,
                ..
            }) => sources.push(vec![id]),
            Some(Frame::Map {
                node,
                expecting_key: false,
                ..
            }) => self.shape.value(*node, id),
            _ => {}
        }
    }

    fn end(&mut self, chars: (usize, usize)) -> Result<(), ReadError> {
        let Some(top) = self.stack.len().checked_sub(1) else {
            return Ok(());
        };
        if let Some(Frame::Map {
            node,
            sources,
            seen,
            ..
        }) = self.stack.last_mut()
            && !sources.is_empty()
        {
            let (node, seen) = (*node, std::mem::take(seen));
            let sources = std::mem::take(sources);
            self.shape.merges(node, sources.clone());
            let merged = self
                .anchors
                .merged(&sources, &seen)
                .map_err(|m| (m, chars.0))?;
            self.place(top, &merged.items, chars)?;
            for contested in &merged.contested {
                self.found.contested(&self.stack[..top], contested);
            }
        }
        self.anchors.close(top);
        let ended = self.stack.pop();
        match (ended, self.stack.last_mut()) {
            // A mapping in a `<<` list: the list's end closes the merge.
            (
                Some(Frame::Map { .. }),
                Some(Frame::Seq {
                    merging: Some(_), ..
                }),
            ) => {}
            // A `<<` list or mapping, read.
            (
                Some(Frame::Seq {
                    merging: Some(list),
                    ..
                }),
                Some(Frame::Map { sources, .. }),
            ) => {
                sources.push(list);
                self.merge_done();
            }
            (Some(Frame::Map { .. }), Some(parent)) if parent.expects_merge() => self.merge_done(),
            _ => self.after_value(),
        }
        Ok(())
    }

    /// The `<<` key's value is read: the mapping expects its next key.
    fn merge_done(&mut self) {
        if let Some(Frame::Map { merging, .. }) = self.stack.last_mut() {
            *merging = false;
        }
        self.after_value();
    }

    /// `items` (paths relative to the value that frames `..upto` read) placed there, as if
    /// written there: kept for their known keys and in the mappings being kept.
    fn place(
        &mut self,
        upto: usize,
        items: &[(Path, Item)],
        chars: (usize, usize),
    ) -> Result<(), ReadError> {
        let base = dotted(&self.stack[..upto], [], MAX_PATH);
        for (path, item) in items {
            if let Some(base) = &base {
                let limit = match item {
                    Item::Key(_) => MAX_PATH,
                    _ => MAX_KNOWN_KEY,
                };
                let more = path.iter().map(|k| Some(k.as_str()));
                match (joined(base.clone(), more, limit), item) {
                    (Some(full), Item::Key(at)) => self.found.key(full, *at),
                    (Some(full), _) => self.found.value(&full, item),
                    (None, _) => {}
                }
            }
            let stack = &self.stack;
            self.anchors
                .keep(
                    |frame| {
                        let mut p = frame_path(stack.get(frame..upto)?)?;
                        p.extend(path.iter().cloned());
                        Some(p)
                    },
                    item,
                )
                .map_err(|message| (message, chars.0))?;
        }
        Ok(())
    }

    /// The merge key (`<<`) is read: its value is what to merge into the mapping. It is
    /// never a key of the mapping, nor a duplicate.
    fn merge_key(&mut self) {
        if let Some(Frame::Map {
            key,
            expecting_key,
            merging,
            ..
        }) = self.stack.last_mut()
        {
            (*key, *expecting_key, *merging) = (Some("<<".to_owned()), false, true);
        }
    }

    /// After a value, the enclosing mapping expects a key.
    fn after_value(&mut self) {
        if let Some(Frame::Map { expecting_key, .. }) = self.stack.last_mut() {
            *expecting_key = true;
        }
    }
}
