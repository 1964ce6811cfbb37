//! Hydra's escapes in one value, undone as its override visitor undoes them
//! (`hydra/core/override_parser/overrides_visitor.py`: `_createPrimitive`,
//! `_unescape_quoted_string`).

use super::lexing::BLANKS;
use crate::grammar_tokens::ESCAPED;

/// A quoted value as written, its quotes included: a run of `\` before its quote keeps
/// half of itself (`\'` is `'`, `\\'` at the end is `\`); other `\` stay.
pub(super) fn quoted(value: &str) -> String {
    let mut chars = value.chars();
    let Some(quote) = chars.next() else {
        return String::new();
    };
    let body: Vec<char> = chars.collect();
    let mut out = String::new();
    let mut i = 0;
    while i < body.len() {
        let run = body[i..].iter().take_while(|&&c| c == '\\').count();
        if run > 0 {
            let escapes_quote = body.get(i + run) == Some(&quote);
            let kept = if escapes_quote { run / 2 } else { run };
            out.extend(std::iter::repeat_n('\\', kept));
            // An odd run escapes the quote; an even one ends before the closing quote.
            if escapes_quote && run % 2 == 1 {
                out.push(quote);
            }
            i += run + usize::from(escapes_quote);
            continue;
        }
        if body[i] == quote && i + 1 == body.len() {
            break;
        }
        out.push(body[i]);
        i += 1;
    }
    out
}

/// An unquoted value as written after the `=`'s blanks: each escape (`ESC`: `\` before
/// one of `\()[]{}:=, ` and a tab) is the character it escapes, an interpolation
/// (`${` to the first `}`) stays as written, and unescaped blanks at either end go.
pub(super) fn unquoted(value: &str) -> String {
    let chars: Vec<char> = value.chars().collect();
    // Each character, and whether it is kept whatever it is (escaped, interpolated).
    let mut out: Vec<(char, bool)> = Vec::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        match (chars[i], chars.get(i + 1)) {
            ('$', Some('{')) => {
                let end = chars[i..]
                    .iter()
                    .position(|&c| c == '}')
                    .map_or(chars.len(), |e| i + e + 1);
                out.extend(chars[i..end].iter().map(|&c| (c, true)));
                i = end;
            }
            ('\\', Some(&next)) if ESCAPED.contains(next) => {
                out.push((next, true));
                i += 2;
            }
            (c, _) => {
                out.push((c, false));
                i += 1;
            }
        }
    }
    let loose_blank = |&(c, kept): &(char, bool)| !kept && BLANKS.contains(&c);
    let start = out
        .iter()
        .position(|e| !loose_blank(e))
        .unwrap_or(out.len());
    let end = out
        .iter()
        .rposition(|e| !loose_blank(e))
        .map_or(start, |e| e + 1);
    out[start..end].iter().map(|&(c, _)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_hydra_undoes_them() {
        // Each as hydra-core 1.3.2's visitor gives it.
        for (written, value) in [
            ("'it\\'s'", "it's"),
            ("\"say \\\"hi\\\"\"", "say \"hi\""),
            ("'a\\\\'", "a\\"),
            ("'a\\\\\\'b'", "a\\'b"),
            ("'a\\b'", "a\\b"),
            ("'\\\\\\\\'", "\\\\"),
            ("''", ""),
            ("\"a'b\"", "a'b"),
        ] {
            assert_eq!(quoted(written), value, "{written}");
        }
        for (written, value) in [
            ("a\\,b", "a,b"),
            ("a\\ b", "a b"),
            ("a\\=b", "a=b"),
            ("a\\(b\\)", "a(b)"),
            ("a\\\\b", "a\\b"),
            ("1\\,2", "1,2"),
            ("a\\$b", "a\\$b"),
            ("${a\\,b}\\,", "${a\\,b},"),
            ("a\\  ", "a "),
            ("a \t", "a"),
        ] {
            assert_eq!(unquoted(written), value, "{written}");
        }
    }
}
