//! The grammar's parser (`OmegaConfGrammarParser.g4`, rule `configValue`), by recursive
//! descent over the lexer's tokens. It tells a node interpolation (`${a.b}`) from a
//! resolver (`${f:x}`) by the first `:` or `}` of its own level, so it never backtracks.

use super::MAX_NESTING;
use super::lexer::Tok;

/// A recursive-descent parser of the grammar's tokens; each rule returns where it ends.
pub(super) struct Parser<'t> {
    pub(super) tokens: &'t [Tok],
    pub(super) depth: usize,
    /// Nesting past [`MAX_NESTING`] was met: the value is not judged.
    pub(super) too_deep: bool,
}

impl Parser<'_> {
    fn at(&self, i: usize) -> Option<Tok> {
        self.tokens.get(i).copied()
    }

    /// `text: (interpolation | ANY_STR | ESC | ESC_INTER | TOP_ESC | QUOTED_ESC)+`.
    pub(super) fn text(&mut self, mut i: usize) -> Option<usize> {
        let start = i;
        loop {
            match self.at(i) {
                Some(Tok::AnyStr | Tok::Esc | Tok::EscInter | Tok::TopEsc | Tok::QuotedEsc) => {
                    i += 1
                }
                Some(Tok::InterOpen) => i = self.interpolation(i)?,
                _ => return (i > start).then_some(i),
            }
        }
    }

    /// `interpolation: interpolationNode | interpolationResolver`, told apart by the
    /// first `:` (a resolver's) or `}` (a node's) of its own level.
    fn interpolation(&mut self, i: usize) -> Option<usize> {
        let resolver = self.decider(i + 1)? == Tok::Colon;
        self.nested(|p| {
            if resolver {
                p.resolver(i + 1)
            } else {
                p.node(i + 1)
            }
        })
    }

    /// `rule` one level deeper (an interpolation, a list or a dict), unless that is past
    /// [`MAX_NESTING`].
    fn nested(&mut self, rule: impl FnOnce(&mut Self) -> Option<usize>) -> Option<usize> {
        if self.depth >= MAX_NESTING {
            self.too_deep = true;
            return None;
        }
        self.depth += 1;
        let end = rule(self);
        self.depth -= 1;
        end
    }

    fn decider(&self, mut i: usize) -> Option<Tok> {
        let mut level = 0usize;
        loop {
            match self.at(i)? {
                Tok::InterOpen | Tok::BraceOpen => level += 1,
                Tok::InterClose | Tok::BraceClose if level > 0 => level -= 1,
                tok @ (Tok::Colon | Tok::InterClose) if level == 0 => return Some(tok),
                Tok::BraceClose => return None,
                _ => {}
            }
            i += 1;
        }
    }

    /// After `${`: `DOT* (configKey | [configKey]) (DOT configKey | [configKey])* }`.
    fn node(&mut self, mut i: usize) -> Option<usize> {
        while self.at(i) == Some(Tok::Dot) {
            i += 1;
        }
        let mut first = true;
        loop {
            match self.at(i)? {
                Tok::InterClose if !first => return Some(i + 1),
                Tok::BracketOpen => {
                    i = self.config_key(i + 1)?;
                    (self.at(i)? == Tok::BracketClose).then_some(())?;
                    i += 1;
                }
                Tok::Dot if !first => i = self.config_key(i + 1)?,
                _ if first => i = self.config_key(i)?,
                _ => return None,
            }
            first = false;
        }
    }

    /// `configKey: interpolation | ID | INTER_KEY`.
    fn config_key(&mut self, i: usize) -> Option<usize> {
        match self.at(i)? {
            Tok::Id | Tok::InterKey => Some(i + 1),
            Tok::InterOpen => self.interpolation(i),
            _ => None,
        }
    }

    /// After `${`: `resolverName COLON sequence? BRACE_CLOSE`, the name
    /// `(interpolation | ID) (DOT (interpolation | ID))*`.
    fn resolver(&mut self, mut i: usize) -> Option<usize> {
        loop {
            i = match self.at(i)? {
                Tok::Id => i + 1,
                Tok::InterOpen => self.interpolation(i)?,
                _ => return None,
            };
            match self.at(i)? {
                Tok::Dot => i += 1,
                Tok::Colon => break,
                _ => return None,
            }
        }
        i += 1;
        if self.at(i)? != Tok::BraceClose {
            i = self.sequence(i)?;
        }
        (self.at(i)? == Tok::BraceClose).then_some(i + 1)
    }

    /// `sequence: (element (COMMA element?)*) | (COMMA element?)+`.
    fn sequence(&mut self, mut i: usize) -> Option<usize> {
        if self.at(i)? != Tok::Comma {
            i = self.element(i)?;
        }
        while self.at(i) == Some(Tok::Comma) {
            i += 1;
            if let Some(end) = self.optional_element(i) {
                i = end;
            }
        }
        Some(i)
    }

    /// An element when one starts at `i`; a closer or a comma starts none.
    fn optional_element(&mut self, i: usize) -> Option<usize> {
        match self.at(i)? {
            Tok::Comma | Tok::BraceClose | Tok::BracketClose => None,
            _ => self.element(i),
        }
    }

    /// `element: primitive | quotedValue | listContainer | dictContainer`.
    fn element(&mut self, i: usize) -> Option<usize> {
        match self.at(i)? {
            Tok::QuoteOpen => {
                let mut j = i + 1;
                if self.at(j)? != Tok::QuoteClose {
                    j = self.text(j)?;
                }
                (self.at(j)? == Tok::QuoteClose).then_some(j + 1)
            }
            Tok::BracketOpen => self.nested(|p| {
                let mut j = i + 1;
                if p.at(j)? != Tok::BracketClose {
                    j = p.sequence(j)?;
                }
                (p.at(j)? == Tok::BracketClose).then_some(j + 1)
            }),
            Tok::BraceOpen => self.nested(|p| p.dict(i + 1)),
            _ => self.primitive(i, true),
        }
    }

    /// After `{`: `(dictKeyValuePair (COMMA dictKeyValuePair)*)? BRACE_CLOSE`, a pair
    /// `dictKey COLON element`.
    fn dict(&mut self, mut i: usize) -> Option<usize> {
        if self.at(i)? == Tok::BraceClose {
            return Some(i + 1);
        }
        loop {
            i = self.primitive(i, false)?;
            (self.at(i)? == Tok::Colon).then_some(())?;
            i = self.element(i + 1)?;
            match self.at(i)? {
                Tok::Comma => i += 1,
                Tok::BraceClose => return Some(i + 1),
                _ => return None,
            }
        }
    }

    /// `primitive` (with `COLON` and interpolations) or `dictKey` (without): one or more
    /// of `ID NULL INT FLOAT BOOL UNQUOTED_CHAR ESC WS`.
    fn primitive(&mut self, mut i: usize, full: bool) -> Option<usize> {
        let start = i;
        loop {
            match self.at(i) {
                Some(
                    Tok::Id
                    | Tok::Null
                    | Tok::Int
                    | Tok::Float
                    | Tok::Bool
                    | Tok::UnquotedChar
                    | Tok::Esc
                    | Tok::Ws,
                ) => i += 1,
                Some(Tok::Colon) if full => i += 1,
                Some(Tok::InterOpen) if full => i = self.interpolation(i)?,
                _ => return (i > start).then_some(i),
            }
        }
    }
}
