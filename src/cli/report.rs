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

    /// The JSON form.
    pub fn to_json(&self) -> JsonDiagnostic {
        let d = &*self.diagnostic;
        let severity = match d.severity() {
            None | Some(Severity::Error) => "error",
            Some(Severity::Warning) => "warning",
            Some(Severity::Advice) => "advice",
        };
        let place = self.source.as_ref().and_then(|source| {
            let label = d.labels().and_then(|mut labels| labels.next())?;
            let (name, line, column) = source.locate(label.offset());
            Some((name.to_owned(), line, column))
        });
        let file = place
            .as_ref()
            .map(|p| p.0.clone())
            .or_else(|| self.source.as_ref().map(|s| s.name().to_owned()));
        JsonDiagnostic {
            code: d.code().map(|c| c.to_string()).unwrap_or_default(),
            severity,
            message: d.to_string(),
            help: d.help().map(|h| h.to_string()),
            file,
            line: place.as_ref().map(|p| p.1),
            column: place.as_ref().map(|p| p.2),
        }
    }
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
    /// Colour when stderr is a terminal and `NO_COLOR` is unset.
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
            ColorChoice::Auto => {
                is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        }
    }
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
