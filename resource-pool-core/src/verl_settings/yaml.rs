//! Reading verl's known keys out of a Hydra YAML config, with byte spans.
//!
//! The YAML is read as a stream of events (`saphyr-parser`), never as a tree: only the
//! scalars at the paths of [`super::keys::KEYS`] are kept, so memory stays linear in
//! the input and aliases are never expanded (an alias of an anchored scalar reads as that
//! scalar; an alias of a mapping or a `<<` merge is not followed). A second document is
//! an error, as Hydra's load of the file makes it. A key written twice in one mapping is an error, as OmegaConf's
//! loader makes it (`found duplicate key`): Hydra, and verl, stop there. Tags are read as
//! OmegaConf's loader constructs them, and one it stops at is an error too
//! (the `yaml_tag` module).

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle};

use super::keys::{KEYS, KeyId};
use super::yaml_tag::{NodeKind, refusal, tagged_scalar, written_tag};
use crate::source::Span;
pub use crate::yaml_text::MAX_PAIRED_SCALARS;
use crate::yaml_text::{Shifts, TextError, char_to_byte, parse_joining_pairs};

/// A scalar as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawScalar {
    /// Its text (quotes removed).
    pub text: String,
    /// What made it a string whatever it reads like, when something did.
    pub string: Option<StringMark>,
    /// Where it stands, in bytes.
    pub span: Span,
}

impl RawScalar {
    /// Whether it is a string whatever it reads like (quoted, tagged `!!str`, or cast
    /// with `str()`).
    pub fn quoted(&self) -> bool {
        self.string.is_some()
    }
}

/// A value as the event stream gives it: its text, what made it a string, and where it
/// stands in characters (turned into bytes once, at the end).
type CharScalar = (String, Option<StringMark>, (usize, usize));

/// What makes a scalar a string whatever its text reads like: the help for a string where
/// verl needs a number says to undo that very thing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StringMark {
    /// Quotes: `'2'`, `"2"`.
    Quotes,
    /// YAML's `!!str` tag: `!!str 2`.
    StrTag,
    /// Hydra's `str()` cast on the command line: `str(2)`.
    StrCast,
}

/// What a YAML file says about the known keys.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct YamlValues {
    /// The scalar of each key the file sets.
    pub values: HashMap<KeyId, RawScalar>,
    /// A known key set to a mapping or a list (not a scalar): its span.
    pub not_scalar: HashMap<KeyId, Span>,
    /// Every dotted key path the file has (through mappings), at most [`MAX_KEYS`].
    pub keys: Vec<String>,
    /// Where each of `keys` stands (its last part), in bytes.
    pub key_spans: Vec<Span>,
    /// The top-level `defaults:` list: `(group, option)` items (`actor@actor_rollout_ref.actor:
    /// dp_actor`, `override model_engine: megatron`) and bare names (`ppo_trainer`, `_self_`)
    /// with no group.
    pub defaults: Vec<(Option<String>, String)>,
}

/// The most key paths kept of one file: a bound on memory for hostile input.
pub const MAX_KEYS: usize = 100_000;

/// A YAML file that does not load: a syntax error, a key written twice, or a tag
/// OmegaConf's loader stops at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlError {
    /// What the parser said.
    pub message: String,
    /// Where, in bytes (the whole tag when it is one).
    pub span: Span,
    /// The tag as written (`!custom`), when the file parses and a tag stops the load.
    pub tag: Option<String>,
}

enum Frame {
    Map {
        key: Option<String>,
        expecting_key: bool,
        /// The mapping's scalar keys so far, each with the char index where it stands.
        seen: HashMap<String, usize>,
    },
    Seq,
    /// A mapping or sequence used as a key.
    ComplexKey,
}

/// The known keys of `text`, or the first syntax error (JSON's surrogate pairs read as
/// one character each, as `yaml_text::parse_joining_pairs` reads them).
pub fn read_yaml(text: &str) -> Result<YamlValues, YamlError> {
    // Whether the error is a refused tag: the parse's error channel carries words only.
    let mut refused_tag = false;
    let read = parse_joining_pairs(text, |source, shifts| {
        read_events(source, text, shifts).map_err(|error| {
            refused_tag = error.refused_tag;
            (error.message, error.at)
        })
    });
    read.map_err(|TextError { message, span }| {
        if !refused_tag {
            return YamlError {
                message,
                span,
                tag: None,
            };
        }
        let tag = written_tag(text.get(span.start..).unwrap_or(""));
        YamlError {
            message,
            span: span.start..span.start + tag.len(),
            tag: Some(tag.to_owned()),
        }
    })
}

/// Why one parse stopped: the parser's message (or ours), its char index in the parsed
/// source, and whether it is a tag OmegaConf's loader refuses.
struct ReadError {
    message: String,
    at: usize,
    refused_tag: bool,
}

impl From<(String, usize)> for ReadError {
    fn from((message, at): (String, usize)) -> Self {
        ReadError {
            message,
            at,
            refused_tag: false,
        }
    }
}

/// One parse of `source` (the file, or it with pairs joined: [`Shifts`] maps back to
/// `text`).
fn read_events(source: &str, text: &str, shifts: &Shifts) -> Result<YamlValues, ReadError> {
    let mut parser = Parser::new_from_str(source);
    let mut stack: Vec<Frame> = Vec::new();
    let mut anchors: HashMap<usize, (String, Option<StringMark>)> = HashMap::new();
    // Spans in characters until the end, then converted to bytes in one pass.
    let mut values: HashMap<KeyId, CharScalar> = HashMap::new();
    let mut not_scalar: HashMap<KeyId, (usize, usize)> = HashMap::new();
    let mut keys: Vec<String> = Vec::new();
    let mut key_chars: Vec<(usize, usize)> = Vec::new();
    let mut defaults: Vec<(Option<String>, String)> = Vec::new();
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
                    return Err((
                        "expected a single document in the stream, but found another document"
                            .to_owned(),
                        chars.0,
                    )
                        .into());
                }
            }
            Event::DocumentEnd => {}
            Event::Scalar(value, style, anchor, tag) => {
                if let Some(message) = refusal(tag.as_deref(), NodeKind::Scalar) {
                    return Err(ReadError {
                        message,
                        at: chars.0,
                        refused_tag: true,
                    });
                }
                let quoted = (!matches!(style, ScalarStyle::Plain)).then_some(StringMark::Quotes);
                let value = value.into_owned();
                // A key keeps its text: only values are read as their tag makes them.
                let is_key = matches!(
                    stack.last(),
                    Some(Frame::Map {
                        expecting_key: true,
                        ..
                    })
                );
                let (value, quoted) = match is_key {
                    true => (value, quoted),
                    false => tagged_scalar(tag.as_deref(), value, quoted),
                };
                if anchor > 0 {
                    anchors.insert(anchor, (value.clone(), quoted));
                }
                if note_key_or_default(&stack, &value, &mut keys, &mut defaults) {
                    key_chars.push(chars);
                }
                if let Some(first) = duplicate_key(&mut stack, &value, chars.0) {
                    let line = 1 + source.chars().take(first).filter(|&c| c == '\n').count();
                    return Err((
                        format!("found duplicate key `{value}` (first on line {line})"),
                        chars.0,
                    )
                        .into());
                }
                scalar(&mut stack, &mut values, value, quoted, chars);
            }
            Event::Alias(anchor) => {
                let (value, quoted) = anchors
                    .get(&anchor)
                    .cloned()
                    .unwrap_or_else(|| (String::new(), Some(StringMark::Quotes)));
                if anchors.contains_key(&anchor) {
                    scalar(&mut stack, &mut values, value, quoted, chars);
                } else {
                    // An alias of a container: a value we do not follow.
                    if let Some(id) = value_key(&stack) {
                        not_scalar.insert(id, chars);
                    }
                    after_value(&mut stack);
                }
            }
            Event::MappingStart(_, ref tag) | Event::SequenceStart(_, ref tag) => {
                let is_map = matches!(event, Event::MappingStart(..));
                let node = if is_map {
                    NodeKind::Mapping
                } else {
                    NodeKind::Sequence
                };
                if let Some(message) = refusal(tag.as_deref(), node) {
                    return Err(ReadError {
                        message,
                        at: chars.0,
                        refused_tag: true,
                    });
                }
                let as_key = matches!(
                    stack.last(),
                    Some(Frame::Map {
                        expecting_key: true,
                        ..
                    }) | Some(Frame::ComplexKey)
                );
                if as_key {
                    stack.push(Frame::ComplexKey);
                } else {
                    if let Some(id) = value_key(&stack) {
                        not_scalar.insert(id, chars);
                    }
                    stack.push(if is_map {
                        Frame::Map {
                            key: None,
                            expecting_key: true,
                            seen: HashMap::new(),
                        }
                    } else {
                        Frame::Seq
                    });
                }
            }
            Event::MappingEnd | Event::SequenceEnd => {
                let ended = stack.pop();
                match (ended, stack.last_mut()) {
                    (
                        Some(Frame::ComplexKey),
                        Some(Frame::Map {
                            key, expecting_key, ..
                        }),
                    ) if *expecting_key => {
                        *key = None;
                        *expecting_key = false;
                    }
                    _ => after_value(&mut stack),
                }
            }
            Event::Nothing | Event::StreamStart | Event::StreamEnd => {}
        }
    }
    let mut wanted: Vec<usize> = Vec::new();
    for (_, _, (a, b)) in values.values() {
        wanted.extend([*a, *b]);
    }
    for (a, b) in not_scalar.values().chain(&key_chars) {
        wanted.extend([*a, *b]);
    }
    let in_text: Vec<usize> = wanted.iter().map(|&c| shifts.original(c)).collect();
    let bytes = char_to_byte(text, &in_text);
    let at: HashMap<usize, usize> = wanted.into_iter().zip(bytes).collect();
    let span =
        |(a, b): (usize, usize)| at.get(&a).copied().unwrap_or(0)..at.get(&b).copied().unwrap_or(0);
    Ok(YamlValues {
        values: values
            .into_iter()
            .map(|(id, (text, quoted, chars))| {
                (
                    id,
                    RawScalar {
                        text,
                        string: quoted,
                        span: span(chars),
                    },
                )
            })
            .collect(),
        not_scalar: not_scalar
            .into_iter()
            .map(|(id, chars)| (id, span(chars)))
            .collect(),
        keys,
        key_spans: key_chars.into_iter().map(span).collect(),
        defaults,
    })
}

/// A scalar about to be a mapping key (its dotted path is kept: true), or an item of the
/// top-level `defaults:` list.
fn note_key_or_default(
    stack: &[Frame],
    text: &str,
    keys: &mut Vec<String>,
    defaults: &mut Vec<(Option<String>, String)>,
) -> bool {
    fn top_key(frame: Option<&Frame>) -> Option<&str> {
        match frame {
            Some(Frame::Map {
                key: Some(k),
                expecting_key: false,
                ..
            }) => Some(k.as_str()),
            _ => None,
        }
    }
    match stack {
        [top, Frame::Seq] if top_key(Some(top)) == Some("defaults") => {
            defaults.push((None, text.to_owned()));
        }
        [top, Frame::Seq, item] if top_key(Some(top)) == Some("defaults") => {
            if let Some(group) = top_key(Some(item)) {
                let group = group.strip_prefix("override ").unwrap_or(group);
                defaults.push((Some(group.trim().to_owned()), text.to_owned()));
            }
        }
        _ => {}
    }
    if let Some(Frame::Map {
        expecting_key: true,
        ..
    }) = stack.last()
        && keys.len() < MAX_KEYS
    {
        let mut path = String::new();
        for frame in &stack[..stack.len() - 1] {
            match top_key(Some(frame)) {
                Some(k) => {
                    path.push_str(k);
                    path.push('.');
                }
                None => return false,
            }
            if path.len() > 256 {
                return false;
            }
        }
        path.push_str(text);
        keys.push(path);
        return true;
    }
    false
}

/// A scalar event: a key, a value, or part of something we skip.
fn scalar(
    stack: &mut [Frame],
    values: &mut HashMap<KeyId, CharScalar>,
    text: String,
    quoted: Option<StringMark>,
    chars: (usize, usize),
) {
    match stack.last_mut() {
        Some(Frame::Map {
            key, expecting_key, ..
        }) if *expecting_key => {
            *key = Some(text);
            *expecting_key = false;
        }
        _ => {
            if let Some(id) = value_key(stack) {
                values.insert(id, (text, quoted, chars));
            }
            after_value(stack);
        }
    }
}

/// Where `text` first stood, when it is a key its mapping has had already; else notes it.
/// OmegaConf's loader refuses such a mapping (PyYAML alone would keep the later value).
fn duplicate_key(stack: &mut [Frame], text: &str, at: usize) -> Option<usize> {
    match stack.last_mut() {
        Some(Frame::Map {
            expecting_key: true,
            seen,
            ..
        }) => match seen.get(text) {
            Some(&first) => Some(first),
            None => {
                seen.insert(text.to_owned(), at);
                None
            }
        },
        _ => None,
    }
}

/// After a value, the enclosing mapping expects a key.
fn after_value(stack: &mut [Frame]) {
    if let Some(Frame::Map { expecting_key, .. }) = stack.last_mut() {
        *expecting_key = true;
    }
}

/// The known key a value at this position would set: only through mappings.
fn value_key(stack: &[Frame]) -> Option<KeyId> {
    let mut path = String::new();
    for frame in stack {
        match frame {
            Frame::Map {
                key: Some(key),
                expecting_key: false,
                ..
            } => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
                if path.len() > 64 {
                    return None;
                }
            }
            Frame::Map { .. } | Frame::Seq | Frame::ComplexKey => return None,
        }
    }
    KEYS.iter().position(|k| k.path == path)
}

#[cfg(test)]
mod tests {
    use super::super::keys::{DEVICE, N_GPUS_PER_NODE, NNODES, RM_ENABLE};
    use super::*;

    #[test]
    fn known_keys_with_spans() {
        let text = "trainer:\n  nnodes: 2\n  n_gpus_per_node: \"8\"\n  device: npu # Ascend\nreward_model:\n  enable: True\n  model: {path: x}\n";
        let y = read_yaml(text).unwrap();
        let nnodes = &y.values[&NNODES];
        assert_eq!((nnodes.text.as_str(), nnodes.quoted()), ("2", false));
        assert_eq!(&text[nnodes.span.clone()], "2");
        let gpus = &y.values[&N_GPUS_PER_NODE];
        assert!(gpus.quoted());
        assert_eq!(&text[y.values[&DEVICE].span.clone()], "npu");
        assert_eq!(y.values[&RM_ENABLE].text, "True");
        assert_eq!(y.values.len(), 4);
    }

    #[test]
    fn flow_style_anchors_and_lists() {
        let text = "base: &n 4\ntrainer: {nnodes: *n, n_gpus_per_node: [8, 8]}\nlist:\n  - trainer:\n      nnodes: 9\n";
        let y = read_yaml(text).unwrap();
        assert_eq!(y.values[&NNODES].text, "4");
        assert!(y.not_scalar.contains_key(&N_GPUS_PER_NODE));
        // Inside a list is not the config's `trainer`.
        assert_eq!(y.values.len(), 1);
    }

    #[test]
    fn spans_are_bytes_after_non_ascii_text() {
        let text = "# 中文注释\ntrainer:\n  nnodes: 3\n";
        let y = read_yaml(text).unwrap();
        assert_eq!(&text[y.values[&NNODES].span.clone()], "3");
    }

    #[test]
    fn syntax_errors_point_into_the_file() {
        let text = "trainer:\n  nnodes: [1, 2\n";
        let e = read_yaml(text).unwrap_err();
        assert!(e.span.start <= text.len());
        assert!(!e.message.is_empty());
    }

    #[test]
    fn every_key_path_and_the_defaults_list() {
        let text = "defaults:\n  - ppo_trainer\n  - override model_engine: megatron\n  - actor@actor_rollout_ref.actor: dp_actor\n  - _self_\ntrainer:\n  nnodes: 2\n  extra: {a: 1}\n";
        let y = read_yaml(text).unwrap();
        assert_eq!(
            y.defaults,
            [
                (None, "ppo_trainer".to_owned()),
                (Some("model_engine".to_owned()), "megatron".to_owned()),
                (
                    Some("actor@actor_rollout_ref.actor".to_owned()),
                    "dp_actor".to_owned()
                ),
                (None, "_self_".to_owned()),
            ]
        );
        assert_eq!(
            y.keys,
            [
                "defaults",
                "trainer",
                "trainer.nnodes",
                "trainer.extra",
                "trainer.extra.a"
            ]
        );
    }

    #[test]
    fn json_surrogate_pairs_are_one_character() {
        // Python's json.dumps writes 😀 as a surrogate pair; spans stay in the file.
        let text = "{\"trainer\": {\"experiment_name\": \"run \\ud83d\\ude00 \\\\ud83d \\uD83D\\uDE00\", \"device\": \"\\ud83d\\ude00\", \"nnodes\": 2}}";
        let y = read_yaml(text).unwrap();
        assert_eq!(y.values[&DEVICE].text, "😀");
        assert!(text[y.values[&DEVICE].span.clone()].contains("\\ud83d\\ude00"));
        assert_eq!(&text[y.values[&NNODES].span.clone()], "2");
        // A lone surrogate is an error on its escape.
        for lone in ["\\ud83d", "\\ude00", "\\ud83d\\u0041"] {
            let text = format!("trainer:\n  device: \"a{lone}\"\n");
            let e = read_yaml(&text).unwrap_err();
            assert!(e.message.contains("lone UTF-16 surrogate"), "{}", e.message);
            assert_eq!(&text[e.span.clone()], &lone[..6]);
        }
    }

    #[test]
    fn a_key_twice_in_one_mapping_is_an_error() {
        // OmegaConf 2.3.0's loader: `ConstructorError: ... found duplicate key`.
        let text = "trainer:\n  nnodes: 2\n  device: cuda\n  nnodes: 3\n";
        let e = read_yaml(text).unwrap_err();
        assert_eq!(e.message, "found duplicate key `nnodes` (first on line 2)");
        assert_eq!(e.span.start, text.rfind("nnodes").unwrap());
        let e = read_yaml("a: {x: 1, x: 2}\n").unwrap_err();
        assert!(
            e.message.starts_with("found duplicate key `x`"),
            "{}",
            e.message
        );
        // The same key in other mappings (list items, siblings) is no duplicate.
        for text in [
            "a:\n  x: 1\nb:\n  x: 2\n",
            "- x: 1\n- x: 2\n",
            "x: 1\na:\n  x: 2\n",
        ] {
            assert!(read_yaml(text).is_ok(), "{text}");
        }
    }

    #[test]
    fn complex_keys_are_skipped() {
        let text = "? [a, b]\n: 1\ntrainer:\n  nnodes: 2\n";
        let y = read_yaml(text).unwrap();
        assert_eq!(y.values[&NNODES].text, "2");
    }

    #[test]
    fn one_document_only() {
        // hydra-core 1.3.8 and omegaconf 2.4.0 refuse a second document, even an empty one
        // (PyYAML's ComposerError), and take a first one with its markers.
        for text in [
            "trainer:\n  nnodes: 2\n---\ntrainer:\n  nnodes: 5\n",
            "trainer:\n  nnodes: 2\n---\n",
            "trainer:\n  nnodes: 2\n...\n---\nx: 1\n",
        ] {
            let e = read_yaml(text).unwrap_err();
            assert_eq!(
                e.message,
                "expected a single document in the stream, but found another document"
            );
            assert_eq!(&text[e.span.start..], &text[text.rfind("---").unwrap()..]);
        }
        for text in [
            "---\ntrainer:\n  nnodes: 2\n",
            "trainer:\n  nnodes: 2\n...\n",
            "",
        ] {
            assert!(read_yaml(text).is_ok(), "{text}");
        }
    }
}
