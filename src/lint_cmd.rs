//! `resource-pool lint CONFIG...`

use std::path::PathBuf;

use serde_json::json;

use super::{
    Context, Format, Outcome, Roles, SetArgs, load, print_for_ci, print_human, print_json, read,
    to_stderr,
};
use resource_pool::report::{Finding, summary};

/// Arguments of `lint`.
#[derive(Debug, clap::Args)]
pub struct LintArgs {
    /// Config files.
    #[arg(required = true, value_name = "CONFIG")]
    configs: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human, env = "RESOURCE_POOL_FORMAT")]
    format: Format,
    /// The role names `[mapping]` may use.
    #[arg(long, value_enum, default_value_t = Roles::Verl, env = "RESOURCE_POOL_ROLES")]
    roles: Roles,
    #[command(flatten)]
    set: SetArgs,
}

/// Lints every config.
pub fn run(args: &LintArgs, context: &Context) -> Outcome {
    let options = context.lint_options(args.roles);
    let mut outcome = Outcome::Ok;
    let mut all = Vec::new();
    for path in &args.configs {
        let (findings, file_outcome) = match read(path, context) {
            Err(finding) => (vec![finding], Outcome::Unreadable),
            Ok(source) => match load(&source, &args.set, &options) {
                Err(findings) => (findings, Outcome::Unreadable),
                Ok(loaded) => {
                    let failed = loaded.has_errors();
                    let source = loaded.source.clone();
                    let findings: Vec<Finding> = loaded
                        .diagnostics
                        .into_iter()
                        .map(|d| Finding::in_file(d, &source))
                        .collect();
                    (findings, if failed { Outcome::Failed } else { Outcome::Ok })
                }
            },
        };
        outcome = outcome.max(file_outcome);
        if args.format == Format::Human {
            print_human(&findings, context);
            if !context.quiet && file_outcome != Outcome::Unreadable {
                let verdict = match file_outcome {
                    Outcome::Ok => "valid",
                    Outcome::Failed => "invalid",
                    Outcome::Unreadable => "unreadable",
                };
                to_stderr(&format!(
                    "{}: {verdict} ({})\n",
                    path.display(),
                    summary(&findings)
                ));
            }
        }
        all.extend(findings);
    }
    match args.format {
        Format::Json => {
            let diagnostics: Vec<_> = all.iter().map(Finding::to_json).collect();
            print_json(&json!({ "diagnostics": diagnostics }));
        }
        Format::Github | Format::Sarif => print_for_ci(args.format, &all, None),
        Format::Human => {}
    }
    outcome
}
