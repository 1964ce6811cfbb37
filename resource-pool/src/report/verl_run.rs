//! `check` for verl: a config's layout checked as a verl release launches it
//! ([`resource_pool_verl::launcher`]), its findings and the summary of the launch.

use resource_pool_core::check::wording::WordedAs;
use resource_pool_core::check::{CheckOptions, LayoutWording};
use resource_pool_core::load::LoadedConfig;
use resource_pool_core::model::{Cluster, ManagerError};
use resource_pool_core::source::SourceFile;
use resource_pool_verl::launcher::{
    Launch, LaunchCheck, LaunchDiagnostic, Layout, Outcome, check_launch,
};
use resource_pool_verl::releases::ReleaseRules;
use serde_json::json;

use super::run::{CheckRun, LaunchSummary, said_by_the_cluster};
use super::{Finding, Reportable};

impl CheckRun {
    /// What `resource-pool check` computes: a loaded config checked as `rules`' release
    /// launches it, on a cluster (dead nodes in it), its remedies worded as `wording` says;
    /// `notes` are what the cluster's source said.
    pub fn check_for_verl(
        config: &LoadedConfig,
        wording: LayoutWording,
        cluster: Cluster,
        notes: Vec<Finding>,
        options: &CheckOptions,
        rules: ReleaseRules,
    ) -> CheckRun {
        let source = &config.source;
        let mut findings: Vec<Finding> = config
            .diagnostics
            .iter()
            .cloned()
            .map(|d| Finding::in_file(d, source))
            .collect();
        findings.extend(notes);
        let Some(manager) = &config.manager else {
            return CheckRun::unchecked(findings, cluster);
        };
        let terms = WordedAs(config, wording);
        let mut layout = Layout::of(manager);
        layout.cpus_written = config
            .doc
            .pools
            .iter()
            .map(|p| p.max_colocate_count.is_some())
            .collect();
        let launch = Launch::plan(rules, &layout, &cluster, &terms);
        let checked = match check_launch(manager, launch, &terms, options) {
            Ok(checked) => checked,
            Err(error) => {
                findings.push(Finding::bare(LayoutError(error)));
                return CheckRun::unchecked(findings, cluster);
            }
        };
        findings.extend(verl_findings(&checked, Some(source)));
        let suggestions = checked
            .wants_suggestion(&terms)
            .then(|| checked.suggest(&terms, options));
        let launch = summary(&checked);
        let mut run = CheckRun::checked(findings, checked.report, checked.launch.cluster);
        if let Some(found) = suggestions {
            run.add_suggestions(found, &terms, Some(source));
        }
        run.launch = Some(launch);
        run
    }
}

/// A finding about `source`, or about no file.
fn place<D: Reportable>(diagnostic: D, source: Option<&SourceFile>) -> Finding {
    match source {
        Some(source) => Finding::in_file(diagnostic, source),
        None => Finding::bare(diagnostic),
    }
}

/// Every finding of a checked launch but the suggestions', in the order people read them:
/// what verl does before Ray, the cluster's, the check's (Ray's verdict left out when verl
/// stops before it), then where verl stops once Ray placed.
pub fn verl_findings(checked: &LaunchCheck, source: Option<&SourceFile>) -> Vec<Finding> {
    let after_ray = |d: &&LaunchDiagnostic| matches!(d, LaunchDiagnostic::StopsAtPool { .. });
    let mut out: Vec<Finding> = (checked.verl.iter())
        .filter(|d| !after_ray(d))
        .map(|d| place(d.clone(), source))
        .collect();
    out.extend(said_by_the_cluster(
        checked.cluster_findings.clone(),
        &checked.report,
    ));
    out.extend(
        checked
            .check_diagnostics()
            .map(|d| place(d.clone(), source)),
    );
    out.extend(
        (checked.verl.iter())
            .filter(after_ray)
            .map(|d| place(d.clone(), source)),
    );
    out
}

/// verl's pools that the model refuses (a count past Ray's fixed point).
#[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[error("verl's layout cannot be built: {0}")]
#[diagnostic(
    code(resource_pool::verl::layout),
    help("lower the node-slots' sizes to what a node has")
)]
pub struct LayoutError(pub ManagerError);

/// What a checked launch says, for the outputs: the release (and whether it stands in for
/// a version not given), the order of its pools, the CPUs it holds before them.
pub fn summary(checked: &LaunchCheck) -> LaunchSummary {
    let launch = &checked.launch;
    let pools = &launch.pools;
    let stages: Vec<Vec<&str>> = (launch.creation.stages.iter())
        .map(|stage| stage.iter().map(|&p| pools[p].name.as_str()).collect())
        .collect();
    let version = launch.release.version;
    let which = if launch.release_assumed {
        format!("verl {version} (the newest release known; --verl-version V for another)")
    } else {
        format!("verl {version}")
    };
    let order: Vec<String> = stages.iter().map(|stage| stage.join(", ")).collect();
    let mut line = match order.is_empty() {
        true => format!("{which} creates no pool's groups"),
        false => format!("{which} creates the groups of {}", order.join(", then ")),
    };
    let mut held: Vec<(usize, u32)> = Vec::new();
    for hold in &launch.holds {
        match held.iter_mut().find(|(node, _)| *node == hold.node) {
            Some((_, cpus)) => *cpus += hold.cpus,
            None => held.push((hold.node, hold.cpus)),
        }
    }
    if !held.is_empty() {
        let name = |node: usize| launch.cluster.nodes[node].display_name().to_string();
        let on: Vec<String> = held
            .iter()
            .map(|&(node, n)| format!("{} {n}", name(node)))
            .collect();
        line.push_str(&format!("; it holds CPUs first: {}", on.join(", ")));
    }
    line.push('\n');
    let stops = match checked.outcome() {
        Outcome::Refused => Some(format!("verl {version}'s own check refuses it")),
        Outcome::DriverWaits => Some(format!("verl {version} waits for a CPU before any pool")),
        Outcome::DriverFails => Some(format!("verl {version} stops before any pool")),
        Outcome::Stops => Some(format!("verl {version} stops with IndexError")),
        _ => None,
    };
    LaunchSummary {
        order: launch.order_name(),
        line,
        stops,
        json: json!({
            "release": version,
            "assumed": launch.release_assumed,
            "outcome": checked.outcome(),
            "creation": stages,
            "stops_at": launch.stops_at.map(|p| pools[p].name.as_str()),
            "holds": launch.holds,
            "cpus_per_bundle": launch.release.cpus.default_cpus(),
        }),
    }
}
