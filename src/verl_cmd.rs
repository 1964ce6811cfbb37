//! `resource-pool verl [--config FILE.yaml] (--cluster FILE | --ray URL) -- LAUNCH LINE...`:
//! the pools verl's PPO entry point builds from the line a verl user pastes (launchers,
//! entry point, Hydra flags, overrides) and its Hydra settings, checked.

use std::path::PathBuf;
use std::time::Duration;

use resource_pool::check::check_against_slots;
use resource_pool::check::verl_findings::{cluster_findings, ray_findings};
use resource_pool::check::{CheckOptions, check};
use resource_pool::config::OVERRIDES_NAME;
use resource_pool::placement::PlacementOptions;
use resource_pool::ray_sim::RaySimOptions;
use resource_pool::source::SourceFile;
use resource_pool::verl::manager_from_layout;
use resource_pool::verl_settings::key_set::key_set;
use resource_pool::verl_settings::launch::parse_launch;
use resource_pool::verl_settings::{VerlOptions, load_launch, user_config_file};
use serde_json::json;

use super::check_cmd::{emit, emit_with, suggestions, unreadable};
use super::cluster_input::{ClusterArgs, read_cluster_noting, with_ray_version};
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
    /// Judge keys against this verl release only (`0.9.1`); every release known otherwise.
    #[arg(long, value_name = "V", env = "RESOURCE_POOL_VERL_VERSION")]
    verl_version: Option<String>,
    /// verl's launch line as pasted (`python3 -m verl.trainer.main_ppo trainer.nnodes=2 ...`,
    /// also after `env VAR=..` or `ray job submit ... --`), or its overrides alone.
    #[arg(last = true, value_name = "LAUNCH")]
    overrides: Vec<String>,
}

/// Builds verl's pools from its settings and checks them against the cluster.
pub fn run(args: &VerlArgs, context: &Context) -> Outcome {
    if let Some(version) = &args.verl_version
        && !key_set().version_names().any(|v| v == version)
    {
        let finding = Finding::bare(UnknownVersion {
            version: version.clone(),
            known: key_set().version_names().collect::<Vec<_>>().join(", "),
        });
        return unreadable(vec![finding], args.format, context, None);
    }
    let launch = parse_launch(&args.overrides);
    let mut options = VerlOptions {
        verl_version: args.verl_version.clone(),
        ..VerlOptions::new(context.config_limits.max_slots)
    };
    // `--config` wins; else the user's own config that `--config-path` names, when it can
    // be read (Hydra resolves it from the entry point's folder: run where verl runs).
    let config_path = args.config.clone().or_else(|| {
        let file = user_config_file(&launch)?;
        let path = PathBuf::from(&file);
        let readable = path.is_file();
        options.config_file_unread = !readable;
        readable.then_some(path)
    });
    let yaml_shown = config_path.as_ref().map(|p| p.display().to_string());
    let yaml_name = yaml_shown.as_deref();
    let yaml = match &config_path {
        Some(path) => match read(path, context) {
            Ok(source) => Some(source),
            Err(finding) => return unreadable(vec![finding], args.format, context, yaml_name),
        },
        None => None,
    };
    let loaded = load_launch(&launch, yaml.as_ref().map(SourceFile::text), &options);
    // The pasted line as a layer after the YAML: the span space of `load_launch`.
    let line = &launch.line;
    let source = yaml
        .as_ref()
        .map_or_else(|| SourceFile::new(OVERRIDES_NAME, ""), |y| y.clone())
        .with_layer(OVERRIDES_NAME, line);
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
        if args.format == Format::Json {
            // The launch read is worth reporting even when verl would stop.
            let mut value = json_result(&findings, None, &input.cluster);
            with_ray_version(&mut value, input.ray_version.as_deref());
            if let Some(object) = value.as_object_mut() {
                object.insert("launch".to_owned(), json!(loaded.launch));
            }
            print_json(&value);
        } else {
            emit(
                args.format,
                context,
                &findings,
                None,
                &input.cluster,
                input.ray_version.as_deref(),
                yaml_name,
            );
        }
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
            with_ray_version(&mut value, input.ray_version.as_deref());
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
                object.insert("launch".to_owned(), json!(loaded.launch));
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
                input.ray_version.as_deref(),
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

/// `--verl-version` names a release the key set does not hold.
#[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[error("verl {version} is not in resource-pool's key set; it knows verl {known}")]
#[diagnostic(
    code(resource_pool::verl::unknown_version),
    help("pass one of the releases listed, or leave --verl-version out to judge keys against all")
)]
struct UnknownVersion {
    version: String,
    known: String,
}
