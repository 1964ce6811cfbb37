//! `resource-pool verl [--config FILE.yaml] (--cluster FILE | --ray URL) -- OVERRIDES...`:
//! the pools verl's PPO entry point builds from its Hydra settings, checked.

use std::path::PathBuf;
use std::time::Duration;

use resource_pool::Cluster;
use resource_pool::check::check_against_slots;
use resource_pool::check::{CheckOptions, CheckReport, check};
use resource_pool::config::OVERRIDES_NAME;
use resource_pool::placement::PlacementOptions;
use resource_pool::ray_sim::RaySimOptions;
use resource_pool::source::SourceFile;
use resource_pool::verl::{LoadedVerl, load_verl, manager_from_layout};
use resource_pool::verl_settings::{cluster_findings, hydra::command_line, ray_findings};
use serde_json::json;

use super::check_cmd::{emit, unreadable};
use super::cluster_input::{ClusterArgs, read_cluster_noting};
use super::{Context, Format, Outcome, print_for_ci, print_json, read, to_stdout};
use resource_pool::report::Finding;
use resource_pool::report::json::check_result as json_result;

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
    /// verl's Hydra overrides, as on its command line (`trainer.nnodes=2 ...`).
    #[arg(last = true, value_name = "OVERRIDES")]
    overrides: Vec<String>,
}

/// Builds verl's pools from its settings and checks them against the cluster.
pub fn run(args: &VerlArgs, context: &Context) -> Outcome {
    let yaml_shown = args.config.as_ref().map(|p| p.display().to_string());
    let yaml_name = yaml_shown.as_deref();
    let yaml = match &args.config {
        Some(path) => match read(path, context) {
            Ok(source) => Some(source),
            Err(finding) => return unreadable(vec![finding], args.format, context, yaml_name),
        },
        None => None,
    };
    let mut settings = VerlLoad::new(
        yaml.as_ref(),
        &args.overrides,
        context.config_limits.max_slots,
    );
    let Some(input) = read_cluster_noting(&args.cluster, context, &mut settings.findings) else {
        return unreadable(settings.findings, args.format, context, yaml_name);
    };
    let options = CheckOptions {
        placement: PlacementOptions {
            budget: Duration::from_millis(args.budget_ms),
            ..PlacementOptions::default()
        },
        ray: RaySimOptions::default(),
    };
    let run = settings.check(input.cluster, input.dead, &options);
    match args.format {
        Format::Json => print_json(&run.json()),
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
                &run.cluster,
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

/// verl's settings loaded from its YAML and overrides, with their findings: the first half
/// of what `resource-pool verl` computes, before the cluster is read. Shared with the
/// Python module (`resource_pool.verl.check`), so that both compute the same.
pub struct VerlLoad {
    /// The settings, the layout verl builds and the problems.
    pub loaded: LoadedVerl,
    /// The YAML with the overrides as a layer after it: where the findings point.
    pub source: SourceFile,
    /// The settings' findings; the cluster's are added after them.
    pub findings: Vec<Finding>,
}

impl VerlLoad {
    /// Loads verl's settings: `yaml` (verl's defaults without it), then `overrides`.
    pub fn new(yaml: Option<&SourceFile>, overrides: &[String], max_slots: u64) -> VerlLoad {
        let loaded = load_verl(yaml.map(SourceFile::text), overrides, max_slots);
        // The overrides as a layer after the YAML: the span space of `load_verl`.
        let line = command_line(overrides);
        let source = yaml
            .map_or_else(|| SourceFile::new(OVERRIDES_NAME, ""), |y| y.clone())
            .with_layer(OVERRIDES_NAME, &line);
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

    /// Checks the layout verl builds on a cluster (`dead`: the dead nodes its source
    /// reported), adding the cluster's and the check's findings.
    pub fn check(self, cluster: Cluster, dead: usize, options: &CheckOptions) -> VerlRun {
        let VerlLoad {
            loaded,
            source,
            mut findings,
        } = self;
        let attach = |d| Finding::in_file(d, &source);
        let manager = loaded.layout.as_ref().map(manager_from_layout);
        let Some(Ok(manager)) = manager else {
            if let Some(Err(error)) = manager {
                findings.push(Finding::bare(LayoutError(error)));
            }
            return VerlRun {
                loaded,
                findings,
                report: None,
                cluster,
            };
        };
        let report = check(&manager, &cluster, &loaded.settings, options);
        findings.extend(
            cluster_findings(&loaded.settings, &cluster)
                .into_iter()
                .map(attach),
        );
        findings.extend(
            check_against_slots(&cluster, &report.slots, dead)
                .into_iter()
                .map(Finding::bare),
        );
        let (kept, verl) = ray_findings(&loaded.settings, &report, &cluster);
        findings.extend(kept.into_iter().map(|d| Finding::in_file(d, &source)));
        findings.extend(verl.into_iter().map(attach));
        VerlRun {
            loaded,
            findings,
            report: Some(report),
            cluster,
        }
    }
}

/// What `resource-pool verl` computes: verl's settings checked on a cluster.
pub struct VerlRun {
    /// The settings and the layout verl builds.
    pub loaded: LoadedVerl,
    /// Every finding, in the order people read them.
    pub findings: Vec<Finding>,
    /// The check's report; `None` when verl's layout cannot be built.
    pub report: Option<CheckReport>,
    /// The cluster checked against.
    pub cluster: Cluster,
}

impl VerlRun {
    /// Whether the check passes (exit status 0).
    pub fn passes(&self) -> bool {
        self.report.as_ref().is_some_and(CheckReport::passes)
            && !self.findings.iter().any(Finding::is_error)
    }

    /// The JSON result: `check`'s, with verl's `pools` and `mapping`.
    pub fn json(&self) -> serde_json::Value {
        let mut value = json_result(&self.findings, self.report.as_ref(), &self.cluster);
        let pools: Vec<_> = self
            .report
            .iter()
            .flat_map(|r| r.pools.iter())
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
        if let Some(object) = value.as_object_mut() {
            object.insert("pools".to_owned(), json!(pools));
            object.insert("mapping".to_owned(), json!(mapping));
        }
        value
    }

    /// `verl builds: global_pool = [8, 8]; actor_rollout → global_pool, ...` and a line
    /// break, printed before the report (empty when verl builds no layout).
    pub fn heading(&self) -> String {
        let Some(layout) = &self.loaded.layout else {
            return String::new();
        };
        let pools: Vec<String> = layout
            .pools
            .iter()
            .map(|p| format!("{} = {:?}", p.name, p.spec.process_on_nodes))
            .collect();
        let mapping: Vec<String> = layout
            .mapping
            .iter()
            .map(|(r, p)| format!("{r} → {p}"))
            .collect();
        format!(
            "verl builds: {}; {}\n",
            pools.join(", "),
            mapping.join(", ")
        )
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
