//! Whether OmegaConf takes a string holding `${` as a value: OmegaConf 2.3 checks every
//! such string it is given (a YAML value, a list item) against its interpolation grammar
//! (`OmegaConfGrammarLexer.g4` and `OmegaConfGrammarParser.g4`, rule `configValue`) and
//! stops the load with `GrammarParseError` when it does not parse, unless its quick
//! pattern (`SIMPLE_INTERPOLATION_PATTERN`) has already taken the string. verl stops
//! there too. The `simple` module is the pattern, `lexer` and `parser` the grammar.
//! Checked against omegaconf 2.3.0's `OmegaConf.create` by
//! `data/verl/omegaconf_grammar.json`.

mod lexer;
mod parser;
mod simple;

use self::lexer::lex;
use self::parser::Parser;
use self::simple::simple_pattern;

/// Interpolations, lists and dicts nested deeper than this are not judged (taken, so never refused where
/// OmegaConf takes them): a bound on the parser's recursion for hostile input. OmegaConf
/// itself parses deeper ones (300 levels, tried).
const MAX_NESTING: usize = 256;

/// Whether OmegaConf 2.3 takes `value` as a string value (see the module docs).
pub fn omegaconf_takes(value: &str) -> bool {
    if !value.contains("${") {
        return true;
    }
    let chars: Vec<char> = value.chars().collect();
    if simple_pattern(&chars) {
        return true;
    }
    let Some(tokens) = lex(&chars) else {
        return false;
    };
    let mut parser = Parser {
        tokens: &tokens,
        depth: 0,
        too_deep: false,
    };
    match parser.text(0) {
        Some(end) if end == tokens.len() => true,
        _ => parser.too_deep,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_as_omegaconf_reads_them() {
        // Each checked against omegaconf 2.3.0 (`OmegaConf.create({"k": value})`).
        for value in [
            "plain",
            "${a=1}",
            "${:x}",
            "${\nfoo}",
            "${a.b}",
            "${f:'x'}",
            "${f:[1,2]}",
            "${f:{a:1}}",
            "${f: a b }",
            "${f:a,,b}",
            "${a}${b}",
            "${a:}",
            "${a.${b}}",
            "${${a}}",
            "${[a]}",
            "${.a}",
            "${..a.b}",
            "${f:inf}",
            "${f:1.5e3}",
            "${f:'a\\'b'}",
            "${a-b}",
            "${a$b}",
            "${1a}",
            "${f:x\\}}",
            "\\${a b}",
            "\\\\${a}",
            "${oc.env:HOME}/x",
            "${oc.select:a.b,null}",
        ] {
            assert!(omegaconf_takes(value), "{value:?}");
        }
        for value in [
            "${oc.env:A=1}",
            "${f:a=1}",
            "x}${",
            "${a b}",
            "${f:#}",
            "${f:\u{e9}}",
            "${}",
            "${b.}",
            "${b..c}",
            "$${b",
            "${f:{a}}",
        ] {
            assert!(!omegaconf_takes(value), "{value:?}");
        }
    }

    #[test]
    fn deep_nesting_is_not_judged() {
        let nested = |inner: &str, n: usize| format!("{}{inner}{}", "${".repeat(n), "}".repeat(n));
        assert!(omegaconf_takes(&nested("a", 250)));
        assert!(!omegaconf_takes(&nested("a.", 250)));
        // Past the bound: not judged, so taken.
        assert!(omegaconf_takes(&nested("a.", 300)));
        // Never closed: refused, however deep (the decision needs no nesting).
        assert!(!omegaconf_takes(&"${".repeat(10_000)));
        // Lists and dicts count as levels too: no unbounded recursion.
        let lists = format!("${{f:{}}}", "[".repeat(100_000));
        assert!(omegaconf_takes(&lists));
        let dicts = format!("${{f:{}}}", "{a:".repeat(100_000));
        assert!(omegaconf_takes(&dicts));
    }
}

#[cfg(test)]
mod diff_tests;
