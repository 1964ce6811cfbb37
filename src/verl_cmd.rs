//! `resource-pool verl [--config FILE.yaml] [--cluster FILE | --ray URL | ...] -- LAUNCH LINE...`:
//! the pools verl's PPO entry point builds from the line a verl user pastes (launchers,
//! entry point, Hydra flags, overrides) and its Hydra settings, checked. Without a cluster
//! source of ours, the dashboard a pasted `ray job submit` line sends the job to is the
//! cluster checked ([`VerlLoad::launch_cluster`], the `launch_cluster` module).

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use resource_pool::check::suggest::{self, SuggestOptions, Suggestions};
use resource_pool::check::{CheckOptions, CheckReport, check_with_cluster_findings};
use resource_pool::config::OVERRIDES_NAME;
use resource_pool::inventory::{InventoryNote, SourceKind};
use resource_pool::placement::PlacementOptions;
use resource_pool::ray_sim::RaySimOptions;
use resource_pool::source::SourceFile;
use resource_pool::verl::findings::{
    cluster_findings, detected_device, ray_findings, unsaid_cluster_findings,
};
use resource_pool::verl::key_set::key_set;
use resource_pool::verl::launch::{AmbientAddresses, Launch, parse_launch_os};
use resource_pool::verl::manager_from_layout;
use resource_pool::verl::version::{is_approximate, release_for};
use resource_pool::verl::{
    CONFIG_DATA_NAME, LoadedVerl, VerlOptions, load_launch, user_config_file,
};
use resource_pool::{Accelerator, Cluster};
use serde_json::json;

use super::check_cmd::{emit, unreadable};
use super::cluster_input::{ClusterArgs, read_cluster_noting, with_ray_version};
use super::launch_cluster::{LaunchCluster, launch_address, launch_cluster_args};
use super::{Context, Format, Outcome, print_for_ci, print_result, read, to_stdout};
use resource_pool::report::json::{check_result as json_result, with_suggestions};
use resource_pool::report::{Finding, said_by_the_cluster};

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
    let release = match args.verl_version.as_deref().map(verl_release).transpose() {
        Ok(release) => release,
        Err(unknown) => {
            return unreadable(vec![Finding::bare(unknown)], args.format, context, None);
        }
    };
    let launch = parse_launch_os(&args.overrides);
    let mut options = VerlOptions {
        verl_version: release.as_ref().map(|r| r.release.to_owned()),
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
    settings.note_release(release);
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
    let run = settings.check(input.cluster, &input.notes, &options);
    match args.format {
        Format::Json => {
            let mut value = run.json();
            with_ray_version(&mut value, ray_version.as_deref());
            print_result(|out| resource_pool::report::json::write_value(out, &value));
        }
        Format::Github | Format::Sarif => print_for_ci(args.format, &run.findings, yaml_name),
        Format::Human => {
            if !context.quiet {
                to_stdout(&run.heading());
            }
            emit(
                Format::Human,
                context,
                &run.findings,
                run.report.as_ref(),
                run.suggestions.as_ref(),
                &run.cluster,
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

/// The YAML to read: `explicit` (`--config`) wins; else the user's own config that the
/// launch's `--config-path` names, when it can be read (Hydra resolves it from the entry
/// point's folder: run where verl runs), noting in `options` when it cannot.
pub fn config_path(
    explicit: Option<PathBuf>,
    launch: &Launch,
    options: &mut VerlOptions,
) -> Option<PathBuf> {
    explicit.or_else(|| {
        let file = user_config_file(launch)?;
        let path = PathBuf::from(&file);
        let readable = path.is_file();
        options.config_file_unread = !readable;
        readable.then_some(path)
    })
}

/// verl's settings loaded from its YAML and launch line, with their findings: the first
/// half of what `resource-pool verl` computes, before the cluster is read. Shared with the
/// Python module (`resource_pool.verl.check`), so that both compute the same.
pub struct VerlLoad {
    /// The settings, the layout verl builds and the problems.
    pub loaded: LoadedVerl,
    /// The YAML with the launch line as a layer after it: where the findings point.
    pub source: SourceFile,
    /// The settings' findings; the cluster's are added after them.
    pub findings: Vec<Finding>,
}

impl VerlLoad {
    /// Loads verl's settings: `yaml` (verl's defaults without it), then the launch line.
    pub fn new(yaml: Option<&SourceFile>, launch: &Launch, options: &VerlOptions) -> VerlLoad {
        // A config given as data (Python's dict) is named so: its values are not "the YAML".
        let options = &VerlOptions {
            config_is_data: options.config_is_data
                || yaml.is_some_and(|y| y.name() == CONFIG_DATA_NAME),
            ..options.clone()
        };
        let loaded = load_launch(launch, yaml.map(SourceFile::text), options);
        // The pasted line as a layer after the YAML: the span space of `load_launch`.
        let source = yaml
            .map_or_else(|| SourceFile::new(OVERRIDES_NAME, ""), |y| y.clone())
            .with_layer(OVERRIDES_NAME, &launch.line);
        debug_assert_eq!(
            source.layer_start(),
            Some(loaded.settings.space.command_line_base())
        );
        let findings = loaded
            .diagnostics
            .iter()
            .cloned()
            .map(|d| Finding::in_file(d, &source))
            .collect();
        VerlLoad {
            loaded,
            source,
            findings,
        }
    }

    /// Says first which release's keys a version that is not one of the key set's is
    /// judged by (`release`: what [`verl_release`] read of `--verl-version`).
    pub fn note_release(&mut self, release: Option<ReleaseRead>) {
        if let Some(read) = release.filter(|r| r.approximate) {
            self.findings.insert(0, Finding::bare(read));
        }
    }

    /// The cluster the launch line's `ray job submit` sends the job to, to read when no
    /// other source is given (`ambient`: the environment's variables), adding the note that
    /// says so, or why the line's address is not read.
    pub fn launch_cluster(&mut self, launch: &Launch, ambient: &AmbientAddresses) -> LaunchCluster {
        let base = self.loaded.settings.space.command_line_base();
        let mut found = launch_address(launch, ambient, base);
        let source = &self.source;
        self.findings
            .extend(found.note.take().map(|n| Finding::in_file(n, source)));
        found
    }

    /// Checks the layout verl builds on a cluster (dead nodes in it, not alive), adding the
    /// cluster's and the check's findings, and, when it does not place, the layouts that do in
    /// verl's overrides (`notes`, the cluster source's, name who holds the resources of a busy
    /// cluster).
    pub fn check(
        self,
        cluster: Cluster,
        notes: &[InventoryNote],
        options: &CheckOptions,
    ) -> VerlRun {
        let VerlLoad {
            mut loaded,
            source,
            mut findings,
        } = self;
        let attach = |d| Finding::in_file(d, &source);
        // verl 0.7+ asks for NPUs on an Ascend cluster whatever `trainer.device` says.
        let detected = detected_device(&loaded.settings, &loaded.launch.releases, &cluster);
        let mut accelerator = loaded.settings.accelerator().unwrap_or(Accelerator::Gpu);
        if let Some(layout) = loaded.layout.as_mut().filter(|_| detected.is_some()) {
            accelerator = Accelerator::Npu;
            for pool in &mut layout.pools {
                pool.spec.accelerator = Accelerator::Npu;
            }
        }
        findings.extend(detected.map(attach));
        let manager = loaded.layout.as_ref().map(manager_from_layout);
        let Some(Ok(manager)) = manager else {
            if let Some(Err(error)) = manager {
                findings.push(Finding::bare(LayoutError(error)));
            }
            return VerlRun {
                loaded,
                findings,
                report: None,
                suggestions: None,
                cluster,
            };
        };
        // The cluster's findings worded in verl's settings (the settings' origin).
        let (report, found) =
            check_with_cluster_findings(&manager, &cluster, &loaded.settings, options);
        let verl_said = cluster_findings(&loaded.settings, accelerator, &cluster);
        let found = unsaid_cluster_findings(found, &verl_said);
        findings.extend(verl_said.into_iter().map(attach));
        findings.extend(said_by_the_cluster(found, &report));
        let (kept, verl) = ray_findings(&loaded.settings, &report, &cluster);
        findings.extend(kept.into_iter().map(|d| Finding::in_file(d, &source)));
        findings.extend(verl.into_iter().map(attach));
        let suggestions = suggest::wanted(&report, &loaded.settings).then(|| {
            let mut found = suggest::suggest(
                &report,
                &cluster,
                &loaded.settings,
                &SuggestOptions::within(options),
            );
            found.name_holders(InventoryNote::held_by_groups(notes));
            findings.extend(
                found
                    .diagnostics(&loaded.settings)
                    .into_iter()
                    .map(|d| Finding::in_file(d, &source)),
            );
            found
        });
        VerlRun {
            loaded,
            findings,
            report: Some(report),
            suggestions,
            cluster,
        }
    }
}

/// What `resource-pool verl` computes: verl's settings checked on a cluster.
pub struct VerlRun {
    /// The settings, the layout verl builds and what was read of the launch.
    pub loaded: LoadedVerl,
    /// Every finding, in the order people read them.
    pub findings: Vec<Finding>,
    /// The check's report; `None` when verl would stop before building its layout.
    pub report: Option<CheckReport>,
    /// The layouts of verl's shape that do place, when this one does not.
    pub suggestions: Option<Suggestions>,
    /// The cluster checked against.
    pub cluster: Cluster,
}

impl VerlRun {
    /// Whether the check passes (exit status 0).
    pub fn passes(&self) -> bool {
        self.report.as_ref().is_some_and(CheckReport::passes)
            && !self.findings.iter().any(Finding::is_error)
    }

    /// The JSON result: `check`'s, with verl's `pools` and `mapping` (always there, `null`
    /// when verl would stop before building them, as Python's `as_dict()` has them), and
    /// the `launch` read (worth reporting even when verl would stop).
    pub fn json(&self) -> serde_json::Value {
        let mut value = with_suggestions(
            json_result(&self.findings, self.report.as_ref(), &self.cluster),
            self.suggestions.as_ref(),
        );
        let Some(object) = value.as_object_mut() else {
            return value;
        };
        let (pools, mapping) = match &self.report {
            Some(report) => {
                let pools: Vec<_> = report
                    .pools
                    .iter()
                    .map(|p| {
                        json!({
                            "name": p.name,
                            "process_on_nodes": p.spec.process_on_nodes,
                            "accelerator": p.spec.accelerator.to_string(),
                            "max_colocate_count": p.spec.max_colocate_count,
                        })
                    })
                    .collect();
                let mapping: serde_json::Map<String, serde_json::Value> = self
                    .loaded
                    .layout
                    .iter()
                    .flat_map(|l| l.mapping.iter())
                    .map(|(role, pool)| ((*role).to_owned(), json!(pool)))
                    .collect();
                (json!(pools), json!(mapping))
            }
            None => (serde_json::Value::Null, serde_json::Value::Null),
        };
        object.insert("pools".to_owned(), pools);
        object.insert("mapping".to_owned(), mapping);
        object.insert("launch".to_owned(), json!(self.loaded.launch));
        value
    }

    /// `verl builds: global_pool = [8, 8]; actor_rollout → global_pool, ...` and a line
    /// break, printed before the report; empty when verl would stop before its layout.
    pub fn heading(&self) -> String {
        let (Some(_), Some(layout)) = (&self.report, &self.loaded.layout) else {
            return String::new();
        };
        // Long lists shortened (`100000 node-slots of 8`), as suggestions show them.
        let pools = suggest::LayoutText::of(&layout.pools);
        let mapping: Vec<String> = layout
            .mapping
            .iter()
            .map(|(r, p)| format!("{r} → {p}"))
            .collect();
        format!("verl builds: {pools}; {}\n", mapping.join(", "))
    }
}

/// verl's layout that the model refuses (a count past Ray's fixed point).
#[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[error("verl's layout cannot be built: {0}")]
#[diagnostic(
    code(resource_pool::verl::layout),
    help("lower trainer.n_gpus_per_node / reward_model.n_gpus_per_node to what a node has")
)]
struct LayoutError(resource_pool::ManagerError);

/// The release of the key set a `--verl-version` (or Python's `verl_version=`) is judged
/// as (itself, or the newest release not newer than it: `0.9.2.dev0` as 0.9.1), or the
/// error for one that is no PEP 440 version or older than every release.
pub fn verl_release(version: &str) -> Result<ReleaseRead, UnknownVersion> {
    let known = || key_set().version_names().collect::<Vec<_>>().join(", ");
    // An empty value (`--verl-version ''`, `verl_version=""`) names no version at all.
    if version.trim().is_empty() {
        return Err(UnknownVersion::Empty {
            version: version.to_owned(),
            known: known(),
        });
    }
    match release_for(version) {
        Some(release) => Ok(ReleaseRead {
            version: version.to_owned(),
            release,
            approximate: is_approximate(version, release),
        }),
        None => Err(UnknownVersion::NotKnown {
            version: version.to_owned(),
            known: known(),
        }),
    }
}

/// `--verl-version` names no release the key set holds.
#[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[serde(untagged)]
pub enum UnknownVersion {
    /// A release the key set does not hold.
    #[error("verl {version} is not in resource-pool's key set; it knows verl {known}")]
    #[diagnostic(
        code(resource_pool::verl::unknown_version),
        help(
            "pass a PEP 440 version from the oldest release listed on (a newer one, or a build from source such as 0.9.2.dev0, is judged as the newest release before it), or leave --verl-version out to judge keys against all"
        )
    )]
    NotKnown {
        /// The version as given.
        version: String,
        /// The releases known.
        known: String,
    },
    /// An empty or blank value.
    #[error("the verl version is empty; resource-pool knows verl {known}")]
    #[diagnostic(
        code(resource_pool::verl::empty_version),
        help(
            "pass the version of the verl you launch, such as 0.9.1, or leave --verl-version out to judge keys against every release known"
        )
    )]
    Empty {
        /// The value as given (empty, or blanks only).
        version: String,
        /// The releases known.
        known: String,
    },
}

/// A `--verl-version` read as a release of the key set; a warning when it is not that
/// release itself.
#[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[error(
    "verl {version} is not in resource-pool's key set: its pools and keys are judged as verl {release}'s"
)]
#[diagnostic(
    code(resource_pool::verl::version_approximated),
    severity(Warning),
    help(
        "verl {release} is the newest release resource-pool knows that is not newer than {version}: a key or pool rule verl added after it is not known (such a key is reported as unknown)"
    )
)]
pub struct ReleaseRead {
    /// The version as given.
    pub version: String,
    /// The release of the key set it is judged as.
    pub release: &'static str,
    /// Whether that release is not the version itself.
    #[serde(skip)]
    pub approximate: bool,
}
