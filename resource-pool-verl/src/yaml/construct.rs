//! PyYAML's constructors of integers, floats, booleans and bytes (`construct_yaml_int`,
//! `construct_yaml_float`, `construct_yaml_bool`, `construct_yaml_binary` of PyYAML 6.0's
//! `SafeConstructor`), as
//! far as the check needs them: whether one fails, which stops OmegaConf's load (and
//! verl) wherever in the file the scalar stands, and the integer an `!!int` makes of text
//! that is no YAML 1.1 integer (`!!int ' 8'`, `!!int 0o17`, `!!int +-1`).
//!
//! They end in Python's `int(text, base)` and `float(text)`
//! ([`python_numbers`](super::super::python_numbers)): what those leave undecided (a
//! number in another script's digits) is [`Constructed::Other`], never a failure.

use super::super::python_numbers::{Reading, python_float, python_int};

/// What a constructor makes of a scalar, for the check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Constructed {
    /// An integer, at `i64`'s bounds when past them (as a count reads a long one).
    Int(i64),
    /// A boolean.
    Bool(bool),
    /// Built into something no count takes (a float), or not decided here (see the
    /// module docs).
    Other,
    /// The constructor raises: why, in words of ours after Python's.
    Fails(String),
}

/// PyYAML's `construct_yaml_int` of `text` (tagged `!!int`, or a plain scalar its
/// resolver took for an integer).
pub(super) fn construct_int(text: &str) -> Constructed {
    let value = text.replace('_', "");
    let Some(first) = value.chars().next() else {
        return empty("!!int", text);
    };
    let negative = first == '-';
    let value = value.strip_prefix(['+', '-']).unwrap_or(&value);
    let magnitude = if value == "0" {
        Ok(0)
    } else if let Some(digits) = value.strip_prefix("0b") {
        int(digits, 2)
    } else if let Some(digits) = value.strip_prefix("0x") {
        int(digits, 16)
    } else if value.is_empty() {
        // `value[0]` of nothing: the sign was all there was.
        return empty("!!int", text);
    } else if value.starts_with('0') {
        int(value, 8)
    } else if value.contains(':') {
        // Sexagesimal: each part an `int()` of its own, the last the units.
        value.split(':').try_fold(0i128, |sum, part| {
            Ok(sum.saturating_mul(60).saturating_add(int(part, 10)?))
        })
    } else {
        int(value, 10)
    };
    match magnitude {
        Ok(n) => {
            let n = if negative { n.saturating_neg() } else { n };
            Constructed::Int(i64::try_from(n).unwrap_or(if n < 0 { i64::MIN } else { i64::MAX }))
        }
        Err(Some((argument, base))) => Constructed::Fails(format!(
            "`!!int` of `{text}` does not construct: Python's `int()` refuses `{argument}` in base {base}"
        )),
        Err(None) => Constructed::Other,
    }
}

/// Python's `int(text, base)` for [`construct_int`]: the value (saturating past `i128`),
/// or the text and base it refuses, or `Err(None)` when that is not decided here.
fn int(text: &str, base: u32) -> Result<i128, Option<(&str, u32)>> {
    match python_int(text, base) {
        Reading::Takes(n) => Ok(n.saturating()),
        Reading::Refuses => Err(Some((text, base))),
        Reading::Undecided => Err(None),
    }
}

/// PyYAML's `construct_yaml_float` of `text`: a float (which no count takes) or a failure.
pub(super) fn construct_float(text: &str) -> Constructed {
    let value = text.replace('_', "").to_lowercase();
    if value.is_empty() {
        return empty("!!float", text);
    }
    let value = value.strip_prefix(['+', '-']).unwrap_or(&value);
    let refused = if value == ".inf" || value == ".nan" {
        None
    } else if value.contains(':') {
        value
            .split(':')
            .find(|part| python_float(part) == Reading::Refuses)
    } else {
        (python_float(value) == Reading::Refuses).then_some(value)
    };
    match refused {
        None => Constructed::Other,
        Some(argument) => Constructed::Fails(format!(
            "`!!float` of `{text}` does not construct: Python's `float()` refuses `{argument}`"
        )),
    }
}

/// PyYAML's `construct_yaml_bool` of `text`: its lowercase is one of YAML 1.1's six
/// words, else a failure.
pub(super) fn construct_bool(text: &str) -> Constructed {
    match text.to_lowercase().as_str() {
        "yes" | "true" | "on" => Constructed::Bool(true),
        "no" | "false" | "off" => Constructed::Bool(false),
        _ => Constructed::Fails(format!(
            "`!!bool` of `{text}` does not construct: PyYAML's booleans are yes/no, true/false and on/off"
        )),
    }
}

/// PyYAML's `construct_yaml_binary` of `text`: bytes (which no count takes), or a
/// failure: text outside ASCII, or base64 Python's `binascii.a2b_base64` (not strict)
/// refuses. That skips characters outside base64's alphabet, stops at enough `=` after
/// two or three characters of a group, and refuses a last group of one character
/// (`number of data characters ... cannot be 1 more than a multiple of 4`) or of two or
/// three without its `=` (`Incorrect padding`).
pub(super) fn construct_binary(text: &str) -> Constructed {
    if !text.is_ascii() {
        return Constructed::Fails(format!(
            "`!!binary` of `{text}` does not construct: base64 data is ASCII"
        ));
    }
    let (mut in_group, mut pads) = (0u8, 0u8);
    for b in text.bytes() {
        if b == b'=' {
            if in_group >= 2 {
                pads += 1;
                if in_group + pads >= 4 {
                    return Constructed::Other;
                }
            }
            continue;
        }
        if !(b.is_ascii_alphanumeric() || b == b'+' || b == b'/') {
            continue;
        }
        pads = 0;
        in_group = (in_group + 1) % 4;
    }
    let why = match in_group {
        0 => return Constructed::Other,
        1 => "a last group of one base64 character",
        _ => "Incorrect padding",
    };
    Constructed::Fails(format!(
        "`!!binary` of `{text}` does not construct: Python's base64 decoder refuses it ({why})"
    ))
}

/// `value[0]` of an empty value, or of nothing after the sign: Python's `IndexError`.
fn empty(tag: &str, text: &str) -> Constructed {
    let (what, after) = match text {
        "" => ("an empty value".to_owned(), ""),
        _ => (format!("`{text}`"), " after the sign"),
    };
    Constructed::Fails(format!(
        "`{tag}` of {what} does not construct: PyYAML's constructor reads the first character{after}, and there is none (string index out of range)"
    ))
}

/// Whether PyYAML's resolver takes a plain scalar for an integer its constructor then
/// fails on: `0x_`, `-0b__` (the pattern allows a prefix followed by `_` alone; `int('',
/// 16)` refuses what is left). Every other implicit integer, float and boolean constructs.
pub(super) fn implicit_int_fails(text: &str) -> Option<String> {
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    let separators = unsigned
        .strip_prefix("0x")
        .or_else(|| unsigned.strip_prefix("0b"))?;
    (!separators.is_empty() && separators.bytes().all(|b| b == b'_')).then(|| {
        format!(
            "`{text}` reads as a YAML 1.1 integer, which PyYAML's int constructor fails on: no digit after the prefix"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fails(c: Constructed) -> bool {
        matches!(c, Constructed::Fails(_))
    }

    #[test]
    fn integers_as_pyyaml_constructs_them() {
        // Each value checked against omegaconf 2.3.0 + PyYAML 6.0.3 (`!!int <text>`).
        for (text, n) in [
            ("0x1F", 31),
            ("0x 1", 1),
            ("0o17", 15),
            ("017", 15),
            ("+-1", -1),
            ("--1", 1),
            (" 8", 8),
            ("1:30", 90),
            ("1:-30", 30),
            ("1_000", 1000),
            ("-0b101", -5),
        ] {
            assert_eq!(construct_int(text), Constructed::Int(n), "{text:?}");
        }
        for text in [
            "abc", "", "-", "+", "0x", "0X1", "0o", "00o7", "09", "0_9", "0b2", ":", "1::2",
            " 0x1", "8.0",
        ] {
            assert!(fails(construct_int(text)), "{text:?}");
        }
        assert_eq!(
            construct_int("99999999999999999999999"),
            Constructed::Int(i64::MAX)
        );
        assert_eq!(
            construct_int("-99999999999999999999999"),
            Constructed::Int(i64::MIN)
        );
        assert_eq!(
            construct_int("-"),
            Constructed::Fails(
                "`!!int` of `-` does not construct: PyYAML's constructor reads the first character after the sign, and there is none (string index out of range)"
                    .into()
            )
        );
        // Python takes other scripts' digits: not decided here. Unicode's blanks it strips,
        // but not the ASCII separators `\x1c` to `\x1f`.
        assert_eq!(construct_int("\u{668}"), Constructed::Other);
        assert_eq!(construct_int("\u{3000}8"), Constructed::Int(8));
        assert!(fails(construct_int("\u{1c}8")));
        assert_eq!(construct_float("\u{667}.5"), Constructed::Other);
        assert_eq!(construct_float("\u{a0}1.5"), Constructed::Other);
        assert!(fails(construct_float("1.5\u{1f}")));
        assert_eq!(
            construct_int("abc"),
            Constructed::Fails(
                "`!!int` of `abc` does not construct: Python's `int()` refuses `abc` in base 10"
                    .into()
            )
        );
    }

    #[test]
    fn floats_and_booleans_as_pyyaml_constructs_them() {
        for text in [
            "8", "1e5", "1.e5", ".5", "Infinity", " 1.5 ", ".Inf", "-.inf", "nan", "1:30.5",
            "1_0.5",
        ] {
            assert_eq!(construct_float(text), Constructed::Other, "{text:?}");
        }
        for text in ["abc", "", "-", "1,5", "1:x", "e5", ".e5", "1e", "."] {
            assert!(fails(construct_float(text)), "{text:?}");
        }
        for (text, value) in [("yes", true), ("TRUE", true), ("Off", false), ("nO", false)] {
            assert_eq!(construct_bool(text), Constructed::Bool(value), "{text}");
        }
        for text in ["maybe", "", "yes ", "y", "1"] {
            assert!(fails(construct_bool(text)), "{text:?}");
        }
    }

    #[test]
    fn base64_as_python_decodes_it() {
        // Each checked against PyYAML 6.0.3 (`!!binary <text>`).
        for text in [
            "aGVsbG8=", "", "***", "aGk=", "aG==x", "a b c d", "ab==", "ab=c=", "ab==cd",
        ] {
            assert_eq!(construct_binary(text), Constructed::Other, "{text:?}");
        }
        for text in ["aGk", "a", "abcde", "ab=", "a=bc", "\u{e9}"] {
            assert!(fails(construct_binary(text)), "{text:?}");
        }
    }

    #[test]
    fn implicit_integers_that_fail() {
        for text in ["0x_", "-0x__", "0b_", "+0b__"] {
            assert!(implicit_int_fails(text).is_some(), "{text}");
        }
        for text in ["0x_1", "0_", "0x", "0b", "x_", "8", "0xg_"] {
            assert_eq!(implicit_int_fails(text), None, "{text}");
        }
    }
}
