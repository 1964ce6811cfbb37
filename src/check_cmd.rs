//! `resource-pool check CONFIG (--cluster CLUSTER.toml|json | --ray URL)`

use std::path::PathBuf;
use std::time::Duration;

use resource_pool::check::suggest::Suggestions;
use resource_pool::check::{CheckOptions, CheckReport, LayoutWording};
use resource_pool::inventory::SourceKind;
use resource_pool::placement::PlacementOptions;
use resource_pool::ray_sim::RaySimOptions;

use super::cluster_input::{ClusterArgs, read_cluster_noting};
use super::{
    Context, Format, Outcome, Roles, SetArgs, drop_aside, load, print_for_ci, print_human,
    print_result, read, to_stderr, to_stdout,
};
use resource_pool::load::LoadedConfig;
use resource_pool::report::json::{check_result_of, suggestions};
use resource_pool::report::{CheckRun, Finding, LaunchSummary, human_report_with};
use resource_pool::source::to_source_span;
use resource_pool::verl::releases::ReleaseRules;
use resource_pool::verl::version::{ReleaseRead, rules_for};

/// Arguments of `check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The config file.
    #[arg(value_name = "CONFIG")]
    config: PathBuf,
    #[command(flatten)]
    cluster: ClusterArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human, env = "RESOURCE_POOL_FORMAT")]
    format: Format,
    /// The role names `[mapping]` may use.
    #[arg(long, value_enum, default_value_t = Roles::Verl, env = "RESOURCE_POOL_ROLES")]
    roles: Roles,
    #[command(flatten)]
    set: SetArgs,
    /// The placement search's time budget, in milliseconds.
    #[arg(
        long,
        default_value_t = 1000,
        value_name = "MS",
        env = "RESOURCE_POOL_BUDGET_MS"
    )]
    budget_ms: u64,
    /// The placement search's step budget (deterministic).
    #[arg(long, default_value_t = PlacementOptions::default().max_steps, value_name = "N", env = "RESOURCE_POOL_MAX_STEPS")]
    max_steps: u64,
    /// The most tie-breaks of Ray's scheduler followed.
    #[arg(long, default_value_t = RaySimOptions::default().max_branches, value_name = "N", env = "RESOURCE_POOL_MAX_RAY_BRANCHES")]
    max_ray_branches: usize,
    /// Also draw the plan into FILE; KIND is `svg` (`--plan svg plan.svg`).
    #[arg(long, num_args = 2, value_names = ["KIND", "FILE"])]
    plan: Option<Vec<PathBuf>>,
    /// Check the layout as this verl release launches it (`0.9.1`; a version of no release
    /// known, such as `0.9.2.dev0`, as the newest release before it, with a warning):
    /// which pools get groups and in what order, CPUs per bundle, verl's own check, what it
    /// holds first. Without it, the config's `verl_version`, else the newest release known.
    #[arg(long, value_name = "V", env = "RESOURCE_POOL_VERL_VERSION")]
    verl_version: Option<String>,
}

/// Lints a config, then checks it against a cluster.
pub fn run(args: &CheckArgs, context: &Context) -> Outcome {
    let plan_svg = super::plan_file::svg_target(args.plan.as_deref());
    let config_name = args.config.display().to_string();
    let config = Some(config_name.as_str());
    let load_config = || {
        let source = read(&args.config, context).map_err(|finding| vec![finding])?;
        load(&source, &args.set, &context.lint_options(args.roles))
    };
    let read_cluster = || {
        let mut notes = Vec::new();
        let input = read_cluster_noting(&args.cluster, context, &mut notes);
        (input, notes)
    };
    // A cluster file is read on a thread of its own while the config is read: for large
    // files the two reads are most of the wait, and a file read has nothing to undo when
    // the config turns out unreadable. Other sources (stdin, a live cluster, a command
    // run) are read only once the config is.
    let (loaded, cluster) = std::thread::scope(|scope| {
        let cluster = args
            .cluster
            .is_a_named_file()
            .then(|| scope.spawn(read_cluster));
        let loaded = load_config();
        let cluster = cluster.map(|thread| {
            thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        });
        (loaded, cluster)
    });
    let loaded = match loaded {
        Ok(loaded) => loaded,
        Err(findings) => return unreadable(findings, args.format, context, config),
    };
    let (input, notes) = cluster.unwrap_or_else(read_cluster);
    let Some(input) = input else {
        let mut findings: Vec<Finding> = loaded
            .diagnostics
            .iter()
            .cloned()
            .map(|d| Finding::in_file(d, &loaded.source))
            .collect();
        findings.extend(notes);
        return unreadable(findings, args.format, context, config);
    };
    let options = check_options(args, input.listed_by);
    let rules = match release_rules(args, &loaded) {
        Ok(rules) => rules,
        Err(finding) => return unreadable(vec![*finding], args.format, context, config),
    };
    let mut notes = notes;
    if let Some(read) = rules.1 {
        notes.insert(0, Finding::bare(read));
    }
    let ray_version = input.ray_version;
    let held = input.notes;
    let mut run = CheckRun::check_for_verl(
        &loaded,
        LayoutWording::default(),
        input.cluster,
        notes,
        &options,
        rules.0,
    );
    run.name_holders(&held, &loaded);
    let order = run
        .launch
        .as_ref()
        .map(|l| l.order.clone())
        .unwrap_or_default();
    let written = write_plan(
        plan_svg.as_deref(),
        run.report.as_ref(),
        run.suggestions.as_ref(),
        &run.cluster,
        &order,
        &mut run.findings,
    );
    emit(
        args.format,
        context,
        &run.findings,
        run.report.as_ref(),
        run.suggestions.as_ref(),
        &run.cluster,
        run.launch.as_ref(),
        ray_version.as_deref(),
        config,
    );
    let outcome = if run.passes() {
        written
    } else {
        written.max(Outcome::Failed)
    };
    drop_aside((run, loaded));
    outcome
}

/// The check's options from the command's.
fn check_options(args: &CheckArgs, listed_by: Option<SourceKind>) -> CheckOptions {
    CheckOptions {
        placement: PlacementOptions {
            max_steps: args.max_steps,
            budget: Duration::from_millis(args.budget_ms),
            ..PlacementOptions::default()
        },
        ray: RaySimOptions {
            max_branches: args.max_ray_branches,
            ..RaySimOptions::default()
        },
        listed_by: listed_by.map(SourceKind::wording).unwrap_or_default(),
        // Every cluster input comes from a reader, which refuses a repeated or empty id.
        node_ids_checked: true,
        ..CheckOptions::default()
    }
}

/// The verl release whose launch is followed: `--verl-version`, else the config's
/// `verl_version`, else the newest known; the error of one that cannot be read, on the
/// config's span when the config wrote it.
fn release_rules(
    args: &CheckArgs,
    loaded: &LoadedConfig,
) -> Result<(ReleaseRules, Option<ReleaseRead>), Box<Finding>> {
    let written = loaded.doc.verl_version.as_ref();
    let version = args
        .verl_version
        .as_deref()
        .or(written.map(|v| v.value.as_str()));
    rules_for(version).map_err(|unknown| {
        Box::new(match written.filter(|_| args.verl_version.is_none()) {
            Some(at) => Finding::in_file(unknown.at(to_source_span(&at.span)), &loaded.source),
            None => Finding::bare(unknown),
        })
    })
}

/// Writes the SVG plan when asked; `Unreadable` (exit 2) with a finding when it fails.
fn write_plan(
    path: Option<&std::path::Path>,
    report: Option<&CheckReport>,
    suggested: Option<&Suggestions>,
    cluster: &resource_pool::Cluster,
    order: &str,
    findings: &mut Vec<Finding>,
) -> Outcome {
    let Some(path) = path else {
        return Outcome::Ok;
    };
    match super::plan_file::write_svg(path, report, suggested, cluster, order) {
        Ok(()) => Outcome::Ok,
        Err(finding) => {
            findings.push(finding);
            Outcome::Unreadable
        }
    }
}

pub(super) fn unreadable(
    findings: Vec<Finding>,
    format: Format,
    context: &Context,
    main_file: Option<&str>,
) -> Outcome {
    match format {
        Format::Github | Format::Sarif => print_for_ci(format, &findings, main_file),
        Format::Json => print_result(|out| {
            check_result_of(&findings, None, &resource_pool::Cluster::default()).write_json(out)
        }),
        Format::Human => print_human(&findings, context),
    }
    Outcome::Unreadable
}

/// Prints a check's findings, report and suggested layouts in the format asked: JSON (the
/// suggestions in `suggestions`), CI annotations, or for people (the suggested layouts
/// drawn under the check's pictures).
#[allow(clippy::too_many_arguments)]
pub(super) fn emit(
    format: Format,
    context: &Context,
    findings: &[Finding],
    report: Option<&CheckReport>,
    suggested: Option<&Suggestions>,
    cluster: &resource_pool::Cluster,
    launch: Option<&LaunchSummary>,
    ray_version: Option<&str>,
    main_file: Option<&str>,
) {
    match format {
        Format::Json => {
            let mut result = check_result_of(findings, report, cluster);
            result.ray_version = ray_version;
            result.verl = launch.map(|l| &l.json);
            if let Some(found) = suggested {
                result.suggestions = suggestions(found);
            }
            print_result(|out| result.write_json(out));
        }
        Format::Github | Format::Sarif => print_for_ci(format, findings, main_file),
        Format::Human => {
            if context.quiet {
                print_human(findings, context);
                return;
            }
            let human = human_report_with(
                findings,
                report,
                suggested,
                cluster,
                launch,
                (context.stderr_colour(), context.stdout_colour()),
            );
            to_stderr(&human.diagnostics);
            to_stdout(&human.plan);
            to_stderr(&human.summary);
        }
    }
}
