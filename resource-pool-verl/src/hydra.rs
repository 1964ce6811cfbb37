//! Hydra's command-line overrides, in the forms verl users type: `a.b=1`, `+a.b=1`,
//! `++a.b=1`, `~a.b`, quoted strings, lists, `${other.key}`.
//!
//! A value is read in the forms the pool keys take: a number, a boolean, null, a quoted
//! string, a list or dict (no scalar), an interpolation. A value in another form Hydra
//! gives a meaning to (a sweep `1,2`, a function such as `int(2)` or `choice(1,2)`, an
//! escape `a\,b`) is kept as written and marked [`Unread`]: the check does not claim what
//! verl gets from it. Whether Hydra takes a value at all is Hydra's to say, at once, when
//! verl starts.
//!
//! The overrides are one text, joined by single spaces (the "command line" source), and
//! every span points into it.

use super::shell_expansion::shell_expansion;
use super::yaml::{RawScalar, StringMark, Unread};
use resource_pool_core::source::Span;

/// What an override does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `key=value`: change a key the config has.
    Set,
    /// `+key=value`: add a key the config lacks.
    Add,
    /// `++key=value`: set, adding if needed.
    ForceAdd,
    /// `~key`: delete.
    Delete,
}

/// One override.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Override {
    /// What it does.
    pub op: Op,
    /// The dotted key.
    pub key: String,
    /// The key's span.
    pub key_span: Span,
    /// The value (none for a bare `~key`).
    pub value: Option<RawScalar>,
    /// The whole override.
    pub span: Span,
}

/// A malformed override.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverrideError {
    /// What is wrong.
    pub problem: OverrideProblem,
    /// The text at fault.
    pub text: String,
    /// Where.
    pub span: Span,
}

/// What is wrong with an override.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum OverrideProblem {
    /// No `=` (and not a `~key`).
    NotAnOverride,
    /// The key is not dotted names.
    NotAKey,
}

impl std::fmt::Display for OverrideProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            OverrideProblem::NotAnOverride => "is not an override: expected `key=value`",
            OverrideProblem::NotAKey => {
                "is not a key: expected dotted names such as `trainer.nnodes`"
            }
        })
    }
}

/// The command-line text the spans of [`parse_overrides`] point into.
pub fn command_line(overrides: &[String]) -> String {
    overrides.join(" ")
}

/// Parses every override of a line of overrides alone; the malformed ones are errors,
/// the rest are returned.
pub fn parse_overrides(overrides: &[String]) -> (Vec<Override>, Vec<OverrideError>) {
    let mut base = 0;
    let words: Vec<(String, usize)> = overrides
        .iter()
        .map(|text| {
            let word = (text.clone(), base);
            base += text.len() + 1;
            word
        })
        .collect();
    parse_words(&words)
}

/// Parses overrides given with their start offsets in the command line.
pub fn parse_words(words: &[(String, usize)]) -> (Vec<Override>, Vec<OverrideError>) {
    let mut parsed = Vec::new();
    let mut errors = Vec::new();
    for (text, base) in words {
        match parse_one(text, *base) {
            Ok(o) => parsed.push(o),
            Err(e) => errors.push(e),
        }
    }
    (parsed, errors)
}

fn parse_one(text: &str, base: usize) -> Result<Override, OverrideError> {
    let whole = base..base + text.len();
    let (op, rest, skip) = if let Some(r) = text.strip_prefix("++") {
        (Op::ForceAdd, r, 2)
    } else if let Some(r) = text.strip_prefix('+') {
        (Op::Add, r, 1)
    } else if let Some(r) = text.strip_prefix('~') {
        (Op::Delete, r, 1)
    } else {
        (Op::Set, text, 0)
    };
    let (key, value) = match rest.split_once('=') {
        Some((k, v)) => (k, Some(v)),
        None if op == Op::Delete => (rest, None),
        None => {
            return Err(OverrideError {
                problem: OverrideProblem::NotAnOverride,
                text: text.to_owned(),
                span: whole,
            });
        }
    };
    let key_start = base + skip;
    let key_span = key_start..key_start + key.len();
    if !is_key(key) {
        return Err(OverrideError {
            problem: OverrideProblem::NotAKey,
            text: key.to_owned(),
            span: if key.is_empty() { whole } else { key_span },
        });
    }
    let value = value.map(|v| read_value(v, key_span.end + 1));
    Ok(Override {
        op,
        key: key.to_owned(),
        key_span,
        value,
        span: whole,
    })
}

/// Whether `key` is dotted names, as Hydra's keys are (`trainer.nnodes`, `group/name`, a
/// choice's `@package`): letters, digits, `_` and `-`, joined by `.`, `/` or `@`.
fn is_key(key: &str) -> bool {
    key.split(['.', '/', '@']).all(|part| {
        part.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '$'))
    })
}

/// One value, `written` after the `=` that ends at `start`: a quoted string without its
/// quotes; a shell expansion of a pasted line as written (see `resolve`); else the text,
/// marked [`Unread`] when it is a sweep, a function or holds an escape.
fn read_value(written: &str, start: usize) -> RawScalar {
    let value = written.trim();
    let start = start + (written.len() - written.trim_start().len());
    let span = start..start + value.len();
    if let Some(text) = one_quoted(value) {
        return RawScalar {
            text,
            string: Some(StringMark::Quotes),
            unread: None,
            span,
        };
    }
    let unread = if shell_expansion(value).is_some() {
        None
    } else if value.contains('\\') {
        Some(Unread::Escape)
    } else if is_function(value) {
        Some(Unread::Function)
    } else if top_level_commas(value) {
        Some(Unread::Sweep)
    } else {
        None
    };
    RawScalar {
        text: value.to_owned(),
        string: None,
        unread,
        span,
    }
}

/// The text of `value` when it is one quoted string whole (`'a'`, `"a \" b"`), a `\`
/// before its quote undone; not a sweep of them (`"a","b"`).
fn one_quoted(value: &str) -> Option<String> {
    let quote = value.chars().next().filter(|c| matches!(c, '\'' | '"'))?;
    let inner = value.get(1..value.len().checked_sub(1)?)?;
    if !value.ends_with(quote) || value.len() < 2 {
        return None;
    }
    let escaped = format!("\\{quote}");
    let bare = inner.replace(&escaped, "");
    (!bare.contains(quote)).then(|| inner.replace(&escaped, &quote.to_string()))
}

/// Whether `value` is a call of one of Hydra's functions: `int(2)`, `choice(1,2)`,
/// `range(1,3)`, `sort([3,1])` (a name, then parentheses to the end).
fn is_function(value: &str) -> bool {
    let Some((name, _)) = value.split_once('(') else {
        return false;
    };
    !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && value.ends_with(')')
}

/// Whether `value` has a comma outside brackets, quotes and interpolations: Hydra's sweep
/// of several runs' values (`1,2`).
fn top_level_commas(value: &str) -> bool {
    let (mut depth, mut quote) = (0usize, None);
    for c in value.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '[' | '{' | '(') => depth += 1,
            (None, ']' | '}' | ')') => depth = depth.saturating_sub(1),
            (None, ',') if depth == 0 => return true,
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_forms_verl_users_type() {
        let a = args(&[
            "trainer.nnodes=2",
            "+reward_model.nnodes=1",
            "++x.y='a b'",
            "~trainer.device",
            "l=[1,2]",
        ]);
        let line = command_line(&a);
        let (o, e) = parse_overrides(&a);
        assert!(e.is_empty());
        assert_eq!(o[0].op, Op::Set);
        assert_eq!(&line[o[0].key_span.clone()], "trainer.nnodes");
        assert_eq!(&line[o[0].value.as_ref().unwrap().span.clone()], "2");
        assert_eq!(
            (o[1].op, o[1].key.as_str()),
            (Op::Add, "reward_model.nnodes")
        );
        let quoted = o[2].value.as_ref().unwrap();
        assert_eq!(
            (quoted.text.as_str(), quoted.quoted(), o[2].op),
            ("a b", true, Op::ForceAdd)
        );
        assert_eq!((o[3].op, o[3].value.is_none()), (Op::Delete, true));
        let list = o[4].value.as_ref().unwrap();
        assert_eq!((list.text.as_str(), list.unread), ("[1,2]", None));
    }

    #[test]
    fn forms_hydra_gives_a_meaning_to_are_not_read() {
        for (value, unread) in [
            ("1,2", Some(Unread::Sweep)),
            ("\"a\",\"b\"", Some(Unread::Sweep)),
            ("int(2)", Some(Unread::Function)),
            ("choice(1,2)", Some(Unread::Function)),
            ("a\\,b", Some(Unread::Escape)),
            ("[1,2]", None),
            ("{a: 1, b: 2}", None),
            ("${trainer.nnodes}", None),
            ("$((A, B))", None),
            ("'1,2'", None),
        ] {
            let (o, _) = parse_overrides(&args(&[&format!("trainer.nnodes={value}")]));
            assert_eq!(o[0].value.as_ref().unwrap().unread, unread, "{value}");
        }
        let (o, _) = parse_overrides(&args(&["x='it\\'s'"]));
        assert_eq!(o[0].value.as_ref().unwrap().text, "it's");
    }

    #[test]
    fn malformed_overrides_are_errors_with_spans() {
        let a = args(&["trainer.nnodes", "=3", "a..b=1", "ok=1"]);
        let line = command_line(&a);
        let (o, e) = parse_overrides(&a);
        assert_eq!(o.len(), 1);
        assert_eq!(e.len(), 3);
        assert_eq!(e[0].problem, OverrideProblem::NotAnOverride);
        assert_eq!(&line[e[0].span.clone()], "trainer.nnodes");
        assert_eq!(&line[e[2].span.clone()], "a..b");
    }

    proptest! {
        #[test]
        fn never_panics_and_spans_stay_inside(list in proptest::collection::vec(".{0,24}", 0..6)) {
            let line = command_line(&list);
            let (o, e) = parse_overrides(&list);
            prop_assert_eq!(o.len() + e.len(), list.len());
            for x in &o {
                prop_assert!(line.get(x.key_span.clone()).is_some());
                if let Some(v) = &x.value {
                    prop_assert!(line.get(v.span.clone()).is_some());
                }
            }
            for x in &e {
                prop_assert!(line.get(x.span.clone()).is_some());
            }
        }
    }
}
