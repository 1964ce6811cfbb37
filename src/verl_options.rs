//! `resource-pool verl`'s own options written after the launch line (`... trainer.nnodes=1
//! --cluster FILE`). Everything from the line's first word on is the line's, so such an
//! option reaches the launch reader, which can only call it none of Hydra's flags and its
//! value "not an override". Here it is said for what it is. The options are clap's definition of the
//! command: no list of them is kept apart.

use clap::CommandFactory;
use miette::SourceSpan;
use resource_pool::report::Finding;
use resource_pool::verl::hydra::OverrideProblem;
use resource_pool::verl::{HydraArgs, VerlDiagnostic, VerlLaunchDiagnostic};

use super::Cli;
use resource_pool::report::VerlLoad;

/// An option of `resource-pool verl` after the launch line.
#[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[error("`{option}` is an option of resource-pool verl, not a word of the launch line")]
#[diagnostic(
    code(resource_pool::cli::option_after_launch_line),
    help(
        "resource-pool's options go before the launch line (before `--`): `resource-pool verl {option} ... -- python3 -m verl.trainer.main_ppo ...`; everything from the line's first word on is read as verl's"
    )
)]
struct OptionAfterLaunchLine {
    /// The option, as written (`--cluster`).
    option: String,
    /// The option and its value.
    #[label("resource-pool's option")]
    #[serde(skip)]
    span: SourceSpan,
}

/// The option of `resource-pool verl` (its own or a global one) a word names, and whether
/// its value is the next word: `--cluster` (true), `--cluster=FILE`, `--quiet` (false).
fn option_named(word: &str) -> Option<(&str, bool)> {
    let (name, inline) = word
        .split_once('=')
        .map_or((word, false), |(n, _)| (n, true));
    let cli = Cli::command();
    let verl = cli.find_subcommand("verl")?;
    let named = |arg: &&clap::Arg| match name.strip_prefix("--") {
        Some(long) => arg
            .get_long_and_visible_aliases()
            .is_some_and(|names| names.contains(&long)),
        None => name
            .strip_prefix('-')
            .and_then(|s| s.parse::<char>().ok())
            .is_some_and(|short| arg.get_short() == Some(short)),
    };
    let arg = cli
        .get_arguments()
        .chain(verl.get_arguments())
        .filter(|arg| !arg.is_positional())
        .find(named)?;
    Some((name, !inline && arg.get_action().takes_values()))
}

/// Replaces "none of Hydra's flags" for an option of ours (and "not an override" for its
/// value, the word after it)
/// with one error that says where options go. Call right after [`VerlLoad::new`], while its
/// findings are its diagnostics, one for one.
pub fn options_after_launch_line(load: &mut VerlLoad) {
    debug_assert_eq!(load.findings.len(), load.loaded.diagnostics.len());
    // A flag of ours is none of Hydra's; its value, no override.
    let not_an_override = |d: &VerlDiagnostic| match d {
        VerlDiagnostic::Launch(VerlLaunchDiagnostic::OverrideSyntax {
            problem: OverrideProblem::NotAnOverride,
            text,
            span,
        }) => Some((text.clone(), *span)),
        VerlDiagnostic::Launch(VerlLaunchDiagnostic::HydraArgs {
            problem: HydraArgs::UnknownFlag,
            word,
            span,
            ..
        }) => Some((word.clone(), *span)),
        _ => None,
    };
    let words: Vec<Option<(String, SourceSpan)>> = load
        .loaded
        .diagnostics
        .iter()
        .map(not_an_override)
        .collect();
    let mut replaced: Vec<Option<Option<Finding>>> = (0..words.len()).map(|_| None).collect();
    let mut i = 0;
    while i < words.len() {
        let (Some((text, span)), None) = (&words[i], &replaced[i]) else {
            i += 1;
            continue;
        };
        let Some((option, takes_value)) = option_named(text) else {
            i += 1;
            continue;
        };
        let mut end = span.offset() + span.len();
        // Its value: the word right after it, when that is "not an override" (the launch
        // reader says what is no flag of Hydra's before what is no override).
        let value = words
            .iter()
            .position(|w| w.as_ref().is_some_and(|(_, next)| next.offset() == end + 1))
            .filter(|_| takes_value);
        if let Some(v) = value
            && let Some((_, next)) = &words[v]
        {
            end = next.offset() + next.len();
            replaced[v] = Some(None);
        }
        let error = OptionAfterLaunchLine {
            option: option.to_owned(),
            span: (span.offset()..end).into(),
        };
        replaced[i] = Some(Some(Finding::in_file(error, &load.source)));
        i += 1;
    }
    let findings = std::mem::take(&mut load.findings);
    load.findings = findings
        .into_iter()
        .zip(replaced)
        .filter_map(|(finding, replaced)| replaced.unwrap_or(Some(finding)))
        .collect();
}
