//! OmegaConf's quick pattern (`SIMPLE_INTERPOLATION_PATTERN` of `grammar_parser.py`):
//! what it matches is taken without the grammar, even where the grammar would refuse it
//! (`${:x}`, a line break inside `${...}`).

/// `SIMPLE_INTERPOLATION_PATTERN` (`re.ASCII`): text without `${`, and interpolations of
/// a node path (`${a.b[c]}`) or of a resolver with plain arguments (`${f:a,b}`), blanks
/// (`\s`, line breaks included) around their parts.
pub(super) fn simple_pattern(chars: &[char]) -> bool {
    let mut i = 0;
    let mut interpolations = 0;
    while i < chars.len() {
        if chars[i] == '$' && chars.get(i + 1) == Some(&'{') {
            let Some(close) = chars[i..].iter().position(|&c| c == '}') else {
                return false;
            };
            let inner = &chars[i + 2..i + close];
            if !(simple_node(inner) || simple_resolver(inner)) {
                return false;
            }
            interpolations += 1;
            i += close + 1;
        } else {
            i += 1;
        }
    }
    interpolations > 0
}

fn is_py_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{b}' | '\u{c}')
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn trim_py_space(chars: &[char]) -> &[char] {
    let start = chars
        .iter()
        .position(|&c| !is_py_space(c))
        .unwrap_or(chars.len());
    let end = chars
        .iter()
        .rposition(|&c| !is_py_space(c))
        .map_or(start, |e| e + 1);
    &chars[start..end]
}

/// `(\.)*(K|\[K\])(\.K|\[K\])*` with `K` = `[$\w]+`.
fn simple_node(inner: &[char]) -> bool {
    let path = trim_py_space(inner);
    let key = |at: usize| {
        path[at..]
            .iter()
            .take_while(|&&c| c == '$' || is_word(c))
            .count()
    };
    let mut i = path.iter().take_while(|&&c| c == '.').count();
    let mut parts = 0;
    while i < path.len() {
        let dotted = parts > 0 && path[i] == '.';
        if path[i] == '[' {
            let n = key(i + 1);
            if n == 0 || path.get(i + 1 + n) != Some(&']') {
                return false;
            }
            i += n + 2;
        } else {
            let from = if dotted { i + 1 } else { i };
            if parts > 0 && !dotted {
                return false;
            }
            let n = key(from);
            if n == 0 {
                return false;
            }
            i = from + n;
        }
        parts += 1;
    }
    parts > 0
}

/// `(ID(\.ID)*)?\s*:\s*A(\s*,\s*A)*` with `ID` = `[a-zA-Z_][\w\-]*` and `A` =
/// `[a-zA-Z_0-9/\-\+.$%*@?|]+`.
fn simple_resolver(inner: &[char]) -> bool {
    let inner = trim_py_space(inner);
    let Some(colon) = inner.iter().position(|&c| c == ':') else {
        return false;
    };
    let name = trim_py_space(&inner[..colon]);
    let name_ok = name.is_empty()
        || name.split(|&c| c == '.').all(|id| {
            id.first()
                .is_some_and(|&c| c.is_ascii_alphabetic() || c == '_')
                && id.iter().all(|&c| is_word(c) || c == '-')
        });
    let args = trim_py_space(&inner[colon + 1..]);
    let arg_ok = |a: &[char]| {
        let a = trim_py_space(a);
        !a.is_empty() && a.iter().all(|&c| is_word(c) || "/-+.$%*@?|".contains(c))
    };
    // The pattern's `{_args}?` makes its last repetition lazy, not the arguments
    // optional: one argument at least.
    name_ok && args.split(|&c| c == ',').all(arg_ok)
}
