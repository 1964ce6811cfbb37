//! Settings from the command line: `--set pools.global_pool.process_on_nodes=[8,8,8]`.
//!
//! Each override is one line `KEY=VALUE`: KEY a dotted TOML key, VALUE a TOML value. They
//! are applied to the parsed file before linting: a value replaces the one at KEY or is
//! inserted there (creating the tables on the way); a key path through a value that is
//! not a table is an error.
//!
//! Spans: the overrides are kept as a second layer of the config's [`SourceFile`]
//! ([`SourceFile::with_layer`]): their text, one override a line, stands after the file's
//! text in one offset space. Each line is parsed by the TOML parser on a copy of that text
//! in which every other byte is blanked to a space, so the spans it gives already point
//! into the layer. A lint error on an overridden value therefore labels the value in the
//! override, and [`SourceFile::locate`] names it [`OVERRIDES_NAME`] with the override's
//! line (its position among the overrides) and column. Nothing else in the loader needs
//! to know that there are two layers.

use toml::de::{DeTable, DeValue};

use crate::source::{SourceFile, Span, to_source_span};

/// The name the overrides are shown under, in reports and in JSON `file`.
pub const OVERRIDES_NAME: &str = "command line";

/// A malformed override: a usage error.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum OverrideError {
    /// No `=` between key and value.
    #[error("override `{text}` has no `=`")]
    #[diagnostic(
        code(resource_pool::set::no_equals),
        help("write it as KEY=VALUE, e.g. `--set pools.global_pool.process_on_nodes=[8,8]`")
    )]
    NoEquals {
        /// The override.
        text: String,
        /// Where.
        #[label("expected KEY=VALUE")]
        #[serde(skip)]
        span: miette::SourceSpan,
    },
    /// The key or value is not TOML.
    #[error("override is not `KEY=VALUE` in TOML: {message}")]
    #[diagnostic(
        code(resource_pool::set::syntax),
        help(
            "KEY is a dotted TOML key, VALUE a TOML value: `[8,8]`, `3`, `\"GPU\"`, `true`; quote strings (in the shell: `--set 'k=\"GPU\"'`)"
        )
    )]
    Syntax {
        /// The parser's message.
        message: String,
        /// Where.
        #[label("here")]
        #[serde(skip)]
        span: miette::SourceSpan,
    },
    /// The key path runs through a value that is not a table.
    #[error("cannot set `{key}`: `{through}` is {found}, not a table")]
    #[diagnostic(
        code(resource_pool::set::not_a_table),
        help("set `{through}` itself, or pick a key under a table")
    )]
    NotATable {
        /// The whole key.
        key: String,
        /// The prefix that is not a table.
        through: String,
        /// What it is.
        found: &'static str,
        /// The key in the override.
        #[label("`{through}` is not a table")]
        #[serde(skip)]
        span: miette::SourceSpan,
    },
}

/// The config's text with the overrides as its second layer, and where each one stands.
pub(crate) struct Layered {
    pub(crate) source: SourceFile,
    lines: Vec<Span>,
}

impl Layered {
    /// Adds the overrides (one per element; newlines split further) to the file.
    pub(crate) fn new(file: &SourceFile, overrides: &[String]) -> Layered {
        if overrides.is_empty() {
            return Layered {
                source: file.clone(),
                lines: Vec::new(),
            };
        }
        let text: Vec<&str> = overrides.iter().flat_map(|o| o.split('\n')).collect();
        let joined = text.join("\n");
        let source = file.with_layer(OVERRIDES_NAME, &joined);
        let mut lines = Vec::with_capacity(text.len());
        let mut at = source.layer_start().unwrap_or(0);
        for line in text {
            lines.push(at..at + line.len());
            at += line.len() + 1;
        }
        Layered { source, lines }
    }

    /// Applies every override to `root`, collecting every malformed one.
    pub(crate) fn apply<'i>(
        &'i self,
        masks: &'i [String],
        root: &mut DeTable<'i>,
    ) -> Vec<OverrideError> {
        let mut errors = Vec::new();
        for (line, masked) in self.lines.iter().zip(masks) {
            let text = &self.source.text()[line.clone()];
            if !text.contains('=') {
                errors.push(OverrideError::NoEquals {
                    text: text.to_owned(),
                    span: to_source_span(line),
                });
                continue;
            }
            match DeTable::parse(masked) {
                Err(e) => errors.push(OverrideError::Syntax {
                    message: e.message().trim().to_owned(),
                    span: to_source_span(&e.span().unwrap_or(line.clone())),
                }),
                Ok(table) => {
                    let mut path = Vec::new();
                    if let Err(e) = merge(root, table.into_inner(), masked, &mut path) {
                        errors.push(e);
                    }
                }
            }
        }
        errors
    }

    /// Every override line alone in a blanked copy of the text, so that spans point into
    /// the layer. Costs one copy of the text per override.
    pub(crate) fn masks(&self) -> Vec<String> {
        let text = self.source.text();
        self.lines
            .iter()
            .map(|line| {
                let mut masked = String::with_capacity(text.len());
                masked.extend(text[..line.start].bytes().map(
                    |b| {
                        if b == b'\n' { '\n' } else { ' ' }
                    },
                ));
                masked.push_str(&text[line.clone()]);
                masked
            })
            .collect()
    }
}

/// Puts the entries of `from` (one override) into `into`: dotted keys walk into tables,
/// the value at the end replaces or is inserted.
fn merge<'i>(
    into: &mut DeTable<'i>,
    from: DeTable<'i>,
    text: &str,
    path: &mut Vec<String>,
) -> Result<(), OverrideError> {
    for (key, value) in from {
        path.push(key.get_ref().to_string());
        // A table the parser made from a dotted key (not one written `{ ... }`).
        let dotted = matches!(value.get_ref(), DeValue::Table(_))
            && !text
                .get(value.span())
                .is_some_and(|v| v.trim_start().starts_with('{'));
        let span = value.span();
        match value.into_inner() {
            DeValue::Table(inner) if dotted => {
                let existing = into.entry(key.clone()).or_insert_with(|| {
                    toml::Spanned::new(key.span(), DeValue::Table(DeTable::new()))
                });
                match existing.get_mut() {
                    DeValue::Table(table) => merge(table, inner, text, path)?,
                    other => {
                        let found = other.type_str();
                        let through = path.join(".");
                        let mut key_text = path.clone();
                        collect_keys(&inner, &mut key_text);
                        return Err(OverrideError::NotATable {
                            key: key_text.join("."),
                            through,
                            found,
                            span: to_source_span(&key.span()),
                        });
                    }
                }
            }
            value => {
                // Replace keeping the new key's span: a diagnostic on the key points at
                // the override too.
                into.remove(key.get_ref().as_ref());
                into.insert(key, toml::Spanned::new(span, value));
            }
        }
        path.pop();
    }
    Ok(())
}

/// The rest of a dotted key, for the message.
fn collect_keys(table: &DeTable<'_>, out: &mut Vec<String>) {
    if let Some((key, value)) = table.iter().next() {
        out.push(key.get_ref().to_string());
        if let DeValue::Table(inner) = value.get_ref() {
            collect_keys(inner, out);
        }
    }
}
