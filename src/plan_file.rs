//! `check --plan svg FILE`: the plan pictures written to a file.

use std::path::{Path, PathBuf};

use clap::CommandFactory;
use clap::error::ErrorKind;
use resource_pool::Cluster;
use resource_pool::check::CheckReport;
use resource_pool::check::suggest::Suggestions;
use resource_pool::render::{check_pictures, render_svg, suggestion_pictures};

use resource_pool::report::Finding;

/// The plan could not be written.
#[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[error("cannot write the plan to `{path}`: {source}")]
#[diagnostic(
    code(resource_pool::plan::unwritable),
    help("check that the folder exists and can be written, or give `--plan svg` another FILE")
)]
pub struct PlanUnwritable {
    path: String,
    #[source]
    #[serde(serialize_with = "resource_pool::source::as_text")]
    source: std::io::Error,
}

/// The file of `--plan KIND FILE`, after checking KIND (only `svg`); a usage error (exit
/// 2) otherwise.
pub fn svg_target(plan: Option<&[PathBuf]>) -> Option<PathBuf> {
    let [kind, file] = plan? else {
        // clap takes exactly two values.
        return None;
    };
    if kind.as_os_str() != "svg" {
        super::Cli::command()
            .error(
                ErrorKind::InvalidValue,
                format!(
                    "invalid kind '{}' for '--plan <KIND> <FILE>' [possible kinds: svg]",
                    kind.display()
                ),
            )
            .exit();
    }
    if file.as_os_str() == "-" {
        // stdout carries the report (the text plan, JSON, SARIF): the SVG needs a file.
        super::Cli::command()
            .error(
                ErrorKind::InvalidValue,
                "invalid file '-' for '--plan <KIND> <FILE>': stdout carries the report; name a file such as plan.svg",
            )
            .exit();
    }
    Some(file.clone())
}

/// Writes the pictures `check` shows (a note when there is no report) to `path` as SVG,
/// the suggested layouts under them; `order` names the order Ray sees the groups in.
pub fn write_svg(
    path: &Path,
    report: Option<&CheckReport>,
    suggested: Option<&Suggestions>,
    cluster: &Cluster,
    order: &str,
) -> Result<(), Finding> {
    let mut pictures = report
        .map(|r| check_pictures(r, cluster, order))
        .unwrap_or_default();
    pictures.extend(
        suggested
            .map(|s| suggestion_pictures(s, cluster))
            .unwrap_or_default(),
    );
    std::fs::write(path, render_svg(&pictures)).map_err(|source| {
        Finding::unreadable(PlanUnwritable {
            path: path.display().to_string(),
            source,
        })
    })
}
