//! Where the lines of a text start, and how many characters come before each kilobyte, so
//! that the line and column of an offset, or the start of a snippet's context, is found
//! without scanning the text from its start. A file with 100,000 diagnostics is indexed
//! once, in one pass, instead of being read again for each.

/// The bytes between two character counts kept.
const CHAR_BLOCK: usize = 1024;

/// The line starts and character counts of one text.
#[derive(Debug)]
pub(crate) struct LineIndex {
    /// The offset after each `\n`, in order.
    line_starts: Vec<usize>,
    /// `marks[k]`: the characters before `block_start(k)`.
    marks: Vec<usize>,
    /// Whether some `\r` is not followed by `\n`: miette counts it as a line break, this
    /// index does not, so snippets of such a text are read the slow way.
    pub(crate) lone_cr: bool,
}

impl LineIndex {
    /// Indexes `text`.
    pub(crate) fn new(text: &str) -> LineIndex {
        let bytes = text.as_bytes();
        let mut line_starts = Vec::new();
        let mut lone_cr = false;
        for (i, &b) in bytes.iter().enumerate() {
            match b {
                b'\n' => line_starts.push(i + 1),
                b'\r' if bytes.get(i + 1) != Some(&b'\n') => lone_cr = true,
                _ => {}
            }
        }
        let blocks = text.len() / CHAR_BLOCK;
        let mut marks = Vec::with_capacity(blocks + 1);
        marks.push(0);
        let mut previous = 0;
        for k in 1..=blocks {
            let start = block_start(text, k);
            let before = marks.last().copied().unwrap_or(0);
            marks.push(before + text[previous..start].chars().count());
            previous = start;
        }
        LineIndex {
            line_starts,
            marks,
            lone_cr,
        }
    }

    /// How many `\n` come before `offset`: its 0-based line.
    pub(crate) fn line_of(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&start| start <= offset)
    }

    /// Where 0-based `line` starts.
    pub(crate) fn line_start(&self, line: usize) -> usize {
        match line.checked_sub(1) {
            None => 0,
            Some(i) => self.line_starts.get(i).copied().unwrap_or(0),
        }
    }

    /// Where the line after 0-based `line` starts; `None` for the last line.
    pub(crate) fn next_line_start(&self, line: usize) -> Option<usize> {
        self.line_starts.get(line).copied()
    }

    /// The characters of `text` (the indexed one) before `offset`, a char boundary.
    pub(crate) fn chars_before(&self, text: &str, offset: usize) -> usize {
        let k = (offset / CHAR_BLOCK).min(self.marks.len() - 1);
        let start = block_start(text, k);
        self.marks[k] + text.get(start..offset).map_or(0, |s| s.chars().count())
    }
}

/// The char boundary at or before byte `k * CHAR_BLOCK`.
fn block_start(text: &str, k: usize) -> usize {
    let mut at = (k * CHAR_BLOCK).min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Texts of a few kilobytes: several blocks of characters counted.
        #[test]
        fn lines_and_characters_are_counted_as_a_scan_counts_them(
            text in "([a-z]|\n|\r\n|\r|é|中|\u{1F600}){0,1200}",
            offset in 0usize..4000,
        ) {
            let index = LineIndex::new(&text);
            let mut offset = offset.min(text.len());
            while !text.is_char_boundary(offset) {
                offset -= 1;
            }
            let before = &text[..offset];
            prop_assert_eq!(index.line_of(offset), before.matches('\n').count());
            prop_assert_eq!(
                index.line_start(index.line_of(offset)),
                before.rfind('\n').map_or(0, |i| i + 1)
            );
            prop_assert_eq!(index.chars_before(&text, offset), before.chars().count());
            prop_assert_eq!(index.lone_cr, text.replace("\r\n", "").contains('\r'));
        }
    }
}
