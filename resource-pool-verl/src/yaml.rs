//! Reading verl's known keys out of a Hydra YAML config, with byte spans.
//!
//! The YAML is read as a stream of events (`saphyr-parser`, in the `events` module),
//! never as a tree: only the scalars at the paths of [`super::keys::KEYS`] are kept, with
//! every key path and the top-level `defaults:` list. A quoted scalar is a string; an
//! alias of an anchored scalar reads as that scalar. What the reader does not read is
//! marked so, not modelled: a tagged value ([`Unread::Tag`]), and the keys an alias of a
//! mapping or a `<<` merge brings ([`YamlValues::unread`]). Whether OmegaConf's loader takes
//! the file at all (tags, merges, duplicate keys, tabs) is Hydra's to say when verl starts;
//! the first document is read.

use std::collections::HashMap;

use super::keys::KeyId;
use resource_pool_core::source::Span;
pub use resource_pool_inventory::yaml_text::MAX_PAIRED_SCALARS;
use resource_pool_inventory::yaml_text::{Shifts, TextError, char_to_byte, parse_joining_pairs};

mod events;

/// A scalar as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawScalar {
    /// Its text (quotes removed).
    pub text: String,
    /// What made it a string whatever it reads like, when something did.
    pub string: Option<StringMark>,
    /// Why the reader does not read it, when it does not.
    pub unread: Option<Unread>,
    /// Where it stands, in bytes.
    pub span: Span,
}

impl RawScalar {
    /// Whether it is a string whatever it reads like (quoted).
    pub fn quoted(&self) -> bool {
        self.string.is_some()
    }
}

/// What makes a scalar a string whatever its text reads like: the help for a string where
/// verl needs a number says to undo that very thing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StringMark {
    /// Quotes: `'2'`, `"2"`.
    Quotes,
}

/// A form of value the reader does not read: what verl gets from it is not claimed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Unread {
    /// An interpolation other than `${other.key}` of a key the check reads (a resolver such
    /// as `${oc.env:GPUS}`, a key it does not read).
    Interpolation,
    /// A Hydra sweep (`1,2`): each run of a multirun has its own value.
    Sweep,
    /// A call of one of Hydra's functions: a cast (`int(2)`), a sweep (`choice(1,2)`).
    Function,
    /// A value holding Hydra's escapes (`a\,b`).
    Escape,
    /// A YAML value with a tag (`!!int 2`, `!!str 2`).
    Tag,
    /// What an alias of a mapping (`trainer: *base`) or a `<<` merge may bring into a
    /// mapping.
    Merged,
}

impl std::fmt::Display for Unread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Unread::Interpolation => "an interpolation",
            Unread::Sweep => "a Hydra sweep",
            Unread::Function => "a call of a Hydra function",
            Unread::Escape => "a value with Hydra's escapes",
            Unread::Tag => "a tagged YAML value",
            Unread::Merged => "a YAML alias or `<<` merge",
        })
    }
}

/// What a YAML file says about the known keys.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct YamlValues {
    /// The scalar of each key the file sets.
    pub values: HashMap<KeyId, RawScalar>,
    /// A known key set to a mapping or a list (not a scalar): its span.
    pub not_scalar: HashMap<KeyId, Span>,
    /// The known keys the file does not write that an alias of a mapping or a `<<` merge
    /// may bring: each with the alias or merge key that may, as a scalar marked
    /// [`Unread::Merged`].
    pub unread: HashMap<KeyId, RawScalar>,
    /// Every dotted key path the file has (through mappings), at most [`MAX_KEYS`] of
    /// them, each at most 256 bytes.
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

/// A YAML file that does not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlError {
    /// What the parser said.
    pub message: String,
    /// Where, in bytes.
    pub span: Span,
}

/// The known keys of `text`, or its syntax error (JSON's surrogate pairs read as one
/// character each, as `yaml_text::parse_joining_pairs` reads them).
pub fn read_yaml(text: &str) -> Result<YamlValues, YamlError> {
    parse_joining_pairs(text, |source, shifts| read_source(source, text, shifts))
        .map_err(|TextError { message, span }| YamlError { message, span })
}

/// One parse of `source` (the file, or it with pairs joined: [`Shifts`] maps back to
/// `text`), its positions turned into bytes of `text`.
fn read_source(source: &str, text: &str, shifts: &Shifts) -> Result<YamlValues, (String, usize)> {
    let found = events::read_events(source)?;
    let mut wanted: Vec<usize> = Vec::new();
    for scalar in found.values.values() {
        wanted.extend([scalar.chars.0, scalar.chars.1]);
    }
    let chars = found.not_scalar.values().chain(&found.key_chars);
    for (a, b) in chars.chain(found.brought.iter().map(|(_, c)| c)) {
        wanted.extend([*a, *b]);
    }
    let in_text: Vec<usize> = wanted.iter().map(|&c| shifts.original(c)).collect();
    let bytes = char_to_byte(text, &in_text);
    let at: HashMap<usize, usize> = wanted.into_iter().zip(bytes).collect();
    let span =
        |(a, b): (usize, usize)| at.get(&a).copied().unwrap_or(0)..at.get(&b).copied().unwrap_or(0);
    let values: HashMap<KeyId, RawScalar> = found
        .values
        .into_iter()
        .map(|(id, s)| {
            let span = span(s.chars);
            let (text, string, unread) = (s.text, s.string, s.unread);
            (
                id,
                RawScalar {
                    text,
                    string,
                    unread,
                    span,
                },
            )
        })
        .collect();
    let not_scalar: HashMap<KeyId, Span> = found
        .not_scalar
        .into_iter()
        .map(|(id, chars)| (id, span(chars)))
        .collect();
    let mut unread = HashMap::new();
    for (prefix, chars) in &found.brought {
        for (id, key) in super::keys::KEYS.iter().enumerate() {
            let under = prefix.is_empty() || key.path.starts_with(&format!("{prefix}."));
            if under && !values.contains_key(&id) && !not_scalar.contains_key(&id) {
                let span = span(*chars);
                let written = text.get(span.clone()).unwrap_or("<<").to_owned();
                unread.entry(id).or_insert(RawScalar {
                    text: written,
                    string: None,
                    unread: Some(Unread::Merged),
                    span,
                });
            }
        }
    }
    Ok(YamlValues {
        values,
        not_scalar,
        unread,
        keys: found.keys,
        key_spans: found.key_chars.into_iter().map(span).collect(),
        defaults: found.defaults,
    })
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
    fn what_an_alias_of_a_mapping_or_a_merge_brings_is_not_read() {
        use super::super::keys::{RM_ENABLE, RM_NNODES};
        // The keys under the mapping it stands in that the mapping does not write itself:
        // each is marked not read, at the alias or merge key.
        for (text, at, written) in [
            (
                "base: &b\n  nnodes: 4\ntrainer:\n  <<: *b\n  nnodes: 2\n",
                "<<",
                true,
            ),
            ("base: &b\n  nnodes: 4\ntrainer: *b\n", "*b", false),
            ("trainer:\n  <<: [{nnodes: 3}, {nnodes: 5}]\n", "<<", false),
            ("a: &a {x: 1}\n<<: *a\n", "<<", false),
        ] {
            let y = read_yaml(text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
            let gpus = &y.unread[&N_GPUS_PER_NODE];
            assert_eq!(gpus.unread, Some(Unread::Merged), "{text}");
            assert_eq!(&text[gpus.span.clone()], at, "{text}");
            // A key the mapping writes is read as written.
            assert_eq!(y.values.contains_key(&NNODES), written, "{text}");
            assert_eq!(y.unread.contains_key(&NNODES), !written, "{text}");
            assert!(!y.keys.iter().any(|k| k.contains("<<")), "{:?}", y.keys);
        }
        // Elsewhere (another section, a list) it brings nothing the check reads.
        let y =
            read_yaml("base: &b {nnodes: 4}\nreward_model:\n  <<: *b\n  enable: true\n").unwrap();
        assert!(y.unread.contains_key(&RM_NNODES) && !y.unread.contains_key(&NNODES));
        assert_eq!(y.values[&RM_ENABLE].text, "true");
    }

    #[test]
    fn tagged_values_are_not_read_and_quoted_ones_are_strings() {
        let text = "trainer:\n  nnodes: !!int '2'\n  n_gpus_per_node: ! 8\n  device: 'npu'\n";
        let y = read_yaml(text).unwrap();
        assert_eq!(y.values[&NNODES].unread, Some(Unread::Tag));
        let gpus = &y.values[&N_GPUS_PER_NODE];
        assert_eq!(
            (gpus.text.as_str(), gpus.quoted(), gpus.unread),
            ("8", false, None)
        );
        assert!(y.values[&DEVICE].quoted());
    }

    #[test]
    fn aliases_that_multiply_are_read_once() {
        // The "billion laughs": 2^60 values if aliases were expanded; none is.
        let mut text = "l0: &l0 {nnodes: 1, n_gpus_per_node: 2}\n".to_owned();
        for i in 1..=60 {
            text.push_str(&format!("l{i}: &l{i} {{a: *l{p}, b: *l{p}}}\n", p = i - 1));
        }
        text.push_str("trainer: *l60\n");
        let y = read_yaml(&text).unwrap();
        assert_eq!(y.unread[&NNODES].unread, Some(Unread::Merged));
        assert!(y.keys.len() < 200, "{}", y.keys.len());
    }

    #[test]
    fn odd_keys_make_no_path_and_only_the_first_document_is_read() {
        for text in [
            "? [a, b]\n: 1\ntrainer:\n  nnodes: 2\n",
            "b: &b [1]\ntrainer:\n  *b : 4\n  nnodes: 2\n",
            "trainer:\n  {a: 1}: 4\n  nnodes: 2\n",
            "trainer:\n  nnodes: 2\n---\ntrainer:\n  nnodes: 5\n",
        ] {
            let y = read_yaml(text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
            assert_eq!(y.values[&NNODES].text, "2", "{text}");
        }
    }
}
