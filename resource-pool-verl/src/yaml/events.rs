//! One pass over a YAML text's events: the known keys' scalars, every key path, the
//! top-level `defaults:` list, anchored scalars (which their aliases repeat), and where an
//! alias of a mapping or a `<<` merge brings keys in. Positions are in characters of the
//! parsed source.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, Tag};

use super::{MAX_KEYS, StringMark, Unread};
use crate::keys::{KEYS, KeyId};
use resource_pool_inventory::yaml_text::{core_type, non_specific};

/// The longest dotted path kept, in bytes: a key path is at most this long.
const MAX_PATH: usize = 256;

/// A scalar as the events give it, its position in characters.
#[derive(Clone, Debug)]
pub(super) struct CharScalar {
    pub text: String,
    pub string: Option<StringMark>,
    pub unread: Option<Unread>,
    pub chars: (usize, usize),
}

/// What one parse found, positions in characters.
#[derive(Default)]
pub(super) struct Found {
    pub values: HashMap<KeyId, CharScalar>,
    pub not_scalar: HashMap<KeyId, (usize, usize)>,
    /// The dotted paths of the mappings that an alias of a mapping (or a `<<` merge)
    /// brings keys into, with where the alias or merge key stands.
    pub brought: Vec<(String, (usize, usize))>,
    pub keys: Vec<String>,
    pub key_chars: Vec<(usize, usize)>,
    pub defaults: Vec<(Option<String>, String)>,
}

/// A mapping or list being read.
enum Frame {
    Map {
        /// The key whose value is read; `None` when it is no text (a mapping as a key).
        key: Option<String>,
        expecting_key: bool,
        /// A mapping or list stands as the key: its end leaves the key's value to read.
        key_container: bool,
    },
    Seq,
}

impl Frame {
    fn map() -> Frame {
        Frame::Map {
            key: None,
            expecting_key: true,
            key_container: false,
        }
    }

    /// The key whose value is being read here, when this frame is a mapping reading one.
    fn value_key(&self) -> Option<&str> {
        match self {
            Frame::Map {
                key: Some(k),
                expecting_key: false,
                ..
            } => Some(k),
            _ => None,
        }
    }

    fn expects_key(&self) -> bool {
        matches!(
            self,
            Frame::Map {
                expecting_key: true,
                ..
            }
        )
    }
}

/// The dotted path of the value the frames read, then `more`, when it runs through
/// mappings' keys only (no list, no `<<`) and is at most [`MAX_PATH`] bytes long.
fn dotted(frames: &[Frame], more: Option<&str>) -> Option<String> {
    let mut path = String::new();
    for key in frames.iter().map(Frame::value_key).chain(more.map(Some)) {
        let key = key.filter(|k| *k != "<<")?;
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(key);
        if path.len() > MAX_PATH {
            return None;
        }
    }
    Some(path)
}

/// The events of `source`'s first document.
pub(super) fn read_events(source: &str) -> Result<Found, (String, usize)> {
    let mut reader = Reader::default();
    let mut documents = 0;
    let mut parser = Parser::new_from_str(source);
    while let Some(event) = parser.next_event() {
        let (event, span) = event.map_err(|e| (e.info().to_owned(), e.marker().index()))?;
        let chars = (span.start.index(), span.end.index());
        match event {
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    break;
                }
            }
            Event::Scalar(value, style, anchor, tag) => {
                reader.scalar(value.into_owned(), style, anchor, tag.as_deref(), chars)
            }
            Event::Alias(anchor) => reader.alias(anchor, chars),
            Event::MappingStart(..) => reader.start(Frame::map(), chars),
            Event::SequenceStart(..) => reader.start(Frame::Seq, chars),
            Event::MappingEnd | Event::SequenceEnd => reader.end(),
            Event::DocumentEnd | Event::Nothing | Event::StreamStart | Event::StreamEnd => {}
        }
    }
    Ok(reader.found)
}

#[derive(Default)]
struct Reader {
    stack: Vec<Frame>,
    /// Anchored scalars, by anchor.
    scalars: HashMap<usize, CharScalar>,
    found: Found,
}

impl Reader {
    fn scalar(
        &mut self,
        text: String,
        style: ScalarStyle,
        anchor: usize,
        tag: Option<&Tag>,
        chars: (usize, usize),
    ) {
        // Read as plain: written so, or under the non-specific `!`, whatever its quotes.
        let plain = matches!(style, ScalarStyle::Plain) || tag.is_some_and(non_specific);
        let tagged = tag.is_some_and(|t| !non_specific(t));
        let merge_key =
            (plain && text == "<<") || tag.and_then(core_type).as_deref() == Some("merge");
        let scalar = CharScalar {
            text,
            string: (!plain).then_some(StringMark::Quotes),
            unread: tagged.then_some(Unread::Tag),
            chars,
        };
        if anchor > 0 {
            self.scalars.insert(anchor, scalar.clone());
        }
        if self.stack.last().is_some_and(Frame::expects_key) {
            let key = if merge_key {
                "<<".to_owned()
            } else {
                scalar.text
            };
            self.key(Some(key), chars);
        } else {
            self.value(Some(scalar), chars);
        }
    }

    /// A mapping's key (`None`: no text to make a path of); a `<<` merges what its value
    /// names into the mapping, which is not read.
    fn key(&mut self, key: Option<String>, chars: (usize, usize)) {
        let top = self.stack.len() - 1;
        if key.as_deref() == Some("<<") {
            if let Some(path) = dotted(&self.stack[..top], None) {
                self.found.brought.push((path, chars));
            }
        } else if let Some(path) = dotted(&self.stack[..top], key.as_deref())
            && self.found.keys.len() < MAX_KEYS
        {
            self.found.keys.push(path);
            self.found.key_chars.push(chars);
        }
        if let Some(Frame::Map {
            key: slot,
            expecting_key,
            ..
        }) = self.stack.last_mut()
        {
            (*slot, *expecting_key) = (key, false);
        }
    }

    /// A value where the stack stands (`None`: a mapping or list): kept for its known key,
    /// or as an item of the top-level `defaults:` list.
    fn value(&mut self, scalar: Option<CharScalar>, chars: (usize, usize)) {
        if let Some(id) = dotted(&self.stack, None).and_then(|p| known(&p)) {
            match &scalar {
                Some(s) => {
                    self.found.values.insert(id, s.clone());
                }
                None => {
                    self.found.not_scalar.insert(id, chars);
                }
            }
        }
        if let Some(s) = &scalar {
            self.default_item(&s.text);
            self.after_value();
        }
    }

    /// An item of the top-level `defaults:` list: `name`, or `group: option` (`override
    /// group: option`).
    fn default_item(&mut self, text: &str) {
        match &self.stack[..] {
            [top, Frame::Seq] if top.value_key() == Some("defaults") => {
                self.found.defaults.push((None, text.to_owned()));
            }
            [top, Frame::Seq, item] if top.value_key() == Some("defaults") => {
                if let Some(group) = item.value_key() {
                    let group = group.strip_prefix("override ").unwrap_or(group);
                    let item = (Some(group.trim().to_owned()), text.to_owned());
                    self.found.defaults.push(item);
                }
            }
            _ => {}
        }
    }

    fn alias(&mut self, anchor: usize, chars: (usize, usize)) {
        let scalar = self.scalars.get(&anchor).cloned();
        if self.stack.last().is_some_and(Frame::expects_key) {
            self.key(scalar.map(|s| s.text), chars);
            return;
        }
        match scalar {
            Some(scalar) => self.value(Some(CharScalar { chars, ..scalar }), chars),
            None => {
                // A mapping or list: what it holds is not read here.
                if let Some(path) = dotted(&self.stack, None) {
                    self.found.brought.push((path, chars));
                }
                self.value(None, chars);
                self.after_value();
            }
        }
    }

    fn start(&mut self, frame: Frame, chars: (usize, usize)) {
        match self.stack.last_mut() {
            Some(Frame::Map {
                key,
                expecting_key: expecting @ true,
                key_container,
            }) => {
                // A mapping or list as a key: no path runs through it.
                (*key, *expecting, *key_container) = (None, false, true);
            }
            _ => self.value(None, chars),
        }
        self.stack.push(frame);
    }

    fn end(&mut self) {
        self.stack.pop();
        match self.stack.last_mut() {
            Some(Frame::Map {
                key_container: key_container @ true,
                ..
            }) => *key_container = false,
            _ => self.after_value(),
        }
    }

    /// After a value, the enclosing mapping expects a key.
    fn after_value(&mut self) {
        if let Some(Frame::Map { expecting_key, .. }) = self.stack.last_mut() {
            *expecting_key = true;
        }
    }
}

/// The known key at a dotted path.
fn known(path: &str) -> Option<KeyId> {
    KEYS.iter().position(|k| k.path == path)
}
