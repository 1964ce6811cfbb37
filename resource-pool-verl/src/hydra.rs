//! Hydra's command-line overrides, in the forms verl users type: `a.b=1`, `+a.b=1`,
//! `++a.b=1`, `~a.b`, lists `a.b=[1,2]`, quoted strings and `True`/`true`.
//!
//! The overrides are one text, joined by single spaces (the "command line" source), and
//! every span points into it.

use super::grammar_tokens::{ESCAPED, is_int_unsigned};
use super::omegaconf_grammar::omegaconf_takes;
use super::shell_expansion::shell_expansion;
use super::yaml::{RawScalar, StringMark};
use containers::NotRead;
use lexing::{BLANKS, quoted_end, top_level_items};
use resource_pool_core::source::Span;
use std::ops::Range;
pub use sweeps::{SweepKind, SweepMode, SweepRun, first_run_value, sweep_kind};

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
    /// The value breaks Hydra's override grammar (a nested interpolation or a character
    /// it takes only in quotes, or an unclosed quote or `${`): Hydra stops before verl
    /// starts.
    NotAValue,
    /// A cast Hydra cannot make (`int('a')`, `int(null)`, `bool('yes')`): its parse error.
    NotACast,
    /// A string holding `${` that OmegaConf's interpolation grammar refuses: Hydra parses
    /// it, and stops when it sets it (`GrammarParseError`).
    NotAnInterpolation,
}

impl std::fmt::Display for OverrideProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            OverrideProblem::NotAnOverride => "is not an override: expected `key=value`",
            OverrideProblem::NotAKey => {
                "is not a key: expected dotted names such as `trainer.nnodes`"
            }
            OverrideProblem::NotAValue => {
                "is not a value Hydra reads (\"Error parsing override\"): quote it, as in `key='...'`; a nested interpolation such as `${oc.decode:${oc.env:VAR}}`, `~`, `#`, `!`, `&`, `;`, `<`, `>`, `^`, a backquote or a non-ASCII character is read only in quotes"
            }
            OverrideProblem::NotAnInterpolation => {
                "holds a `${` that OmegaConf's interpolation grammar refuses (GrammarParseError when Hydra sets it): write interpolations as `${key.path}` or `${resolver:arg,...}` (no `=`, `#` or blank inside a path; quote a resolver's argument that holds one), or `\\${` for a `${` of one's own"
            }
            OverrideProblem::NotACast => {
                "is a cast Hydra cannot make (\"Error parsing override\"): `int(...)` takes a number, a boolean or an integer's text (`int('2')`), `float(...)` a number, a boolean or a number's text, `bool(...)` a number, a boolean, null, `'true'` or `'false'`, and `str(...)` anything but null"
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
    if !is_hydra_key(key) {
        return Err(OverrideError {
            problem: OverrideProblem::NotAKey,
            text: key.to_owned(),
            span: if key.is_empty() { whole } else { key_span },
        });
    }
    // A line from a script before its shell ran: the shell's expansion is no text of
    // Hydra's grammar (`$((GPUS / NODES))`), and its value is unknown (see `resolve`).
    if let Some(v) = value
        && let shell = v.trim_matches(BLANKS)
        && shell_expansion(shell).is_some()
    {
        let start = key_span.end + 1 + (v.len() - v.trim_start_matches(BLANKS).len());
        return Ok(Override {
            op,
            key: key.to_owned(),
            key_span,
            value: Some(RawScalar {
                text: shell.to_owned(),
                string: None,
                span: start..start + shell.len(),
            }),
            span: whole,
        });
    }
    // One list or dict (not a sweep of them), read once: what Hydra's grammar refuses in
    // it, and the strings OmegaConf judges.
    let container = value.and_then(|v| {
        let text = v.trim_matches(BLANKS);
        (text.starts_with(['[', '{']) && top_level_items(text).len() == 1)
            .then(|| containers::container_interpolations(text))
    });
    if let Some(v) = value
        && (breaks_value_grammar(v) || container == Some(Err(NotRead::Grammar)))
    {
        let start = key_span.end + 1;
        return Err(OverrideError {
            problem: OverrideProblem::NotAValue,
            text: v.to_owned(),
            span: if v.is_empty() {
                whole
            } else {
                start..start + v.len()
            },
        });
    }
    let value = value
        .map(|written| read_value(written, key_span.end + 1))
        .transpose()?;
    let strings = container.and_then(Result::ok);
    if let Some((text, span)) = value
        .as_ref()
        .and_then(|scalar| refused_interpolation(scalar, strings))
    {
        return Err(OverrideError {
            problem: OverrideProblem::NotAnInterpolation,
            text,
            span,
        });
    }
    Ok(Override {
        op,
        key: key.to_owned(),
        key_span,
        value,
        span: whole,
    })
}

/// One value as Hydra reads it, `written` after the `=` that ends at `start`: a quoted
/// string unescaped; a cast of one value evaluated, as verl gets it (the span stays the
/// cast's); else the text, its escapes undone when it is one value (a string then,
/// whatever it reads like; a sweep's, a list's and a dict's items are Hydra's to split).
fn read_value(written: &str, start: usize) -> Result<RawScalar, OverrideError> {
    // Hydra's `=` takes the blanks after it (`EQUAL: '=' WS*`): `key= 'a'` is quoted.
    let v = written.trim_start_matches(BLANKS);
    let start = start + (written.len() - v.len());
    let span = start..start + v.len();
    if is_one_quoted(v) {
        return Ok(RawScalar {
            text: escapes::quoted(v),
            string: Some(StringMark::Quotes),
            span,
        });
    }
    let mut scalar = RawScalar {
        text: v.trim().to_owned(),
        string: None,
        span,
    };
    match cast::cast(&scalar.text) {
        Some(Ok(result)) => {
            let (text, string) = result.text();
            scalar.text = text;
            scalar.string = string.then_some(StringMark::StrCast);
        }
        Some(Err(cast::CastError)) => {
            return Err(OverrideError {
                problem: OverrideProblem::NotACast,
                text: scalar.text,
                span: scalar.span,
            });
        }
        None if scalar.text.contains('\\')
            && !is_container(&scalar)
            && sweep_kind(&scalar).is_none() =>
        {
            let text = escapes::unquoted(v);
            if text != scalar.text {
                (scalar.text, scalar.string) = (text, Some(StringMark::Escapes));
            }
        }
        None => {}
    }
    Ok(scalar)
}

/// The string holding `${` that OmegaConf refuses when Hydra sets a value, and where: the
/// value itself, or one of the strings of a list or dict (`strings`, with their ranges in
/// its text: [`containers`]; none when it is nested too deep to read). Not judged:
/// sweeps, and a shell variable of a pasted line (`${NNODES:=1}`, the shell's to fill
/// in), which never gets here.
fn refused_interpolation(
    scalar: &RawScalar,
    strings: Option<Vec<(String, Range<usize>)>>,
) -> Option<(String, Span)> {
    let text = scalar.text.as_str();
    if !text.contains("${") || sweep_kind(scalar).is_some() {
        return None;
    }
    if !is_container(scalar) {
        return (!omegaconf_takes(text)).then(|| (text.to_owned(), scalar.span.clone()));
    }
    let (string, at) = strings?
        .into_iter()
        .find(|(string, _)| !omegaconf_takes(string))?;
    let start = scalar.span.start + at.start;
    Some((string, start..scalar.span.start + at.end))
}

/// Whether a value is a list or a dict (read as its text here).
fn is_container(scalar: &RawScalar) -> bool {
    !scalar.quoted() && scalar.text.starts_with(['[', '{'])
}

/// Whether `value` is one quoted string, whole (`'a'`, `"a \" b"`), not a sweep of them
/// (`"a","b"`) nor a quote beside other text: its first quote closes at its last
/// character.
fn is_one_quoted(value: &str) -> bool {
    quoted_end(value) == Some(value.len())
}

/// Whether `key` is a key of Hydra's override grammar (`OverrideParser.g4`'s `key`):
/// `package` or `group/name` (`ID` parts), then optionally `@package`, where a package is
/// `KEY_SPECIAL` names (`ID` that may hold `$`) or unsigned integers joined by dots. Hydra
/// also takes an empty package (`=1`, the global one); no verl key is that, so it is
/// refused here.
fn is_hydra_key(key: &str) -> bool {
    let (main, package) = match key.split_once('@') {
        Some((main, package)) => (main, Some(package)),
        None => (key, None),
    };
    let main_ok = if main.contains('/') {
        main.split('/').all(|part| is_name(part, false))
    } else {
        is_package(main)
    };
    main_ok && package.is_none_or(|p| p.is_empty() || is_package(p))
}

/// `KEY_SPECIAL` (`with_dollar`) or `ID`: a letter, `_` (or `$`) first, then letters,
/// digits, `_`, `-` (or `$`).
fn is_name(text: &str, with_dollar: bool) -> bool {
    let dollar = |c: char| with_dollar && c == '$';
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || dollar(c))
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-') || dollar(c))
}

/// A package: one `KEY_SPECIAL`, or `DOT_PATH` (`KEY_SPECIAL` or `INT_UNSIGNED` parts).
fn is_package(text: &str) -> bool {
    if !text.contains('.') {
        return is_name(text, true);
    }
    text.split('.')
        .all(|part| is_name(part, true) || is_int_unsigned(part))
}

/// Whether an override's value (as written, before trimming) breaks Hydra's value grammar
/// (`OverrideLexer.g4`'s `VALUE_MODE`) in the ways that matter here: outside quotes, a
/// character no token takes (`~ ! # & ; < > ^` and a backquote, anything not ASCII, a
/// control character), an `=` outside a function's arguments, a `${` without its `}` or
/// with nothing in it, or a nested interpolation (its `INTERPOLATION` token ends at the
/// first `}`, so `${oc.decode:${oc.env:X}}` leaves a `}` that closes nothing), a quote left
/// open, brackets, braces and parentheses that do not pair (`path=/models/x}`), or blanks
/// after a quoted value, a function's `)`, a list's `]` or a dict's `}` at the end (the
/// grammar's `primitive` holds blanks only among unquoted words). A
/// parenthesis outside a function, a quote beside other text and unknown functions are
/// Hydra's errors too, not caught here (the differential test lists them).
fn breaks_value_grammar(value: &str) -> bool {
    let mut chars = value.char_indices().peekable();
    // The closers the open brackets wait for, and how many of them are `)`: an `=` is
    // an argument's only inside a function (counted, not searched for: a long value).
    let mut open = Vec::new();
    let mut parens = 0usize;
    // Where the last quoted value or closing bracket ends, while only blanks follow it.
    let mut closed_at = None;
    while let Some((i, c)) = chars.next() {
        match c {
            c if BLANKS.contains(&c) => {}
            ')' | ']' | '}' => closed_at = Some(i + 1),
            _ => closed_at = None,
        }
        match c {
            // An escape (`ESC`) takes the next character; any other `\` is a character
            // of its own (`UNQUOTED_CHAR`).
            '\\' => {
                chars.next_if(|&(_, next)| ESCAPED.contains(next));
            }
            '\'' | '"' => {
                let Some(end) = quoted_end(&value[i..]).map(|end| i + end) else {
                    return true;
                };
                while chars.next_if(|&(j, _)| j < end).is_some() {}
                closed_at = Some(end);
            }
            '$' if value[i + 1..].starts_with('{') => {
                let inner = &value[i + 2..];
                let Some(end) = inner.find('}') else {
                    return true;
                };
                if end == 0 {
                    return true;
                }
                while chars.next_if(|&(j, _)| j <= i + 2 + end).is_some() {}
                // An interpolation's `}` is a word's end: blanks may follow it.
                closed_at = None;
            }
            '(' => {
                open.push(')');
                parens += 1;
            }
            '[' => open.push(']'),
            '{' => open.push('}'),
            ')' | ']' | '}' if open.pop() != Some(c) => return true,
            ')' => parens -= 1,
            '=' if parens == 0 => return true,
            '~' | '!' | '#' | '&' | ';' | '<' | '>' | '^' | '`' => return true,
            // U+FFFD stands for bytes that were not UTF-8: the launch reader's
            // `not_unicode` judges those words (where the check reads them), not this.
            c if (!c.is_ascii() && c != char::REPLACEMENT_CHARACTER)
                || (c.is_ascii_control() && c != '\t') =>
            {
                return true;
            }
            _ => {}
        }
    }
    !open.is_empty() || closed_at.is_some_and(|end| end < value.len())
}

mod cast;
mod containers;
mod escapes;
mod lexing;
mod sweeps;

#[cfg(test)]
mod diff_tests;

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
            (quoted.text.as_str(), quoted.quoted(), o[2].op),
            ("a b", true, Op::ForceAdd)
        );
        assert_eq!((o[3].op, o[3].value.is_none()), (Op::Delete, true));
        assert_eq!(o[4].value.as_ref().unwrap().text, "[1,2]");
    }

    #[test]
    fn blanks_around_a_value_as_hydra_lexes_them() {
        // hydra-core 1.3.2: `=` takes the blanks after it, so a quoted value after them is
        // quoted; blanks after a quoted value, a cast or a list end no unquoted word and
        // are an error; a sweep of quoted values is a sweep, not one quoted string.
        let a = args(&["trainer.device= 'cuda'", "trainer.device=\t\"npu\""]);
        let line = command_line(&a);
        let (o, e) = parse_overrides(&a);
        assert!(e.is_empty(), "{e:?}");
        for (o, (text, written)) in o.iter().zip([("cuda", "'cuda'"), ("npu", "\"npu\"")]) {
            let value = o.value.as_ref().unwrap();
            assert_eq!((value.text.as_str(), value.quoted()), (text, true));
            // The span is the value's, not the blanks before it.
            assert_eq!(&line[value.span.clone()], written);
        }
        for bad in [
            "trainer.device='cuda' ",
            "trainer.nnodes=int(2)\t",
            "trainer.x=[1] ",
        ] {
            let (_, e) = parse_overrides(&args(&[bad]));
            assert_eq!(e.len(), 1, "{bad}");
            assert_eq!(e[0].problem, OverrideProblem::NotAValue, "{bad}");
        }
        for fine in [
            "trainer.device=cuda ",
            "trainer.x=${y} ",
            "trainer.x=[1] ,2",
        ] {
            let (_, e) = parse_overrides(&args(&[fine]));
            assert!(e.is_empty(), "{fine}: {e:?}");
        }
        let (o, _) = parse_overrides(&args(&["trainer.device=\"cuda\",\"npu\""]));
        let value = o[0].value.as_ref().unwrap();
        assert!(!value.quoted());
        assert_eq!(sweep_kind(value), Some(SweepKind::List));
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

    fn scalar(text: &str, quoted: bool) -> RawScalar {
        RawScalar {
            text: text.to_owned(),
            string: quoted.then_some(StringMark::Quotes),
            span: 0..text.len(),
        }
    }

    #[test]
    fn sweeps_are_comma_lists_and_sweep_functions_outside_brackets_and_quotes() {
        for (text, kind, one) in [
            ("1,2", SweepKind::List, Some("1")),
            ("fsdp,megatron,fsdp2", SweepKind::List, Some("fsdp")),
            ("choice(2,4)", SweepKind::Function, Some("2")),
            ("range(1,5)", SweepKind::Function, Some("1")),
            ("range(4)", SweepKind::Function, Some("0")),
            ("range(start=1,stop=3)", SweepKind::Function, None),
            ("interval(0.1,1.0)", SweepKind::Function, None),
            ("glob(*)", SweepKind::Function, None),
            // A cast of a sweep is a sweep (Hydra casts each value).
            ("int(1,2)", SweepKind::List, Some("int(1)")),
            ("int(choice(2,4))", SweepKind::Function, Some("int(2)")),
            ("float(range(1,3))", SweepKind::Function, Some("float(1)")),
        ] {
            assert_eq!(sweep_kind(&scalar(text, false)), Some(kind), "{text}");
            assert_eq!(first_run_value(text, kind).as_deref(), one, "{text}");
        }
        for text in [
            "2",
            "[1,2]",
            "{a:1,b:2}",
            "${oc.env:NNODES,2}",
            "a\\,b",
            "'a,b'x",
            "sort([3,1])",
            "int(2)",
            "str(range(1,3))",
        ] {
            assert_eq!(sweep_kind(&scalar(text, false)), None, "{text}");
        }
        assert_eq!(sweep_kind(&scalar("1,2", true)), None);
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
