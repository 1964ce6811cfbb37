//! What OmegaConf's load stops at in one scalar for what it holds, once its tag is one
//! the loader constructs ([`super::tag::refusal`]): a scalar PyYAML's constructor fails on
//! (`!!int abc`, a plain `0x_`; [`super::construct`]), a plain `=` as a value (the value
//! tag), and a string value holding `${` that OmegaConf's interpolation grammar refuses
//! ([`crate::omegaconf_grammar`]).

use saphyr_parser::Tag;

use super::ReadError;
use super::construct::{
    Constructed, construct_binary, construct_bool, construct_float, construct_int,
    implicit_int_fails,
};
use super::tag::no_constructor;
use crate::omegaconf_grammar::omegaconf_takes;
use resource_pool_inventory::yaml_text::{CORE_TAG, core_type, non_specific};

/// Why the load stops at a scalar of this `value` (no merge key) that starts at `at`:
/// `plain` when it is read as plain (written so, or under `!`), `is_key` when it is a
/// mapping's key (a key is no value: OmegaConf checks values only).
pub(super) fn refused_scalar(
    tag: Option<&Tag>,
    value: &str,
    plain: bool,
    is_key: bool,
    at: usize,
) -> Option<ReadError> {
    let tagged = tag.filter(|t| !non_specific(t));
    if let Some(message) = construction_failure(tagged, value, plain) {
        // The tag is what to drop (`!!int abc`); a plain `0x_` has none.
        return Some(ReadError {
            message,
            at,
            refused_tag: tagged.is_some(),
        });
    }
    if is_key {
        return None;
    }
    if plain && tagged.is_none() && value == "=" {
        // PyYAML resolves a plain `=` to the value tag, which it has no constructor for;
        // a key keeps it as the string `=` (`flatten_mapping`).
        return Some((no_constructor(&format!("{CORE_TAG}value")), at).into());
    }
    // OmegaConf checks a string value holding `${` against its grammar when it sets it.
    let string = tagged.is_none_or(|t| core_type(t).as_deref() == Some("str"));
    (string && !omegaconf_takes(value)).then(|| {
        let message = format!(
            "OmegaConf's interpolation grammar refuses `{value}` (GrammarParseError): a value holding `${{` must be interpolations it reads, or write `\\${{` for a `${{` of its own"
        );
        (message, at).into()
    })
}

/// Why PyYAML's constructor fails on a scalar of this `text`: under an `!!int`, `!!float`,
/// `!!bool` or `!!binary` tag (`tagged`), or read as plain with no tag and resolved to an integer
/// with no digits (`0x_`). `None` when it constructs, or when its tag is another.
fn construction_failure(tagged: Option<&Tag>, text: &str, plain: bool) -> Option<String> {
    let Some(tag) = tagged else {
        return plain.then(|| implicit_int_fails(text)).flatten();
    };
    let constructed = match core_type(tag)?.as_str() {
        "int" => construct_int(text),
        "float" => construct_float(text),
        "bool" => construct_bool(text),
        "binary" => construct_binary(text),
        _ => return None,
    };
    match constructed {
        Constructed::Fails(why) => Some(why),
        Constructed::Int(_) | Constructed::Bool(_) | Constructed::Other => None,
    }
}
