//! What `resource-pool check` computes, as a value: the findings and the check's report of
//! one config on one cluster, and its outputs. The CLI prints them; the Python module and
//! the `testing` helpers hand them out. One computation for every front end, so they
//! cannot drift.

use std::fmt;

use resource_pool_core::check::suggest::{self, LayoutTerms, SuggestOptions, Suggestions};
use resource_pool_core::check::{
    CheckOptions, CheckReport, ClusterFinding, LayoutWording, NoSpans, check_against_slots,
    check_with_cluster_findings, spelt_otherwise, wording::WordedAs,
};
use resource_pool_core::load::LoadedConfig;
use resource_pool_core::model::{Cluster, ResourcePoolManager, RoleKey};
use resource_pool_core::source::SourceFile;
use resource_pool_inventory::InventoryNote;
use serde_json::Value;

use super::{Finding, render_human, summary};
use crate::render::{LAYOUT_ORDER, check_pictures, render_text, suggestion_pictures};

/// The findings and the report of one check.
pub struct CheckRun {
    /// Every finding, in the order people read them: the config's, the cluster's, then the
    /// check's.
    pub findings: Vec<Finding>,
    /// The check's report; `None` when the config has errors (nothing was checked).
    pub report: Option<CheckReport>,
    /// The cluster checked against.
    pub cluster: Cluster,
    /// The layouts suggested when it does not fit (see
    /// [`resource_pool_core::check::suggest`]); their diagnostics are the last
    /// findings.
    pub suggestions: Option<Suggestions>,
    /// Where the suggestions' findings start, and the file they point into.
    suggested_from: Option<(usize, Option<SourceFile>)>,
    /// What the launcher (a verl release) does with the layout, when the check followed
    /// its rules.
    pub launch: Option<LaunchSummary>,
}

/// What a launcher does with a layout, for the outputs: its order's name (`verl 0.9.1's
/// order`), a line for people above the plan, and the data JSON carries as `verl`.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchSummary {
    /// The order's name, in the plan's title.
    pub order: String,
    /// What people read above the plan: the release, the order, what it holds.
    pub line: String,
    /// What the summary line says of the outcome when the launcher stops before Ray's
    /// verdict (`verl 0.9.1's own check refuses it`); `None`: Ray's verdict.
    pub stops: Option<String>,
    /// The same as data.
    pub json: Value,
}

impl fmt::Debug for CheckRun {
    /// A summary (findings are trait objects): what passed, and how many findings.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CheckRun")
            .field("passes", &self.passes())
            .field("findings", &self.findings.len())
            .field("checked", &self.report.is_some())
            .field("nodes", &self.cluster.nodes.len())
            .finish()
    }
}

impl CheckRun {
    /// Checks a loaded config on a cluster, as `resource-pool check` does: the config's
    /// diagnostics, then `notes` (what the cluster's source said about it), then the
    /// cluster against the node-slots and the placement and Ray's order. The cluster holds
    /// its dead nodes too (the `Inventory` contract). The remedies are worded as `wording`
    /// says: the config file's own keys, or the terms of the front end that generated it.
    pub fn check(
        config: &LoadedConfig,
        wording: LayoutWording,
        cluster: Cluster,
        notes: Vec<Finding>,
        options: &CheckOptions,
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
        let (report, found) = check_with_cluster_findings(manager, &cluster, &terms, options);
        let mut run = CheckRun::from_report(findings, report, found, cluster);
        let diagnostics = run
            .report
            .as_ref()
            .map_or(Vec::new(), |r| r.diagnostics.clone());
        run.findings
            .extend(diagnostics.into_iter().map(|d| Finding::in_file(d, source)));
        run.suggest(&terms, Some(source), options);
        run
    }

    /// Checks a manager built in code (derived pools, verl's layout) on a cluster: its
    /// diagnostics have no file to point into.
    pub fn check_manager<R: RoleKey>(
        manager: &ResourcePoolManager<R>,
        cluster: Cluster,
        options: &CheckOptions,
    ) -> CheckRun {
        let (report, found) = check_with_cluster_findings(manager, &cluster, &NoSpans, options);
        let mut run = CheckRun::from_report(Vec::new(), report, found, cluster);
        let diagnostics = run
            .report
            .as_ref()
            .map_or(Vec::new(), |r| r.diagnostics.clone());
        run.findings
            .extend(diagnostics.into_iter().map(Finding::bare));
        run.suggest(&NoSpans, None, options);
        run
    }

    /// The run with the cluster's findings against the node-slots (`found`, read by the
    /// check) added.
    fn from_report(
        mut findings: Vec<Finding>,
        report: CheckReport,
        found: Vec<ClusterFinding>,
        cluster: Cluster,
    ) -> CheckRun {
        findings.extend(said_by_the_cluster(found, &report));
        CheckRun::checked(findings, report, cluster)
    }

    /// Suggests layouts when the check wants them ([`suggest::wanted`]), within the check's
    /// budget; their diagnostics (advice) join the findings, pointing into `source`.
    fn suggest(
        &mut self,
        terms: &dyn LayoutTerms,
        source: Option<&SourceFile>,
        options: &CheckOptions,
    ) {
        let Some(report) = &self.report else {
            return;
        };
        if !suggest::wanted(report, terms) {
            return;
        }
        let found = suggest::suggest(
            report,
            &self.cluster,
            terms,
            &SuggestOptions::within(options),
        );
        self.add_suggestions(found, terms, source);
    }

    /// The layouts suggested, their diagnostics (advice) joining the findings, pointing
    /// into `source`.
    pub(super) fn add_suggestions(
        &mut self,
        found: Suggestions,
        terms: &dyn LayoutTerms,
        source: Option<&SourceFile>,
    ) {
        self.suggested_from = Some((self.findings.len(), source.cloned()));
        self.findings
            .extend(suggestion_findings(&found, terms, source));
        self.suggestions = Some(found);
    }

    /// A run that checked nothing (the config has errors, or its layout cannot be built).
    pub(super) fn unchecked(findings: Vec<Finding>, cluster: Cluster) -> CheckRun {
        CheckRun {
            findings,
            report: None,
            cluster,
            suggestions: None,
            suggested_from: None,
            launch: None,
        }
    }

    /// A run of a report and its findings, on the cluster it checked.
    pub(super) fn checked(
        findings: Vec<Finding>,
        report: CheckReport,
        cluster: Cluster,
    ) -> CheckRun {
        CheckRun {
            report: Some(report),
            ..CheckRun::unchecked(findings, cluster)
        }
    }

    /// Names who holds the resources the idle suggestion needs, from the cluster source's
    /// notes (placement groups holding resources on a node), in the suggestions and their
    /// findings. Call it before adding findings of your own.
    pub fn name_holders(&mut self, notes: &[InventoryNote], terms: &dyn LayoutTerms) {
        let (Some(found), Some((at, source))) = (&mut self.suggestions, &self.suggested_from)
        else {
            return;
        };
        found.name_holders(InventoryNote::held_by_groups(notes));
        self.findings.truncate(*at);
        self.findings
            .extend(suggestion_findings(found, terms, source.as_ref()));
    }

    /// Whether the check passes (exit status 0): a report that passes and no error.
    pub fn passes(&self) -> bool {
        self.report.as_ref().is_some_and(CheckReport::passes)
            && !self.findings.iter().any(Finding::is_error)
    }

    /// The JSON result of the JSON contract.
    pub fn json(&self) -> Value {
        let mut value = super::json::with_suggestions(
            super::json::check_result(&self.findings, self.report.as_ref(), &self.cluster),
            self.suggestions.as_ref(),
        );
        if let (Some(launch), Some(object)) = (&self.launch, value.as_object_mut()) {
            object.insert("verl".to_owned(), launch.json.clone());
        }
        value
    }

    /// What the CLI prints for people, in the same colour for everything.
    pub fn human(&self, colour: bool) -> HumanReport {
        self.human_with(colour, colour)
    }

    /// What the CLI prints for people: the diagnostics (on stderr) coloured or not, and the
    /// plan (on stdout) coloured or not.
    pub fn human_with(&self, diagnostics_colour: bool, plan_colour: bool) -> HumanReport {
        human_report_with(
            &self.findings,
            self.report.as_ref(),
            self.suggestions.as_ref(),
            &self.cluster,
            self.launch.as_ref(),
            (diagnostics_colour, plan_colour),
        )
    }
}

/// The suggestions' diagnostics as findings.
fn suggestion_findings(
    found: &Suggestions,
    terms: &dyn LayoutTerms,
    source: Option<&SourceFile>,
) -> Vec<Finding> {
    found
        .diagnostics(terms)
        .into_iter()
        .map(|d| match source {
            Some(source) => Finding::in_file(d, source),
            None => Finding::bare(d),
        })
        .collect()
}

/// The cluster's findings against the report's node-slots (a slot no node could ever
/// hold, a resource no alive node declares, ...), as every front end reports them: a
/// resource whose spelling the check already corrects is said once, by the check.
pub fn slot_findings(cluster: &Cluster, report: &CheckReport) -> Vec<Finding> {
    said_by_the_cluster(check_against_slots(cluster, &report.slots), report)
}

/// The cluster's findings against the report's node-slots (`found`, read by the check:
/// [`check_with_cluster_findings`], worded for where the layout was written), as findings,
/// less what the check says already.
pub fn said_by_the_cluster(found: Vec<ClusterFinding>, report: &CheckReport) -> Vec<Finding> {
    found
        .into_iter()
        .filter(|f| !said_by_type_name(f, report))
        .map(Finding::bare)
        .collect()
}

/// A resource no alive node declares, when the check already names the spelling the nodes
/// declare for that accelerator type: said once, by the check.
fn said_by_type_name(finding: &ClusterFinding, report: &CheckReport) -> bool {
    match finding {
        ClusterFinding::MissingResource { resource, .. } => spelt_otherwise(report, resource),
        _ => false,
    }
}

/// What people see of findings and, when something was checked, its report on a cluster
/// (for front ends that hold the parts rather than a [`CheckRun`], such as `verl`).
pub fn human_report(
    findings: &[Finding],
    report: Option<&CheckReport>,
    cluster: &Cluster,
    diagnostics_colour: bool,
    plan_colour: bool,
) -> HumanReport {
    human_report_with(
        findings,
        report,
        None,
        cluster,
        None,
        (diagnostics_colour, plan_colour),
    )
}

/// [`human_report`], with the suggested layouts drawn under the check's pictures and, when
/// the check followed a launcher's rules, what it does (`launch`) above them; `colours`
/// of the diagnostics and of the plan.
pub fn human_report_with(
    findings: &[Finding],
    report: Option<&CheckReport>,
    suggested: Option<&Suggestions>,
    cluster: &Cluster,
    launch: Option<&LaunchSummary>,
    (diagnostics_colour, plan_colour): (bool, bool),
) -> HumanReport {
    let diagnostics = render_human(findings, diagnostics_colour);
    let Some(report) = report else {
        return HumanReport {
            diagnostics,
            plan: String::new(),
            summary: String::new(),
        };
    };
    let suggested = suggested.map(|s| suggestion_pictures(s, cluster));
    let order = launch.map_or(LAYOUT_ORDER, |l| l.order.as_str());
    let pictures: String = check_pictures(report, cluster, order)
        .iter()
        .chain(suggested.iter().flatten())
        .map(|picture| render_text(picture, plan_colour))
        .collect();
    let plan = match launch {
        Some(launch) => format!("{}\n{pictures}", launch.line),
        None => pictures,
    };
    let feasible = match report.feasible() {
        Some(true) => "placeable",
        Some(false) => "not placeable",
        None => "placement undecided",
    };
    let verdict = match launch.and_then(|l| l.stops.clone()) {
        Some(stops) => stops,
        None => format!("Ray {}", report.ray.verdict),
    };
    let summary = format!("check: {feasible}; {verdict} ({})\n", summary(findings));
    HumanReport {
        diagnostics,
        plan,
        summary,
    }
}

/// What people see of a check, in three parts because the CLI writes them to two streams:
/// the diagnostics and the summary line on stderr, the plan on stdout. Its `Display` is
/// all three in the order a terminal shows them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HumanReport {
    /// miette's reports of every finding.
    pub diagnostics: String,
    /// The picture of the plan (empty when nothing was checked).
    pub plan: String,
    /// `check: placeable; Ray places (0 errors, 1 warning)` and a line break (empty when
    /// nothing was checked).
    pub summary: String,
}

impl fmt::Display for HumanReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}{}", self.diagnostics, self.plan, self.summary)
    }
}
