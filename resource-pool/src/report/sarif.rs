//! `--format sarif`: findings as one SARIF 2.1.0 log, for GitHub code scanning
//! (`github/codeql-action/upload-sarif`) and other SARIF viewers.
//!
//! One run of the tool `resource-pool`; one rule per diagnostic code seen, in order of first
//! appearance; one result per finding: `level` `error`, `warning` or `note`, the message
//! with its help line, and the region of its first label (1-based lines and columns in
//! characters, `columnKind: unicodeCodePoints`; the end column is the one after the
//! label's last character, as SARIF defines it). Paths become relative URIs (`/`
//! separated, percent-encoded); absolute paths become `file://` URIs. A finding with no
//! place in a file (a cluster note, a finding in the command line's overrides) points at
//! the whole of the command's main file when there is one, and has no location otherwise.

use miette::Severity;
use serde_json::{Value, json};

use super::Finding;

/// The schema a SARIF 2.1.0 log names.
pub const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The SARIF log of these findings; `main_file` is the file findings without a place of
/// their own are about (the config a command checks).
pub fn render(findings: &[Finding], main_file: Option<&str>) -> Value {
    let mut rules: Vec<String> = Vec::new();
    let mut results = Vec::new();
    for finding in findings {
        let code = finding.code();
        let rule_index = match rules.iter().position(|r| *r == code) {
            Some(i) => i,
            None => {
                rules.push(code.clone());
                rules.len() - 1
            }
        };
        let level = match finding.severity() {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Advice => "note",
        };
        let mut text = finding.message();
        let place = finding.place();
        let location = match &place {
            Some(p) if !p.in_layer => Some(json!({
                "physicalLocation": {
                    "artifactLocation": { "uri": uri(&p.file) },
                    "region": {
                        "startLine": p.line,
                        "startColumn": p.column,
                        "endLine": p.end_line,
                        "endColumn": p.end_column,
                    },
                },
            })),
            _ => {
                if let Some(p) = &place {
                    text = format!("{} (column {}): {text}", p.file, p.column);
                }
                finding.file().or(main_file).filter(|f| is_file(f)).map(
                    |f| json!({ "physicalLocation": { "artifactLocation": { "uri": uri(f) } } }),
                )
            }
        };
        if let Some(help) = finding.help() {
            text.push_str("\nhelp: ");
            text.push_str(&help);
        }
        let mut result = json!({
            "ruleId": code,
            "ruleIndex": rule_index,
            "level": level,
            "message": { "text": text },
        });
        if let (Some(location), Some(object)) = (location, result.as_object_mut()) {
            object.insert("locations".to_owned(), json!([location]));
        }
        results.push(result);
    }
    let rules: Vec<Value> = rules
        .iter()
        .map(|code| {
            let name = code.rsplit("::").next().unwrap_or(code);
            json!({ "id": code, "name": name })
        })
        .collect();
    json!({
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "resource-pool",
                    "version": env!("CARGO_PKG_VERSION"),
                    "informationUri": env!("CARGO_PKG_REPOSITORY"),
                    "rules": rules,
                },
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    })
}

/// Whether a name is a file's (not stdin's or the command line's).
fn is_file(name: &str) -> bool {
    name != resource_pool_core::source::STDIN_NAME
        && name != resource_pool_core::config::OVERRIDES_NAME
}

/// A path as a URI reference: relative paths stay relative.
fn uri(path: &str) -> String {
    let path = path.replace('\\', "/");
    let bytes = path.as_bytes();
    // Absolute paths become `file` URIs (RFC 8089): `/tmp/x` → `file:///tmp/x`, a Windows
    // drive `C:\x` → `file:///C:/x` (the drive's colon kept), a UNC share `\\host\x` →
    // `file://host/x`. Anything else is a relative reference, as given.
    let is_drive = bytes.len() >= 3 && bytes[0].is_ascii_alphabetic() && &bytes[1..3] == b":/";
    if path.starts_with("//") {
        format!("file:{}", encode(&path))
    } else if is_drive {
        format!("file:///{}{}", &path[..2], encode(&path[2..]))
    } else if path.starts_with('/') {
        format!("file://{}", encode(&path))
    } else {
        encode(&path)
    }
}

/// Percent-encodes a path for a URI: unreserved characters and `/` stay.
fn encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::uri;

    #[test]
    fn relative_paths_stay_relative_and_are_encoded() {
        assert_eq!(
            uri("examples/configs/a b.toml"),
            "examples/configs/a%20b.toml"
        );
        assert_eq!(uri("./x.toml"), "./x.toml");
        assert_eq!(uri("dir\\ä.toml"), "dir/%C3%A4.toml");
    }

    #[test]
    fn absolute_paths_become_file_uris() {
        assert_eq!(uri("/tmp/x.toml"), "file:///tmp/x.toml");
    }

    #[test]
    fn windows_absolute_paths_become_file_uris() {
        // Was `C%3A/Users/...`: a relative reference to a folder named `C:`.
        assert_eq!(
            uri("C:\\Users\\me\\pools.toml"),
            "file:///C:/Users/me/pools.toml"
        );
        assert_eq!(uri("d:/a b/x.toml"), "file:///d:/a%20b/x.toml");
        assert_eq!(
            uri("\\\\server\\share\\x.toml"),
            "file://server/share/x.toml"
        );
        // A relative path that only looks like a drive is not one.
        assert_eq!(uri("C:x.toml"), "C%3Ax.toml");
    }
}
