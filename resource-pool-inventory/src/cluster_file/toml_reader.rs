//! Reading cluster TOML from the parser's events, without the document tree.
//!
//! toml's own lexer and parser (`toml_parser`, the layer under `toml`) read the file; the
//! tokens are cut into chunks at each table header that starts a line outside any array
//! or inline table, and at such a line's end once a chunk is long (in valid TOML, both are
//! where one expression ends and the next begins; in a broken file the first error is met
//! in the same state either way, so the file is found broken either way), and
//! each chunk's events are walked here under TOML's table rules: dotted keys, implicit
//! tables, headers that extend the last `[[nodes]]` entry, every redefinition refused.
//! Of an array of tables only the last entry can still change, so each `[[nodes]]` entry
//! goes to the node reader as soon as the next one starts and is dropped: memory holds
//! the nodes read and one entry, not the file's tree.
//!
//! A file with a syntax error (a parser error, an undecodable string or number, a key
//! defined twice, a table redefined) is read again by the `toml` crate, whose messages
//! and spans the report then shows: they are the ones every other TOML file of ours gets,
//! and a broken file's content is not read further (what it holds is a guess).

use std::borrow::Cow;

use toml_parser::decoder::ScalarKind;
use toml_parser::lexer::{Token, TokenKind};
use toml_parser::parser::{Event, EventKind, RecursionGuard, ValidateWhitespace, parse_document};
use toml_parser::{ParseError, Source};

use super::document::{Array, ClusterFormat, Key, Kind, Table, Value};
use super::nodes::{NodeReader, NodesKey, check_root};
use super::{ClusterDiagnostic, ClusterLimits, LoadedCluster};
use resource_pool_core::source::{SourceFile, Span, to_source_span};
use resource_pool_core::toml_support::walk::{self as toml_walk, StructureError};

/// How deep arrays and inline tables nest, and how many parts a dotted key has: the
/// `toml` crate's limit, so that both readers refuse the same files.
const NESTING_LIMIT: u32 = super::TOML_NESTING_LIMIT;

/// Something that makes the file invalid TOML.
type Step<T> = Result<T, ParseError>;

fn problem(message: &'static str, span: &Span) -> ParseError {
    ParseError::new(message).with_unexpected(toml_parser::Span::new_unchecked(span.start, span.end))
}

fn span_of(event: &Event) -> Span {
    event.span().start()..event.span().end()
}

/// A chunk is also cut at the end of a line outside any array or inline table once it holds
/// this many tokens: a file of top-level keys, or one huge entry, is read in bounded pieces.
const CHUNK_TOKENS: usize = 4096;

/// Reads a cluster TOML file.
pub(super) fn read_toml(source: &SourceFile, limits: &ClusterLimits) -> LoadedCluster {
    read_toml_in_chunks(source, limits, CHUNK_TOKENS)
}

/// [`read_toml`], cutting at the end of a line once a chunk has `max_tokens` (the tests cut
/// at every line they can).
pub(super) fn read_toml_in_chunks(
    source: &SourceFile,
    limits: &ClusterLimits,
    max_tokens: usize,
) -> LoadedCluster {
    let text = Source::new(source.base_text());
    let mut walker = Walker {
        text,
        root: Table::default(),
        current: Table::default(),
        header: None,
        nodes: NodeReader::new(ClusterFormat::Toml, limits),
        events: Vec::new(),
    };
    let mut chunk: Vec<Token> = Vec::with_capacity(256);
    let mut depth = 0usize;
    let mut line_start = true;
    for token in text.lex() {
        let kind = token.kind();
        if kind == TokenKind::LeftSquareBracket && depth == 0 && line_start && !chunk.is_empty() {
            if let Err(error) = walker.chunk(&chunk) {
                return syntax_errors(source, &error);
            }
            chunk.clear();
        }
        match kind {
            TokenKind::LeftSquareBracket | TokenKind::LeftCurlyBracket => depth += 1,
            TokenKind::RightSquareBracket | TokenKind::RightCurlyBracket => {
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
        match kind {
            TokenKind::Newline => line_start = true,
            TokenKind::Whitespace => {}
            _ => line_start = false,
        }
        chunk.push(token);
        if kind == TokenKind::Newline && depth == 0 && chunk.len() >= max_tokens {
            if let Err(error) = walker.chunk(&chunk) {
                return syntax_errors(source, &error);
            }
            chunk.clear();
        }
    }
    match walker.chunk(&chunk).and_then(|()| walker.finish_table()) {
        Ok(()) => walker.finish(source),
        Err(error) => syntax_errors(source, &error),
    }
}

/// The syntax errors of a file found invalid, as the `toml` crate reports them.
fn syntax_errors(source: &SourceFile, found: &ParseError) -> LoadedCluster {
    let (_, errors) = toml_walk::parse(source);
    let mut diagnostics: Vec<ClusterDiagnostic> =
        errors.into_iter().map(ClusterDiagnostic::from).collect();
    if diagnostics.is_empty() {
        // The readers disagree (a bug, which the equivalence tests look for): report what
        // this one found rather than nothing.
        let span = found.unexpected().map_or(0..0, |s| s.start()..s.end());
        diagnostics.push(
            StructureError::Syntax {
                message: found.description().to_owned(),
                span: to_source_span(&span),
            }
            .into(),
        );
    }
    LoadedCluster {
        source: source.clone(),
        cluster: None,
        spans: Vec::new(),
        diagnostics,
    }
}

/// A table header: its key path, its last key and its span.
struct Header<'i> {
    path: Vec<Key<'i>>,
    key: Key<'i>,
    span: Span,
    is_array: bool,
}

/// The events of a chunk, read one by one.
struct Cursor<'e> {
    events: &'e [Event],
    at: usize,
}

impl<'e> Cursor<'e> {
    fn next(&mut self) -> Option<&'e Event> {
        let event = self.events.get(self.at)?;
        self.at += 1;
        Some(event)
    }

    fn peek(&self, ahead: usize) -> Option<EventKind> {
        self.events.get(self.at + ahead).map(Event::kind)
    }

    fn skip_whitespace(&mut self) {
        if self.peek(0) == Some(EventKind::Whitespace) {
            self.at += 1;
        }
    }

    fn skip_trivia(&mut self) {
        while let Some(EventKind::Whitespace | EventKind::Comment | EventKind::Newline) =
            self.peek(0)
        {
            self.at += 1;
        }
    }

    fn expect(&mut self, kind: EventKind, at: &Span) -> Step<&'e Event> {
        match self.next() {
            Some(event) if event.kind() == kind => Ok(event),
            Some(event) => Err(problem("unexpected event", &span_of(event))),
            None => Err(problem("unexpected end of chunk", at)),
        }
    }
}

/// The state of the document between chunks.
struct Walker<'i> {
    text: Source<'i>,
    root: Table<'i>,
    /// The table the current header opened (or the top level before any header).
    current: Table<'i>,
    header: Option<Header<'i>>,
    nodes: NodeReader,
    events: Vec<Event>,
}

impl<'i> Walker<'i> {
    /// Parses one chunk of tokens and walks its events.
    fn chunk(&mut self, tokens: &[Token]) -> Step<()> {
        let mut events = std::mem::take(&mut self.events);
        events.clear();
        let mut error: Option<ParseError> = None;
        {
            let mut receiver = ValidateWhitespace::new(&mut events, self.text);
            let mut guard = RecursionGuard::new(&mut receiver, NESTING_LIMIT);
            parse_document(tokens, &mut guard, &mut error);
        }
        let walked = match error {
            Some(error) => Err(error),
            None => self.walk(&mut Cursor {
                events: &events,
                at: 0,
            }),
        };
        self.events = events;
        walked
    }

    fn walk(&mut self, events: &mut Cursor<'_>) -> Step<()> {
        while let Some(event) = events.next() {
            match event.kind() {
                EventKind::StdTableOpen | EventKind::ArrayTableOpen => {
                    self.finish_table()?;
                    let header = self.header(event, events)?;
                    self.start_table(header)?;
                }
                EventKind::SimpleKey => {
                    let (path, key) = self.key(event, events)?;
                    events.skip_whitespace();
                    events.expect(EventKind::KeyValSep, &key.span)?;
                    events.skip_whitespace();
                    let value = self.value(events, &key.span)?;
                    let dotted = !path.is_empty();
                    let parent = descend(&mut self.current, &path, dotted)?;
                    if dotted && !parent.implicit {
                        return Err(problem("duplicate key", &key.span));
                    }
                    insert(parent, key, value)?;
                }
                EventKind::Whitespace | EventKind::Comment | EventKind::Newline => {}
                _ => return Err(problem("unexpected event", &span_of(event))),
            }
        }
        Ok(())
    }

    fn decode_key(&self, event: &Event) -> Step<Key<'i>> {
        let raw = self
            .text
            .get(event)
            .ok_or_else(|| problem("key outside the file", &span_of(event)))?;
        let mut name = Cow::Borrowed("");
        let mut error: Option<ParseError> = None;
        raw.decode_key(&mut name, &mut error);
        match error {
            Some(error) => Err(error),
            None => Ok(Key {
                name,
                span: span_of(event),
            }),
        }
    }

    /// A key (`a`, `a.b.c`): its path and its last part.
    fn key(&self, first: &Event, events: &mut Cursor<'_>) -> Step<(Vec<Key<'i>>, Key<'i>)> {
        let mut path = Vec::new();
        let mut part = first;
        loop {
            let more = match events.peek(0) {
                Some(EventKind::KeySep) => true,
                Some(EventKind::Whitespace) => events.peek(1) == Some(EventKind::KeySep),
                _ => false,
            };
            if !more {
                break;
            }
            path.push(self.decode_key(part)?);
            events.skip_whitespace();
            let at = span_of(part);
            events.expect(EventKind::KeySep, &at)?;
            events.skip_whitespace();
            part = events.expect(EventKind::SimpleKey, &at)?;
        }
        let key = self.decode_key(part)?;
        if path.len() >= NESTING_LIMIT as usize {
            return Err(problem("recursion limit", &key.span));
        }
        Ok((path, key))
    }

    fn header(&self, open: &Event, events: &mut Cursor<'_>) -> Step<Header<'i>> {
        let mut key = None;
        loop {
            let event = events.expect_any(&span_of(open))?;
            match event.kind() {
                EventKind::Whitespace => {}
                EventKind::SimpleKey if key.is_none() => key = Some(self.key(event, events)?),
                EventKind::StdTableClose | EventKind::ArrayTableClose => {
                    let (path, key) =
                        key.ok_or_else(|| problem("a header without a key", &span_of(event)))?;
                    return Ok(Header {
                        path,
                        key,
                        span: open.span().start()..event.span().end(),
                        is_array: open.kind() == EventKind::ArrayTableOpen,
                    });
                }
                _ => return Err(problem("unexpected event", &span_of(event))),
            }
        }
    }

    fn value(&self, events: &mut Cursor<'_>, at: &Span) -> Step<Value<'i>> {
        let event = events.expect_any(at)?;
        match event.kind() {
            EventKind::Scalar => self.scalar(event),
            EventKind::ArrayOpen => self.array(event, events),
            EventKind::InlineTableOpen => self.inline_table(event, events),
            _ => Err(problem("unexpected event", &span_of(event))),
        }
    }

    fn scalar(&self, event: &Event) -> Step<Value<'i>> {
        let span = span_of(event);
        let raw = self
            .text
            .get(event)
            .ok_or_else(|| problem("value outside the file", &span))?;
        let mut decoded = Cow::Borrowed("");
        let mut error: Option<ParseError> = None;
        let kind = raw.decode_scalar(&mut decoded, &mut error);
        if let Some(error) = error {
            return Err(error);
        }
        let kind = match kind {
            ScalarKind::String => Kind::String(decoded),
            ScalarKind::Boolean(b) => Kind::Boolean(b),
            ScalarKind::DateTime => match decoded.parse::<toml::value::Datetime>() {
                Ok(_) => Kind::Datetime,
                Err(_) => return Err(problem("invalid datetime", &span)),
            },
            ScalarKind::Float => Kind::Float(decoded),
            ScalarKind::Integer(radix) => Kind::Integer {
                digits: decoded,
                radix: radix.value(),
            },
        };
        Ok(Value { span, kind })
    }

    fn array(&self, open: &Event, events: &mut Cursor<'_>) -> Step<Value<'i>> {
        let mut items = Vec::new();
        loop {
            let event = events.expect_any(&span_of(open))?;
            match event.kind() {
                EventKind::Whitespace
                | EventKind::Comment
                | EventKind::Newline
                | EventKind::ValueSep => {}
                EventKind::Scalar => items.push(self.scalar(event)?),
                EventKind::ArrayOpen => items.push(self.array(event, events)?),
                EventKind::InlineTableOpen => items.push(self.inline_table(event, events)?),
                EventKind::ArrayClose => {
                    return Ok(Value {
                        span: open.span().start()..event.span().end(),
                        kind: Kind::Array(Array {
                            items,
                            of_tables: false,
                        }),
                    });
                }
                _ => return Err(problem("unexpected event", &span_of(event))),
            }
        }
    }

    fn inline_table(&self, open: &Event, events: &mut Cursor<'_>) -> Step<Value<'i>> {
        let mut table = Table::with_flags(false, false, true);
        loop {
            let event = events.expect_any(&span_of(open))?;
            match event.kind() {
                EventKind::Whitespace
                | EventKind::Comment
                | EventKind::Newline
                | EventKind::ValueSep => {}
                EventKind::SimpleKey => {
                    // TOML 1.1: newlines and comments may stand anywhere in an inline table.
                    let (path, key) = self.key(event, events)?;
                    events.skip_trivia();
                    events.expect(EventKind::KeyValSep, &key.span)?;
                    events.skip_trivia();
                    let value = self.value(events, &key.span)?;
                    let parent = descend_inline(&mut table, &path)?;
                    if parent.dotted == path.is_empty() {
                        return Err(problem("duplicate key", &key.span));
                    }
                    insert(parent, key, value)?;
                }
                EventKind::InlineTableClose => {
                    return Ok(Value {
                        span: open.span().start()..event.span().end(),
                        kind: Kind::Table(table),
                    });
                }
                _ => return Err(problem("unexpected event", &span_of(event))),
            }
        }
    }

    /// Attaches the table of the header before, if any, to the document.
    fn finish_table(&mut self) -> Step<()> {
        let table = std::mem::take(&mut self.current);
        let Some(header) = self.header.take() else {
            // The keys before the first header: the top level.
            self.root = table;
            return Ok(());
        };
        let value = Value {
            span: header.span.clone(),
            kind: Kind::Table(table),
        };
        let parent = descend(&mut self.root, &header.path, false)?;
        if !header.is_array {
            return insert(parent, header.key, value);
        }
        let is_nodes = header.path.is_empty() && header.key.name == "nodes";
        let at = match parent.position(&header.key.name) {
            Some(at) => at,
            None => parent.insert_new(
                header.key.clone(),
                Value {
                    span: header.span.clone(),
                    kind: Kind::Array(Array {
                        items: Vec::new(),
                        of_tables: true,
                    }),
                },
            ),
        };
        match &mut parent.value_at(at).kind {
            Kind::Array(array) if array.of_tables => {
                // Only the last entry of an array of tables can still change: the one
                // before goes (a node to the reader) once the next is added.
                if let Some(before) = array.items.pop()
                    && is_nodes
                {
                    self.nodes.push(&before);
                }
                array.items.push(value);
                Ok(())
            }
            _ => Err(problem("duplicate key", &header.key.span)),
        }
    }

    fn start_table(&mut self, header: Header<'i>) -> Step<()> {
        if !header.is_array {
            let parent = descend(&mut self.root, &header.path, false)?;
            if let Some((_, old)) = parent.remove(&header.key.name) {
                match old.kind {
                    // Defined implicitly by a header below it (`[a.b]` before `[a]`).
                    Kind::Table(table) if table.implicit && !table.dotted => self.current = table,
                    _ => return Err(problem("duplicate key", &header.key.span)),
                }
            }
        }
        self.current.implicit = false;
        self.current.dotted = false;
        self.header = Some(header);
        Ok(())
    }

    /// The end of the file: the last entries to the node reader, the top level checked.
    fn finish(mut self, source: &SourceFile) -> LoadedCluster {
        let mut root_errors = Vec::new();
        let nodes_key = check_root(&self.root, ClusterFormat::Toml, &mut root_errors);
        if let NodesKey::Array(_) = nodes_key
            && let Some(at) = self.root.position("nodes")
            && let Kind::Array(array) = &self.root.value_at(at).kind
        {
            for item in &array.items {
                self.nodes.push(item);
            }
        }
        self.nodes.finish(source, root_errors, nodes_key)
    }
}

impl<'e> Cursor<'e> {
    fn expect_any(&mut self, at: &Span) -> Step<&'e Event> {
        self.next()
            .ok_or_else(|| problem("unexpected end of chunk", at))
    }
}

fn insert<'i>(table: &mut Table<'i>, key: Key<'i>, value: Value<'i>) -> Step<()> {
    if table.contains(&key.name) {
        return Err(problem("duplicate key", &key.span));
    }
    table.insert_new(key, value);
    Ok(())
}

/// The table a key path leads to from `table`, tables created on the way (implicit, and
/// dotted for a dotted key); through an array of tables, its last entry.
fn descend<'t, 'i>(
    mut table: &'t mut Table<'i>,
    path: &[Key<'i>],
    dotted: bool,
) -> Step<&'t mut Table<'i>> {
    for part in path {
        let at = match table.position(&part.name) {
            Some(at) => at,
            None => table.insert_new(
                part.clone(),
                Value {
                    span: part.span.clone(),
                    kind: Kind::Table(Table::with_flags(true, dotted, false)),
                },
            ),
        };
        table = match &mut table.value_at(at).kind {
            Kind::Array(array) => match array.items.last_mut() {
                Some(Value {
                    kind: Kind::Table(last),
                    ..
                }) if array.of_tables => last,
                _ => {
                    return Err(problem(
                        "cannot extend a value with a dotted key",
                        &part.span,
                    ));
                }
            },
            Kind::Table(next) => {
                if next.inline || (dotted && !next.implicit) {
                    return Err(problem("duplicate key", &part.span));
                }
                if dotted {
                    next.dotted = true;
                }
                next
            }
            _ => {
                return Err(problem(
                    "cannot extend a value with a dotted key",
                    &part.span,
                ));
            }
        };
    }
    Ok(table)
}

/// As [`descend`], inside an inline table: every table on the way is dotted and inline.
fn descend_inline<'t, 'i>(
    mut table: &'t mut Table<'i>,
    path: &[Key<'i>],
) -> Step<&'t mut Table<'i>> {
    for part in path {
        let at = match table.position(&part.name) {
            Some(at) => at,
            None => table.insert_new(
                part.clone(),
                Value {
                    span: part.span.clone(),
                    kind: Kind::Table(Table::with_flags(true, true, true)),
                },
            ),
        };
        table = match &mut table.value_at(at).kind {
            Kind::Table(next) if next.implicit => next,
            Kind::Table(_) => return Err(problem("duplicate key", &part.span)),
            _ => {
                return Err(problem(
                    "cannot extend a value with a dotted key",
                    &part.span,
                ));
            }
        };
    }
    Ok(table)
}
