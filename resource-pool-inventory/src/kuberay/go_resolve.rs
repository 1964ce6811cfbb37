//! What go-yaml v2 makes of a scalar's text (`resolve` in `resolve.go` of v2.4.0, the
//! reader `sigs.k8s.io/yaml` copies and `kubectl` turns manifests into JSON with): a
//! plain scalar, or one tagged `!!int`, `!!float`, `!!bool` or `!!null`, is typed by its
//! text; a tagged one whose text resolves to another type stops the read ("cannot decode
//! !!str `abc` as a !!int"), and so does an `!!binary` that is not base64.
//!
//! Its rules, from the first character: a sign or a digit tries Go's `ParseInt` (base 0:
//! `0x`, `0o`, `0b` prefixes, a leading `0` octal; `_` removed first), then `ParseUint`,
//! then YAML's float pattern, then `0b`/`-0b` with the rest in base 2; a `.` tries
//! `ParseFloat`; YAML 1.1's booleans (`y`, `yes`, `on`, ... in three cases), nulls (`~`,
//! `null`, empty) and `.inf`/`.nan` come from a table; anything else is a string. A text
//! that is a timestamp (`2001-12-14`) is a time to go-yaml, which reaches Kubernetes as a
//! string: [`Resolved::Str`] here, what every count and quantity refuses either way.

/// A scalar's type and value as go-yaml resolves its text.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Resolved {
    Null,
    Bool(bool),
    /// An `int`, `int64` or `uint64`.
    Int(i128),
    Float(f64),
    /// A string (or a timestamp, see the module docs).
    Str,
}

impl Resolved {
    /// The tag go-yaml names the type by.
    fn tag(self) -> &'static str {
        match self {
            Resolved::Null => "!!null",
            Resolved::Bool(_) => "!!bool",
            Resolved::Int(_) => "!!int",
            Resolved::Float(_) => "!!float",
            Resolved::Str => "!!str",
        }
    }
}

/// The value `text` resolves to.
pub(super) fn resolve(text: &str) -> Resolved {
    if let Some(known) = table(text) {
        return known;
    }
    match text.as_bytes().first() {
        Some(b'.') => go_float(text).map_or(Resolved::Str, Resolved::Float),
        Some(b'+' | b'-' | b'0'..=b'9') => number(&text.replace('_', "")),
        _ => Resolved::Str,
    }
}

/// Why go-yaml refuses a scalar tagged `!!{core}` (`int`, `binary`, ...) with `text`, in
/// its words; `None` when it reads it (every other tag, `!!timestamp` included, is read
/// here as go-yaml reads it or left to the reader's other rules).
pub(super) fn tag_refusal(core: &str, text: &str) -> Option<String> {
    let wanted = match core {
        "binary" => {
            return (!is_base64(text))
                .then(|| "!!binary value contains invalid base64 data".to_owned());
        }
        "int" | "float" | "bool" | "null" => format!("!!{core}"),
        _ => return None,
    };
    let found = resolve(text);
    // An `!!float` takes an integer of `int64` (go-yaml makes it a float), not a `uint64`.
    let signed = |n: i128| i64::try_from(n).is_ok();
    let fits = found.tag() == wanted
        || (core == "float" && matches!(found, Resolved::Int(n) if signed(n)));
    (!fits).then(|| format!("cannot decode {} `{text}` as a {wanted}", found.tag()))
}

/// go-yaml's table of words: YAML 1.1's booleans and nulls, `.inf`, `.nan` (and `<<`,
/// which is no value).
fn table(text: &str) -> Option<Resolved> {
    Some(match text {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            Resolved::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            Resolved::Bool(false)
        }
        "" | "~" | "null" | "Null" | "NULL" => Resolved::Null,
        ".nan" | ".NaN" | ".NAN" => Resolved::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => Resolved::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => Resolved::Float(f64::NEG_INFINITY),
        _ => return None,
    })
}

/// A sign or a digit first, `_` removed: an integer, a float, or a string.
fn number(plain: &str) -> Resolved {
    if let Some(n) = go_parse_int(plain, 0).or_else(|| go_parse_uint(plain, 0)) {
        return Resolved::Int(n);
    }
    if is_yaml_style_float(plain)
        && let Some(f) = go_float(plain)
    {
        return Resolved::Float(f);
    }
    let binary = if let Some(rest) = plain.strip_prefix("0b") {
        go_parse_int(rest, 2).or_else(|| go_parse_uint(rest, 2))
    } else if let Some(rest) = plain.strip_prefix("-0b") {
        go_parse_int(&format!("-{rest}"), 2)
    } else {
        None
    };
    binary.map_or(Resolved::Str, Resolved::Int)
}

/// Go's `strconv.ParseUint(s, base, 64)`: digits of the base (base 0: a `0x`, `0o` or
/// `0b` prefix of either case before at least one more character, else a leading `0` for
/// octal, else decimal), no sign; `None` for a syntax error or past `u64`.
fn go_parse_uint(s: &str, base: u32) -> Option<i128> {
    if s.is_empty() {
        return None;
    }
    let (base, digits) = if base == 0 {
        let lower = |i: usize| s.as_bytes().get(i).map(u8::to_ascii_lowercase);
        match (s.as_bytes()[0], lower(1)) {
            (b'0', Some(b'b')) if s.len() >= 3 => (2, &s[2..]),
            (b'0', Some(b'o')) if s.len() >= 3 => (8, &s[2..]),
            (b'0', Some(b'x')) if s.len() >= 3 => (16, &s[2..]),
            (b'0', _) => (8, &s[1..]),
            _ => (10, s),
        }
    } else {
        (base, s)
    };
    let mut n: u64 = 0;
    for c in digits.chars() {
        let d = c.to_digit(base)?;
        n = n.checked_mul(u64::from(base))?.checked_add(u64::from(d))?;
    }
    Some(i128::from(n))
}

/// Go's `strconv.ParseInt(s, base, 64)`: one sign, then [`go_parse_uint`] within `i64`.
fn go_parse_int(s: &str, base: u32) -> Option<i128> {
    let (negative, rest) = match s.as_bytes().first() {
        Some(b'+') => (false, &s[1..]),
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    let magnitude = go_parse_uint(rest, base)?;
    let n = if negative { -magnitude } else { magnitude };
    (i128::from(i64::MIN)..=i128::from(i64::MAX))
        .contains(&n)
        .then_some(n)
}

/// YAML's float pattern as go-yaml writes it:
/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml_style_float(s: &str) -> bool {
    let digits = |t: &str| t.bytes().take_while(u8::is_ascii_digit).count();
    let s = s.strip_prefix(['+', '-']).unwrap_or(s);
    let mantissa = match s.strip_prefix('.') {
        Some(rest) => match digits(rest) {
            0 => return false,
            n => 1 + n,
        },
        None => match digits(s) {
            0 => return false,
            n if s[n..].starts_with('.') => n + 1 + digits(&s[n + 1..]),
            n => n,
        },
    };
    let rest = &s[mantissa..];
    let Some(exponent) = rest.strip_prefix(['e', 'E']) else {
        return rest.is_empty();
    };
    let exponent = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
    !exponent.is_empty() && digits(exponent) == exponent.len()
}

/// Go's `strconv.ParseFloat(s, 64)` of a decimal number (the only ones it is given
/// here: a `.` first, or YAML's float pattern): `None` past `f64`'s range, which Go
/// refuses (`ErrRange`) where Rust reads infinity.
fn go_float(s: &str) -> Option<f64> {
    let decimal = s
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    s.parse::<f64>().ok().filter(|f| decimal && f.is_finite())
}

/// Whether Go's `base64.StdEncoding.DecodeString` takes `text`: line breaks (`\r`, `\n`)
/// skipped, the rest whole groups of four characters of the alphabet, the last one
/// padded with `=` to four.
fn is_base64(text: &str) -> bool {
    let bytes: Vec<u8> = text
        .bytes()
        .filter(|b| !matches!(b, b'\r' | b'\n'))
        .collect();
    if !bytes.len().is_multiple_of(4) {
        return false;
    }
    let alphabet = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/');
    let groups = bytes.len() / 4;
    bytes.chunks(4).enumerate().all(|(i, group)| {
        let last = i + 1 == groups;
        match group {
            [a, b, c, d] if alphabet(a) && alphabet(b) => match (c, d) {
                (c, d) if alphabet(c) && alphabet(d) => true,
                (c, b'=') if alphabet(c) => last,
                (b'=', b'=') => last,
                _ => false,
            },
            _ => false,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_as_go_yaml_resolves_them() {
        // Each checked with go-yaml v2.4.0 itself (`yaml.Unmarshal` into `interface{}`).
        for (text, want) in [
            ("8", Resolved::Int(8)),
            ("010", Resolved::Int(8)),
            ("0x1F", Resolved::Int(31)),
            ("0o17", Resolved::Int(15)),
            ("0B101", Resolved::Int(5)),
            ("1_000", Resolved::Int(1000)),
            ("+8", Resolved::Int(8)),
            ("-0x10", Resolved::Int(-16)),
            ("0b-1", Resolved::Int(-1)),
            (
                "9223372036854775808",
                Resolved::Int(9_223_372_036_854_775_808),
            ),
            ("1e3", Resolved::Float(1000.0)),
            (".5", Resolved::Float(0.5)),
            ("1.", Resolved::Float(1.0)),
            ("-.INF", Resolved::Float(f64::NEG_INFINITY)),
            ("yes", Resolved::Bool(true)),
            ("N", Resolved::Bool(false)),
            ("~", Resolved::Null),
            ("", Resolved::Null),
            // Not octal, but YAML's float pattern: 8.0.
            ("08", Resolved::Float(8.0)),
            ("0x", Resolved::Str),
            ("1e400", Resolved::Str),
            (
                "18446744073709551616",
                Resolved::Float(18_446_744_073_709_551_616.0),
            ),
            ("inf", Resolved::Str),
            ("1:30", Resolved::Str),
            ("2001-12-14", Resolved::Str),
            ("abc", Resolved::Str),
            ("tRuE", Resolved::Str),
        ] {
            assert_eq!(resolve(text), want, "{text:?}");
        }
    }

    #[test]
    fn tags_go_yaml_refuses() {
        for (core, text) in [
            ("int", "abc"),
            ("int", "1.5"),
            ("int", "08"),
            ("bool", "maybe"),
            ("bool", "1"),
            ("null", "x"),
            ("float", "x"),
            ("float", "9223372036854775808"),
            ("binary", "aGk"),
            ("binary", "a=bc"),
            ("binary", "aG k="),
        ] {
            assert!(tag_refusal(core, text).is_some(), "!!{core} {text}");
        }
        for (core, text) in [
            ("int", "0x1F"),
            ("float", "1"),
            ("float", ".nan"),
            ("bool", "yes"),
            ("null", "~"),
            ("null", ""),
            ("str", "anything"),
            ("binary", "aGk="),
            ("binary", "aGVs\nbG8="),
            ("binary", ""),
            ("timestamp", "abc"),
            ("seq", "2"),
        ] {
            assert_eq!(tag_refusal(core, text), None, "!!{core} {text}");
        }
        assert_eq!(
            tag_refusal("int", "abc").as_deref(),
            Some("cannot decode !!str `abc` as a !!int")
        );
    }
}
