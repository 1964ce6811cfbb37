//! Reading verl's known keys out of a Hydra YAML config, with byte spans.
//!
//! The YAML is read as a stream of events (`saphyr-parser`, in the `events` module),
//! never as a tree: only the scalars at the paths of [`super::keys::KEYS`] are kept, with
//! every key path. An alias of an anchored scalar reads as that scalar; an alias of an
//! anchored mapping, or a `<<` merge of one, reads as the mapping written there, as
//! OmegaConf's loader (PyYAML's `SafeLoader`) builds it (the `anchors` module: what
//! anchored mappings hold is kept, bounded by [`MAX_ANCHORED_ITEMS`]); a `<<` of an
//! anchored list merges the mappings it holds, as a `<<` list written there would. A
//! second document is an error, as Hydra's load of the file makes it. A key written twice
//! in one mapping is an error, as OmegaConf's loader makes it (`found duplicate key`):
//! Hydra, and verl, stop there. Tags are read as OmegaConf's loader constructs them, and
//! one it stops at is an error too (the `tag` module); so is a scalar it stops at for what
//! it holds (the `refusals` module: a value PyYAML cannot construct, a string whose `${`
//! OmegaConf's grammar refuses), and a tab PyYAML's scanner refuses (the `tabs` module).

use std::collections::HashMap;

use super::keys::KeyId;
use resource_pool_core::source::Span;
pub use resource_pool_inventory::yaml_text::MAX_PAIRED_SCALARS;
use resource_pool_inventory::yaml_text::{Shifts, TextError, char_to_byte, parse_joining_pairs};

#[cfg(test)]
mod anchor_diff_tests;
mod anchors;
mod construct;
mod construction;
mod events;
mod found;
mod frames;
mod merge_order;
mod refusals;
mod tabs;
#[cfg(test)]
mod tabs_diff_tests;
mod tag;

pub use self::anchors::MAX_ANCHORED_ITEMS;
pub use self::construction::MAX_MERGED_PAIRS;
use self::tag::written_tag;

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
    /// Hydra's escapes on the command line (`a\,b`, `\ 2`): the value is a string.
    Escapes,
}

/// What a YAML file says about the known keys.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct YamlValues {
    /// The scalar of each key the file sets.
    pub values: HashMap<KeyId, RawScalar>,
    /// A known key set to a mapping or a list (not a scalar): its span.
    pub not_scalar: HashMap<KeyId, Span>,
    /// Every dotted key path the file has (through mappings, and those aliases and `<<`
    /// merges bring), at most [`MAX_KEYS`] of them, each at most 256 bytes.
    pub keys: Vec<String>,
    /// Where each of `keys` stands (its last part), in bytes.
    pub key_spans: Vec<Span>,
    /// The top-level `defaults:` list: `(group, option)` items (`actor@actor_rollout_ref.actor:
    /// dp_actor`, `override model_engine: megatron`) and bare names (`ppo_trainer`, `_self_`)
    /// with no group.
    pub defaults: Vec<(Option<String>, String)>,
    /// The pool keys whose value from a `<<` list depends on PyYAML's release.
    pub merge_order: Vec<MergeOrder>,
}

/// A pool key whose value comes from a `<<` list that two of its mappings give it (or a
/// section holding it): PyYAML up to 6.0.3, and omegaconf 2.4, take the first mapping's,
/// which the reading takes too; PyYAML 6.0.4 (2026-11-20) takes the last's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergeOrder {
    /// The key.
    pub key: KeyId,
    /// Its value as read (`None`: the first mapping does not set it).
    pub used: Option<String>,
    /// Its value under PyYAML 6.0.4 (`None`: not set).
    pub newer: Option<String>,
    /// Where the value read is written, else the other (bytes).
    pub span: Span,
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

/// The known keys of `text`, or the first syntax error (JSON's surrogate pairs read as
/// one character each, as `yaml_text::parse_joining_pairs` reads them).
pub fn read_yaml(text: &str) -> Result<YamlValues, YamlError> {
    // Whether the error is a refused tag: the parse's error channel carries words only.
    let mut refused_tag = false;
    let read = parse_joining_pairs(text, |source, shifts| {
        read_source(source, text, shifts).map_err(|error| {
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
/// `text`), its positions turned into bytes of `text`.
fn read_source(source: &str, text: &str, shifts: &Shifts) -> Result<YamlValues, ReadError> {
    let found = events::read_events(source)?;
    let mut wanted: Vec<usize> = Vec::new();
    for (_, _, (a, b)) in found.values.values() {
        wanted.extend([*a, *b]);
    }
    for (a, b) in found.not_scalar.values().chain(&found.key_chars) {
        wanted.extend([*a, *b]);
    }
    for m in &found.merge_order {
        wanted.extend([m.chars.0, m.chars.1]);
    }
    let in_text: Vec<usize> = wanted.iter().map(|&c| shifts.original(c)).collect();
    let bytes = char_to_byte(text, &in_text);
    let at: HashMap<usize, usize> = wanted.into_iter().zip(bytes).collect();
    let span =
        |(a, b): (usize, usize)| at.get(&a).copied().unwrap_or(0)..at.get(&b).copied().unwrap_or(0);
    Ok(YamlValues {
        values: found
            .values
            .into_iter()
            .map(|(id, (text, string, chars))| {
                let span = span(chars);
                (id, RawScalar { text, string, span })
            })
            .collect(),
        not_scalar: found
            .not_scalar
            .into_iter()
            .map(|(id, chars)| (id, span(chars)))
            .collect(),
        keys: found.keys,
        key_spans: found.key_chars.into_iter().map(span).collect(),
        defaults: found.defaults,
        merge_order: found
            .merge_order
            .into_iter()
            .map(|m| MergeOrder {
                key: m.key,
                used: m.used,
                newer: m.newer,
                span: span(m.chars),
            })
            .collect(),
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
    fn aliases_and_merges_read_as_omegaconf_builds_them() {
        use super::super::keys::RM_NNODES;
        // Each document's values as omegaconf 2.4.0 loads it (PyYAML's SafeLoader): the
        // mapping's own keys win over merged ones, a later `<<` over an earlier one, the
        // first mapping of a `<<` list over the later ones; a merge is shallow.
        let cases: &[(&str, &[(KeyId, &str)])] = &[
            (
                "base: &b\n  nnodes: 4\ntrainer:\n  <<: *b\n",
                &[(NNODES, "4")],
            ),
            ("base: &b\n  nnodes: 4\ntrainer: *b\n", &[(NNODES, "4")]),
            (
                "base: &b\n  nnodes: 4\ntrainer:\n  <<: *b\n  nnodes: 2\n",
                &[(NNODES, "2")],
            ),
            (
                "base: &b\n  nnodes: 4\ntrainer:\n  nnodes: 2\n  <<: *b\n",
                &[(NNODES, "2")],
            ),
            (
                "a: &a\n  nnodes: 4\nb: &c\n  nnodes: 5\n  n_gpus_per_node: 3\ntrainer:\n  <<: [*a, *c]\n",
                &[(NNODES, "4"), (N_GPUS_PER_NODE, "3")],
            ),
            (
                "a: &a {nnodes: 1}\nb: &b {nnodes: 2}\ntrainer:\n  <<: *a\n  <<: *b\n",
                &[(NNODES, "2")],
            ),
            (
                "a: &a {nnodes: 1, n_gpus_per_node: 3}\nb: &b\n  <<: *a\n  nnodes: 2\ntrainer:\n  <<: *b\n",
                &[(NNODES, "2"), (N_GPUS_PER_NODE, "3")],
            ),
            (
                "trainer:\n  <<: [{nnodes: 3}, {nnodes: 5, n_gpus_per_node: 6}]\n",
                &[(NNODES, "3"), (N_GPUS_PER_NODE, "6")],
            ),
            ("trainer:\n  <<: {nnodes: 7}\n", &[(NNODES, "7")]),
            (
                "x:\n  y: &y\n    nnodes: 9\ntrainer:\n  <<: *y\n",
                &[(NNODES, "9")],
            ),
            (
                "trainer: &t\n  nnodes: 4\nreward_model:\n  <<: *t\n  enable: true\n",
                &[(NNODES, "4"), (RM_NNODES, "4"), (RM_ENABLE, "true")],
            ),
            // Shallow: the mapping's own `trainer` holds no nnodes, so none is merged.
            (
                "base: &b\n  trainer: {nnodes: 4}\n<<: *b\ntrainer: {n_gpus_per_node: 2}\n",
                &[(N_GPUS_PER_NODE, "2")],
            ),
            // A quoted `<<` is a key like any other.
            ("trainer:\n  \"<<\": {nnodes: 3}\n", &[]),
            // An anchored list merges as the `<<` list of its mappings.
            (
                "a: &a {nnodes: 4}\nl: &l [*a, {nnodes: 5, n_gpus_per_node: 6}]\ntrainer:\n  <<: *l\n",
                &[(NNODES, "4"), (N_GPUS_PER_NODE, "6")],
            ),
        ];
        for (text, expected) in cases {
            let y = read_yaml(text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
            let got: HashMap<KeyId, &str> = y
                .values
                .iter()
                .map(|(id, v)| (*id, v.text.as_str()))
                .collect();
            let expected: HashMap<KeyId, &str> = expected.iter().copied().collect();
            assert_eq!(got, expected, "{text}");
            // A merged value's span is where it is written, in the anchored mapping.
            for v in y.values.values() {
                assert_eq!(&text[v.span.clone()], v.text, "{text}");
            }
        }
        // Merged keys are keys of the file, at the place they are merged into.
        let y = read_yaml("base: &b\n  inner: {nnodes: 4}\ntrainer:\n  <<: *b\n").unwrap();
        assert!(
            y.keys.contains(&"trainer.inner.nnodes".to_owned()),
            "{:?}",
            y.keys
        );
        assert!(!y.keys.iter().any(|k| k.contains("<<")), "{:?}", y.keys);
        // A scalar is nothing to merge, nor a list in a `<<` list (PyYAML's
        // ConstructorError).
        for text in [
            "x: &x 3\ntrainer:\n  <<: *x\n",
            "trainer:\n  <<: [1]\n",
            "trainer:\n  <<: 1\n",
            "l: &l [{nnodes: 4}, 3]\ntrainer:\n  <<: *l\n",
            "l: &l [{nnodes: 4}, [{}]]\ntrainer:\n  <<: *l\n",
            "l: &l [{nnodes: 4}]\ntrainer:\n  <<: [*l]\n",
        ] {
            let e = read_yaml(text).unwrap_err();
            assert!(
                e.message
                    .starts_with("expected a mapping or list of mappings for merging"),
                "{text}: {e:?}"
            );
        }
    }

    #[test]
    fn a_pool_key_a_merge_list_gives_twice_is_noted() {
        // PyYAML 6.0.3 (and omegaconf 2.4): the first mapping's `4`; PyYAML 6.0.4: `8`.
        let text =
            "a: &a {nnodes: 4}\nb: &b {nnodes: 8, n_gpus_per_node: 2}\ntrainer:\n  <<: [*a, *b]\n";
        let y = read_yaml(text).unwrap();
        assert_eq!(y.values[&NNODES].text, "4");
        let [m] = &y.merge_order[..] else {
            panic!("{:?}", y.merge_order)
        };
        assert_eq!(
            (m.key, m.used.as_deref(), m.newer.as_deref()),
            (NNODES, Some("4"), Some("8"))
        );
        assert_eq!(&text[m.span.clone()], "4");
        // A section two mappings bring: each pool key under it that differs.
        let text = "a: &a {trainer: {nnodes: 4, device: npu}}\nb: &b {trainer: {nnodes: 4}}\n<<: [*a, *b]\n";
        let y = read_yaml(text).unwrap();
        let noted: Vec<_> = y
            .merge_order
            .iter()
            .map(|m| (m.key, m.newer.clone()))
            .collect();
        assert_eq!(noted, [(DEVICE, None)]);
        // Not when the mapping's own key, or only one mapping, gives it; nor across two
        // `<<` keys (a later one wins in every release).
        for text in [
            "a: &a {nnodes: 4}\nb: &b {nnodes: 8}\ntrainer:\n  <<: [*a, *b]\n  nnodes: 2\n",
            "a: &a {nnodes: 4}\nb: &b {device: npu}\ntrainer:\n  <<: [*a, *b]\n",
            "a: &a {nnodes: 4}\nb: &b {nnodes: 8}\ntrainer:\n  <<: *a\n  <<: *b\n",
            "a: &a {nnodes: 4}\nb: &b {nnodes: 4}\ntrainer:\n  <<: [*a, *b]\n",
        ] {
            assert_eq!(read_yaml(text).unwrap().merge_order, [], "{text}");
        }
    }

    #[test]
    fn the_merge_tag_is_read_as_pyyaml_resolves_it() {
        // What PyYAML 6.0.3 under OmegaConf 2.3.0 does (checked 2026-12-06): a key tagged
        // `!!merge` merges whatever its text, as does `<<` plain or under the non-specific
        // `!` (quoted or not); a quoted or `!!str` `<<` is a key; a plain `<<` anywhere but
        // a key has no constructor.
        let base = "base: &b {nnodes: 3}\ntrainer:\n  ";
        for key in [
            "!!merge <<",
            "!!merge other",
            "!<tag:yaml.org,2002:merge> '<<'",
            "! <<",
            "! '<<'",
        ] {
            let y = read_yaml(&format!("{base}{key}: *b\n")).unwrap();
            assert_eq!(y.values[&NNODES].text, "3", "{key}");
            assert!(!y.keys.iter().any(|k| k.starts_with("trainer.<")), "{key}");
        }
        for key in ["'<<'", "!!str <<"] {
            let y = read_yaml(&format!("{base}{key}: *b\n")).unwrap();
            assert!(!y.values.contains_key(&NNODES), "{key}");
            assert!(
                y.keys.iter().any(|k| k == "trainer.<<"),
                "{key}: {:?}",
                y.keys
            );
        }
        for (text, at) in [
            ("trainer:\n  nnodes: <<\n", "<<"),
            ("defaults:\n  - <<\n", "<<"),
            ("trainer:\n  nnodes: !!merge 2\n", "!!merge"),
        ] {
            let e = read_yaml(text).unwrap_err();
            assert!(
                e.message
                    .contains("no constructor for the tag `tag:yaml.org,2002:merge`"),
                "{text}: {}",
                e.message
            );
            assert!(text[e.span.start..].starts_with(at), "{text}: {:?}", e.span);
        }
        // The merged value must still be a mapping.
        let e = read_yaml("trainer:\n  !!merge <<: 2\n").unwrap_err();
        assert!(e.message.contains("but found a scalar"), "{}", e.message);
    }

    #[test]
    fn merges_that_multiply_are_bounded() {
        // Each level merges the one before twice, under two keys: 2^40 values if expanded.
        let mut text = "l0: &l0 {nnodes: 1, n_gpus_per_node: 2}\n".to_owned();
        for i in 1..=40 {
            text.push_str(&format!(
                "l{i}: &l{i} {{a: {{<<: *l{}}}, b: {{<<: *l{}}}}}\n",
                i - 1,
                i - 1
            ));
        }
        text.push_str("trainer:\n  <<: *l40\n");
        let e = read_yaml(&text).unwrap_err();
        assert!(e.message.contains(&MAX_ANCHORED_ITEMS.to_string()), "{e:?}");
    }

    #[test]
    fn a_key_twice_counts_only_as_a_string() {
        // omegaconf 2.3.0: `1:` or `true:` twice is the later value (its duplicate check
        // counts string keys only); `'1':` twice is its error.
        assert!(read_yaml("1: a\n1: b\ntrue: 1\ntrue: 2\n").is_ok());
        let e = read_yaml("'1': a\n'1': b\n").unwrap_err();
        assert!(e.message.starts_with("found duplicate key `1`"), "{e:?}");
    }

    #[test]
    fn null_keys_are_refused_and_keys_are_typed_by_their_tags() {
        // OmegaConf 2.3.0 (checked 2026-12-06): a null key is a KeyValidationError
        // ("Incompatible key type 'NoneType'"), anywhere in the file.
        for (text, at) in [
            ("trainer:\n  ~: a\n  nnodes: 2\n", "~"),
            ("x:\n  - null: 1\n", "null"),
            ("trainer:\n  !!null x: 1\n", "!!null"),
            ("trainer:\n  ? \n  : 1\n", ": 1"),
        ] {
            let e = read_yaml(text).unwrap_err();
            assert!(e.message.contains("NoneType"), "{text}: {e:?}");
            assert!(text[e.span.start..].starts_with(at), "{text}: {e:?}");
        }
        assert!(read_yaml("trainer:\n  '~': a\n  !!str null: b\n").is_ok());
        // The duplicate check counts string keys only, a key's tag saying which it is.
        for text in ["t:\n  !!str 1: a\n  '1': b\n", "t:\n  x: 1\n  ! x: 2\n"] {
            let e = read_yaml(text).unwrap_err();
            assert!(e.message.contains("duplicate key"), "{text}: {e:?}");
        }
        for text in ["t:\n  true: 1\n  'true': 2\n", "t:\n  '1': 1\n  1: 2\n"] {
            assert!(read_yaml(text).is_ok(), "{text}");
        }
    }

    #[test]
    fn container_keys_are_refused() {
        // PyYAML 6.0.3 under OmegaConf 2.3.0 (checked 2026-12-06): "while constructing a
        // mapping ... found unhashable key", written or by alias. Labelled at the key.
        for (text, at) in [
            ("? [a, b]\n: 1\ntrainer:\n  nnodes: 2\n", "[a, b]"),
            ("b: &b [1]\ntrainer:\n  *b : 4\n  nnodes: 2\n", "*b :"),
            ("trainer:\n  {a: 1}: 4\n", "{a: 1}"),
        ] {
            let e = read_yaml(text).unwrap_err();
            assert!(e.message.contains("found unhashable key"), "{text}: {e:?}");
            assert!(text[e.span.start..].starts_with(at), "{text}: {e:?}");
        }
    }

    #[test]
    fn an_alias_of_the_merge_key_is_the_merge_key() {
        // PyYAML reads the alias's node, which carries the merge tag.
        let base = "b: &b {nnodes: 3}\nt:\n  &m <<: *b\ntrainer:\n";
        for key in ["<<", "!!merge x"] {
            let text = base.replace("<<", key);
            let y = read_yaml(&format!("{text}  *m : *b\n")).unwrap();
            assert_eq!(y.values[&NNODES].text, "3", "{key}");
        }
        // Anywhere else it is no value PyYAML constructs.
        for (rest, words) in [
            (
                "  nnodes: *m\n",
                "no constructor for the tag `tag:yaml.org,2002:merge`",
            ),
            (
                "  - *m\n",
                "no constructor for the tag `tag:yaml.org,2002:merge`",
            ),
            ("  <<: *m\n", "but found a scalar"),
        ] {
            let e = read_yaml(&format!("{base}{rest}")).unwrap_err();
            assert!(e.message.contains(words), "{rest}: {e:?}");
        }
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
