//! Helpers shared by the inventory's integration tests.
#![allow(dead_code)]

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, NamedSource};

/// Renders diagnostics as the CLI does, without colour, against `text`.
pub fn render<D: Diagnostic + Clone + Send + Sync + 'static>(
    name: &str,
    text: &str,
    diagnostics: &[D],
) -> String {
    let handler =
        GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor()).with_width(100);
    let mut out = String::new();
    for d in diagnostics {
        let report = miette::Report::new(d.clone())
            .with_source_code(NamedSource::new(name, text.to_owned()));
        handler
            .render_report(&mut out, report.as_ref())
            .expect("rendering to a String cannot fail");
    }
    out
}

/// The codes of the diagnostics, one a line, then their rendered report: what the
/// snapshot tests compare.
pub fn report<D: Diagnostic + Clone + Send + Sync + 'static>(
    name: &str,
    text: &str,
    diagnostics: &[D],
) -> String {
    let codes: Vec<String> = diagnostics
        .iter()
        .map(|d| d.code().map(|c| c.to_string()).unwrap_or_default())
        .collect();
    format!(
        "{}\n\n{}",
        codes.join("\n"),
        render(name, text, diagnostics)
    )
}

/// A snapshot test of `report($text)`, where `report` is the calling file's.
#[allow(unused_macros)]
macro_rules! snapshot {
    ($name:ident, $text:expr) => {
        #[test]
        fn $name() {
            insta::assert_snapshot!(report($text));
        }
    };
}
