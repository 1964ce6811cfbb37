//! The grammar's lexer (`OmegaConfGrammarLexer.g4`), mode by mode: the longest match
//! wins, the earlier rule on a tie, and a character no rule of the mode takes is an
//! error (`token recognition error`). The numbers, `ESC` and the words of any case are
//! Hydra's tokens too ([`crate::grammar_tokens`]).

use crate::grammar_tokens::{esc, float, int, word};

/// The grammar's token types (both quotes open the same way).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tok {
    AnyStr,
    EscInter,
    TopEsc,
    InterOpen,
    BraceOpen,
    BraceClose,
    QuoteOpen,
    Comma,
    BracketOpen,
    BracketClose,
    Colon,
    Float,
    Int,
    Bool,
    Null,
    UnquotedChar,
    Id,
    Esc,
    Ws,
    InterClose,
    Dot,
    InterKey,
    QuoteClose,
    QuotedEsc,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Top,
    Value,
    Interpolation,
    Single,
    Double,
}

/// What a token does to the lexer's modes.
#[derive(Clone, Copy)]
enum Then {
    Stay,
    Push(Mode),
    Pop,
    Become(Mode),
}

/// The tokens of `chars`, or `None` where no rule of the mode matches (a
/// `token recognition error`).
pub(super) fn lex(chars: &[char]) -> Option<Vec<Tok>> {
    let mut tokens = Vec::new();
    let mut modes = vec![Mode::Top];
    let mut i = 0;
    while i < chars.len() {
        let mode = *modes.last()?;
        let (len, tok, then) = longest(chars, i, mode)?;
        tokens.push(tok);
        match then {
            Then::Stay => {}
            Then::Push(m) => modes.push(m),
            // Only pushed modes pop; an empty stack is ANTLR's error.
            Then::Pop => {
                modes.pop();
                if modes.is_empty() {
                    return None;
                }
            }
            Then::Become(m) => *modes.last_mut()? = m,
        }
        i += len;
    }
    Some(tokens)
}

/// The longest token at `i` in `mode` (the earlier rule on a tie).
fn longest(chars: &[char], i: usize, mode: Mode) -> Option<(usize, Tok, Then)> {
    let at = &chars[i..];
    // Arrays, not vectors: one token of a long value costs no allocation.
    let candidates: &[(Option<usize>, Tok, Then)] = match mode {
        Mode::Top => &[
            (
                inter_open(at),
                Tok::InterOpen,
                Then::Push(Mode::Interpolation),
            ),
            (string_run(at, &['$']), Tok::AnyStr, Then::Stay),
            (esc_before(at, &['$', '{']), Tok::EscInter, Then::Stay),
            (even_backslashes(at), Tok::TopEsc, Then::Stay),
            (backslashes(at), Tok::AnyStr, Then::Stay),
            (literal(at, "$"), Tok::AnyStr, Then::Stay),
        ],
        Mode::Value => &[
            (
                inter_open(at),
                Tok::InterOpen,
                Then::Push(Mode::Interpolation),
            ),
            (
                then_blanks(at, "{"),
                Tok::BraceOpen,
                Then::Push(Mode::Value),
            ),
            (blanks_then(at, "}"), Tok::BraceClose, Then::Pop),
            (literal(at, "'"), Tok::QuoteOpen, Then::Push(Mode::Single)),
            (literal(at, "\""), Tok::QuoteOpen, Then::Push(Mode::Double)),
            (blanks_around(at, ","), Tok::Comma, Then::Stay),
            (then_blanks(at, "["), Tok::BracketOpen, Then::Stay),
            (blanks_then(at, "]"), Tok::BracketClose, Then::Stay),
            (blanks_around(at, ":"), Tok::Colon, Then::Stay),
            (float(at), Tok::Float, Then::Stay),
            (int(at), Tok::Int, Then::Stay),
            (
                word(at, "true").or(word(at, "false")),
                Tok::Bool,
                Then::Stay,
            ),
            (word(at, "null"), Tok::Null, Then::Stay),
            (one_of(at, "/-\\+.$%*@?|"), Tok::UnquotedChar, Then::Stay),
            (id(at), Tok::Id, Then::Stay),
            (Some(esc(at)), Tok::Esc, Then::Stay),
            (blanks(at), Tok::Ws, Then::Stay),
        ],
        Mode::Interpolation => &[
            (
                inter_open(at),
                Tok::InterOpen,
                Then::Push(Mode::Interpolation),
            ),
            (
                blanks_around(at, ":"),
                Tok::Colon,
                Then::Become(Mode::Value),
            ),
            (blanks_then(at, "}"), Tok::InterClose, Then::Pop),
            (literal(at, "."), Tok::Dot, Then::Stay),
            (literal(at, "["), Tok::BracketOpen, Then::Stay),
            (literal(at, "]"), Tok::BracketClose, Then::Stay),
            (id(at), Tok::Id, Then::Stay),
            (inter_key(at), Tok::InterKey, Then::Stay),
        ],
        Mode::Single | Mode::Double => {
            let quote = if mode == Mode::Single { '\'' } else { '"' };
            &[
                (
                    inter_open(at),
                    Tok::InterOpen,
                    Then::Push(Mode::Interpolation),
                ),
                (
                    at.first().filter(|&&c| c == quote).map(|_| 1),
                    Tok::QuoteClose,
                    Then::Pop,
                ),
                (string_run(at, &['$', quote]), Tok::AnyStr, Then::Stay),
                (esc_before(at, &['$', '{']), Tok::EscInter, Then::Stay),
                (esc_before(at, &[quote]), Tok::Esc, Then::Stay),
                (even_backslashes(at), Tok::QuotedEsc, Then::Stay),
                (backslashes(at), Tok::AnyStr, Then::Stay),
                (literal(at, "$"), Tok::AnyStr, Then::Stay),
            ]
        }
    };
    let mut best: Option<(usize, Tok, Then)> = None;
    for &(len, tok, then) in candidates {
        if let Some(len) = len.filter(|&n| n > 0)
            && best.is_none_or(|(b, ..)| len > b)
        {
            best = Some((len, tok, then));
        }
    }
    best
}

fn literal(at: &[char], text: &str) -> Option<usize> {
    let n = text.chars().count();
    (at.len() >= n && at.iter().zip(text.chars()).all(|(a, b)| *a == b)).then_some(n)
}

fn blanks(at: &[char]) -> Option<usize> {
    Some(at.iter().take_while(|&&c| c == ' ' || c == '\t').count())
}

/// `'${' WS?` (also `NESTED_INTER_OPEN`'s `INTER_OPEN WS?`: the same strings).
fn inter_open(at: &[char]) -> Option<usize> {
    then_blanks(at, "${")
}

fn then_blanks(at: &[char], text: &str) -> Option<usize> {
    let n = literal(at, text)?;
    Some(n + blanks(&at[n..])?)
}

fn blanks_then(at: &[char], text: &str) -> Option<usize> {
    let b = blanks(at)?;
    Some(b + literal(&at[b..], text)?)
}

fn blanks_around(at: &[char], text: &str) -> Option<usize> {
    let b = blanks(at)?;
    let n = then_blanks(&at[b..], text)?;
    Some(b + n)
}

/// `~[stops]* ~[\\ stops]`: a run without the stop characters, not ending in `\`.
fn string_run(at: &[char], stops: &[char]) -> Option<usize> {
    let run = at.iter().take_while(|c| !stops.contains(c)).count();
    (1..=run).rev().find(|&n| at[n - 1] != '\\')
}

fn backslashes(at: &[char]) -> Option<usize> {
    Some(at.iter().take_while(|&&c| c == '\\').count())
}

/// `ESC_BACKSLASH+`: an even run of two or more backslashes.
fn even_backslashes(at: &[char]) -> Option<usize> {
    Some(backslashes(at)? / 2 * 2)
}

/// `ESC_BACKSLASH* '\' after`: an odd run of backslashes, then `after`.
fn esc_before(at: &[char], after: &[char]) -> Option<usize> {
    let b = backslashes(at)?;
    let follows = at.len() >= b + after.len() && at[b..b + after.len()] == *after;
    (b % 2 == 1 && follows).then_some(b + after.len())
}

fn one_of(at: &[char], set: &str) -> Option<usize> {
    at.first().filter(|c| set.contains(**c)).map(|_| 1)
}

/// `(CHAR|'_') (CHAR|DIGIT|'_'|'-')*`, ASCII.
fn id(at: &[char]) -> Option<usize> {
    let first = at.first()?;
    (first.is_ascii_alphabetic() || *first == '_').then(|| {
        1 + at[1..]
            .iter()
            .take_while(|&&c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            .count()
    })
}

/// `INTER_KEY`: `~[\\{}()[\]:. \t'"]+`.
fn inter_key(at: &[char]) -> Option<usize> {
    Some(
        at.iter()
            .take_while(|c| !"\\{}()[]:. \t'\"".contains(**c))
            .count(),
    )
}
