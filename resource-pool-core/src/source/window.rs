//! Snippets of long lines: a line of a file over [`LONG_LINE`] bytes, and a layer's line
//! (the command line) over [`LONG_LAYER_LINE`], are shown as a window around the span, with
//! `…` where the line is cut, so a 2,000-character launch line does not fill the screen.

use std::sync::OnceLock;

use miette::{MietteSpanContents, SourceSpan};

use super::SourceFile;
use super::line_index::LineIndex;

/// Lines longer than this (in bytes) are shown clipped around the span: a minified JSON
/// file is one line of megabytes, and each snippet would print all of it.
const LONG_LINE: usize = 400;
/// The bytes shown on either side of a span in a clipped line.
const CLIP_CONTEXT: usize = 80;

/// The snippet of a span that lies on one line longer than [`LONG_LINE`]: that line from a
/// little before the span to a little after it, without context lines. `None` for spans
/// on ordinary lines (or spread over several).
pub(super) fn clip_long_line<'a>(
    text: &'a str,
    lines: &LineIndex,
    span: &SourceSpan,
    before: usize,
) -> Option<MietteSpanContents<'a>> {
    let start = span.offset();
    let end = start + span.len();
    if end > text.len() || !text.is_char_boundary(start) || !text.is_char_boundary(end) {
        return None;
    }
    let line = lines.line_of(start);
    if lines.line_of(end.saturating_sub(1).max(start)) != line {
        return None;
    }
    let line_start = lines.line_start(line);
    // The next line's start, less its `\n` (a `\r` before it is cut below).
    let line_end = lines
        .next_line_start(line)
        .map_or(text.len(), |next| next - 1);
    if line_end - line_start <= LONG_LINE || span.len() > LONG_LINE {
        return None;
    }
    // Only what is shown is searched for a `\r`: the line may be megabytes long.
    let shown_end = (end + CLIP_CONTEXT).min(line_end);
    let line_end = text
        .as_bytes()
        .get(end..shown_end)
        .and_then(|shown| shown.iter().position(|&b| b == b'\r'))
        .map_or(line_end, |i| end + i);
    let mut from = if before == 0 {
        start
    } else {
        start.saturating_sub(CLIP_CONTEXT).max(line_start)
    };
    while !text.is_char_boundary(from) {
        from += 1;
    }
    let mut to = (end + CLIP_CONTEXT).min(line_end);
    while !text.is_char_boundary(to) {
        to -= 1;
    }
    Some(MietteSpanContents::new(
        &text.as_bytes()[from..to],
        SourceSpan::new(from.into(), to - from),
        line,
        0,
        0,
    ))
}

/// A layer line (the command line) longer than this, in bytes, is shown as a window
/// around the span: verl's launch lines run to thousands of characters.
const LONG_LAYER_LINE: usize = 120;
/// The bytes of context shown on either side of the word that holds a span, before the
/// window widens to whole words.
const WINDOW_CONTEXT: usize = 24;
/// How far a window widens to reach a word boundary before it cuts a word.
const WORD_REACH: usize = 24;
/// What marks a cut end.
const ELLIPSIS: &str = "…";

/// The windows of a layer's long line, each `…` + a slice + `…`, kept for as long as the
/// file so that snippets can borrow them (miette's snippet data borrows from the source).
/// A fixed number of slots, filled once each: memory stays bounded; past them a window is
/// shown without its `…` marks.
#[derive(Default)]
pub(super) struct LayerWindows([OnceLock<(usize, Box<[u8]>)>; 32]);

impl LayerWindows {
    /// The stored window starting at `offset` with these bytes, stored if new.
    fn get_or_store(&self, offset: usize, data: Vec<u8>) -> Option<&[u8]> {
        for slot in &self.0 {
            if let Some((o, d)) = slot.get() {
                if *o == offset && **d == *data {
                    return Some(d);
                }
                continue;
            }
            let mut value = Some((offset, data.clone().into_boxed_slice()));
            let stored = slot.get_or_init(|| value.take().expect("initialised once"));
            if value.is_none() && stored.0 == offset && *stored.1 == *data {
                return Some(&stored.1);
            }
        }
        None
    }
}

impl SourceFile {
    /// The snippet of a span on a long layer line: the word (override) that holds it whole,
    /// a little context, `…` at the ends that cut the line. `None` for short lines, spans
    /// over several lines, or when the window slots are used up.
    pub(super) fn layer_window<'a>(
        &'a self,
        layer_start: usize,
        span: &SourceSpan,
        name: &str,
    ) -> Option<MietteSpanContents<'a>> {
        let text: &str = &self.text;
        let (start, end) = (span.offset(), span.offset() + span.len());
        // A span from another text (inside a character here) gets no window, not a panic.
        if end > text.len()
            || start < layer_start
            || !text.is_char_boundary(start)
            || !text.is_char_boundary(end)
            || !text.is_char_boundary(layer_start)
        {
            return None;
        }
        let line_start = text[layer_start..start]
            .rfind('\n')
            .map_or(layer_start, |i| layer_start + i + 1);
        let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i);
        if line_end - line_start <= LONG_LAYER_LINE || text[start..end].contains('\n') {
            return None;
        }
        let bytes = text.as_bytes();
        // The word that holds the span, then context, then out to whole words.
        let word_start = text[line_start..start]
            .rfind(' ')
            .map_or(line_start, |i| line_start + i + 1);
        let word_end = text[end..line_end].find(' ').map_or(line_end, |i| end + i);
        let mut from = word_start.saturating_sub(WINDOW_CONTEXT).max(line_start);
        let reach = from.saturating_sub(WORD_REACH).max(line_start);
        if let Some(i) = bytes[reach..from].iter().rposition(|&b| b == b' ') {
            from = reach + i + 1;
        }
        while !text.is_char_boundary(from) {
            from += 1;
        }
        let mut to = (word_end + WINDOW_CONTEXT).min(line_end);
        let reach = (to + WORD_REACH).min(line_end);
        if let Some(i) = bytes[to..reach].iter().position(|&b| b == b' ') {
            to += i;
        } else if reach == line_end {
            to = line_end;
        }
        while !text.is_char_boundary(to) {
            to -= 1;
        }
        // The `…` takes the bytes before the window in the span space (its offset is
        // `from - 3`): a window starting less than that from the text's start shows the
        // line from its start instead.
        if from < ELLIPSIS.len() {
            from = line_start;
        }
        let cut_left = from > line_start;
        let cut_right = to < line_end;
        let mut data = Vec::with_capacity(to - from + 2 * ELLIPSIS.len());
        if cut_left {
            data.extend_from_slice(ELLIPSIS.as_bytes());
        }
        data.extend_from_slice(&bytes[from..to]);
        if cut_right {
            data.extend_from_slice(ELLIPSIS.as_bytes());
        }
        let offset = if cut_left {
            from - ELLIPSIS.len()
        } else {
            from
        };
        let len = data.len();
        let stored = self.windows.get_or_store(offset, data)?;
        let line = self.line_col_from(layer_start, start).0 - 1;
        Some(MietteSpanContents::new_named(
            name.to_owned(),
            stored,
            SourceSpan::new(offset.into(), len),
            line,
            0,
            1,
        ))
    }
}
