//! YAML tags, as OmegaConf's loader constructs them: PyYAML's `SafeLoader` (with
//! OmegaConf's own float resolver, which tags do not reach). Checked against omegaconf
//! 2.3.0 by `data/verl/yaml_scalars.json` for scalars, and by hand with omegaconf 2.4.0
//! for tags on mappings and sequences.
//!
//! A tag sets a scalar's type whatever its text reads like, or makes the whole file fail
//! to load. What is kept of a tagged scalar is what [`interpret`] and [`is_null`] need
//! to read it as OmegaConf holds it:
//! - `!!str` is a string ([`StringMark::StrTag`]);
//! - `!!int`, `!!bool`, `!!null` become the plain text that reads as their value (`!!int
//!   '8'` is `8`, `!!int ' 8'` is `8` as Python's `int()` reads it, `!!bool TRUE` is
//!   `true`, `!!null` of any text is `null`);
//! - what PyYAML constructs as something no verl key takes (`!!float 8` is `8.0`,
//!   `!!binary`) is the text as written with its tag, `!!float 8`: a value of no kind,
//!   which a pool key reports as `wrong_type` and quotes as written;
//! - an `!!int`, `!!float`, `!!bool` or `!!binary` whose constructor fails (`!!int abc`:
//!   Python's `int()` refuses it; [`super::construct`]) stops the load, wherever it
//!   stands, as does a plain scalar resolved to an integer with no digit (`0x_`);
//! - the non-specific `!` leaves the scalar to be read as a plain one, quoted or not
//!   (`! '8'` is `8`, as PyYAML's parser resolves it);
//! - a tag PyYAML has no constructor for (a local `!custom`, `!!python/int`, `!!merge`
//!   anywhere but on a key, where it makes the key the merge key), one of
//!   another kind of node (`!!seq 8`, `!!str {a: 1}`), or one whose value OmegaConf
//!   refuses (`!!timestamp`, `!!set`), stops the load: an error, wherever in the file it
//!   stands, as OmegaConf's `ConstructorError` or `UnsupportedValueType` stops verl.
//!
//! [`interpret`]: crate::keys::interpret
//! [`is_null`]: crate::keys::is_null

use saphyr_parser::Tag;

use super::StringMark;
use super::construct::{Constructed, construct_bool, construct_int};
use crate::keys::{Kind, interpret};
use resource_pool_inventory::yaml_text::{CORE_TAG, non_specific, tag_name};

/// The kind of node a tag stands on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NodeKind {
    Scalar,
    Mapping,
    Sequence,
}

impl NodeKind {
    fn name(self) -> &'static str {
        match self {
            NodeKind::Scalar => "scalar",
            NodeKind::Mapping => "mapping",
            NodeKind::Sequence => "sequence",
        }
    }
}

/// The tag's full name as PyYAML spells it (`tag:yaml.org,2002:int`, `!custom`), or
/// `None` for no tag and for the non-specific `!`, which PyYAML resolves as if untagged.
fn full_name(tag: Option<&Tag>) -> Option<String> {
    let tag = tag?;
    if non_specific(tag) {
        return None;
    }
    Some(tag_name(tag))
}

/// Why OmegaConf's loader stops at a node with this tag, in words of ours after PyYAML's
/// (`could not determine a constructor`, `expected a mapping node`); `None` when it
/// constructs it.
pub(super) fn refusal(tag: Option<&Tag>, node: NodeKind) -> Option<String> {
    let name = full_name(tag)?;
    let Some(core) = name.strip_prefix(CORE_TAG) else {
        return Some(no_constructor(&name));
    };
    let wanted = match core {
        "str" | "int" | "bool" | "null" | "float" | "binary" => NodeKind::Scalar,
        "map" => NodeKind::Mapping,
        "seq" | "omap" | "pairs" => NodeKind::Sequence,
        // PyYAML makes these a `date` and a `set`, which OmegaConf refuses as values
        // (`UnsupportedValueType`; its loader reads an untagged date as a string).
        "timestamp" => {
            return Some("`!!timestamp` makes a date, which OmegaConf does not take".into());
        }
        "set" => return Some("`!!set` makes a set, which OmegaConf does not take".into()),
        _ => return Some(no_constructor(&name)),
    };
    (wanted != node).then(|| {
        format!(
            "`!!{core}` on a {}: OmegaConf's loader wants a {} there",
            node.name(),
            wanted.name(),
        )
    })
}

pub(super) fn no_constructor(name: &str) -> String {
    format!("OmegaConf's loader has no constructor for the tag `{name}`")
}

/// The tag at the start of `text` (where a refused node starts), as written: `!custom`,
/// `!!seq`, `!<tag:yaml.org,2002:python/int>` (a verbatim tag may hold any character up
/// to its `>`; a shorthand one ends at a blank or a flow indicator).
pub(super) fn written_tag(text: &str) -> &str {
    let end = if text.starts_with("!<") {
        text.find('>').map_or(text.len(), |i| i + 1)
    } else {
        text.find(|c: char| c.is_whitespace() || ",[]{}".contains(c))
            .unwrap_or(text.len())
    };
    &text[..end]
}

/// A scalar's text and what made it a string, once its tag is applied (see the module
/// docs); `quoted` is what its quotes made it. A tag [`refusal`] refuses is not asked
/// about.
pub(super) fn tagged_scalar(
    tag: Option<&Tag>,
    text: String,
    quoted: Option<StringMark>,
) -> (String, Option<StringMark>) {
    let Some(name) = full_name(tag) else {
        return (text, quoted);
    };
    let opaque = |text: &str| format!("!!{} {text}", name.trim_start_matches(CORE_TAG));
    match name.strip_prefix(CORE_TAG) {
        Some("str") => (text, quoted.or(Some(StringMark::StrTag))),
        Some("int") if interpret(&text, false, Kind::Int, true).is_some() => (text, None),
        // Text that is no YAML 1.1 integer but that Python's `int()` takes (`' 8'`,
        // `0o17`): the integer it makes.
        Some("int") => match construct_int(&text) {
            Constructed::Int(n) => (n.to_string(), None),
            _ => (opaque(&text), None),
        },
        Some("bool") => match construct_bool(&text) {
            Constructed::Bool(value) => (value.to_string(), None),
            _ => (opaque(&text), None),
        },
        Some("null") => ("null".to_owned(), None),
        _ => (opaque(&text), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(handle: &str, suffix: &str) -> Tag {
        Tag {
            handle: handle.to_owned(),
            suffix: suffix.to_owned(),
        }
    }

    #[test]
    fn collections_take_their_own_tags_only() {
        // omegaconf 2.4.0: `!!map {a: 1}`, `!!seq [1]`, `!!omap [{a: 1}]` load;
        // `!!str {a: 1}`, `!!map [1]`, `!custom [1]` stop the load.
        let core = |s| tag(CORE_TAG, s);
        assert_eq!(refusal(Some(&core("map")), NodeKind::Mapping), None);
        assert_eq!(refusal(Some(&core("seq")), NodeKind::Sequence), None);
        assert_eq!(refusal(Some(&core("omap")), NodeKind::Sequence), None);
        assert_eq!(refusal(None, NodeKind::Mapping), None);
        assert_eq!(refusal(Some(&tag("", "!")), NodeKind::Sequence), None);
        let refused = [
            (core("str"), NodeKind::Mapping),
            (core("map"), NodeKind::Sequence),
            (core("seq"), NodeKind::Scalar),
            (tag("!", "custom"), NodeKind::Sequence),
            (core("python/int"), NodeKind::Scalar),
            (core("timestamp"), NodeKind::Scalar),
            (core("set"), NodeKind::Mapping),
        ];
        for (t, node) in refused {
            assert!(refusal(Some(&t), node).is_some(), "{t:?} on {node:?}");
        }
        assert_eq!(
            refusal(Some(&tag("!", "custom")), NodeKind::Mapping).as_deref(),
            Some("OmegaConf's loader has no constructor for the tag `!custom`")
        );
        assert_eq!(
            refusal(Some(&core("seq")), NodeKind::Mapping).as_deref(),
            Some("`!!seq` on a mapping: OmegaConf's loader wants a sequence there")
        );
    }

    #[test]
    fn the_tag_as_written() {
        assert_eq!(written_tag("!custom 8"), "!custom");
        assert_eq!(written_tag("!!seq\n  a: 1"), "!!seq");
        assert_eq!(written_tag("!x, 2]"), "!x");
        assert_eq!(
            written_tag("!<tag:yaml.org,2002:python/int> 8"),
            "!<tag:yaml.org,2002:python/int>"
        );
        assert_eq!(written_tag("!<unclosed"), "!<unclosed");
    }

    #[test]
    fn a_scalar_reads_as_its_tag_makes_it() {
        let core = |s| tag(CORE_TAG, s);
        let read = |t: &Tag, text: &str| tagged_scalar(Some(t), text.to_owned(), None);
        assert_eq!(read(&core("int"), "0x1F"), ("0x1F".to_owned(), None));
        assert_eq!(read(&core("int"), "abc"), ("!!int abc".to_owned(), None));
        assert_eq!(read(&core("bool"), "Off"), ("false".to_owned(), None));
        assert_eq!(read(&core("null"), "abc"), ("null".to_owned(), None));
        assert_eq!(read(&core("float"), "8"), ("!!float 8".to_owned(), None));
        assert_eq!(
            read(&core("str"), "8"),
            ("8".to_owned(), Some(StringMark::StrTag))
        );
        // Quoted and tagged `!!str`: the quotes are what the help says to drop first.
        assert_eq!(
            tagged_scalar(Some(&core("str")), "8".into(), Some(StringMark::Quotes)),
            ("8".to_owned(), Some(StringMark::Quotes))
        );
        // A quoted integer tagged `!!int` is the integer.
        assert_eq!(
            tagged_scalar(Some(&core("int")), "8".into(), Some(StringMark::Quotes)),
            ("8".to_owned(), None)
        );
        assert_eq!(
            tagged_scalar(None, "8".into(), Some(StringMark::Quotes)),
            ("8".to_owned(), Some(StringMark::Quotes))
        );
    }
}
