//! What the file of a `#[derive(ResourcePools)]` struct is made of: one top-level table per
//! field ([`PoolField`]), the same keys as a config's pool tables, and no `[mapping]` (the
//! mapping is code); and the errors and warnings of such a file. [`crate::load`] reads it.

use std::fmt;

use miette::{Diagnostic, LabeledSpan};

use super::{ConfigDiagnostic, PoolDefaults};
use crate::source::SourceFile;

/// One field of a derived pool struct, as the derive describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolField {
    /// The field's name: the file's table for it.
    pub name: &'static str,
    /// Values fixed in the attribute, used where the file leaves a key out.
    pub defaults: PoolDefaults,
    /// Worker groups that share the pool (1 when its roles are fused, as verl does).
    pub worker_groups: u32,
}

/// Every problem of a file that does not load, with the file to show them in.
///
/// It displays as one line that names the first error (`2 errors in `pools.toml`: pool
/// `global_pool` has no node-slot, and 1 more`), so that through `Box<dyn Error>` or
/// anyhow the cause shows. As a [`miette::Diagnostic`] it is that first error (its code,
/// labels and help, under that line) with every other problem related: a handler shows
/// each problem once. It has no `source()`: miette's graphical handler prints the source
/// chain beside the problems it already shows, which would repeat one.
///
/// `Serialize` writes `diagnostics` only, each as its data fields (see
/// [`ConfigDiagnostic`]); the codes are [`Diagnostic::code`].
#[derive(Clone, Debug, thiserror::Error, serde::Serialize)]
#[error("{} in `{}`{}", problems(.diagnostics), .source_file.name(), first(.diagnostics))]
pub struct ConfigErrors {
    /// The file.
    #[serde(skip)]
    pub source_file: SourceFile,
    /// Every problem, errors and warnings, in the file's order.
    pub diagnostics: Vec<ConfigDiagnostic>,
}

impl ConfigErrors {
    /// The first error: the one the line names and the diagnostic shows as its own.
    fn first_error(&self) -> Option<&ConfigDiagnostic> {
        self.diagnostics.iter().find(|d| d.is_error())
    }
}

/// The first error's code, help and labels; the others related. Without an error (which
/// a loader does not return), the line alone with every diagnostic related.
impl Diagnostic for ConfigErrors {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        match self.first_error() {
            Some(first) => first.code(),
            None => Some(Box::new("resource_pool::config::invalid")),
        }
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.first_error()?.help()
    }

    fn url<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.first_error()?.url()
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source_file)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.first_error()?.labels()
    }

    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        let first = self.diagnostics.iter().position(ConfigDiagnostic::is_error);
        let others = self
            .diagnostics
            .iter()
            .enumerate()
            .filter(move |(i, _)| Some(*i) != first)
            .map(|(_, d)| d as &dyn Diagnostic);
        Some(Box::new(others))
    }
}

/// The warnings of a file that loaded (uneven node-slots, ...), with the file to show
/// them in; empty when there are none.
#[derive(Clone, Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[error("{} in `{}`", warnings(.diagnostics), .source_file.name())]
#[diagnostic(
    code(resource_pool::config::warnings),
    severity(Warning),
    help("the pools loaded; each warning says what to look at")
)]
pub struct ConfigWarnings {
    /// The file.
    #[source_code]
    #[serde(skip)]
    pub source_file: SourceFile,
    /// Every warning.
    #[related]
    pub diagnostics: Vec<ConfigDiagnostic>,
}

impl ConfigWarnings {
    /// Whether there is no warning.
    pub fn is_empty(&self) -> bool {
        self.diagnostics.is_empty()
    }
}

fn problems(diagnostics: &[ConfigDiagnostic]) -> String {
    counted(diagnostics.iter().filter(|d| d.is_error()).count(), "error")
}

/// `: <the first error>`, `, and N more` when there are others; nothing without errors.
fn first(diagnostics: &[ConfigDiagnostic]) -> String {
    let mut errors = diagnostics.iter().filter(|d| d.is_error());
    let Some(first) = errors.next() else {
        return String::new();
    };
    match errors.count() {
        0 => format!(": {first}"),
        more => format!(": {first}, and {more} more"),
    }
}

fn warnings(diagnostics: &[ConfigDiagnostic]) -> String {
    counted(diagnostics.len(), "warning")
}

/// `1 error`, `3 errors`.
fn counted(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

impl fmt::Display for PoolField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}
