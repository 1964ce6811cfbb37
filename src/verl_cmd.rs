//! `resource-pool verl [--config FILE.yaml] [--cluster FILE | --ray URL | ...] -- LAUNCH LINE...`:
//! the pools verl's PPO entry point builds from the line a verl user pastes (launchers,
//! entry point, Hydra flags, overrides) and its Hydra settings, checked. Without a cluster
//! source of ours, the dashboard a pasted `ray job submit` line sends the job to is the
//! cluster checked ([`VerlLoad::launch_cluster`], the `launch_cluster` module).

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use resource_pool::check::CheckOptions;
use resource_pool::inventory::SourceKind;
use resource_pool::placement::PlacementOptions;
use resource_pool::ray_sim::RaySimOptions;
use resource_pool::report::{Finding, VerlLoad, verl_config_path as config_path};
use resource_pool::verl::VerlOptions;
use resource_pool::verl::launch::parse_launch_os;
use resource_pool::verl::version::rules_for_launch;

use super::check_cmd::{emit, unreadable};
use super::cluster_input::{ClusterArgs, read_cluster_noting, with_ray_version};
use super::launch_cluster::launch_cluster_args;
use super::{Context, Format, Outcome, print_for_ci, print_result, read, to_stdout};

/// The probe `--python` runs in verl's Python: the Python package's own file.
const PROBE_SCRIPT: &str = include_str!("../python/resource_pool/_verl_probe.py");

/// Arguments of `verl`.
#[derive(Debug, clap::Args)]
pub struct VerlArgs {
    /// verl's Hydra config (`ppo_trainer.yaml` or yours); verl's defaults without it.
    #[arg(long, value_name = "FILE.yaml")]
    config: Option<PathBuf>,
    #[command(flatten)]
    cluster: ClusterArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human, env = "RESOURCE_POOL_FORMAT")]
    format: Format,
    /// The placement search's time budget, in milliseconds.
    #[arg(
        long,
        default_value_t = 1000,
        value_name = "MS",
        env = "RESOURCE_POOL_BUDGET_MS"
    )]
    budget_ms: u64,
    /// Build the pools as this verl release's entry point does and judge keys against it
    /// only (`0.9.1`; a version of no release known, such as `0.9.2.dev0`, as the newest
    /// release before it, with a warning); without it, keys as written and every release
    /// known.
    #[arg(long, value_name = "V", env = "RESOURCE_POOL_VERL_VERSION")]
    verl_version: Option<String>,
    /// The Python of verl's environment: Hydra composes the line with the config of the
    /// verl it has (a recipe's or fork's own too), verl's own start-up builds the pools,
    /// and they are checked as that release launches them. Runs in the current folder, as
    /// the line would; takes seconds (verl imports torch).
    #[arg(long, value_name = "PYTHON", conflicts_with = "verl_version")]
    python: Option<PathBuf>,
    /// verl's launch line as pasted (`python3 -m verl.trainer.main_ppo trainer.nnodes=2 ...`,
    /// also after `env VAR=..` or `ray job submit ... --`), or its overrides alone; after
    /// `--`, or after this command's own options (everything from the first word that is
    /// not one of them is the launch line). Without a cluster source of ours, the dashboard
    /// `ray job submit` sends the job to (`RAY_API_SERVER_ADDRESS=URL` or `RAY_ADDRESS=URL`
    /// before it or in the environment, else `--address URL`) is the cluster checked.
    /// Words that are not UTF-8 are read with `�` for their bad bytes where nothing read
    /// depends on them (a data path), else they are an error.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "LAUNCH",
        value_parser = clap::value_parser!(OsString)
    )]
    overrides: Vec<OsString>,
}

/// Builds verl's pools from its settings and checks them against the cluster.
pub fn run(args: &VerlArgs, context: &Context) -> Outcome {
    let (rules, approximated, older) = match rules_for_launch(args.verl_version.as_deref()) {
        Ok(rules) => rules,
        Err(unknown) => {
            return unreadable(vec![Finding::bare(unknown)], args.format, context, None);
        }
    };
    let launch = parse_launch_os(&args.overrides);
    let mut options = VerlOptions {
        // Keys are judged against the version given, or every release known.
        verl_version: (!rules.assumed).then(|| rules.release.version.to_owned()),
        older_release: older,
        ..VerlOptions::new(context.config_limits.max_slots)
    };
    let config_path = config_path(args.config.clone(), &launch, &mut options);
    let yaml_shown = config_path.as_ref().map(|p| p.display().to_string());
    let yaml_name = yaml_shown.as_deref();
    let yaml = match &config_path {
        Some(path) => match read(path, context) {
            Ok(source) => Some(source),
            Err(finding) => return unreadable(vec![finding], args.format, context, yaml_name),
        },
        None => None,
    };
    let mut settings = VerlLoad::new(yaml.as_ref(), &launch, &options);
    super::verl_options::options_after_launch_line(&mut settings);
    settings.note_release(approximated);
    let rules = match &args.python {
        Some(python) => match settings.probe_installed(python, PROBE_SCRIPT, &launch) {
            Ok(rules) => rules,
            Err(error) => {
                return unreadable(vec![Finding::bare(error)], args.format, context, None);
            }
        },
        None => rules,
    };
    let from_launch = launch_cluster_args(&args.cluster, &launch, &mut settings);
    let cluster_args = from_launch.as_ref().unwrap_or(&args.cluster);
    let Some(input) = read_cluster_noting(cluster_args, context, &mut settings.findings) else {
        return unreadable(settings.findings, args.format, context, yaml_name);
    };
    let options = CheckOptions {
        placement: PlacementOptions {
            budget: Duration::from_millis(args.budget_ms),
            ..PlacementOptions::default()
        },
        ray: RaySimOptions::default(),
        listed_by: input.listed_by.map(SourceKind::wording).unwrap_or_default(),
        // Every cluster input comes from a reader, which refuses a repeated or empty id.
        node_ids_checked: true,
        ..CheckOptions::default()
    };
    let ray_version = input.ray_version;
    let run = settings.check(input.cluster, &input.notes, &options, rules);
    match args.format {
        Format::Json => {
            let mut value = run.json();
            with_ray_version(&mut value, ray_version.as_deref());
            print_result(|out| resource_pool::report::json::write_value(out, &value));
        }
        Format::Github | Format::Sarif => print_for_ci(args.format, &run.run.findings, yaml_name),
        Format::Human => {
            if !context.quiet {
                to_stdout(&run.heading());
            }
            emit(
                Format::Human,
                context,
                &run.run.findings,
                run.run.report.as_ref(),
                run.run.suggestions.as_ref(),
                &run.run.cluster,
                run.run.launch.as_ref(),
                ray_version.as_deref(),
                yaml_name,
            );
        }
    }
    if run.passes() {
        Outcome::Ok
    } else {
        Outcome::Failed
    }
}
