//! `resource-pool verl [--config FILE.yaml] (--cluster FILE | --ray URL) -- OVERRIDES...`:
//! the pools verl's PPO entry point builds from its Hydra settings, checked.

use std::path::PathBuf;
use std::time::Duration;

use resource_pool::check::check_against_slots;
use resource_pool::check::{CheckOptions, check};
use resource_pool::config::OVERRIDES_NAME;
use resource_pool::placement::PlacementOptions;
use resource_pool::ray_sim::RaySimOptions;
use resource_pool::source::SourceFile;
use resource_pool::verl::{load_verl, manager_from_layout};
use resource_pool::verl_settings::{cluster_findings, hydra::command_line, ray_findings};
use serde_json::json;

use super::check_cmd::{emit, emit_with, suggestions, unreadable};
use super::cluster_input::{ClusterArgs, read_cluster_noting};
use super::{Context, Format, Outcome, print_for_ci, print_json, read, to_stdout};
use resource_pool::report::Finding;
use resource_pool::report::json::{check_result as json_result, with_suggestions};

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
    let loaded = load_verl(
        yaml.as_ref().map(SourceFile::text),
        &args.overrides,
        context.config_limits.max_slots,
    );
    // The overrides as a layer after the YAML: the span space of `load_verl`.
    let line = command_line(&args.overrides);
    let source = yaml
        .as_ref()
        .map_or_else(|| SourceFile::new(OVERRIDES_NAME, ""), |y| y.clone())
        .with_layer(OVERRIDES_NAME, &line);
    debug_assert_eq!(
        source.layer_start(),
        Some(loaded.settings.space.command_line_base())
    );
    let attach = |d| Finding::in_file(d, &source);
    let mut findings: Vec<Finding> = loaded.diagnostics.iter().cloned().map(attach).collect();
    let Some(input) = read_cluster_noting(&args.cluster, context, &mut findings) else {
        return unreadable(findings, args.format, context, yaml_name);
    };
    let manager = loaded.layout.as_ref().map(manager_from_layout);
    let Some(Ok(manager)) = manager else {
        if let Some(Err(error)) = manager {
            findings.push(Finding::bare(LayoutError(error)));
        }
        emit(
            args.format,
            context,
            &findings,
            None,
            &input.cluster,
            yaml_name,
        );
        return Outcome::Failed;
    };
    let options = CheckOptions {
        placement: PlacementOptions {
            budget: Duration::from_millis(args.budget_ms),
            ..PlacementOptions::default()
        },
        ray: RaySimOptions::default(),
    };
    let report = check(&manager, &input.cluster, &loaded.settings, &options);
    findings.extend(
        cluster_findings(&loaded.settings, &input.cluster)
            .into_iter()
            .map(attach),
    );
    findings.extend(
        check_against_slots(&input.cluster, &report.slots, input.dead)
            .into_iter()
            .map(Finding::bare),
    );
    let (kept, verl) = ray_findings(&loaded.settings, &report, &input.cluster);
    findings.extend(kept.into_iter().map(|d| Finding::in_file(d, &source)));
    findings.extend(verl.into_iter().map(attach));
    let suggested = suggestions(
        &report,
        &input,
        &loaded.settings,
        &options,
        &source,
        &mut findings,
    );
    let passes = report.passes() && !findings.iter().any(Finding::is_error);
    match args.format {
        Format::Json => {
            let mut value = with_suggestions(
                json_result(&findings, Some(&report), &input.cluster),
                suggested.as_ref(),
            );
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
            let mapping: serde_json::Map<String, serde_json::Value> = loaded
                .layout
                .iter()
                .flat_map(|l| l.mapping.iter())
                .map(|(role, pool)| ((*role).to_owned(), json!(pool)))
                .collect();
            if let Some(object) = value.as_object_mut() {
                object.insert("pools".to_owned(), json!(pools));
                object.insert("mapping".to_owned(), json!(mapping));
            }
            print_json(&value);
        }
        Format::Github | Format::Sarif => print_for_ci(args.format, &findings, yaml_name),
        Format::Human => {
            if !context.quiet
                && let Some(layout) = &loaded.layout
            {
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
                to_stdout(&format!(
                    "verl builds: {}; {}\n",
                    pools.join(", "),
                    mapping.join(", ")
                ));
            }
            emit_with(
                Format::Human,
                context,
                &findings,
                Some(&report),
                suggested.as_ref(),
                &input.cluster,
                yaml_name,
            );
        }
    }
    if passes { Outcome::Ok } else { Outcome::Failed }
}

/// verl's layout that the model refuses (a count past Ray's fixed point).
#[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[error("verl's layout cannot be built: {0}")]
#[diagnostic(
    code(resource_pool::verl::layout),
    help("lower trainer.n_gpus_per_node / reward_model.n_gpus_per_node to what a node has")
)]
struct LayoutError(resource_pool::ManagerError);
