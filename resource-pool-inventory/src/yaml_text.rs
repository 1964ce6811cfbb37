//! What the two YAML readers (verl's settings in `verl_settings::yaml`, KubeRay's manifests
//! in `kuberay::tree`) share of YAML itself: which plain scalars are null, the
//! types of YAML's own tags, the byte offsets of the character offsets `saphyr-parser`
//! gives, and JSON's surrogate pairs, which that parser refuses.

use std::borrow::Cow;
use std::ops::Range;

use saphyr_parser::Tag;

/// The prefix of YAML's own tags, which `!!` stands for unless a `%TAG` directive says
/// otherwise.
pub const CORE_TAG: &str = "tag:yaml.org,2002:";

/// A tag's full name: its handle as the parser resolved it and its suffix
/// (`tag:yaml.org,2002:int` for `!!int`, and for the verbatim `!<tag:yaml.org,2002:int>`,
/// whose handle is empty; `!custom`; `!` for the non-specific tag).
pub fn tag_name(tag: &Tag) -> String {
    format!("{}{}", tag.handle, tag.suffix)
}

/// Whether the tag is the non-specific `!`. Both readers' YAML libraries resolve a scalar
/// under it as a plain one, quoted or not (a `! '<<'` key is the merge key), and then go
/// their ways: PyYAML types it by its text (`! '8'` is 8), go-yaml v2 keeps it a string.
pub fn non_specific(tag: &Tag) -> bool {
    tag.handle.is_empty() && tag.suffix == "!"
}

/// The type of YAML's own a tag names (`int` for `!!int` or its verbatim form), if it
/// names one.
pub fn core_type(tag: &Tag) -> Option<String> {
    tag_name(tag).strip_prefix(CORE_TAG).map(str::to_owned)
}

/// The words a plain (unquoted) scalar is null as, in YAML's core schema and in PyYAML,
/// which OmegaConf uses: `null`, `Null`, `NULL` and `~`. An empty plain value is null as
/// well in a YAML file; whether it is in other text (Hydra's `key=` is an empty string)
/// is the caller's to say.
pub fn is_null_word(plain: &str) -> bool {
    matches!(plain, "null" | "Null" | "NULL" | "~")
}

/// The most double-quoted scalars with UTF-16 surrogate pairs joined in one text (each
/// costs one more parse): a bound on time for hostile input.
pub const MAX_PAIRED_SCALARS: usize = 256;

/// The parser's message for a `\u` escape that is no character (a surrogate).
const BAD_ESCAPE: &str = "invalid Unicode character escape code";

/// A text that does not parse: the parser's message (or ours, for a lone surrogate) and
/// where, in bytes of the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextError {
    /// What is wrong.
    pub message: String,
    /// Where, in bytes.
    pub span: Range<usize>,
}

/// `parse` (one pass of `saphyr-parser` over a text, its error the parser's message and
/// char index) run on `text`, JSON's surrogate pairs read as one character each.
///
/// YAML 1.2 is a superset of JSON, and JSON writes a character past U+FFFF as a UTF-16
/// surrogate pair (`"\ud83d\ude00"`, Python's `json.dumps`), which the parser rejects. So
/// on that error (its marker is the scalar's opening quote) the pairs of that one scalar
/// are rewritten as `\U0001F600` and `parse` runs again on the rewritten text, with the
/// [`Shifts`] that map its char indices back to `text`'s. An error's span is mapped back
/// to `text` here. A text that is JSON has its pairs joined all at once before the first
/// parse (in JSON every backslash is an escape in a string), so any number of them costs
/// one parse; only YAML's are joined a scalar at a time, at most [`MAX_PAIRED_SCALARS`].
pub fn parse_joining_pairs<T>(
    text: &str,
    mut parse: impl FnMut(&str, &Shifts) -> Result<T, (String, usize)>,
) -> Result<T, TextError> {
    let (mut source, mut shifts) = match joined_json_pairs(text) {
        Some((joined, shifts)) => (Cow::Owned(joined), shifts),
        None => (Cow::Borrowed(text), Shifts::default()),
    };
    let mut rounds = 0;
    loop {
        match parse(&source, &shifts) {
            Ok(parsed) => return Ok(parsed),
            Err((message, at)) => {
                if message.contains(BAD_ESCAPE) && rounds < MAX_PAIRED_SCALARS {
                    rounds += 1;
                    if let Some(joined) = join_pairs(&source, at, text, &mut shifts)? {
                        source = Cow::Owned(joined);
                        continue;
                    }
                }
                let at = shifts.original(at);
                let bytes = char_to_byte(text, &[at, at + 1]);
                // Past the bound, say so: the parser's own words would blame a valid pair.
                let message = if message.contains(BAD_ESCAPE) && rounds == MAX_PAIRED_SCALARS {
                    format!(
                        "more than {MAX_PAIRED_SCALARS} double-quoted strings hold UTF-16 surrogate pairs (`\\uD83D\\uDE00`); write the characters themselves, or as one `\\U0001F600` escape each"
                    )
                } else {
                    message
                };
                return Err(TextError {
                    message,
                    span: bytes[0]..bytes[1],
                });
            }
        }
    }
}

/// A surrogate pair's code point, from the two escapes' hex digits.
fn paired(high: u32, low: u32) -> Option<u32> {
    ((0xD800..=0xDBFF).contains(&high) && (0xDC00..=0xDFFF).contains(&low))
        .then(|| 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
}

/// `text` with every surrogate pair written as one `\UXXXXXXXX` escape, and the shifts
/// back to it, when it is JSON (as serde_json reads it) and has a pair; else `None`. Lone
/// surrogates are left as written: the parser's error on them is worded by [`join_pairs`].
fn joined_json_pairs(text: &str) -> Option<(String, Shifts)> {
    let may_have_pairs = text
        .as_bytes()
        .windows(3)
        .any(|w| w[0] == b'\\' && w[1] == b'u' && matches!(w[2], b'd' | b'D'));
    if !may_have_pairs || serde_json::from_str::<serde::de::IgnoredAny>(text).is_err() {
        return None;
    }
    // Over bytes: escapes are ASCII, and the shifts count characters (bytes that do not
    // continue a UTF-8 sequence), counted only up to each pair.
    let bytes = text.as_bytes();
    let hex = |i: usize| {
        text.get(i..i + 4)
            .and_then(|d| u32::from_str_radix(d, 16).ok())
    };
    let chars_in = |b: &[u8]| b.iter().filter(|&&b| (b as i8) >= -0x40).count();
    let mut out = String::with_capacity(text.len());
    let mut shifts = Shifts::default();
    // Bytes of `text` copied to `out`; chars of `text` before byte `counted`; chars removed.
    let (mut copied, mut counted, mut chars, mut removed) = (0, 0, 0, 0);
    let mut in_string = false;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if in_string && b == b'\\' {
            let pair = (bytes.get(i + 1) == Some(&b'u')
                && bytes.get(i + 6..i + 8) == Some(&b"\\u"[..]))
            .then(|| paired(hex(i + 2)?, hex(i + 8)?))
            .flatten();
            if let Some(code) = pair {
                chars += chars_in(&bytes[counted..i]);
                out.push_str(&text[copied..i]);
                out.push_str(&format!("\\U{code:08X}"));
                removed += 2;
                shifts.0.push((chars + 12 - removed, removed));
                chars += 12;
                (copied, counted) = (i + 12, i + 12);
                i += 12;
            } else {
                // Any other escape, with the (ASCII) character it escapes: `\"`, `\\`, `\u`.
                i += 2;
            }
            continue;
        }
        in_string ^= b == b'"';
        i += 1;
    }
    out.push_str(&text[copied..]);
    (!shifts.is_empty()).then_some((out, shifts))
}

/// Where rewritten escapes made the parsed text shorter than the file: `(char index in
/// the parsed text just after a rewrite, chars removed up to there)`, in order.
#[derive(Default)]
pub struct Shifts(Vec<(usize, usize)>);

impl Shifts {
    /// The file's char index of a char index in the parsed text.
    pub fn original(&self, at: usize) -> usize {
        original_in(&self.0, at)
    }

    /// Whether nothing was rewritten.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

fn original_in(shifts: &[(usize, usize)], at: usize) -> usize {
    let i = shifts.partition_point(|&(pos, _)| pos <= at);
    at + if i == 0 { 0 } else { shifts[i - 1].1 }
}

/// The double-quoted scalar opening at char `at` of `source` with each `\uD8xx\uDCxx`
/// pair written as one `\UXXXXXXXX` escape; `None` when it has none; a lone surrogate is an
/// error on its escape.
fn join_pairs(
    source: &str,
    at: usize,
    text: &str,
    shifts: &mut Shifts,
) -> Result<Option<String>, TextError> {
    let chars: Vec<char> = source.chars().collect();
    if chars.get(at) != Some(&'"') {
        return Ok(None);
    }
    let hex = |i: usize| -> Option<u32> {
        let digits: String = chars.get(i..i + 4)?.iter().collect();
        u32::from_str_radix(&digits, 16).ok()
    };
    let mut out: String = chars[..=at].iter().collect();
    let mut out_len = at + 1;
    let mut removed = shifts.0.last().map_or(0, |&(_, r)| r);
    let mut changed = false;
    // A lone surrogate's index is in `source`: mapped by the shifts before this scalar's.
    let before = shifts.0.len();
    let mut i = at + 1;
    while i < chars.len() && chars[i] != '"' {
        let (c, next) = (chars[i], chars.get(i + 1).copied());
        if c != '\\' {
            out.push(c);
            out_len += 1;
            i += 1;
            continue;
        }
        let high = (next == Some('u')).then(|| hex(i + 2)).flatten();
        match high {
            Some(h @ 0xD800..=0xDBFF) => {
                let low = (chars.get(i + 6..i + 8) == Some(&['\\', 'u'][..]))
                    .then(|| hex(i + 8))
                    .flatten();
                let Some(code) = low.and_then(|l| paired(h, l)) else {
                    return Err(lone_surrogate(text, &shifts.0[..before], i, h));
                };
                out.push_str(&format!("\\U{code:08X}"));
                out_len += 10;
                removed += 2;
                shifts.0.push((out_len, removed));
                changed = true;
                i += 12;
            }
            Some(l @ 0xDC00..=0xDFFF) => {
                return Err(lone_surrogate(text, &shifts.0[..before], i, l));
            }
            _ => {
                // Any other escape: copied with the character it escapes (`\"`, `\\`).
                out.push(c);
                out_len += 1;
                if let Some(n) = next {
                    out.push(n);
                    out_len += 1;
                }
                i += 2;
            }
        }
    }
    out.extend(chars.get(i..).unwrap_or_default());
    Ok(changed.then_some(out))
}

fn lone_surrogate(text: &str, shifts: &[(usize, usize)], at: usize, code: u32) -> TextError {
    let start = original_in(shifts, at);
    let bytes = char_to_byte(text, &[start, start + 6]);
    TextError {
        message: format!(
            "a lone UTF-16 surrogate `\\u{code:04X}` in a double-quoted string: a character past U+FFFF is a high and a low surrogate together (`\\uD83D\\uDE00`, as JSON writes it) or one `\\U0001F600` escape"
        ),
        span: bytes[0]..bytes[1],
    }
}

/// Byte offsets of character indices, in one pass over the text.
pub fn char_to_byte(text: &str, chars: &[usize]) -> Vec<usize> {
    if text.is_ascii() {
        return chars.iter().map(|&c| c.min(text.len())).collect();
    }
    let mut order: Vec<usize> = (0..chars.len()).collect();
    order.sort_by_key(|&i| chars[i]);
    let mut out = vec![text.len(); chars.len()];
    let mut it = text.char_indices().enumerate().peekable();
    for i in order {
        while let Some(&(ci, (bi, _))) = it.peek() {
            if ci == chars[i] {
                out[i] = bi;
                break;
            }
            it.next();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_words_are_the_core_schemas_only() {
        for word in ["null", "Null", "NULL", "~"] {
            assert!(is_null_word(word), "{word}");
        }
        for word in ["", "nULL", "none", "None", "nil", "~~", " null"] {
            assert!(!is_null_word(word), "{word:?}");
        }
    }

    #[test]
    fn json_pairs_are_joined_in_one_pass_with_shifts_back() {
        // Keys and values, after a non-ASCII character, an escaped backslash before `ud83d`
        // (not an escape), a lone surrogate (left for the parser's error), lower and upper
        // case hex.
        let text = r#"{"é": "\ud83d\ude00", "k\ud83d\ude80": ["\\ud83d", "\uD83D\uDE00x"], "n": "\udc00"}"#;
        let (joined, shifts) = joined_json_pairs(text).expect("has pairs");
        assert_eq!(
            joined,
            r#"{"é": "\U0001F600", "k\U0001F680": ["\\ud83d", "\U0001F600x"], "n": "\udc00"}"#
        );
        // Every character after a rewrite maps back to the same character of `text`.
        let (text_chars, joined_chars): (Vec<char>, Vec<char>) =
            (text.chars().collect(), joined.chars().collect());
        for (at, c) in joined_chars.iter().enumerate() {
            if !c.is_ascii_hexdigit() && *c != 'U' && *c != '\\' {
                assert_eq!(text_chars[shifts.original(at)], *c, "at {at}");
            }
        }
        assert_eq!(shifts.original(joined_chars.len()), text_chars.len());
        // Not JSON, or no pair: nothing to do here.
        assert!(joined_json_pairs("a: \"\\ud83d\\ude00\"").is_none());
        assert!(joined_json_pairs(r#"{"a": "\u00e9"}"#).is_none());
    }

    #[test]
    fn any_number_of_json_pairs_costs_one_parse() {
        let items: Vec<String> = (0..MAX_PAIRED_SCALARS + 50)
            .map(|i| format!("\"{i} \\ud83d\\ude00\""))
            .collect();
        let text = format!("[{}]", items.join(", "));
        let mut parses = 0;
        let parsed = parse_joining_pairs(&text, |source, _| {
            parses += 1;
            Ok::<_, (String, usize)>(source.matches("\\U0001F600").count())
        });
        assert_eq!(parsed, Ok(MAX_PAIRED_SCALARS + 50));
        assert_eq!(parses, 1);
    }

    #[test]
    fn past_the_bound_of_yaml_pairs_the_error_says_so() {
        // YAML, not JSON (a plain key): each string with a pair costs a parse.
        let items: Vec<String> = (0..=MAX_PAIRED_SCALARS)
            .map(|i| format!("k{i}: \"\\ud83d\\ude00\"\n"))
            .collect();
        let text = items.concat();
        let error = parse_joining_pairs(&text, |source, _| {
            // The parser's error on the first string left with a pair.
            match source.find("\\ud83d") {
                Some(at) => Err((
                    format!("while parsing: {BAD_ESCAPE}"),
                    source[..at].rfind('"').unwrap_or(0),
                )),
                None => Ok(()),
            }
        })
        .expect_err("more pairs than the bound");
        assert!(
            error
                .message
                .starts_with("more than 256 double-quoted strings"),
            "{}",
            error.message
        );
    }

    #[test]
    fn character_offsets_become_byte_offsets_in_any_order() {
        let text = "aé😀b";
        // Characters: a 0, é 1, 😀 2, b 3, the end 4; past the end stays at the end.
        assert_eq!(
            char_to_byte(text, &[3, 0, 2, 1, 4, 9]),
            vec![7, 0, 3, 1, 8, 8]
        );
        assert_eq!(char_to_byte("abc", &[2, 5]), vec![2, 3]);
    }
}
