//! `resource-pool check CONFIG (--cluster CLUSTER.toml | --ray URL)`

use std::path::PathBuf;
use std::time::Duration;

use resource_pool::check::{CheckOptions, CheckReport, check};
use resource_pool::config::load_config;
use resource_pool::inventory::check_against_slots;
use resource_pool::placement::PlacementOptions;
use serde_json::{Value, json};

use super::cluster_input::{ClusterArgs, read_cluster};
use super::plan::render_plan;
use super::report::{Finding, summary};
use super::{Context, Format, Outcome, Roles, print_human, print_json, read};

/// Arguments of `check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The config file.
    #[arg(value_name = "CONFIG")]
    config: PathBuf,
    #[command(flatten)]
    cluster: ClusterArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// The role names `[mapping]` may use.
    #[arg(long, value_enum, default_value_t = Roles::Verl)]
    roles: Roles,
    /// The placement search's time budget, in milliseconds.
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    budget_ms: u64,
    /// The placement search's step budget (deterministic).
    #[arg(long, default_value_t = PlacementOptions::default().max_steps, value_name = "N")]
    max_steps: u64,
}

/// Lints a config, then checks it against a cluster.
pub fn run(args: &CheckArgs, context: &Context) -> Outcome {
    let source = match read(&args.config, context) {
        Ok(source) => source,
        Err(finding) => return unreadable(vec![finding], args.format, context),
    };
    let loaded = load_config(&source, &context.lint_options(args.roles));
    let mut findings: Vec<Finding> = loaded.diagnostics.iter().cloned().map(|d| Finding::in_file(d, &source)).collect();
    let input = match read_cluster(&args.cluster, context) {
        Ok(input) => input,
        Err(mut errors) => {
            findings.append(&mut errors);
            return unreadable(findings, args.format, context);
        }
    };
    findings.extend(input.findings);
    findings.extend(input.notes.into_iter().map(Finding::bare));
    let Some(manager) = &loaded.manager else {
        emit(args.format, context, &findings, None, &input.cluster);
        return Outcome::Failed;
    };
    let options = CheckOptions {
        placement: PlacementOptions {
            max_steps: args.max_steps,
            budget: Duration::from_millis(args.budget_ms),
            ..PlacementOptions::default()
        },
    };
    let report = check(manager, &input.cluster, &loaded, &options);
    findings.extend(check_against_slots(&input.cluster, &report.slots, input.dead).into_iter().map(Finding::bare));
    findings.extend(report.diagnostics.iter().cloned().map(|d| Finding::in_file(d, &source)));
    emit(args.format, context, &findings, Some(&report), &input.cluster);
    if report.passes() && !findings.iter().any(Finding::is_error) { Outcome::Ok } else { Outcome::Failed }
}

fn unreadable(findings: Vec<Finding>, format: Format, context: &Context) -> Outcome {
    match format {
        Format::Json => print_json(&json_result(&findings, None, &resource_pool::Cluster::default())),
        Format::Human => print_human(&findings, context),
    }
    Outcome::Unreadable
}

fn emit(
    format: Format,
    context: &Context,
    findings: &[Finding],
    report: Option<&CheckReport>,
    cluster: &resource_pool::Cluster,
) {
    match format {
        Format::Json => print_json(&json_result(findings, report, cluster)),
        Format::Human => {
            print_human(findings, context);
            if let Some(report) = report
                && !context.quiet
            {
                if let Some(witness) = report.placement.witness() {
                    let assignment: Vec<Option<usize>> = witness.nodes.iter().copied().map(Some).collect();
                    print!("{}", render_plan("A placement exists:", &report.slots, &report.pools, cluster, &assignment));
                }
                let verdict = match report.feasible() {
                    Some(true) => "placeable",
                    Some(false) => "not placeable",
                    None => "undecided",
                };
                eprintln!("check: {verdict} ({})", summary(findings));
            }
        }
    }
}

fn placement_json(report: &CheckReport, cluster: &resource_pool::Cluster, assignment: &[Option<usize>]) -> Vec<Value> {
    assignment
        .iter()
        .enumerate()
        .filter_map(|(i, node)| {
            let node = (*node)?;
            let slot = &report.slots[i];
            Some(json!({
                "pool": report.pools[slot.pool].name,
                "slot": slot.slot,
                "node": cluster.nodes.get(node).map(|n| n.id.as_str()),
            }))
        })
        .collect()
}

fn json_result(findings: &[Finding], report: Option<&CheckReport>, cluster: &resource_pool::Cluster) -> Value {
    let diagnostics: Vec<_> = findings.iter().map(Finding::to_json).collect();
    let placement = report
        .and_then(|r| {
            let witness = r.placement.witness()?;
            let assignment: Vec<Option<usize>> = witness.nodes.iter().copied().map(Some).collect();
            Some(placement_json(r, cluster, &assignment))
        })
        .unwrap_or_default();
    json!({
        "feasible": report.and_then(CheckReport::feasible),
        "ray": Value::Null,
        "placement": placement,
        "ray_placement": Vec::<Value>::new(),
        "diagnostics": diagnostics,
    })
}
