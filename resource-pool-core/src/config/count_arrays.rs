//! Arrays of plain counts (`process_on_nodes = [8, 8, 8]`), read straight from the text
//! before the `toml` crate parses the rest of it.
//!
//! A pool of 100,000 node-slots is a 300 KB array. The `toml` crate gives each of its
//! elements a token, an event and a spanned tree value (tens of megabytes written, half of
//! the load's time in page faults), where the pool keeps four bytes and a span. So before
//! parsing, each array that stands after `=` and holds nothing but counts is read here,
//! and blanked to spaces in a copy of the text: `[8, 8]` becomes `[    ]`, an empty array
//! with the same span. The parser reads the copy; the pool reader takes the counts of such
//! an array from [`CountArrays::take`] by the array's offset. A file whose lists of counts
//! are short (`[8, 8]`) is not read ahead: the extra pass would cost more than it saves
//! ([`worth_reading_ahead`]).
//!
//! A count here is what the tree reader reads without a problem: decimal digits without a
//! leading zero, at most `u32::MAX`. Between them: spaces, tabs, newlines and one comma
//! after each count (a trailing one allowed). Anything else (a comment, a sign, `_`, a
//! float, a nested array, a count too large) leaves the array to the parser, whole.
//!
//! Why the result is the tree reader's: the `=` before the `[` is found with toml's own
//! lexer, so it is never inside a string or a comment. In valid TOML such an `=` separates
//! a key from its value, so the `[` starts a value; an array of counts and an empty array
//! are both valid there, and no rule of TOML looks at an array's elements. So the copy is
//! valid TOML exactly when the file is, and then parses to the same tree but for the
//! elements of those arrays, which no reader takes from the tree. When the copy has any
//! error, the file itself is parsed and its tree and errors are used, without counts: a
//! broken file gets exactly the parser's words on it (and is parsed twice, which only
//! broken files pay).
//!
//! Only `process_on_nodes` reads an array's elements ([`PoolDoc::read`](super::PoolDoc));
//! a reader of another array's elements must take them from here too.

use toml::de::DeTable;
use toml_parser::Source;
use toml_parser::lexer::TokenKind;

use crate::source::{Span, Spanned};
use crate::toml_support::walk::{self as toml_walk, StructureError};

/// Whether arrays of counts are read ahead of the parser, or all from its tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Arrays {
    /// Read ahead when the file's lists of counts are long enough for it to pay
    /// ([`worth_reading_ahead`]): what the loaders do.
    WhenWorthIt,
    /// Always read ahead: the tests and fuzzing, whose files are short.
    #[cfg(any(test, feature = "fuzzing"))]
    Always,
    /// Read every array from the parser's tree: how the reader worked before, kept as the
    /// oracle the read-ahead is tested against.
    #[cfg_attr(not(any(test, feature = "fuzzing")), allow(dead_code))]
    FromTree,
}

/// The counts of the arrays read ahead of the parser, by the offset of their `[`.
#[derive(Debug, Default)]
pub(crate) struct CountArrays {
    /// In file order; each taken once.
    arrays: Vec<(usize, Option<Vec<Spanned<u32>>>)>,
}

impl CountArrays {
    /// The counts of the array whose `[` stands at `start`, when it was read ahead (its
    /// tree value is then empty). Each array's counts are taken once.
    pub(crate) fn take(&mut self, start: usize) -> Option<Vec<Spanned<u32>>> {
        let at = self
            .arrays
            .binary_search_by_key(&start, |(array_start, _)| *array_start)
            .ok()?;
        self.arrays[at].1.take()
    }
}

/// Parses a file's TOML `text` with its arrays of counts read ahead (or not, by `arrays`):
/// the tree, recovered as far as possible, every syntax error, and the counts. The tree
/// borrows from `text`, or from `blanked`, where the copy of the text is kept.
pub(crate) fn parse<'a>(
    text: &'a str,
    blanked: &'a mut String,
    arrays: Arrays,
) -> (toml::Spanned<DeTable<'a>>, Vec<StructureError>, CountArrays) {
    let found = match arrays {
        Arrays::WhenWorthIt if worth_reading_ahead(text) => find(text),
        #[cfg(any(test, feature = "fuzzing"))]
        Arrays::Always => find(text),
        Arrays::WhenWorthIt | Arrays::FromTree => Vec::new(),
    };
    if !found.is_empty()
        && let Some(copy) = blank(text, found.iter().map(|(span, _)| span))
    {
        *blanked = copy;
        let blanked: &'a String = blanked;
        let (root, errors) = toml_walk::parse_text(blanked);
        if errors.is_empty() {
            let arrays = found
                .into_iter()
                .map(|(span, counts)| (span.start, Some(counts)))
                .collect();
            return (root, errors, CountArrays { arrays });
        }
        // Not kept while the file is parsed again: a broken file costs no more memory at
        // once than it did before.
        drop((root, found));
    }
    let (root, errors) = toml_walk::parse_text(text);
    (root, errors, CountArrays::default())
}

/// Bytes of count lists below which a file is not read ahead.
const MIN_COUNT_BYTES: usize = 256;

/// Whether reading ahead can pay for itself, judged from the bytes alone (what is read
/// ahead is [`find`]'s to decide, and either way the result is the tree reader's).
///
/// Its cost is toml's lexer run once more over the file outside the lists (about 20
/// instructions a byte, callgrind) and a copy; its gain, the parser's work on each count
/// (about 270 instructions a byte of `8, 8, ...`, less the reading here). So the runs of
/// digits, commas and blanks that follow a `[` must make a sixteenth of the file, and at
/// least [`MIN_COUNT_BYTES`] (85 counts of `8, `): short lists are not worth a pass, and a
/// file shorter than that is not even looked at.
fn worth_reading_ahead(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.len() < MIN_COUNT_BYTES {
        return false;
    }
    let needed = MIN_COUNT_BYTES.max(bytes.len() / 16);
    let mut count_bytes = 0;
    let mut at = 0;
    while let Some(open) = bytes
        .get(at..)
        .and_then(|rest| rest.iter().position(|&b| b == b'['))
    {
        at += open + 1;
        while let Some(b'0'..=b'9' | b',' | b' ' | b'\t' | b'\r' | b'\n') = bytes.get(at) {
            count_bytes += 1;
            if count_bytes == needed {
                return true;
            }
            at += 1;
        }
    }
    false
}

/// Every array of counts after an `=`: its span (brackets included) and its counts.
fn find(text: &str) -> Vec<(Span, Vec<Spanned<u32>>)> {
    let mut found = Vec::new();
    // The lexer starts again after each array read, at `resume`: it reads a token from
    // where it stands alone, so it gives the tokens it would have given going on. But for
    // a byte-order mark, which it skips at the start of its text only: none is read ahead
    // when one follows.
    let mut resume = 0;
    let mut tokens = Source::new(text).lex();
    let mut after_equals = false;
    while let Some(token) = tokens.next() {
        match token.kind() {
            TokenKind::Equals => after_equals = true,
            TokenKind::Whitespace => {}
            TokenKind::LeftSquareBracket if after_equals => {
                after_equals = false;
                let start = resume + token.span().start();
                if let Some((end, counts)) = read_counts(text.as_bytes(), start)
                    && !text[end..].starts_with('\u{feff}')
                {
                    found.push((start..end, counts));
                    resume = end;
                    tokens = Source::new(&text[end..]).lex();
                }
            }
            TokenKind::Eof => break,
            _ => after_equals = false,
        }
    }
    found
}

/// The array of counts whose `[` is at `start`: the offset after its `]` and its counts;
/// `None` when it is not one (the parser reads it then).
fn read_counts(bytes: &[u8], start: usize) -> Option<(usize, Vec<Spanned<u32>>)> {
    let mut counts = Vec::new();
    let mut at = skip_blanks(bytes, start + 1)?;
    if bytes[at] == b']' {
        return Some((at + 1, counts));
    }
    loop {
        // A count: the digits end at a byte that also ends toml's token (a blank, `,`
        // or `]`, else the array is not read), so its value is these digits.
        let digits = at;
        let mut value: u64 = 0;
        while let Some(&digit) = bytes.get(at)
            && digit.is_ascii_digit()
        {
            if at - digits == 10 {
                return None; // eleven digits exceed `u32::MAX`
            }
            value = value * 10 + u64::from(digit - b'0');
            at += 1;
        }
        if at == digits || (bytes[digits] == b'0' && at - digits > 1) {
            return None; // no digit, or a leading zero (invalid TOML)
        }
        counts.push(Spanned::new(u32::try_from(value).ok()?, digits..at));
        // Then `]`, or `,` and the next count or `]`.
        at = skip_blanks(bytes, at)?;
        match bytes[at] {
            b']' => return Some((at + 1, counts)),
            b',' => at = skip_blanks(bytes, at + 1)?,
            _ => return None,
        }
        if bytes[at] == b']' {
            return Some((at + 1, counts));
        }
    }
}

/// The first byte from `at` on that is not a space, a tab or a newline (`\n`, `\r\n`);
/// `None` at the end of the text.
fn skip_blanks(bytes: &[u8], mut at: usize) -> Option<usize> {
    loop {
        match *bytes.get(at)? {
            b' ' | b'\t' | b'\n' => at += 1,
            b'\r' if bytes.get(at + 1) == Some(&b'\n') => at += 2,
            _ => return Some(at),
        }
    }
}

/// `text` with the insides of the arrays at `spans` blanked: spaces, but newlines kept,
/// so that lines and spans stay as they are. `None` if it were not UTF-8, which cannot
/// be: only ASCII bytes (`read_counts` saw to it) are replaced, by ASCII ones.
fn blank<'s>(text: &str, spans: impl Iterator<Item = &'s Span>) -> Option<String> {
    let mut bytes = text.as_bytes().to_vec();
    for span in spans {
        // The brackets stay. (Every byte written, so that the loop is vectorised.)
        for byte in &mut bytes[span.start + 1..span.end - 1] {
            *byte = if *byte == b'\n' { b'\n' } else { b' ' };
        }
    }
    String::from_utf8(bytes).ok()
}

/// The text the parser reads: `text` with the arrays read ahead blanked.
#[cfg(test)]
fn blanked_text(text: &str) -> String {
    blank(text, find(text).iter().map(|(span, _)| span)).expect("UTF-8")
}

#[cfg(test)]
mod tests;
