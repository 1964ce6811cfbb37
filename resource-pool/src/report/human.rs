//! Findings for people: miette's graphical reports, like rustc's (the snippet, the label,
//! the help), and the one-line summary.

use std::fmt;

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, Severity, SourceCode,
};
use resource_pool_core::source::SourceFile;
use resource_pool_core::words::count;

use super::Finding;

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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ColorChoice {
    /// Colour when the stream is a terminal, as `NO_COLOR`, `CLICOLOR_FORCE` and
    /// `CLICOLOR` say (in that order).
    #[default]
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

/// Renders findings as miette reports, like rustc: the snippet, the label, the help; in
/// colour or not (a front end asks [`ColorChoice::enabled`] for its stream).
pub fn render_human(findings: &[Finding], colour: bool) -> String {
    render_human_refs(&findings.iter().collect::<Vec<_>>(), colour)
}

/// [`render_human`] of some of a list's findings.
pub fn render_human_refs(findings: &[&Finding], colour: bool) -> String {
    let theme = if colour {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    // Lines break at spaces only: a help's `++trainer.x=...` or a key with hyphens split
    // over two lines cannot be pasted back.
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(100)
        .with_links(false)
        .with_word_separator(textwrap::WordSeparator::AsciiSpace)
        .with_word_splitter(textwrap::WordSplitter::NoHyphenation);
    let mut out = String::new();
    for finding in findings {
        if finding.is_brief() {
            let code = finding
                .diagnostic()
                .code()
                .map(|c| format!("[{c}]"))
                .unwrap_or_default();
            out.push_str(&format!("error{code}: {}\n", finding.diagnostic()));
            continue;
        }
        let result = match finding.source() {
            Some(source) => handler.render_report(
                &mut out,
                &WithSource {
                    inner: finding.diagnostic(),
                    source,
                },
            ),
            None => handler.render_report(&mut out, finding.diagnostic()),
        };
        if result.is_err() {
            out.push_str(&finding.diagnostic().to_string());
            out.push('\n');
        }
    }
    out
}

/// How many findings there are of each severity, as [`summary`] counts them: advice (a
/// suggested layout, a held group) is not a warning. Front ends that show the counts in
/// their own words (Python's `repr`) count with this, so they cannot differ from the line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SeverityCounts {
    /// Findings of severity error.
    pub errors: usize,
    /// Warnings: every finding that is neither an error nor advice.
    pub warnings: usize,
    /// Findings of severity advice.
    pub advice: usize,
}

impl SeverityCounts {
    /// The counts of `findings`.
    pub fn of(findings: &[Finding]) -> SeverityCounts {
        let errors = findings.iter().filter(|f| f.is_error()).count();
        let advice = findings
            .iter()
            .filter(|f| f.severity() == Severity::Advice)
            .count();
        SeverityCounts {
            errors,
            warnings: findings.len() - errors - advice,
            advice,
        }
    }
}

/// A one-line summary: `2 errors, 1 warning`, and `, 2 advice` when there is advice (a
/// suggested layout, a held group): advice is not a warning.
pub fn summary(findings: &[Finding]) -> String {
    let counts = SeverityCounts::of(findings);
    let mut out = format!(
        "{}, {}",
        count(counts.errors, "error"),
        count(counts.warnings, "warning")
    );
    if counts.advice > 0 {
        out.push_str(&format!(", {} advice", counts.advice));
    }
    out
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
