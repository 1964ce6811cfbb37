//! `--format github`: findings as GitHub Actions workflow commands
//! (`::error file=F,line=L,col=C,endLine=L2,endColumn=C2,title=CODE::MESSAGE`), which the
//! runner turns into annotations on the pull request's files.
//!
//! Escaping follows the Actions toolkit (`@actions/core`): in the message `%`, CR and LF
//! become `%25`, `%0D`, `%0A`; in property values `:` and `,` become `%3A` and `%2C` too.
//! `endColumn` is the column of the label's last character (inclusive), given only when
//! the label is on one line. A finding in the command line's overrides has no file to
//! annotate a line of: it annotates the file and names the layer and column in its message.

use std::fmt::Write;

use miette::Severity;

use super::Finding;

/// The workflow commands of these findings, one per line.
pub fn render(findings: &[Finding]) -> String {
    let mut out = String::new();
    for finding in findings {
        let command = match finding.severity() {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Advice => "notice",
        };
        let mut properties = Vec::new();
        let mut message = finding.message();
        match finding.place() {
            Some(place) if place.in_layer => {
                if let Some(file) = finding.file() {
                    properties.push(format!("file={}", property(file)));
                }
                message = format!("{} (column {}): {message}", place.file, place.column);
            }
            Some(place) => {
                properties.push(format!("file={}", property(&place.file)));
                properties.push(format!("line={}", place.line));
                properties.push(format!("col={}", place.column));
                if place.end_line == place.line && place.end_column > place.column {
                    properties.push(format!("endColumn={}", place.end_column - 1));
                } else if place.end_line > place.line {
                    properties.push(format!("endLine={}", place.end_line));
                }
            }
            None => {
                if let Some(file) = finding.file() {
                    properties.push(format!("file={}", property(file)));
                }
            }
        }
        let code = finding.code();
        if !code.is_empty() {
            properties.push(format!("title={}", property(&code)));
        }
        if let Some(help) = finding.help() {
            let _ = write!(message, "\nhelp: {help}");
        }
        let _ = writeln!(
            out,
            "::{command}{}{}::{}",
            if properties.is_empty() { "" } else { " " },
            properties.join(","),
            data(&message)
        );
    }
    out
}

/// A command's message.
fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property's value.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_escapes_percent_first_and_line_breaks() {
        assert_eq!(data("100%\r\nnext"), "100%25%0D%0Anext");
    }

    #[test]
    fn properties_also_escape_colon_and_comma() {
        assert_eq!(
            property("resource_pool::lint::a,b%"),
            "resource_pool%3A%3Alint%3A%3Aa%2Cb%25"
        );
    }
}
