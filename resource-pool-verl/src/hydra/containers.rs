//! The strings of a command-line list or dict that hold `${`, as Hydra's grammar
//! (`listContainer`, `dictContainer` and `element` of `OverrideParser.g4`, hydra-core
//! 1.3.2) and its visitor read them: Hydra sets the value with OmegaConf, whose
//! interpolation grammar then judges every string in it, a dict's values included (its
//! keys are not judged, and Hydra's `dictKey` holds no `${` anyway).
//!
//! An item is a quoted value (its escapes undone as Hydra's `_unescape_quoted_string`
//! undoes them), a list or dict (read in turn), a function (a cast evaluated as
//! [`cast`] evaluates one on its own, `str(${a})` a string; any other not judged), or
//! an unquoted primitive: words, `/-\+.$%*@?|`, `:`, escapes, blanks and interpolations
//! (`${` to the first `}`), up to a `,`, `]` or `}`, its escapes undone and its blanks
//! at either end dropped. A value the grammar does not read so (a quote beside other
//! text, a bracket inside a word, an empty item) is [`NotRead::Grammar`]: Hydra's parse
//! error. Nesting past [`MAX_NESTING`] is [`NotRead::TooDeep`]: not judged here.

use std::collections::HashMap;
use std::ops::Range;

use super::cast::{self, Py};
use super::escapes;
use super::lexing::{BLANKS, quoted_end};
use crate::grammar_tokens::{ESCAPED, is_float, is_int};

/// The deepest nesting of lists and dicts read: a deeper value is not judged (no launch
/// line nests so; the reader recurses once a level).
const MAX_NESTING: usize = 32;

/// Why a list or dict value is not read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NotRead {
    /// Hydra's grammar refuses it ("Error parsing override").
    Grammar,
    /// Nested past [`MAX_NESTING`]: not judged.
    TooDeep,
}

/// What reads on: `Err` says why the value is not read.
type Read<T = ()> = Result<T, NotRead>;

/// The strings holding `${` of a list or dict value (`[`/`{` first, blanks around it
/// already gone), each with its range in `text`, or why it is not read (see the module
/// docs).
pub(super) fn container_interpolations(text: &str) -> Read<Vec<(String, Range<usize>)>> {
    let mut reader = Reader {
        text,
        at: 0,
        found: Vec::new(),
    };
    reader.element(0)?;
    if reader.at != text.len() {
        return Err(NotRead::Grammar);
    }
    Ok(reader.found)
}

/// Hydra's grammar refuses what is not found.
fn grammar<T>(found: Option<T>) -> Read<T> {
    found.ok_or(NotRead::Grammar)
}

struct Reader<'a> {
    text: &'a str,
    at: usize,
    found: Vec<(String, Range<usize>)>,
}

impl Reader<'_> {
    fn peek(&self) -> Option<char> {
        self.text[self.at..].chars().next()
    }

    fn skip_blanks(&mut self) {
        let rest = &self.text[self.at..];
        self.at += rest.len() - rest.trim_start_matches(BLANKS).len();
    }

    /// Reads `c` (after blanks), or fails.
    fn expect(&mut self, c: char) -> Read {
        self.skip_blanks();
        grammar((self.peek() == Some(c)).then(|| self.at += c.len_utf8()))
    }

    /// One `element`: a list, a dict, a quoted value, a function or a primitive.
    fn element(&mut self, depth: usize) -> Read {
        self.skip_blanks();
        match grammar(self.peek())? {
            '[' | '{' if depth >= MAX_NESTING => Err(NotRead::TooDeep),
            '[' => self.items(depth, ']', false),
            '{' => self.items(depth, '}', true),
            '\'' | '"' => {
                let start = self.at;
                let end = start + grammar(quoted_end(&self.text[start..]))?;
                self.at = end;
                let string = escapes::quoted(&self.text[start..end]);
                self.note(string, start..end);
                Ok(())
            }
            _ => self.primitive_or_function(depth),
        }
    }

    /// A list's items or a dict's `key: value` pairs, after the opening bracket, up to
    /// and with `close`. A dict's key given twice keeps its last value (Hydra builds a
    /// Python `dict` of the pairs): the strings of the earlier ones are not set.
    fn items(&mut self, depth: usize, close: char, dict: bool) -> Read {
        self.at += 1;
        self.skip_blanks();
        if self.peek() == Some(close) {
            self.at += 1;
            return Ok(());
        }
        // Per key: the range of `found` its value gave.
        let base = self.found.len();
        let mut values: HashMap<DictKey, Range<usize>> = HashMap::new();
        let mut overridden: Vec<Range<usize>> = Vec::new();
        loop {
            let key = if dict {
                let key = self.dict_key()?;
                self.expect(':')?;
                Some(key)
            } else {
                None
            };
            let first = self.found.len();
            self.element(depth + 1)?;
            if let Some(key) = key
                && let Some(earlier) = values.insert(key, first..self.found.len())
            {
                overridden.push(earlier);
            }
            self.skip_blanks();
            match grammar(self.peek())? {
                ',' => self.at += 1,
                c if c == close => {
                    self.at += 1;
                    break;
                }
                _ => return Err(NotRead::Grammar),
            }
        }
        if !overridden.is_empty() {
            // This dict's findings only, each looked at once.
            let mut dropped = vec![false; self.found.len() - base];
            for i in overridden.into_iter().flatten() {
                dropped[i - base] = true;
            }
            let mut tail = self.found.split_off(base).into_iter();
            self.found.extend(
                dropped
                    .iter()
                    .filter_map(|&drop| tail.next().filter(|_| !drop)),
            );
        }
        Ok(())
    }

    /// A `dictKey`: words, `/-\+.$%*@?|`, escapes and blanks, up to its `:`; the key
    /// Hydra makes of it.
    fn dict_key(&mut self) -> Read<DictKey> {
        self.skip_blanks();
        let start = self.at;
        while let Some(c) = self.peek() {
            match c {
                ':' => break,
                '\\' => self.at += escape_len(&self.text[self.at..]),
                '$' if self.text[self.at..].starts_with("${") => {
                    return Err(NotRead::Grammar);
                }
                c if is_word_char(c) || BLANKS.contains(&c) => self.at += c.len_utf8(),
                _ => return Err(NotRead::Grammar),
            }
        }
        grammar((self.at > start).then(|| DictKey::of(&self.text[start..self.at], start)))
    }

    /// An unquoted primitive, or a function call (`name(...)`, not judged).
    fn primitive_or_function(&mut self, depth: usize) -> Read {
        let start = self.at;
        while let Some(c) = self.peek() {
            match c {
                ',' | ']' | '}' | ')' => break,
                '(' => return self.function_arguments(start, depth),
                '\\' => self.at += escape_len(&self.text[self.at..]),
                '$' if self.text[self.at..].starts_with("${") => {
                    // `INTERPOLATION`: `${` to the first `}`, one token.
                    let close = grammar(self.text[self.at + 2..].find('}'))?;
                    if close == 0 {
                        return Err(NotRead::Grammar);
                    }
                    self.at += 2 + close + 1;
                }
                c if is_word_char(c) || c == ':' || BLANKS.contains(&c) => {
                    self.at += c.len_utf8();
                }
                _ => return Err(NotRead::Grammar),
            }
        }
        let raw = &self.text[start..self.at];
        if raw.trim_matches(BLANKS).is_empty() {
            return Err(NotRead::Grammar);
        }
        if raw.contains("${") {
            let string = escapes::unquoted(raw);
            let lead = raw.len() - raw.trim_start_matches(BLANKS).len();
            let trail = raw.len() - raw.trim_end_matches(BLANKS).len();
            self.note(string, start + lead..self.at - trail);
        }
        Ok(())
    }

    /// A function's arguments, from its `(` (its name from `start`): elements, each
    /// maybe `name=` first, up to the `)`. Its result is not judged here.
    fn function_arguments(&mut self, start: usize, depth: usize) -> Read {
        let name = self.text[start..self.at].trim_matches(BLANKS);
        let is_id = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'));
        if !is_id {
            return Err(NotRead::Grammar);
        }
        if depth >= MAX_NESTING {
            return Err(NotRead::TooDeep);
        }
        let found = self.found.len();
        self.items_of_call(depth)?;
        // What a function makes of its arguments is its own (its result may be no string
        // at all): Hydra's casts are evaluated as they are on their own (`str(${a})` is
        // a string, `int(a)` Hydra's error); other functions are not judged.
        self.found.truncate(found);
        match cast::cast(&self.text[start..self.at]) {
            Some(Ok(Py::Str(string))) => self.note(string, start..self.at),
            Some(Err(cast::CastError)) => return Err(NotRead::Grammar),
            _ => {}
        }
        Ok(())
    }

    fn items_of_call(&mut self, depth: usize) -> Read {
        self.at += 1;
        self.skip_blanks();
        if self.peek() == Some(')') {
            self.at += 1;
            return Ok(());
        }
        loop {
            self.skip_blanks();
            // `name=` before an argument.
            let rest = &self.text[self.at..];
            let word = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-')))
                .unwrap_or(rest.len());
            if word > 0 && rest[word..].trim_start_matches(BLANKS).starts_with('=') {
                self.at += word;
                self.expect('=')?;
            }
            self.element(depth + 1)?;
            self.skip_blanks();
            match grammar(self.peek())? {
                ',' => self.at += 1,
                ')' => {
                    self.at += 1;
                    return Ok(());
                }
                _ => return Err(NotRead::Grammar),
            }
        }
    }

    fn note(&mut self, string: String, at: Range<usize>) {
        if string.contains("${") {
            self.found.push((string, at));
        }
    }
}

/// A dict key as Python compares them: Hydra makes `1`, `1.0` and `true` the same number
/// (`True == 1`, `0 == -0.0`), `null` and `NULL` `None`, and other keys strings. A NaN
/// equals no key, itself included.
#[derive(Debug, PartialEq, Eq, Hash)]
enum DictKey {
    /// A number's `f64` bits (`-0.0` as `0.0`).
    Number(u64),
    Nan(usize),
    Null,
    Text(String),
}

impl DictKey {
    /// The key written at `at`.
    fn of(written: &str, at: usize) -> DictKey {
        let text = escapes::unquoted(written);
        let number = |f: f64| {
            if f.is_nan() {
                return DictKey::Nan(at);
            }
            // `-0.0 == 0.0`: one key.
            DictKey::Number(if f == 0.0 { 0f64 } else { f }.to_bits())
        };
        match text.to_ascii_lowercase().as_str() {
            "null" => DictKey::Null,
            "true" => number(1.0),
            "false" => number(0.0),
            _ if is_int(&text) || is_float(&text) => text
                .replace('_', "")
                .parse()
                .map_or(DictKey::Text(text), number),
            _ => DictKey::Text(text),
        }
    }
}

/// The length of what starts with `\`: an escape (`ESC`, runs of them) or the `\` alone
/// (an `UNQUOTED_CHAR`).
fn escape_len(rest: &str) -> usize {
    let mut chars = rest.chars();
    chars.next();
    match chars.next() {
        Some(c) if ESCAPED.contains(c) => 1 + c.len_utf8(),
        _ => 1,
    }
}

/// A character of Hydra's words (`ID`, `INT`, `FLOAT`, `BOOL`, `NULL`) or an
/// `UNQUOTED_CHAR` (`/-\+.$%*@?|`). U+FFFD stands for bytes that were not UTF-8: the
/// launch reader's `not_unicode` judges those words (where the check reads them), as in
/// `breaks_value_grammar`.
fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_/-\\+.$%*@?|".contains(c) || c == char::REPLACEMENT_CHARACTER
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(text: &str) -> Read<Vec<String>> {
        container_interpolations(text).map(|found| {
            for (string, at) in &found {
                assert!(text.get(at.clone()).is_some(), "{text}: {string} at {at:?}");
            }
            found.into_iter().map(|(s, _)| s).collect()
        })
    }

    #[test]
    fn the_strings_hydra_hands_omegaconf() {
        // Each checked against hydra-core 1.3.2's `override.value()`.
        for (text, want) in [
            ("[a,${b c}]", vec!["${b c}"]),
            ("[ 'x${a}' , \"${b}\" ]", vec!["x${a}", "${b}"]),
            ("{a: ${x}, b: [1, ${y,z}]}", vec!["${x}", "${y,z}"]),
            ("[a/${x}\\,b]", vec!["a/${x},b"]),
            ("['${a}\\'']", vec!["${a}'"]),
            ("{a:b:${c}}", vec!["b:${c}"]),
            ("[int(1), ${b}]", vec!["${b}"]),
            ("{a: str(${x}), b: choice(${y}, 1)}", vec!["${x}"]),
            ("[1, true, null, a b]", vec![]),
            ("[/data/caf\u{fffd}/x.parquet]", vec![]),
            // A key given twice keeps its last value; `1` and `true` are one key.
            ("{a: ${x y}, b: 1, a: ${z}}", vec!["${z}"]),
            ("{1: [${x y}], true: 2}", vec![]),
            (
                "{0: ${x y}, -0.0: 2, nan: ${a}, NaN: ${b}}",
                vec!["${a}", "${b}"],
            ),
            ("[]", vec![]),
            ("{}", vec![]),
        ] {
            assert_eq!(
                strings(text),
                Ok(want.iter().map(|s| s.to_string()).collect()),
                "{text}"
            );
        }
        for text in [
            "[a,,b]",
            "['a'b]",
            "[a[0]]",
            "[${}]",
            "[${a]",
            "{${a}:1}",
            "{a}",
            "[a=b]",
            "[a",
            "[ ]x",
            "[int(${a b})]",
            "[a(1)b]",
        ] {
            assert_eq!(strings(text), Err(NotRead::Grammar), "{text}");
        }
        let deep = format!("{}{}", "[".repeat(100), "]".repeat(100));
        assert_eq!(strings(&deep), Err(NotRead::TooDeep));
    }
}
