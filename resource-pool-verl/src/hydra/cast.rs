//! Hydra's cast functions on the command line, `int(...)`, `float(...)`, `bool(...)` and
//! `str(...)` of one value: Hydra evaluates them while it parses the override
//! (`hydra/_internal/grammar/grammar_functions.py`), so verl gets the cast's result, not its
//! text. A cast Hydra cannot make (`int('a')`, `int(null)`, `bool('yes')`) is its parse
//! error ("Error parsing override"): Hydra stops before verl starts.
//!
//! Modelled: one argument (or `value=...`) that is a scalar of Hydra's grammar or another
//! cast, read by Python's `int()` and `float()` as
//! [`python_numbers`](super::super::python_numbers) models them. Not modelled (the value
//! stays its text): a cast of a list or a dict, of an escaped or otherwise unusual string,
//! of a number in another script's digits (`int('٨')`), of a sweep (`int(1,2)`,
//! `int(choice(1,2))` are sweeps, which [`super::sweep_kind`] reports), and a sweep
//! function inside a cast that Hydra refuses (`str(range(1,3))`, `bool(interval(0,1))`,
//! `int(glob(*))`), which is an error here.

use super::lexing::top_level_items;
use crate::grammar_tokens::{is_float, is_int};
use crate::python_numbers::{Reading, python_float, python_int};

/// Hydra's casts.
const CASTS: &[&str] = &["int", "float", "bool", "str"];

/// A value as Hydra's functions see it: a Python object.
#[derive(Clone, Debug, PartialEq)]
pub enum Py {
    /// `None` (Hydra's `null`).
    None,
    /// A `bool`.
    Bool(bool),
    /// An `int` as its canonical decimal text (Python's are unbounded).
    Int(String),
    /// A `float`.
    Float(f64),
    /// A `str` (a quoted string's text, or an unquoted one).
    Str(String),
}

impl Py {
    /// The result as an override's text and whether it reads as quoted (a string): the
    /// text [`interpret`](super::super::keys::interpret) reads as this value.
    pub fn text(&self) -> (String, bool) {
        match self {
            Py::None => ("null".to_owned(), false),
            Py::Bool(b) => (b.to_string(), false),
            Py::Int(n) => (n.clone(), false),
            Py::Float(f) => (python_repr(*f), false),
            Py::Str(s) => (s.clone(), true),
        }
    }
}

/// A cast Hydra cannot make.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CastError;

/// The deepest nesting of brackets in a call's arguments that is read as calls: the
/// functions here recurse once a level and scan the arguments at each, so a deeper value
/// (`int(int(...))` ten thousand deep) would cost quadratic time and overflow the stack.
/// Deeper is no call here (its text is the value); no launch line nests so.
pub const MAX_NESTING: i32 = 32;

/// `name(args)` filling the whole (trimmed) text, the `(` closed by the last `)`, its
/// arguments nested at most [`MAX_NESTING`] deep.
pub fn call(text: &str) -> Option<(&str, &str)> {
    let (name, rest) = text.split_once('(')?;
    let args = rest.strip_suffix(')')?;
    // Hydra's `POPEN` takes blanks before the `(`.
    let name = name.trim_end();
    let malformed = {
        let (mut depth, mut quote, mut escaped) = (0i32, None, false);
        args.chars().any(|c| {
            match (c, quote) {
                _ if escaped => escaped = false,
                ('\\', _) => escaped = true,
                (q, Some(open)) if q == open => quote = None,
                (_, Some(_)) => {}
                ('\'' | '"', None) => quote = Some(c),
                ('(' | '[' | '{', None) => depth += 1,
                (')' | ']' | '}', None) => depth -= 1,
                _ => {}
            }
            // Closed early, or nested too deep.
            !(0..=MAX_NESTING).contains(&depth)
        })
    };
    (!malformed && is_id(name)).then_some((name, args))
}

/// [`call`] when it calls one of Hydra's casts (by its name): the cast and its arguments.
pub fn cast_call(text: &str) -> Option<(&str, &str)> {
    call(text).filter(|(name, _)| CASTS.contains(name))
}

/// The one argument of a cast (`int(2)`, `int(value=2)`), when it has one (more are a
/// sweep); `Err` for a keyword Hydra refuses.
pub fn one_argument(args: &str) -> Option<Result<&str, CastError>> {
    let items = top_level_items(args);
    let [arg] = items.as_slice() else {
        return None;
    };
    let arg = arg.trim();
    if let Some((name, value)) = arg.split_once('=')
        && is_id(name.trim())
    {
        return Some(if name.trim() == "value" {
            Ok(value.trim())
        } else {
            Err(CastError)
        });
    }
    Some(Ok(arg))
}

/// What a cast gives: `None` when `text` is no cast of one value modelled here.
pub fn cast(text: &str) -> Option<Result<Py, CastError>> {
    let (name, args) = cast_call(text)?;
    let arg = match one_argument(args)? {
        Ok(arg) => arg,
        Err(e) => return Some(Err(e)),
    };
    let value = match element(arg, name)? {
        Ok(value) => value,
        Err(e) => return Some(Err(e)),
    };
    apply(name, value)
}

/// The argument as Hydra's grammar reads it (`_createPrimitive`), or `None` when it is not
/// modelled (a list, a dict, a sweep, an escape, a quote beside text).
fn element(arg: &str, cast_name: &str) -> Option<Result<Py, CastError>> {
    if arg.is_empty() {
        return Some(Err(CastError));
    }
    if let Some((name, _)) = call(arg) {
        return match name {
            _ if CASTS.contains(&name) => cast(arg),
            // A sweep inside a cast is a sweep, when Hydra can cast it.
            "choice" => None,
            "range" | "interval" if matches!(cast_name, "int" | "float") => None,
            "range" | "interval" | "glob" => Some(Err(CastError)),
            _ => None,
        };
    }
    if arg.contains('\\') || (arg.starts_with(['[', '{'])) || arg.contains(['(', ')']) {
        return None;
    }
    if let Some(q) = arg.chars().next().filter(|c| matches!(c, '\'' | '"')) {
        let inner = arg[1..].strip_suffix(q)?;
        return (!inner.contains(q)).then(|| Ok(Py::Str(inner.to_owned())));
    }
    if arg.contains(['\'', '"']) {
        return None;
    }
    Some(Ok(match arg.to_ascii_lowercase().as_str() {
        "null" => Py::None,
        "true" => Py::Bool(true),
        "false" => Py::Bool(false),
        _ if is_int(arg) => int_text(arg)?.ok()?,
        _ if is_float(arg) => Py::Float(float_value(arg)?.ok()?),
        _ => Py::Str(arg.to_owned()),
    }))
}

/// `cast_int`, `cast_float`, `cast_bool`, `cast_str` of one scalar: Python's `int()`,
/// `float()`, `bool()`, `str()`, except that `bool` of a string is `true`/`false` in any
/// case only and `str` of a bool is lowercase. `None` when Python's answer is not decided
/// here (a number in another script's digits).
fn apply(name: &str, value: Py) -> Option<Result<Py, CastError>> {
    Some(match (name, value) {
        (_, Py::None) if name != "bool" => Err(CastError),
        ("int", Py::Bool(b)) => Ok(Py::Int(u8::from(b).to_string())),
        ("int", Py::Int(n)) => Ok(Py::Int(n)),
        ("int", Py::Float(f)) if f.is_finite() => int_text(&format!("{:.0}", f.trunc()))?,
        ("int", Py::Float(_)) => Err(CastError),
        ("int", Py::Str(s)) => int_text(&s)?,
        ("float", Py::Bool(b)) => Ok(Py::Float(f64::from(u8::from(b)))),
        ("float", Py::Int(n)) => n
            .parse()
            .ok()
            .filter(|f: &f64| f.is_finite())
            .map(Py::Float)
            .ok_or(CastError),
        ("float", Py::Float(f)) => Ok(Py::Float(f)),
        ("float", Py::Str(s)) => float_value(&s)?.map(Py::Float),
        ("bool", Py::None) => Ok(Py::Bool(false)),
        ("bool", Py::Bool(b)) => Ok(Py::Bool(b)),
        ("bool", Py::Int(n)) => Ok(Py::Bool(n != "0")),
        // NaN is true in Python, as `NaN != 0` here.
        ("bool", Py::Float(f)) => Ok(Py::Bool(f != 0.0)),
        ("bool", Py::Str(s)) => match s.to_ascii_lowercase().as_str() {
            "true" => Ok(Py::Bool(true)),
            "false" => Ok(Py::Bool(false)),
            _ => Err(CastError),
        },
        ("str", value) => Ok(Py::Str(value.text().0)),
        _ => Err(CastError),
    })
}

/// Python's `int(text)` as an [`Py::Int`] (its exact decimal text), a [`CastError`] when
/// Python refuses it, `None` when that is not decided here.
fn int_text(text: &str) -> Option<Result<Py, CastError>> {
    match python_int(text, 10) {
        Reading::Takes(n) => Some(Ok(Py::Int(n.decimal()))),
        Reading::Refuses => Some(Err(CastError)),
        Reading::Undecided => None,
    }
}

/// Python's `float(text)`, a [`CastError`] when Python refuses it, `None` when that is not
/// decided here.
fn float_value(text: &str) -> Option<Result<f64, CastError>> {
    match python_float(text) {
        Reading::Takes(f) => Some(Ok(f)),
        Reading::Refuses => Some(Err(CastError)),
        Reading::Undecided => None,
    }
}

/// Hydra's `ID` (a function's name, a keyword argument's).
fn is_id(text: &str) -> bool {
    super::is_name(text, false)
}

/// Python's `repr` of a float (what `str(2.5)` gives): the shortest digits that read back,
/// fixed between 1e-4 and 1e16, else `1e+16`.
pub fn python_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".to_owned();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.to_owned();
    }
    // `{:e}` gives the shortest digits: `-1.25e-5`, `1e20`, `0e0`.
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').expect("`{:e}` has an exponent");
    let exp: i32 = exp.parse().expect("an integer exponent");
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|&c| c != '.').collect();
    if (-4..16).contains(&exp) {
        if exp < 0 {
            let zeros = "0".repeat((-exp - 1) as usize);
            return format!("{sign}0.{zeros}{digits}");
        }
        let point = exp as usize + 1;
        return if digits.len() <= point {
            format!("{sign}{digits}{}.0", "0".repeat(point - digits.len()))
        } else {
            format!("{sign}{}.{}", &digits[..point], &digits[point..])
        };
    }
    let (first, rest) = digits.split_at(1);
    let point = if rest.is_empty() { "" } else { "." };
    let exp_sign = if exp < 0 { '-' } else { '+' };
    format!("{sign}{first}{point}{rest}e{exp_sign}{:02}", exp.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn py(text: &str) -> Option<Result<Py, CastError>> {
        cast(text)
    }

    #[test]
    fn casts_give_pythons_values() {
        let int = |s: &str| Some(Ok(Py::Int(s.to_owned())));
        let string = |s: &str| Some(Ok(Py::Str(s.to_owned())));
        for (text, want) in [
            ("int(2)", int("2")),
            ("int('2')", int("2")),
            ("int(' 2 ')", int("2")),
            ("int('\u{3000}2\u{85}')", int("2")),
            ("int(2.7)", int("2")),
            ("int(-2.7)", int("-2")),
            ("int(true)", int("1")),
            ("int(01)", int("1")),
            ("int(1e3)", int("1000")),
            ("int(value=2)", int("2")),
            ("int (2)", int("2")),
            ("int(99999999999999999999)", int("99999999999999999999")),
            ("int(str(2))", int("2")),
            ("int(float(2.7))", int("2")),
            ("float(2)", Some(Ok(Py::Float(2.0)))),
            ("float('1_000')", Some(Ok(Py::Float(1000.0)))),
            ("bool(1)", Some(Ok(Py::Bool(true)))),
            ("bool(0.0)", Some(Ok(Py::Bool(false)))),
            ("bool(nan)", Some(Ok(Py::Bool(true)))),
            ("bool(null)", Some(Ok(Py::Bool(false)))),
            ("bool('TRUE')", Some(Ok(Py::Bool(true)))),
            ("str(2)", string("2")),
            ("str(2.50)", string("2.5")),
            ("str(1e3)", string("1000.0")),
            ("str(True)", string("true")),
            ("str(a b)", string("a b")),
            ("str(${oc.env:X})", string("${oc.env:X}")),
            ("str(bool(0))", string("false")),
        ] {
            assert_eq!(py(text), want, "{text}");
        }
        for text in [
            "int('a')",
            "int(a)",
            "int('2.7')",
            "int('0x10')",
            "int('2\u{1c}')",
            "float('\u{1f}2.5')",
            "int(null)",
            "int(inf)",
            "int()",
            "int(x=2)",
            "float('a')",
            "bool('yes')",
            "bool('1')",
            "str(null)",
            "int(str(2.7))",
            "str(range(1,3))",
            "int(glob(*))",
        ] {
            assert_eq!(py(text), Some(Err(CastError)), "{text}");
        }
        for text in [
            "int(1,2)",
            "int(choice(1,2))",
            "int(range(1,3))",
            "int([1,2])",
            "int({a:1})",
            "str(a\\,b)",
            "int(2)x",
            "int(1)+int(2)",
            "Int(2)",
            "sort(2)",
            "int('\u{668}')",
        ] {
            assert_eq!(py(text), None, "{text}");
        }
    }

    #[test]
    fn floats_print_as_python_repr() {
        for (f, text) in [
            (2.0, "2.0"),
            (2.5, "2.5"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1e20, "1e+20"),
            (1.5e-5, "1.5e-05"),
            (0.0001, "0.0001"),
            (0.1, "0.1"),
            (123.456, "123.456"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
        ] {
            assert_eq!(python_repr(f), text);
        }
    }
}
