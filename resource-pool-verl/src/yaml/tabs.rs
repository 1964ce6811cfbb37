//! Tabs, as PyYAML's scanner takes them: only inside a quoted scalar, a comment, or a
//! block scalar's content (at or past its indentation). Anywhere else (indentation,
//! after a `:` or a value, in a plain scalar, on an otherwise blank line) it stops with
//! `found character '\t' that cannot start any token`, and verl with it. The YAML parser
//! here (saphyr, YAML 1.2) takes most of those tabs as white space, so they are found
//! by a scan of our own, which knows where quoted and block scalars start from the
//! parser's events.

/// How a scalar is written, when its text may hold tabs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Written {
    /// `'...'`, from its opening quote.
    SingleQuoted,
    /// `"..."`, from its opening quote.
    DoubleQuoted,
    /// `|` or `>`, from its first content character (after the indentation).
    Block,
}

/// PyYAML's words for a tab where it takes none.
pub(super) const REFUSED_TAB: &str = "found character '\\t' that cannot start any token: PyYAML takes a tab only inside quotes, a comment or a block scalar";

/// The first tab of `source` (a char index) that PyYAML refuses, before `upto` chars;
/// `written` holds where quoted and block scalars start (char indices, in order).
pub(super) fn first_refused_tab(
    source: &str,
    written: &[(usize, Written)],
    upto: usize,
) -> Option<usize> {
    // Tab-free text needs no scan (most configs).
    if !source.contains('\t') {
        return None;
    }
    let chars: Vec<char> = source.chars().take(upto).collect();
    let mut starts = written.iter().peekable();
    let mut i = 0;
    while i < chars.len() {
        while starts.next_if(|(start, _)| *start < i).is_some() {}
        if let Some((_, how)) = starts.next_if(|(start, _)| *start == i) {
            i = match how {
                Written::SingleQuoted => single_quoted_end(&chars, i),
                Written::DoubleQuoted => double_quoted_end(&chars, i),
                Written::Block => block_end(&chars, i),
            };
            continue;
        }
        match chars[i] {
            '\t' => return Some(i),
            '#' if i == 0 || is_blank_or_break(chars[i - 1]) => {
                while i < chars.len() && !is_break(chars[i]) {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// YAML 1.1's line breaks, as PyYAML reads them.
fn is_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn is_blank_or_break(c: char) -> bool {
    c == ' ' || c == '\t' || is_break(c)
}

/// Past the closing quote of a scalar quoted `'` at `start` (`''` is a quote inside).
fn single_quoted_end(chars: &[char], start: usize) -> usize {
    let mut j = start + 1;
    while j < chars.len() {
        if chars[j] == '\'' {
            if chars.get(j + 1) == Some(&'\'') {
                j += 2;
                continue;
            }
            return j + 1;
        }
        j += 1;
    }
    chars.len()
}

/// Past the closing quote of a scalar quoted `"` at `start` (`\` escapes the next).
fn double_quoted_end(chars: &[char], start: usize) -> usize {
    let mut j = start + 1;
    while j < chars.len() {
        match chars[j] {
            '\\' => j += 2,
            '"' => return j + 1,
            _ => j += 1,
        }
    }
    chars.len()
}

/// Where a block scalar whose content starts at `start` ends: the start of the first line
/// after it whose first character that is no space stands left of the content's column
/// (what is there, a tab included, is read as PyYAML's scanner reads it). A tab on a
/// line of the block at or past that column is content.
fn block_end(chars: &[char], start: usize) -> usize {
    let line_start = chars[..start]
        .iter()
        .rposition(|&c| is_break(c))
        .map_or(0, |b| b + 1);
    let indent = start - line_start;
    let mut j = start;
    loop {
        while j < chars.len() && !is_break(chars[j]) {
            j += 1;
        }
        if j >= chars.len() {
            return j;
        }
        // `\r\n` is one break.
        j += if chars[j] == '\r' && chars.get(j + 1) == Some(&'\n') {
            2
        } else {
            1
        };
        let line = j;
        let spaces = chars[line..].iter().take_while(|&&c| c == ' ').count();
        match chars.get(line + spaces) {
            None => return chars.len(),
            Some(&c) if is_break(c) => j = line + spaces,
            Some(_) if spaces >= indent => j = line + spaces,
            Some(_) => return line,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabs_where_pyyaml_takes_them() {
        use Written::*;
        // Each checked against PyYAML 6.0.3 (`yaml.load(..., SafeLoader)`).
        type Case = (&'static str, &'static [(usize, Written)], Option<usize>);
        let cases: &[Case] = &[
            ("a: 8\t\n", &[], Some(4)),
            ("\ta: 8\n", &[], Some(0)),
            ("a: 8\n\t\nb: 1\n", &[], Some(5)),
            ("a: b\tc\n", &[], Some(4)),
            ("a: 'x\ty'\n", &[(3, SingleQuoted)], None),
            ("a: 'x''\ty'\t\n", &[(3, SingleQuoted)], Some(10)),
            ("a: \"x\\\"\ty\"\n", &[(3, DoubleQuoted)], None),
            ("a: 8 # c\tc\n", &[], None),
            ("#\t\na: 1\n", &[], None),
            ("a: 1\t#c\n", &[], Some(4)),
            ("a: x#\t\n", &[], Some(5)),
            ("a: |\n  x\ty\n", &[(7, Block)], None),
            ("a: |\t\n  x\n", &[(8, Block)], Some(4)),
            ("a: |\n  x\n  \t\nb: 1\n", &[(7, Block)], None),
            ("a: >\n  x\n\t\n", &[(7, Block)], Some(9)),
            ("a: |-\n  x\n\tb: 1\n", &[(8, Block)], Some(10)),
            ("a: |\r\n  x\r\n \t\r\n", &[(8, Block)], Some(12)),
        ];
        for (text, written, tab) in cases {
            assert_eq!(
                first_refused_tab(text, written, usize::MAX),
                *tab,
                "{text:?}"
            );
        }
        // Only before `upto`.
        assert_eq!(first_refused_tab("a: 8\t\n", &[], 4), None);
    }
}
