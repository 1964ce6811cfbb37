//! Python's `int(text, base)` and `float(text)` of a `str`, the functions both of verl's
//! readers end in: Hydra's casts on the command line (`int('8')`, [`super::hydra`]) and
//! PyYAML's constructors in the YAML (`!!int 0x1F`, [`super::yaml`]). One reading of
//! Python's rules, so the two cannot drift apart.
//!
//! Python strips Unicode's white space around the number (`str.isspace` but for the
//! ASCII separators `\x1c` to `\x1f`: `int('8\x1c')` is refused) and takes one sign.
//! Then `int` takes digits of the base with single `_` between them (one more may follow
//! a base prefix: `0x_1`); `float` takes `inf`, `infinity` or `nan` in any case, or a
//! decimal number with single `_` between digits. Both also take the digits of other
//! scripts (`int('٨')` is 8): a number that holds a non-ASCII character once its blanks
//! are stripped is [`Reading::Undecided`], never called refused unless Python's own
//! rules refuse it.

/// What Python makes of a text.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Reading<T> {
    /// A number.
    Takes(T),
    /// `ValueError`.
    Refuses,
    /// Not decided here: a non-ASCII character in the number (see the module docs).
    Undecided,
}

/// An integer Python's `int()` reads: its sign and its digits in its base, without `_`
/// and leading zeros (none for zero).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct PyInt {
    negative: bool,
    digits: String,
    base: u32,
}

impl PyInt {
    /// The value, at `i128`'s bounds when past them.
    pub fn saturating(&self) -> i128 {
        let n = self.digits.chars().fold(0i128, |n, c| {
            let d = c.to_digit(self.base).map_or(0, i128::from);
            n.saturating_mul(i128::from(self.base)).saturating_add(d)
        });
        if self.negative { -n } else { n }
    }

    /// Python's `str()` of the integer, exact whatever its length in base 10 (another
    /// base's past `i128` gives its bound: converting those exactly is not needed here).
    pub fn decimal(&self) -> String {
        if self.base != 10 {
            return self.saturating().to_string();
        }
        match self.digits.as_str() {
            "" => "0".to_owned(),
            d if self.negative => format!("-{d}"),
            d => d.to_owned(),
        }
    }
}

/// `text` without the blanks Python strips around a number, if the rest is ASCII (else
/// not decided here). Those blanks are exactly Rust's `char::is_whitespace` (Unicode's
/// `White_Space`): CPython's `int()` and `float()` turn the non-ASCII ones to spaces and
/// strip ASCII's six; `str.isspace`'s `\x1c` to `\x1f` are not among them.
fn number_body(text: &str) -> Option<&str> {
    let body = text.trim();
    body.is_ascii().then_some(body)
}

/// Whether `digits` are digits of `base` with single `_` between them.
fn is_digit_run(digits: &str, base: u32) -> bool {
    !digits.is_empty()
        && !digits.starts_with('_')
        && !digits.ends_with('_')
        && !digits.contains("__")
        && digits.chars().all(|c| c == '_' || c.is_digit(base))
}

/// Python's `int(text, base)` for base 2, 8, 10 or 16: blanks around, a sign, the base's
/// prefix in either case (`0b`, `0o`, `0x`; then one `_` may follow), digits of the base
/// with single `_` between them. Leading zeros are taken (base 10 refuses them only when
/// the base is 0, which no reader here asks for).
pub(super) fn python_int(text: &str, base: u32) -> Reading<PyInt> {
    let Some(body) = number_body(text) else {
        return Reading::Undecided;
    };
    let negative = body.starts_with('-');
    let unsigned = body.strip_prefix(['+', '-']).unwrap_or(body);
    let prefix = match base {
        2 => Some('b'),
        8 => Some('o'),
        16 => Some('x'),
        _ => None,
    };
    let digits = prefix
        .and_then(|letter| {
            let rest = unsigned.strip_prefix('0')?;
            let rest = rest.strip_prefix([letter, letter.to_ascii_uppercase()])?;
            // One `_` may separate the prefix from the digits.
            Some(rest.strip_prefix('_').unwrap_or(rest))
        })
        .unwrap_or(unsigned);
    if !is_digit_run(digits, base) {
        return Reading::Refuses;
    }
    let digits = digits.replace('_', "");
    Reading::Takes(PyInt {
        negative,
        digits: digits.trim_start_matches('0').to_owned(),
        base,
    })
}

/// Python's `float(text)`: blanks around, a sign, then `inf`, `infinity` or `nan` in any
/// case, or digits with at most one `.` (a digit on one side at least) and an optional
/// exponent `e[+-]digits` in either case, with single `_` between digits anywhere.
pub(super) fn python_float(text: &str) -> Reading<f64> {
    let Some(body) = number_body(text) else {
        return Reading::Undecided;
    };
    let unsigned = body.strip_prefix(['+', '-']).unwrap_or(body);
    let word = ["inf", "infinity", "nan"]
        .iter()
        .any(|w| unsigned.eq_ignore_ascii_case(w));
    let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e)),
        None => (unsigned, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let run = |s: &str| s.is_empty() || is_digit_run(s, 10);
    let number = run(whole)
        && run(fraction)
        && !(whole.is_empty() && fraction.is_empty())
        && exponent.is_none_or(|e| is_digit_run(e.strip_prefix(['+', '-']).unwrap_or(e), 10));
    if !(word || number) {
        return Reading::Refuses;
    }
    // Rust's reading of the same text without `_` is the same number (the shortest-round-
    // trip parse both languages use); `inf`, `infinity` and `nan` in any case included.
    body.replace('_', "")
        .parse()
        .map_or(Reading::Refuses, Reading::Takes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(text: &str, base: u32) -> Option<i128> {
        match python_int(text, base) {
            Reading::Takes(n) => Some(n.saturating()),
            _ => None,
        }
    }

    #[test]
    fn integers_as_python_reads_them() {
        // Each checked against CPython 3.11's `int(text, base)`.
        for (text, base, n) in [
            ("8", 10, 8),
            (" 8\n", 10, 8),
            ("\u{85}8\u{2028}", 10, 8),
            ("\u{a0}8\u{3000}", 10, 8),
            ("-1_000", 10, -1000),
            ("+007", 10, 7),
            ("0", 10, 0),
            ("0x1F", 16, 31),
            ("0X_1f", 16, 31),
            ("1f", 16, 31),
            ("0o17", 8, 15),
            ("-0b101", 2, -5),
            ("0b_1", 2, 1),
        ] {
            assert_eq!(int(text, base), Some(n), "{text:?} {base}");
        }
        for (text, base) in [
            ("", 10),
            ("-", 10),
            ("_1", 10),
            ("1_", 10),
            ("1__0", 10),
            ("- 1", 10),
            ("+-1", 10),
            ("0x1", 10),
            ("1.0", 10),
            ("0x", 16),
            ("0x__1", 16),
            ("0b2", 2),
            ("8", 8),
            ("\u{85}\u{b}", 10),
            ("\u{1c}8", 10),
            ("8\u{1f}", 10),
        ] {
            assert_eq!(python_int(text, base), Reading::Refuses, "{text:?} {base}");
        }
        assert_eq!(python_int("\u{668}", 10), Reading::Undecided);
        assert_eq!(python_int("\u{200b}8", 10), Reading::Undecided);
        let decimal = |text| match python_int(text, 10) {
            Reading::Takes(n) => Some(n.decimal()),
            _ => None,
        };
        assert_eq!(decimal("-00").as_deref(), Some("0"));
        let long = "12_345_678_901_234_567_890_123_456_789_012_345_678_901";
        assert_eq!(decimal(long), Some(long.replace('_', "")));
        assert_eq!(
            python_int("-99999999999999999999999999999999999999999", 10),
            Reading::Takes(PyInt {
                negative: true,
                digits: "99999999999999999999999999999999999999999".to_owned(),
                base: 10
            })
        );
        assert_eq!(
            int("-99999999999999999999999999999999999999999", 10),
            Some(-i128::MAX)
        );
    }

    #[test]
    fn floats_as_python_reads_them() {
        // Each checked against CPython 3.11's `float(text)`.
        for (text, f) in [
            ("8", 8.0),
            (" 1.5\t", 1.5),
            ("\u{3000}2", 2.0),
            ("1_0.5", 10.5),
            ("1.5_0", 1.5),
            ("1e1_0", 1e10),
            ("1E5", 1e5),
            (".5", 0.5),
            ("5.", 5.0),
            ("-.5e-3", -0.0005),
            ("+Infinity", f64::INFINITY),
            ("-iNF", f64::NEG_INFINITY),
        ] {
            assert_eq!(python_float(text), Reading::Takes(f), "{text:?}");
        }
        assert!(matches!(python_float("NaN"), Reading::Takes(f) if f.is_nan()));
        for text in [
            "", ".", "e5", ".e5", "1e", "1e+", "1_", "_1", "1._5", "1_.5", "1_e5", "1e_5", "1,5",
            "0x1p3", "in f", "infinit", "1.5.", "1e5e5", "- 1", "\u{1e}2",
        ] {
            assert_eq!(python_float(text), Reading::Refuses, "{text:?}");
        }
        assert_eq!(python_float("\u{667}.5"), Reading::Undecided);
    }
}
