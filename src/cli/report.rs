//! What a command found, rendered for people (miette reports on stderr) or machines
//! (the `diagnostics` array of the JSON contract).

use std::fmt;
use std::io::IsTerminal;

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, Severity, SourceCode,
};
use resource_pool::source::SourceFile;
use serde::Serialize;

/// One diagnostic, with the file its labels point into.
pub struct Finding {
    diagnostic: Box<dyn Diagnostic + Send + Sync + 'static>,
    source: Option<SourceFile>,
    /// Shown to people as one line (a file that cannot be read needs no snippet).
    brief: bool,
}

impl Finding {
    /// A diagnostic about a file.
    pub fn in_file(
        diagnostic: impl Diagnostic + Send + Sync + 'static,
        source: &SourceFile,
    ) -> Finding {
        Finding {
            diagnostic: Box::new(diagnostic),
            source: Some(source.clone()),
            brief: false,
        }
    }

    /// A file that cannot be read: one line for people.
    pub fn unreadable(diagnostic: impl Diagnostic + Send + Sync + 'static) -> Finding {
        Finding {
            diagnostic: Box::new(diagnostic),
            source: None,
            brief: true,
        }
    }

    /// A diagnostic with no place in a file.
    pub fn bare(diagnostic: impl Diagnostic + Send + Sync + 'static) -> Finding {
        Finding {
            diagnostic: Box::new(diagnostic),
            source: None,
            brief: false,
        }
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

    /// The JSON form.
    pub fn to_json(&self) -> JsonDiagnostic {
        let severity = match self.severity() {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Advice => "advice",
        };
        let place = self.place();
        let file = place
            .as_ref()
            .map(|p| p.file.clone())
            .or_else(|| self.file().map(str::to_owned));
        JsonDiagnostic {
            code: self.code(),
            severity,
            message: self.message(),
            help: self.help(),
            file,
            line: place.as_ref().map(|p| p.line),
            column: place.as_ref().map(|p| p.column),
        }
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

/// One diagnostic of the JSON contract.
#[derive(Serialize)]
pub struct JsonDiagnostic {
    /// Stable code, `resource_pool::...`.
    pub code: String,
    /// `error`, `warning` or `advice`.
    pub severity: &'static str,
    /// What is wrong.
    pub message: String,
    /// What to do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// The file it is in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// 1-based line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 1-based column, in characters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

/// A diagnostic shown with its file's text.
struct WithSource<'a> {
    inner: &'a (dyn Diagnostic + Send + Sync),
    source: &'a SourceFile,
}

impl fmt::Debug for WithSource<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.inner, f)
    }
}

impl fmt::Display for WithSource<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.inner, f)
    }
}

impl std::error::Error for WithSource<'_> {}

impl Diagnostic for WithSource<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.inner.code()
    }
    fn severity(&self) -> Option<Severity> {
        self.inner.severity()
    }
    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.inner.help()
    }
    fn url<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.inner.url()
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(self.source)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.inner.labels()
    }
    fn related<'b>(&'b self) -> Option<Box<dyn Iterator<Item = &'b dyn Diagnostic> + 'b>> {
        self.inner.related()
    }
    fn diagnostic_source(&self) -> Option<&dyn Diagnostic> {
        self.inner.diagnostic_source()
    }
}

/// Whether to colour output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colour when the stream is a terminal, as `NO_COLOR`, `CLICOLOR_FORCE` and
    /// `CLICOLOR` say (in that order).
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

impl ColorChoice {
    /// Whether to colour a stream that is, or is not, a terminal.
    pub fn enabled(self, is_terminal: bool) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => auto_colour(is_terminal, |name| {
                std::env::var_os(name).filter(|v| !v.is_empty())
            }),
        }
    }
}

/// `--color auto`, in the order cargo's terminal crate (anstream) reads the variables:
/// `NO_COLOR` turns colour off; otherwise `CLICOLOR_FORCE` other than `0` colours even a
/// pipe; otherwise `CLICOLOR=0` turns it off; otherwise colour when the stream is a
/// terminal. Empty variables count as unset.
fn auto_colour(is_terminal: bool, var: impl Fn(&str) -> Option<std::ffi::OsString>) -> bool {
    if var("NO_COLOR").is_some() {
        return false;
    }
    if var("CLICOLOR_FORCE").is_some_and(|v| v != "0") {
        return true;
    }
    if var("CLICOLOR").is_some_and(|v| v == "0") {
        return false;
    }
    is_terminal
}

/// Renders findings as miette reports, like rustc: the snippet, the label, the help.
pub fn render_human(findings: &[Finding], color: ColorChoice) -> String {
    let colored = color.enabled(std::io::stderr().is_terminal());
    let theme = if colored {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(100)
        .with_links(false);
    let mut out = String::new();
    for finding in findings {
        if finding.brief {
            let code = finding
                .diagnostic
                .code()
                .map(|c| format!("[{c}]"))
                .unwrap_or_default();
            out.push_str(&format!("error{code}: {}\n", finding.diagnostic));
            continue;
        }
        let result = match &finding.source {
            Some(source) => handler.render_report(
                &mut out,
                &WithSource {
                    inner: &*finding.diagnostic,
                    source,
                },
            ),
            None => handler.render_report(&mut out, &*finding.diagnostic),
        };
        if result.is_err() {
            out.push_str(&finding.diagnostic.to_string());
            out.push('\n');
        }
    }
    out
}

/// A one-line summary: `2 errors, 1 warning`.
pub fn summary(findings: &[Finding]) -> String {
    let errors = findings.iter().filter(|f| f.is_error()).count();
    let warnings = findings.len() - errors;
    let plural = |n: usize, word: &str| {
        if n == 1 {
            format!("1 {word}")
        } else {
            format!("{n} {word}s")
        }
    };
    format!(
        "{}, {}",
        plural(errors, "error"),
        plural(warnings, "warning")
    )
}

#[cfg(test)]
mod tests {
    use super::auto_colour;

    fn with(vars: &[(&str, &str)], is_terminal: bool) -> bool {
        auto_colour(is_terminal, |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| std::ffi::OsString::from(v))
        })
    }

    #[test]
    fn a_terminal_is_coloured_unless_told_otherwise() {
        assert!(with(&[], true));
        assert!(!with(&[], false));
        assert!(!with(&[("NO_COLOR", "1")], true));
        assert!(!with(&[("CLICOLOR", "0")], true));
        assert!(with(&[("CLICOLOR", "1")], true));
    }

    #[test]
    fn clicolor_force_colours_pipes_unless_no_color() {
        assert!(with(&[("CLICOLOR_FORCE", "1")], false));
        assert!(with(&[("CLICOLOR_FORCE", "1"), ("CLICOLOR", "0")], false));
        assert!(!with(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")], false));
        assert!(!with(&[("CLICOLOR_FORCE", "0")], false));
    }
}
