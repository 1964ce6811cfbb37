//! `resource-pool verl [--config FILE.yaml] [--cluster FILE | --ray URL | ...] -- LAUNCH LINE...`:
//! the pools verl's PPO entry point builds from the line a verl user pastes (launchers,
//! entry point, Hydra flags, overrides) and its Hydra settings, checked. Without a cluster
//! source of ours, the dashboard a pasted `ray job submit` line sends the job to is the
//! cluster checked ([`VerlLoad::launch_cluster`]).

use std::path::PathBuf;
use std::time::Duration;

use resource_pool::check::suggest::{self, SuggestOptions, Suggestions};
use resource_pool::check::verl_findings::{cluster_findings, detected_device, ray_findings};
use resource_pool::check::{CheckOptions, CheckReport, check};
use resource_pool::config::OVERRIDES_NAME;
use resource_pool::inventory::InventoryNote;
use resource_pool::placement::PlacementOptions;
use resource_pool::ray_sim::RaySimOptions;
use resource_pool::source::SourceFile;
use resource_pool::verl::manager_from_layout;
use resource_pool::verl_settings::key_set::key_set;
use resource_pool::verl_settings::launch::{
    AddressVia, AmbientAddresses, Launch, RAY_ADDRESS, RAY_API_SERVER_ADDRESS, SubmitTarget,
    is_dashboard_url, parse_launch,
};
use resource_pool::verl_settings::{LoadedVerl, VerlOptions, load_launch, user_config_file};
use resource_pool::{Accelerator, Cluster};
use serde_json::json;

use super::check_cmd::{emit, unreadable};
use super::cluster_input::{ClusterArgs, read_cluster_noting, with_ray_version};
use super::{Context, Format, Outcome, print_for_ci, print_result, read, to_stdout};
use resource_pool::report::json::{check_result as json_result, with_suggestions};
use resource_pool::report::{Finding, slot_findings};

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
    /// only (`0.9.1`); without it, keys as written and every release known.
    #[arg(long, value_name = "V", env = "RESOURCE_POOL_VERL_VERSION")]
    verl_version: Option<String>,
    /// verl's launch line as pasted (`python3 -m verl.trainer.main_ppo trainer.nnodes=2 ...`,
    /// also after `env VAR=..` or `ray job submit ... --`), or its overrides alone; after
    /// `--`, or after this command's own options (everything from the first word that is
    /// not one of them is the launch line). Without a cluster source of ours, the dashboard
    /// `ray job submit` sends the job to (`RAY_API_SERVER_ADDRESS=URL` or `RAY_ADDRESS=URL`
    /// before it or in the environment, else `--address URL`) is the cluster checked.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "LAUNCH"
    )]
    overrides: Vec<String>,
}

/// Builds verl's pools from its settings and checks them against the cluster.
pub fn run(args: &VerlArgs, context: &Context) -> Outcome {
    if let Some(unknown) = args.verl_version.as_deref().and_then(unknown_version) {
        return unreadable(vec![Finding::bare(unknown)], args.format, context, None);
    }
    let launch = parse_launch(&args.overrides);
    let mut options = VerlOptions {
        verl_version: args.verl_version.clone(),
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
        listed_by: input.listed_by,
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

/// The cluster options with `--ray` set to the dashboard the launch line's `ray job submit`
/// sends the job to, when no source of ours names a cluster (a flag, `RESOURCE_POOL_CLUSTER`).
/// The line comes before the environment's `RAY_ADDRESS` where Ray puts it first: a
/// `RAY_API_SERVER_ADDRESS=` or `RAY_ADDRESS=` set on the line; its `--address` only when the
/// environment has neither, as they override it for `ray job submit` ([`SubmitTarget`]).
/// The environment's `RAY_API_SERVER_ADDRESS` is read when it is the job's (`read_cluster`
/// knows `RAY_ADDRESS` only), and the environment's `RAY_ADDRESS` only when it is the job's.
/// `None` to read the cluster as `args` say.
fn launch_cluster_args(
    args: &ClusterArgs,
    launch: &Launch,
    settings: &mut VerlLoad,
) -> Option<ClusterArgs> {
    if args.names_a_source() {
        return None;
    }
    let found = settings.launch_cluster(launch, &ambient_addresses());
    if found.dashboard.is_none() && found.reads_ray_address {
        return None;
    }
    Some(ClusterArgs {
        ray: found.dashboard,
        ray_address_unused: !found.reads_ray_address,
        ..args.clone()
    })
}

/// `RAY_ADDRESS` and `RAY_API_SERVER_ADDRESS` of this process's environment: the ones a
/// launch line run here would see.
fn ambient_addresses() -> AmbientAddresses {
    let var = |name| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned());
    AmbientAddresses {
        ray_address: var(RAY_ADDRESS),
        api_server_address: var(RAY_API_SERVER_ADDRESS),
    }
}

/// What the launch line's `ray job submit` says of the cluster to check, when no source of
/// ours names one.
pub struct LaunchCluster {
    /// The dashboard the job goes to, when it is named by its http(s) URL: the cluster read.
    pub dashboard: Option<String>,
    /// Whether the environment's `RAY_ADDRESS` may be read as the cluster (`--ray`'s
    /// default): only when the job goes there too, or the line says nothing.
    pub reads_ray_address: bool,
    /// What is said of it: where the cluster came from, or why the line's address is not
    /// read.
    note: Option<LaunchAddress>,
}

impl LaunchCluster {
    /// The note as text (for the Python layer's no-cluster error).
    pub fn note_text(&self) -> Option<String> {
        self.note.as_ref().map(ToString::to_string)
    }
}

/// The cluster the launch line's `ray job submit` sends the job to (a `LaunchCluster`;
/// `ambient`: the environment's variables, which Ray lets override `--address`), for front
/// ends that pick their cluster before loading verl's settings.
pub fn launch_cluster(launch: &Launch, ambient: &AmbientAddresses) -> LaunchCluster {
    launch_address(launch, ambient, 0)
}

/// [`launch_cluster`], with the note's spans starting at `base` (where the line starts in
/// the source).
fn launch_address(launch: &Launch, ambient: &AmbientAddresses, base: usize) -> LaunchCluster {
    let span = |s: &std::ops::Range<usize>| miette::SourceSpan::from(base + s.start..base + s.end);
    let found = |dashboard: Option<&str>, reads_ray_address, note| LaunchCluster {
        dashboard: dashboard.map(str::to_owned),
        reads_ray_address,
        note: Some(note),
    };
    // A named address: read when it is a dashboard's URL, said otherwise.
    let named = |address: &str, via, from, span| {
        if is_dashboard_url(address) {
            let note = LaunchAddress::Used {
                url: address.to_owned(),
                via,
                from,
                span,
            };
            found(Some(address), false, note)
        } else {
            let note = LaunchAddress::NotDashboard {
                address: address.to_owned(),
                via,
                from,
                span,
            };
            found(None, false, note)
        }
    };
    match launch.submit_target(ambient) {
        SubmitTarget::Unnamed => LaunchCluster {
            dashboard: None,
            reads_ray_address: true,
            note: None,
        },
        SubmitTarget::Cleared => found(None, false, LaunchAddress::Cleared),
        SubmitTarget::Named { address, via, .. } => {
            named(&address.value, via, Whose::Line, Some(span(&address.span)))
        }
        SubmitTarget::Environment { address, via, .. } => {
            named(address, via, Whose::Environment, None)
        }
        SubmitTarget::Overridden {
            address,
            via,
            by,
            used,
            dashboard,
            also,
        } => {
            let unset = also.map_or(by.to_string(), |also| format!("{by} and {also}"));
            let to = if is_dashboard_url(&address.value) {
                format!("to send the job (and this check) to {}", address.value)
            } else {
                format!(
                    "to send the job to {}, and pass its dashboard's URL with --ray http://HEAD:8265 (ray= in Python) to check that cluster",
                    address.value
                )
            };
            let note = LaunchAddress::Overridden {
                address: address.value.clone(),
                via,
                by,
                help: format!(
                    "unset {unset} where the line runs {to}; or pass --ray URL to check another cluster"
                ),
                span: span(&address.span),
            };
            // RAY_ADDRESS overriding: read as `--ray`'s default, as it always is. A
            // RAY_API_SERVER_ADDRESS: read here, and RAY_ADDRESS is not the job's.
            match by {
                AddressVia::Env => found(None, true, note),
                _ => found(dashboard.then_some(used), false, note),
            }
        }
    }
}

/// Whose variable or flag names the cluster.
#[derive(Clone, Copy, Debug, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Whose {
    /// The launch line's.
    Line,
    /// The environment's, where the line would run.
    Environment,
}

impl std::fmt::Display for Whose {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Whose::Line => "the launch line's",
            Whose::Environment => "this environment's",
        })
    }
}

/// What the launch line's `ray job submit` says of its cluster, when no source of ours
/// names one.
#[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[serde(untagged)]
pub enum LaunchAddress {
    /// The cluster checked is the dashboard the line sends the job to.
    #[error("the cluster checked is {url}, the dashboard {from} {via} names")]
    #[diagnostic(
        severity(Advice),
        code(resource_pool::verl::launch_cluster),
        help(
            "to check another cluster, pass --cluster FILE or --ray URL (cluster= or ray= in Python)"
        )
    )]
    Used {
        /// The dashboard's URL.
        url: String,
        /// `--address`, `RAY_ADDRESS` or `RAY_API_SERVER_ADDRESS`.
        via: AddressVia,
        /// `line` or `environment`.
        from: Whose,
        /// Where, when on the line.
        #[label("the job's cluster")]
        #[serde(skip)]
        span: Option<miette::SourceSpan>,
    },
    /// The job's address is a Ray Client (`ray://`) or GCS (`host:port`, `auto`) address,
    /// which Ray resolves through the cluster itself.
    #[error(
        "{from} {via} `{address}` is not a dashboard URL: a live cluster is read from its dashboard's http(s) URL"
    )]
    #[diagnostic(
        severity(Advice),
        code(resource_pool::verl::launch_address_not_dashboard),
        help(
            "pass the dashboard's URL with --ray http://HEAD:8265 (ray= in Python); Ray's dashboard listens on port 8265 of the head node unless started with --dashboard-port"
        )
    )]
    NotDashboard {
        /// The address as written.
        address: String,
        /// `--address`, `RAY_ADDRESS` or `RAY_API_SERVER_ADDRESS`.
        via: AddressVia,
        /// `line` or `environment`.
        from: Whose,
        /// Where, when on the line.
        #[label("not a dashboard URL")]
        #[serde(skip)]
        span: Option<miette::SourceSpan>,
    },
    /// A variable of the environment overrides the line's address, as it does for
    /// `ray job submit`.
    #[error(
        "the launch line's {via} `{address}` is not used: {by} of this environment overrides it, as it does for `ray job submit`"
    )]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::launch_address_overridden)
    )]
    Overridden {
        /// The line's address not used.
        address: String,
        /// `--address`, or `RAY_ADDRESS` (overridden by `RAY_API_SERVER_ADDRESS`).
        via: AddressVia,
        /// The variable that overrides it.
        by: AddressVia,
        /// What to do: depends on whether the address is a dashboard's URL.
        #[help]
        #[serde(skip)]
        help: String,
        /// Where.
        #[label("overridden by {by}")]
        #[serde(skip)]
        span: miette::SourceSpan,
    },
    /// The line removes `RAY_ADDRESS` and names no address: the environment's is not the
    /// job's cluster.
    #[error(
        "the launch line removes (or empties) RAY_ADDRESS and names no address: the job goes to the cluster Ray finds where the line runs, so this environment's RAY_ADDRESS is not read"
    )]
    #[diagnostic(
        severity(Advice),
        code(resource_pool::verl::launch_address_cleared),
        help(
            "pass the job's cluster with --ray http://HEAD:8265 or --cluster FILE (ray= or cluster= in Python)"
        )
    )]
    Cleared,
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
        let report = check(&manager, &cluster, &loaded.settings, options);
        findings.extend(
            cluster_findings(&loaded.settings, accelerator, &cluster)
                .into_iter()
                .map(attach),
        );
        findings.extend(slot_findings(&cluster, &report));
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
            found.name_holders(notes);
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

    /// The JSON result: `check`'s, with verl's `pools` and `mapping` when it builds them,
    /// and the `launch` read (worth reporting even when verl would stop).
    pub fn json(&self) -> serde_json::Value {
        let mut value = with_suggestions(
            json_result(&self.findings, self.report.as_ref(), &self.cluster),
            self.suggestions.as_ref(),
        );
        let Some(object) = value.as_object_mut() else {
            return value;
        };
        if let Some(report) = &self.report {
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
            object.insert("pools".to_owned(), json!(pools));
            object.insert("mapping".to_owned(), json!(mapping));
        }
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

/// The error for a `--verl-version` (or Python's `verl_version=`) that names a release the
/// key set does not hold; `None` for one it holds.
pub fn unknown_version(version: &str) -> Option<UnknownVersion> {
    (!key_set().version_names().any(|v| v == version)).then(|| UnknownVersion {
        version: version.to_owned(),
        known: key_set().version_names().collect::<Vec<_>>().join(", "),
    })
}

/// `--verl-version` names a release the key set does not hold.
#[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[error("verl {version} is not in resource-pool's key set; it knows verl {known}")]
#[diagnostic(
    code(resource_pool::verl::unknown_version),
    help("pass one of the releases listed, or leave --verl-version out to judge keys against all")
)]
pub struct UnknownVersion {
    version: String,
    known: String,
}
