//! Hydra's command-line overrides, in the forms verl users type: `a.b=1`, `+a.b=1`,
//! `++a.b=1`, `~a.b`, lists `a.b=[1,2]`, quoted strings and `True`/`true`.
//!
//! The overrides are one text, joined by single spaces (the "command line" source), and
//! every span points into it.

use super::yaml::RawScalar;
use crate::source::Span;

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
    let valid = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '/' | '@');
    if key.is_empty()
        || key
            .split('.')
            .any(|part| part.is_empty() || !part.chars().all(valid))
    {
        return Err(OverrideError {
            problem: OverrideProblem::NotAKey,
            text: key.to_owned(),
            span: if key.is_empty() { whole } else { key_span },
        });
    }
    let value = value.map(|v| {
        let start = key_span.end + 1;
        let span = start..start + v.len();
        let quoted = v.len() >= 2
            && ((v.starts_with('"') && v.ends_with('"'))
                || (v.starts_with('\'') && v.ends_with('\'')));
        RawScalar {
            text: if quoted {
                v[1..v.len() - 1].to_owned()
            } else {
                v.trim().to_owned()
            },
            quoted,
            span,
        }
    });
    Ok(Override {
        op,
        key: key.to_owned(),
        key_span,
        value,
        span: whole,
    })
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
        assert_eq!(&line[o[1].value.as_ref().unwrap().span.clone()], "1");
        let quoted = o[2].value.as_ref().unwrap();
        assert_eq!(
            (quoted.text.as_str(), quoted.quoted, o[2].op),
            ("a b", true, Op::ForceAdd)
        );
        assert_eq!((o[3].op, o[3].value.is_none()), (Op::Delete, true));
        assert_eq!(o[4].value.as_ref().unwrap().text, "[1,2]");
    }

    #[test]
    fn malformed_overrides_are_errors_with_spans() {
        let a = args(&["trainer.nnodes", "=3", "a..b=1", "ok=1"]);
        let line = command_line(&a);
        let (o, e) = parse_overrides(&a);
        assert_eq!(o.len(), 1);
        assert_eq!(e.len(), 3);
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
