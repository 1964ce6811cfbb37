//! What a front end found, and its outputs: for people ([`render_human`], miette's
//! graphical reports), for programs ([`json`], the JSON contract), for CI ([`github`]
//! workflow commands, [`sarif`] logs).
//!
//! A [`Finding`] is one diagnostic with the file its labels point into; every output is
//! made from the same list of findings, so they never disagree.

pub mod github;
#[cfg(feature = "verl")]
pub mod guard;
mod human;
#[cfg(feature = "verl")]
pub mod installed;
pub mod json;
mod run;
pub mod sarif;
#[cfg(feature = "verl")]
mod verl_launch;
#[cfg(feature = "verl")]
mod verl_run;

pub use human::{ColorChoice, SeverityCounts, render_human, render_human_refs, summary};
pub use json::JsonDiagnostic;
pub use run::{
    CheckRun, HumanReport, LaunchSummary, human_report, human_report_with, said_by_the_cluster,
    slot_findings,
};
#[cfg(feature = "verl")]
pub use verl_launch::{VerlLoad, VerlRun, config_path as verl_config_path};
#[cfg(feature = "verl")]
pub use verl_run::{LayoutError, summary as launch_summary, verl_findings};

use miette::{Diagnostic, Severity};
use resource_pool_core::source::SourceFile;
use serde::Serialize;

/// What a finding holds: a diagnostic for people, whose typed fields serialise as the
/// JSON output's `data` (spans skipped; `file`, `line` and `column` say where).
pub trait Reportable: Diagnostic + Serialize + Send + Sync + 'static {}

impl<D: Diagnostic + Serialize + Send + Sync + 'static> Reportable for D {}

/// The diagnostic's fields as JSON; `Null` for one without fields (or that cannot say).
fn data_of(diagnostic: &impl Serialize) -> Box<serde_json::Value> {
    Box::new(serde_json::to_value(diagnostic).unwrap_or(serde_json::Value::Null))
}

/// One diagnostic, with the file its labels point into.
pub struct Finding {
    diagnostic: Box<dyn Diagnostic + Send + Sync + 'static>,
    /// The diagnostic's typed fields, as JSON's `data` (`Null` when it has none); boxed, as
    /// findings travel in `Result`s and most are never printed as JSON.
    data: Box<serde_json::Value>,
    source: Option<SourceFile>,
    /// Shown to people as one line (a file that cannot be read needs no snippet).
    brief: bool,
}

impl Finding {
    /// A diagnostic about a file.
    pub fn in_file(diagnostic: impl Reportable, source: &SourceFile) -> Finding {
        Finding {
            data: data_of(&diagnostic),
            diagnostic: Box::new(diagnostic),
            source: Some(source.clone()),
            brief: false,
        }
    }

    /// A file that cannot be read: one line for people.
    pub fn unreadable(diagnostic: impl Reportable) -> Finding {
        Finding {
            data: data_of(&diagnostic),
            diagnostic: Box::new(diagnostic),
            source: None,
            brief: true,
        }
    }

    /// A diagnostic with no place in a file.
    pub fn bare(diagnostic: impl Reportable) -> Finding {
        Finding {
            data: data_of(&diagnostic),
            diagnostic: Box::new(diagnostic),
            source: None,
            brief: false,
        }
    }

    /// The diagnostic.
    pub fn diagnostic(&self) -> &(dyn Diagnostic + Send + Sync + 'static) {
        &*self.diagnostic
    }

    /// The file its labels point into, when it has one.
    pub fn source(&self) -> Option<&SourceFile> {
        self.source.as_ref()
    }

    /// The diagnostic's typed fields (the pool, the slots, the node and amounts, ...), as
    /// the JSON output's `data`; `Null` when it has none.
    pub fn data(&self) -> &serde_json::Value {
        &self.data
    }

    /// Whether people see it as one line, without a snippet.
    pub fn is_brief(&self) -> bool {
        self.brief
    }

    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        matches!(self.diagnostic.severity(), None | Some(Severity::Error))
    }

    /// The stable code (`resource_pool::...`), or empty.
    pub fn code(&self) -> String {
        self.diagnostic
            .code()
            .map(|c| c.to_string())
            .unwrap_or_default()
    }

    /// The severity: error unless the diagnostic says otherwise.
    pub fn severity(&self) -> Severity {
        self.diagnostic.severity().unwrap_or(Severity::Error)
    }

    /// What is wrong, in one line.
    pub fn message(&self) -> String {
        self.diagnostic.to_string()
    }

    /// What to do.
    pub fn help(&self) -> Option<String> {
        self.diagnostic.help().map(|h| h.to_string())
    }

    /// The name of the file the finding is about, when it is about one.
    pub fn file(&self) -> Option<&str> {
        self.source.as_ref().map(SourceFile::name)
    }

    /// Where the first label points: the file (or the layer, such as the command line's
    /// overrides) and the 1-based lines and columns of its first character and of the
    /// character after its last.
    pub fn place(&self) -> Option<Place> {
        let source = self.source.as_ref()?;
        let label = self
            .diagnostic
            .labels()
            .and_then(|mut labels| labels.next())?;
        let (name, line, column) = source.locate(label.offset());
        let (_, end_line, end_column) = source.locate(label.offset() + label.len());
        Some(Place {
            in_layer: name != source.name(),
            file: name.to_owned(),
            line,
            column,
            end_line,
            end_column,
        })
    }
}

/// Where a finding's first label points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// The file's name, or the layer's (`command line`).
    pub file: String,
    /// Whether it points into a layer over the file (the command line), not the file.
    pub in_layer: bool,
    /// 1-based line of the first character.
    pub line: usize,
    /// 1-based column of the first character, in characters.
    pub column: usize,
    /// 1-based line of the character after the last.
    pub end_line: usize,
    /// 1-based column of the character after the last.
    pub end_column: usize,
}
