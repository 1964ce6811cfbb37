//! Tokens that Hydra's override grammar and OmegaConf's interpolation grammar share (the
//! same rules in `OverrideLexer.g4` and `OmegaConfGrammarLexer.g4`): numbers (`INT`,
//! `FLOAT`), the words of any case, and `ESC`. Each gives the length of its longest match
//! at the start of `at`.

/// The characters a `\` escapes (`ESC`; `_ESC` of `hydra/_internal/grammar/utils.py`).
pub(crate) const ESCAPED: &str = "\\()[]{}:=, \t";

/// `ESC`: escapes of a backslash, brackets, braces, `:`, `=`, `,`, a blank (its length,
/// 0 for none).
pub(crate) fn esc(at: &[char]) -> usize {
    let mut n = 0;
    while at.get(n) == Some(&'\\') && at.get(n + 1).is_some_and(|c| ESCAPED.contains(*c)) {
        n += 2;
    }
    n
}

/// A word of any case (`BOOL`, `NULL`, `inf`, `nan`).
pub(crate) fn word(at: &[char], text: &str) -> Option<usize> {
    let n = text.len();
    (at.len() >= n
        && at
            .iter()
            .zip(text.chars())
            .all(|(a, b)| a.to_ascii_lowercase() == b))
    .then_some(n)
}

/// Digits with single `_` between them (`DIGIT (('_')? DIGIT)*`), from a digit.
fn digits(at: &[char]) -> usize {
    if !at.first().is_some_and(char::is_ascii_digit) {
        return 0;
    }
    let mut n = 1;
    loop {
        match (at.get(n), at.get(n + 1)) {
            (Some(d), _) if d.is_ascii_digit() => n += 1,
            (Some('_'), Some(d)) if d.is_ascii_digit() => n += 2,
            _ => return n,
        }
    }
}

/// `INT_UNSIGNED`: `0`, or a digit from 1 and more digits (single `_` between).
fn int_unsigned(at: &[char]) -> usize {
    match at.first() {
        Some('0') => 1,
        Some('1'..='9') => digits(at),
        _ => 0,
    }
}

fn sign(at: &[char]) -> usize {
    usize::from(matches!(at.first(), Some('+' | '-')))
}

pub(crate) fn int(at: &[char]) -> Option<usize> {
    let s = sign(at);
    let n = int_unsigned(&at[s..]);
    (n > 0).then_some(s + n)
}

/// The lengths `POINT_FLOAT` matches: `INT_UNSIGNED '.'` and `INT_UNSIGNED? '.' DIGITS`
/// (no vector: a long value lexes a token at each step).
fn point_floats(at: &[char]) -> [Option<usize>; 2] {
    let whole = int_unsigned(at);
    if at.get(whole) != Some(&'.') {
        return [None, None];
    }
    let fraction = digits(&at[whole + 1..]);
    [
        (whole > 0).then_some(whole + 1),
        (fraction > 0).then_some(whole + 1 + fraction),
    ]
}

/// `FLOAT`: a sign, then a point float, an exponent float (`INT_UNSIGNED` or a point
/// float, then `e`, a sign and digits), `inf` or `nan`.
pub(crate) fn float(at: &[char]) -> Option<usize> {
    let s = sign(at);
    let body = &at[s..];
    let points = point_floats(body);
    let whole = int_unsigned(body);
    let exponent = |m: usize| {
        if !matches!(body.get(m), Some('e' | 'E')) {
            return 0;
        }
        let e = m + 1 + sign(&body[m + 1..]);
        let d = digits(&body[e..]);
        if d > 0 { e + d } else { 0 }
    };
    let mantissas = points
        .into_iter()
        .flatten()
        .chain((whole > 0).then_some(whole));
    let best = mantissas
        .map(exponent)
        .chain(points.into_iter().flatten())
        .chain(word(body, "inf"))
        .chain(word(body, "nan"))
        .max()
        .unwrap_or(0);
    (best > 0).then_some(s + best)
}

/// Whether `text` is, whole, the token `rule` matches (`int`, `float`; `int_unsigned` for
/// a package's number in a key).
fn whole(text: &str, rule: fn(&[char]) -> Option<usize>) -> bool {
    let chars: Vec<char> = text.chars().collect();
    rule(&chars) == Some(chars.len())
}

/// Whether `text` is Hydra's `INT` token, whole: `[+-]?(0|[1-9](_?[0-9])*)`.
pub(crate) fn is_int(text: &str) -> bool {
    whole(text, int)
}

/// Whether `text` is Hydra's `INT_UNSIGNED`, whole: `0|[1-9](_?[0-9])*` (no leading zero).
pub(crate) fn is_int_unsigned(text: &str) -> bool {
    whole(text, |at| Some(int_unsigned(at)).filter(|&n| n > 0))
}

/// Whether `text` is Hydra's `FLOAT` token, whole: a point float, an exponent float, `inf`
/// or `nan` in any case.
pub(crate) fn is_float(text: &str) -> bool {
    whole(text, float)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_as_hydras_lexer_reads_them() {
        for text in ["0", "8", "-8", "+1_000", "10"] {
            assert!(is_int(text), "{text}");
        }
        for text in ["", "-", "01", "1_", "_1", "1__0", "1.0", "0x1", " 1", "--1"] {
            assert!(!is_int(text), "{text}");
        }
        assert!(is_int_unsigned("0") && is_int_unsigned("12"));
        for text in ["", "+1", "-1", "007", "1_"] {
            assert!(!is_int_unsigned(text), "{text}");
        }
        for text in ["1.5", ".5", "1.", "1e5", "-1.5E-3", "inf", "-NaN", "1_0.5"] {
            assert!(is_float(text), "{text}");
        }
        for text in ["1", "e5", ".", "1e", "infinity", "1.5.", "1._5"] {
            assert!(!is_float(text), "{text}");
        }
    }
}
