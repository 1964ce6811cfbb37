//! Helpers shared by the core's integration tests.
#![allow(dead_code)]

use std::collections::BTreeMap;

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, NamedSource};
use resource_pool_core::lint::{LintOptions, RoleSet};
use resource_pool_core::source::SourceFile;
use resource_pool_core::{Amount, Cluster, Node, Resources};

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

/// A source file from a string.
pub fn source(name: &str, text: &str) -> SourceFile {
    SourceFile::new(name, text)
}

/// The roles these tests' configs map (a front end gives its own set: the verl crate's).
pub fn lint_options() -> LintOptions {
    LintOptions {
        roles: RoleSet::known([
            ("actor_rollout", &[][..]),
            ("critic", &[][..]),
            ("ref", &["ref_policy"][..]),
            ("rm", &["reward_model"][..]),
        ]),
        ..LintOptions::default()
    }
}

/// A cluster written as a cluster file's `[[nodes]]` (`id`, `available`, `total`), without
/// the cluster-file reader (another crate's): whole amounts only.
pub fn cluster_from_toml(text: &str) -> Cluster {
    #[derive(serde::Deserialize)]
    struct File {
        nodes: Vec<Entry>,
    }
    #[derive(serde::Deserialize)]
    struct Entry {
        id: String,
        available: BTreeMap<String, u64>,
        total: Option<BTreeMap<String, u64>>,
    }
    let resources = |map: &BTreeMap<String, u64>| {
        map.iter().fold(Resources::new(), |r, (name, n)| {
            r.with(name.as_str(), Amount::from_whole(*n).expect("whole amount"))
        })
    };
    let file: File = toml::from_str(text).expect("a cluster file");
    Cluster::new(
        file.nodes
            .iter()
            .map(|e| {
                let node = Node::new(e.id.as_str(), resources(&e.available));
                match &e.total {
                    Some(total) => node.with_total(resources(total)),
                    None => node,
                }
            })
            .collect(),
    )
}
