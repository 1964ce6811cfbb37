//! What several readers of an override's value share from Hydra's lexer
//! (`OverrideLexer.g4`, hydra-core 1.3.2): its blanks, where a quoted value ends, and the
//! top-level commas that split a sweep's or a function's items.

use crate::grammar_tokens::ESCAPED;

/// The blanks of Hydra's value grammar (`WS: [ \t]+`).
pub(super) const BLANKS: [char; 2] = [' ', '\t'];

/// Where the quoted string that `rest` starts with ends (the byte after its closing
/// quote): up to the same quote not escaped by `\`. `None` when `rest` starts with no
/// quote, or the quote is left open.
pub(super) fn quoted_end(rest: &str) -> Option<usize> {
    let mut chars = rest.char_indices();
    let Some((_, quote @ ('\'' | '"'))) = chars.next() else {
        return None;
    };
    while let Some((i, c)) = chars.next() {
        if c == '\\' {
            chars.next();
        } else if c == quote {
            return Some(i + 1);
        }
    }
    None
}

/// The items of `text` split at its commas outside brackets, parentheses, braces, quotes
/// and interpolations, as Hydra's lexer sees them: an escape (`ESC`) takes the character
/// after its `\`, a quoted value ends at its quote not escaped by `\`, and an
/// interpolation is `${` to the first `}` (quotes and brackets inside it are its text).
pub(super) fn top_level_items(text: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let skip_to = match c {
            '\\' => {
                chars.next_if(|&(_, next)| ESCAPED.contains(next));
                None
            }
            // A quote left open holds the rest.
            '\'' | '"' => Some(quoted_end(&text[i..]).map_or(text.len(), |end| i + end)),
            '$' if text[i + 1..].starts_with('{') => {
                text[i + 2..].find('}').map(|close| i + 2 + close + 1)
            }
            '[' | '(' | '{' => {
                depth += 1;
                None
            }
            ']' | ')' | '}' => {
                depth = depth.saturating_sub(1);
                None
            }
            ',' if depth == 0 => {
                items.push(&text[start..i]);
                start = i + 1;
                None
            }
            _ => None,
        };
        if let Some(end) = skip_to {
            while chars.next_if(|&(j, _)| j < end).is_some() {}
        }
    }
    items.push(&text[start..]);
    items
}
