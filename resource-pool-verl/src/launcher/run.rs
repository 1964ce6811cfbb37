//! A layout checked as a verl release launches it: the check on the pools verl builds, in
//! verl's order, on what verl leaves of the cluster; verl's own findings beside it; and the
//! suggested layouts under the same rules (they pass verl's own check too).

use resource_pool_core::check::suggest::{
    self, LayoutTerms, MultipleSource, OverrideStyle, PoolChoice, Reshape, SuggestOptions,
    Suggestions,
};
use resource_pool_core::check::{
    CheckDiagnostic, CheckOptions, CheckReport, ClusterFinding, LayoutWording, SlotSpans,
    check_with_cluster_findings,
};
use resource_pool_core::model::{
    Cluster, ManagerError, PoolId, ResourcePool, ResourcePoolManager, RoleKey,
};
use resource_pool_core::ray_sim::RayVerdict;
use resource_pool_core::source::Span;

use super::{Launch, LaunchDiagnostic, admits};

/// What verl does with a layout, in a word (JSON: `verl.outcome`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Its own check refuses it before Ray sees a group.
    Refused,
    /// Its driver (or TransferQueue) waits forever for a CPU, before any pool.
    DriverWaits,
    /// TransferQueue's start-up fails: a storage unit is pinned to a node with no CPU.
    DriverFails,
    /// Ray places every group verl creates (and verl goes on).
    Places,
    /// A group verl waits on stays pending forever.
    Hangs,
    /// Whether a group stays pending depends on how Ray breaks ties.
    DependsOnTies,
    /// verl stops with `IndexError` at a pool no worker group hosts, its groups before it
    /// placed.
    Stops,
    /// The check could not decide.
    Undecided,
}

/// A layout checked as a verl release launches it.
pub struct LaunchCheck {
    /// The launch: its rules, pools, order, holds.
    pub launch: Launch,
    /// The check of the pools verl builds, in its order, on what it leaves of the cluster.
    pub report: CheckReport,
    /// What the cluster says about the node-slots.
    pub cluster_findings: Vec<ClusterFinding>,
    /// verl's own findings: the launch's, then where verl stops once Ray placed.
    pub verl: Vec<LaunchDiagnostic>,
}

impl LaunchCheck {
    /// What verl does with the layout.
    pub fn outcome(&self) -> Outcome {
        if let Some(first) = self.verl.iter().find(|d| d.stops_before_ray()) {
            return match first {
                LaunchDiagnostic::PreCheckRefuses { .. } => Outcome::Refused,
                LaunchDiagnostic::DriverFails { .. } => Outcome::DriverFails,
                _ => Outcome::DriverWaits,
            };
        }
        if self
            .verl
            .iter()
            .any(|d| matches!(d, LaunchDiagnostic::StopsAtPool { .. }))
        {
            return Outcome::Stops;
        }
        match self.report.ray.verdict {
            RayVerdict::Places => Outcome::Places,
            RayVerdict::Hangs => Outcome::Hangs,
            RayVerdict::DependsOnTies => Outcome::DependsOnTies,
            RayVerdict::Undecided => Outcome::Undecided,
        }
    }

    /// The check's diagnostics that hold for verl: all of them, but Ray's verdicts when
    /// verl stops before Ray sees a group.
    pub fn check_diagnostics(&self) -> impl Iterator<Item = &CheckDiagnostic> + '_ {
        let before_ray = self.launch.stops_before_ray();
        (self.report.diagnostics.iter()).filter(move |d| !(before_ray && d.is_ray_verdict()))
    }

    /// Whether a layout that does pass is worth suggesting: the check wants one, or verl's
    /// own check refuses this one.
    pub fn wants_suggestion(&self, terms: &dyn LayoutTerms) -> bool {
        suggest::wanted(&self.report, terms) || self.outcome() == Outcome::Refused
    }

    /// The layouts of the same shape that verl's check lets through and Ray places, on the
    /// cluster verl leaves (`terms`: where the layout was written).
    pub fn suggest(&self, terms: &dyn LayoutTerms, options: &CheckOptions) -> Suggestions {
        let terms = Admitting {
            terms,
            launch: &self.launch,
        };
        suggest::suggest_against(
            &self.report,
            &self.launch.cluster,
            self.launch.idle.as_ref(),
            &terms,
            &SuggestOptions::within(&self.launch.check_options(options)),
        )
    }
}

/// Checks `manager`'s layout as `launch` says verl launches it (`launch` planned for this
/// manager), its findings placed by `spans`.
///
/// # Errors
///
/// The pools verl builds do not make a manager (a count past Ray's fixed point).
pub fn check_launch<R: RoleKey>(
    manager: &ResourcePoolManager<R>,
    launch: Launch,
    spans: &dyn SlotSpans,
    options: &CheckOptions,
) -> Result<LaunchCheck, ManagerError> {
    let mapping: Vec<(R, &str)> = manager
        .mapping()
        .map(|(role, pool)| (role.clone(), pool.name.as_str()))
        .collect();
    let built = ResourcePoolManager::new(launch.pools.clone(), mapping)?;
    let (report, cluster_findings) = check_with_cluster_findings(
        &built,
        &launch.cluster,
        spans,
        &launch.check_options(options),
    );
    let mut verl = launch.findings.clone();
    verl.extend(launch.after_ray(&report, spans));
    Ok(LaunchCheck {
        launch,
        report,
        cluster_findings,
        verl,
    })
}

/// Layout terms whose layouts must also pass verl's own check.
struct Admitting<'a> {
    terms: &'a dyn LayoutTerms,
    launch: &'a Launch,
}

impl SlotSpans for Admitting<'_> {
    fn pool_span(&self, pool: PoolId) -> Option<Span> {
        self.terms.pool_span(pool)
    }
    fn slot_span(&self, pool: PoolId, slot: usize) -> Option<Span> {
        self.terms.slot_span(pool, slot)
    }
    fn wording(&self) -> LayoutWording {
        self.terms.wording()
    }
}

impl LayoutTerms for Admitting<'_> {
    fn reshape(&self, pool: PoolId) -> Reshape {
        self.terms.reshape(pool)
    }
    fn reorderable(&self) -> bool {
        self.terms.reorderable()
    }
    fn style(&self) -> OverrideStyle {
        self.terms.style()
    }
    fn overrides(
        &self,
        pool: PoolId,
        name: &str,
        choice: &PoolChoice,
        process_on_nodes: &[u32],
    ) -> Vec<String> {
        self.terms.overrides(pool, name, choice, process_on_nodes)
    }
    fn edit_spans(&self, pool: PoolId, choice: &PoolChoice) -> Vec<Span> {
        self.terms.edit_spans(pool, choice)
    }
    fn multiple(&self, pool: PoolId) -> u64 {
        self.terms.multiple(pool)
    }
    fn multiple_source(&self, pool: PoolId) -> Option<MultipleSource> {
        self.terms.multiple_source(pool)
    }
    fn admits(&self, pools: &[ResourcePool], cluster: &Cluster) -> bool {
        admits(self.launch.release.pre_check, pools, cluster) && self.terms.admits(pools, cluster)
    }
}
