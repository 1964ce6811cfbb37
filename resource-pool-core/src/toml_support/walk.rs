//! Walking a parsed TOML tree with its spans: the shared first stage of reading config and
//! cluster files. Every problem is collected; nothing stops at the first.

use std::borrow::Cow;
use std::fmt;

use miette::SourceSpan;
use toml::de::{DeTable, DeValue};

use crate::file_keys::KeyDoc;
use crate::model::{Amount, AmountError};
use crate::source::{SourceFile, Spanned, did_you_mean, to_source_span};

/// A key as the TOML parser gives it.
pub(crate) type Key<'i> = toml::Spanned<Cow<'i, str>>;
/// A value as the TOML parser gives it.
pub type Value<'i> = toml::Spanned<DeValue<'i>>;

/// Problems of a TOML file's structure, common to every file format we read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum StructureError {
    /// The file is not valid TOML.
    #[error("invalid TOML: {message}")]
    #[diagnostic(code(resource_pool::toml::syntax), help("fix the TOML syntax here"))]
    Syntax {
        /// The parser's message.
        message: String,
        /// Where.
        #[label("here")]
        #[serde(skip)]
        span: SourceSpan,
    },
    /// A key or table defined twice (TOML defines each once). The parser's "duplicate
    /// key", told with its first definition; its code stays the syntax error's.
    #[error("invalid TOML: `{key}` is defined twice")]
    #[diagnostic(
        code(resource_pool::toml::syntax),
        help(
            "TOML defines each key and table once: keep one of the two, or merge the two tables' keys under one header"
        )
    )]
    DuplicateKey {
        /// The dotted key (or table), as a TOML reader would write it.
        key: String,
        /// The second definition.
        #[label("defined again here")]
        #[serde(skip)]
        span: SourceSpan,
        /// The first definition.
        #[label("first defined here")]
        #[serde(skip)]
        first_span: SourceSpan,
    },
    /// A key that the format does not have.
    #[error("unknown key `{key}` in {table}")]
    #[diagnostic(code(resource_pool::toml::unknown_key), help("{help}"))]
    UnknownKey {
        /// The dotted key, as written.
        key: String,
        /// The table it stands in, in words (`pool \`global_pool\``).
        table: String,
        /// A suggestion or the list of known keys.
        #[serde(skip)] // prose: the JSON has it as `help`
        help: String,
        /// Where.
        #[label("unknown key")]
        #[serde(skip)]
        span: SourceSpan,
    },
    /// A value of the wrong type.
    #[error("`{key}` must be {expected}, found {found}")]
    #[diagnostic(
        code(resource_pool::toml::wrong_type),
        help("write `{key}` as {expected}")
    )]
    WrongType {
        /// The dotted key, as written.
        key: String,
        /// What it must be, in words.
        expected: &'static str,
        /// What it is.
        found: &'static str,
        /// Where.
        #[label("{found}")]
        #[serde(skip)]
        span: SourceSpan,
    },
    /// A number outside what the key allows.
    #[error("`{key}` {problem}")]
    #[diagnostic(code(resource_pool::toml::bad_number), help("{help}"))]
    BadNumber {
        /// The dotted key, as written.
        key: String,
        /// What is wrong (`is negative`).
        problem: String,
        /// What to write instead.
        #[serde(skip)] // prose: the JSON has it as `help`
        help: String,
        /// Where.
        #[label("{problem}")]
        #[serde(skip)]
        span: SourceSpan,
    },
    /// A key that must be given.
    #[error("{table} has no `{key}`")]
    #[diagnostic(
        code(resource_pool::toml::missing_key),
        help("add `{key} = {example}`")
    )]
    MissingKey {
        /// The dotted key, as written.
        key: &'static str,
        /// The table, in words.
        table: String,
        /// An example value.
        example: &'static str,
        /// The table's header or key.
        #[label("needs `{key}`")]
        #[serde(skip)]
        span: SourceSpan,
    },
}

/// Parses a document, returning the tree (as much as could be recovered) and every
/// syntax error.
pub fn parse(source: &SourceFile) -> (toml::Spanned<DeTable<'_>>, Vec<StructureError>) {
    parse_text(source.base_text())
}

/// [`parse`] of a text.
pub(crate) fn parse_text(text: &str) -> (toml::Spanned<DeTable<'_>>, Vec<StructureError>) {
    let (table, errors) = DeTable::parse_recoverable(text);
    let errors = errors
        .into_iter()
        .map(|e| {
            let span = e.span().unwrap_or(0..0);
            StructureError::Syntax {
                message: e.message().trim().to_owned(),
                span: to_source_span(&span),
            }
        })
        .collect();
    (
        table,
        crate::toml_support::duplicates::with_first_definitions(text, errors),
    )
}

/// The entries of a table in file order (the parser sorts them by name).
pub fn entries<'t, 'i>(table: &'t DeTable<'i>) -> Vec<(&'t Key<'i>, &'t Value<'i>)> {
    let mut entries: Vec<_> = table.iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    entries
}

/// A key a table may have: a name, or a described key.
pub trait KnownKey {
    /// The key's name.
    fn key_name(&self) -> &str;
}

impl KnownKey for &str {
    fn key_name(&self) -> &str {
        self
    }
}

impl KnownKey for KeyDoc {
    fn key_name(&self) -> &str {
        self.name
    }
}

/// Reports every key of `table` not in `known`.
pub fn check_keys<K: KnownKey>(
    table: &DeTable<'_>,
    known: &[K],
    table_name: &str,
    out: &mut Vec<StructureError>,
) {
    for (key, _) in entries(table) {
        let name = key.get_ref().as_ref();
        out.extend(unknown_key(name, known, table_name, &key.span()));
    }
}

/// The error of a key not in `known`, with a did-you-mean or the list of keys; `None`
/// when the key is known. The one wording of an unknown key, for the spanned readers and
/// the serde forms alike.
pub fn unknown_key<K: KnownKey>(
    name: &str,
    known: &[K],
    table_name: &str,
    span: &crate::source::Span,
) -> Option<StructureError> {
    let names = || known.iter().map(KnownKey::key_name);
    if names().any(|known| known == name) {
        return None;
    }
    let help = match did_you_mean(name, names()) {
        Some(close) => format!("did you mean `{close}`?"),
        None => format!(
            "the keys of {table_name} are: {}",
            names().collect::<Vec<_>>().join(", ")
        ),
    };
    Some(StructureError::UnknownKey {
        key: name.to_owned(),
        table: table_name.to_owned(),
        help,
        span: to_source_span(span),
    })
}

/// A key's value, by name.
pub fn get<'t, 'i>(table: &'t DeTable<'i>, key: &str) -> Option<(&'t Key<'i>, &'t Value<'i>)> {
    table.get_key_value(key)
}

fn wrong_type(key: &dyn fmt::Display, expected: &'static str, value: &Value<'_>) -> StructureError {
    StructureError::WrongType {
        key: key.to_string(),
        expected,
        found: value.get_ref().type_str(),
        span: to_source_span(&value.span()),
    }
}

/// A table value.
pub fn table<'t, 'i>(
    key: &str,
    value: &'t Value<'i>,
    out: &mut Vec<StructureError>,
) -> Option<&'t DeTable<'i>> {
    match value.get_ref() {
        DeValue::Table(t) => Some(t),
        _ => {
            out.push(wrong_type(&key, "a table", value));
            None
        }
    }
}

/// A string value.
pub fn string(
    key: &str,
    value: &Value<'_>,
    out: &mut Vec<StructureError>,
) -> Option<Spanned<String>> {
    match value.get_ref() {
        DeValue::String(s) => Some(Spanned::new(s.to_string(), value.span())),
        _ => {
            out.push(wrong_type(&key, "a string", value));
            None
        }
    }
}

/// A boolean value (only the tree reader of cluster files, kept as a test oracle, reads
/// one).
#[cfg(any(test, feature = "fuzzing"))]
pub fn boolean(key: &str, value: &Value<'_>, out: &mut Vec<StructureError>) -> Option<bool> {
    match value.get_ref() {
        DeValue::Boolean(b) => Some(*b),
        _ => {
            out.push(wrong_type(&key, "true or false", value));
            None
        }
    }
}

/// An array value.
pub fn array<'t, 'i>(
    key: &str,
    value: &'t Value<'i>,
    out: &mut Vec<StructureError>,
) -> Option<&'t [Value<'i>]> {
    match value.get_ref() {
        DeValue::Array(items) => Some(items.as_ref()),
        _ => {
            out.push(wrong_type(&key, "an array", value));
            None
        }
    }
}

/// A whole number that fits `u32` (zero allowed: the lint says what zero means).
///
/// `key` is formatted only for a problem: a long array's items name themselves
/// (`process_on_nodes[7]`) without a string made for each.
pub(crate) fn count(
    key: impl fmt::Display,
    value: &Value<'_>,
    out: &mut Vec<StructureError>,
) -> Option<Spanned<u32>> {
    let bad = |problem: &str, help: &str| StructureError::BadNumber {
        key: key.to_string(),
        problem: problem.to_owned(),
        help: help.to_owned(),
        span: to_source_span(&value.span()),
    };
    match value.get_ref() {
        DeValue::Integer(int) => match i128::from_str_radix(int.as_str(), int.radix()) {
            Ok(n) if n < 0 => {
                out.push(bad("is negative", "counts are whole numbers of at least 1"));
                None
            }
            Ok(n) => match u32::try_from(n) {
                Ok(n) => Some(Spanned::new(n, value.span())),
                Err(_) => {
                    out.push(bad(
                        "is too large",
                        &format!("counts are at most {}", u32::MAX),
                    ));
                    None
                }
            },
            Err(_) => {
                out.push(bad(
                    "is too large",
                    &format!("counts are at most {}", u32::MAX),
                ));
                None
            }
        },
        DeValue::Float(f) => {
            // A float can hold a whole number (`8.0`, JSON's `1e30`): say what is wrong
            // with it rather than call it fractional.
            let whole = f
                .as_str()
                .replace('_', "")
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && v.fract() == 0.0);
            out.push(match whole {
                Some(v) if v > f64::from(u32::MAX) => {
                    bad("is too large", &format!("counts are at most {}", u32::MAX))
                }
                Some(v) if v < 0.0 => bad("is negative", "counts are whole numbers of at least 1"),
                Some(_) => bad(
                    "is written as a float",
                    "write the count as an integer, without a point or exponent: 8, not 8.0",
                ),
                None => bad(
                    "is not a whole number",
                    "counts are whole numbers such as 8",
                ),
            });
            None
        }
        _ => {
            out.push(wrong_type(&key, "a whole number", value));
            None
        }
    }
}

/// A resource amount: a non-negative integer or float, in Ray's fixed point.
pub(crate) fn amount(
    key: &str,
    value: &Value<'_>,
    out: &mut Vec<StructureError>,
) -> Option<Spanned<Amount>> {
    let parsed = match value.get_ref() {
        DeValue::Integer(int) => integer_amount(int.as_str(), int.radix()),
        DeValue::Float(f) => float_amount(f.as_str()),
        _ => {
            out.push(wrong_type(&key, "a number", value));
            return None;
        }
    };
    match parsed {
        Ok(amount) => Some(Spanned::new(amount, value.span())),
        Err(err) => {
            out.push(bad_amount(key, err, &value.span()));
            None
        }
    }
}

/// The amount of an integer's digits (sign included, no `_`) in `radix`.
pub fn integer_amount(digits: &str, radix: u32) -> Result<Amount, AmountError> {
    match i128::from_str_radix(digits, radix) {
        Ok(n) if n < 0 => Err(AmountError::Negative),
        Ok(n) => u64::try_from(n)
            .map_err(|_| AmountError::TooLarge)
            .and_then(Amount::from_whole),
        Err(_) => Err(AmountError::TooLarge),
    }
}

/// The amount of a float's text (`1.5`, `1e3`, `nan`, `inf`).
pub fn float_amount(text: &str) -> Result<Amount, AmountError> {
    match text.parse::<f64>() {
        Ok(x) => Amount::from_f64(x),
        Err(_) => Err(AmountError::NotFinite),
    }
}

/// The problem of a number that is not an amount, at `span`.
pub fn bad_amount(key: &str, err: AmountError, span: &std::ops::Range<usize>) -> StructureError {
    let help = match err {
        AmountError::TooFine => "Ray counts resources in steps of 0.0001".to_owned(),
        AmountError::TooLarge => format!("amounts are at most {}", Amount::MAX_WHOLE),
        AmountError::Negative | AmountError::NotFinite => {
            "amounts are finite numbers of at least 0".to_owned()
        }
    };
    StructureError::BadNumber {
        key: key.to_owned(),
        problem: err.to_string(),
        help,
        span: to_source_span(span),
    }
}

/// A table of resource name → amount (`{ GPU = 8, CPU = 96 }`), in file order.
pub fn resources(
    key: &str,
    value: &Value<'_>,
    out: &mut Vec<StructureError>,
) -> Option<Vec<(Spanned<String>, Spanned<Amount>)>> {
    let table = table(key, value, out)?;
    let mut items = Vec::with_capacity(table.len());
    for (name, amount_value) in entries(table) {
        let name = Spanned::new(name.get_ref().to_string(), name.span());
        let shown = format!("{key}.{}", name.value);
        if let Some(amount) = amount(&shown, amount_value, out) {
            items.push((name, amount));
        }
    }
    Some(items)
}
