//! The whole check of a layout against a cluster: what the cluster says about the
//! node-slots ([`check_against_slots`]), the exact placement check, then Ray's verdict, as
//! diagnostics that point at the config's node-slots.

mod cluster_findings;
#[cfg(test)]
mod count_wording_tests;
pub mod creation;
mod diagnostics;
mod node_ids;
mod placement_findings;
mod ray_advice;
mod ray_findings;
pub mod suggest;
pub mod wording;
#[cfg(test)]
mod wording_tests;

pub use cluster_findings::{ClusterFinding, check_against_slots, nodes_needed};
pub use creation::Creation;
pub use diagnostics::{AcceleratorTypeName, CheckDiagnostic};
pub use placement_findings::{RAY_TYPE_PREFIX, spelt_otherwise, type_spelling};
pub use wording::{
    ANY_SOURCE, CODE, CONFIG_FILE, ClusterWording, ClusterWords, LayoutWording, LayoutWords,
};

use crate::load::LoadedConfig;
use crate::model::{
    Cluster, NodeSlot, PoolId, ResourcePool, ResourcePoolManager, Resources, RoleKey,
};
use crate::placement::{self, Instance, PlacementOptions, PlacementOutcome, PlacementReport};
use crate::ray_sim::{self, RayReport, RaySimOptions, RayVerdict};
use crate::source::Span;

/// Where the pools and node-slots of a layout stand in its file, if it has one, and where
/// the layout came from.
pub trait SlotSpans {
    /// A pool's header.
    fn pool_span(&self, pool: PoolId) -> Option<Span>;
    /// A node-slot's entry.
    fn slot_span(&self, pool: PoolId, slot: usize) -> Option<Span>;
    /// Where the layout was written, as the words of its remedies: a config file's unless
    /// said otherwise.
    fn wording(&self) -> LayoutWording {
        LayoutWording::default()
    }
}

/// A layout built in code: no file, no spans.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoSpans;

impl SlotSpans for NoSpans {
    fn pool_span(&self, _: PoolId) -> Option<Span> {
        None
    }
    fn slot_span(&self, _: PoolId, _: usize) -> Option<Span> {
        None
    }
    fn wording(&self) -> LayoutWording {
        LayoutWording(&wording::CODE)
    }
}

impl SlotSpans for LoadedConfig {
    fn pool_span(&self, pool: PoolId) -> Option<Span> {
        LoadedConfig::pool_span(self, pool)
    }
    fn slot_span(&self, pool: PoolId, slot: usize) -> Option<Span> {
        LoadedConfig::slot_span(self, pool, slot)
    }
}

/// Budgets of the check.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckOptions {
    /// The placement search's budget.
    pub placement: PlacementOptions,
    /// The Ray simulation's bounds.
    pub ray: RaySimOptions,
    /// The source that listed the cluster's nodes: remedies (a node that has not joined,
    /// resources other work holds) are worded in its terms.
    pub listed_by: ClusterWording,
    /// Whether the cluster's node ids are already known to be distinct and non-empty: set
    /// it for a cluster that one of this crate's readers (the cluster files, the
    /// inventories) returned, since they refuse a repeated or empty id as they read, with
    /// its span. The check then does not look at the ids again (on 100,000 nodes, a hash
    /// of each id and a pass over the nodes: about a twentieth of a large check's time).
    /// Off by default, so that a cluster built in code is looked at
    /// ([`CheckDiagnostic::DuplicateNode`], [`CheckDiagnostic::EmptyNodeId`]).
    pub node_ids_checked: bool,
    /// Which pools get placement groups, and in what order, when not every pool in the
    /// layout's order (`None`): what the launcher does ([`Creation`]).
    pub creation: Option<Creation>,
}

impl CheckOptions {
    /// The node-slots of `pools` that get placement groups, in creation order.
    pub fn slots(&self, pools: &[ResourcePool]) -> Vec<NodeSlot> {
        match &self.creation {
            Some(creation) => creation.slots(pools),
            None => crate::model::node_slots(pools.iter().map(|p| &p.spec)),
        }
    }

    /// The Ray simulation's options for `pools`: these bounds, and a fix keeps the
    /// launcher's stages in order.
    fn ray_for(&self, pools: usize) -> RaySimOptions {
        RaySimOptions {
            placement: self.placement.clone(),
            pool_ranks: self
                .creation
                .as_ref()
                .map_or_else(Vec::new, |c| c.ranks(pools)),
            ..self.ray.clone()
        }
    }
}

/// Everything the check found.
#[derive(Clone, Debug)]
pub struct CheckReport {
    /// The node-slots checked, in creation order: those of the pools that get groups.
    pub slots: Vec<NodeSlot>,
    /// The pools, in the layout's order (those that get no groups too).
    pub pools: Vec<ResourcePool>,
    /// The exact check.
    pub placement: PlacementReport,
    /// Ray's verdict.
    pub ray: RayReport,
    /// Problems, in the user's terms.
    pub diagnostics: Vec<CheckDiagnostic>,
}

impl CheckReport {
    /// `Some(true)` when a placement exists, `Some(false)` when none does, `None` when
    /// undecided.
    pub fn feasible(&self) -> Option<bool> {
        self.placement.feasible()
    }

    /// Ray's verdict: `places`, `hangs`, `depends_on_ties`, or `undecided`.
    pub fn ray_verdict(&self) -> RayVerdict {
        self.ray.verdict
    }

    /// Whether the layout passes: placeable and placed by Ray.
    pub fn passes(&self) -> bool {
        self.feasible() == Some(true)
            && self.ray.verdict == RayVerdict::Places
            && !self.diagnostics.iter().any(CheckDiagnostic::is_error)
    }
}

/// Checks a manager's layout against a cluster.
pub fn check<R: RoleKey>(
    manager: &ResourcePoolManager<R>,
    cluster: &Cluster,
    spans: &dyn SlotSpans,
    options: &CheckOptions,
) -> CheckReport {
    check_with_cluster_findings(manager, cluster, spans, options).0
}

/// [`check`], and what the cluster says about the node-slots ([`check_against_slots`]),
/// read in the same pass over the nodes.
pub fn check_with_cluster_findings<R: RoleKey>(
    manager: &ResourcePoolManager<R>,
    cluster: &Cluster,
    spans: &dyn SlotSpans,
    options: &CheckOptions,
) -> (CheckReport, Vec<ClusterFinding>) {
    let pools = manager.pools().to_vec();
    let slots = options.slots(&pools);
    // Read once for the cluster's findings, the placement check and Ray's simulation.
    let (instance, cluster_findings) =
        read_input(&slots, cluster, options.listed_by, spans.wording());
    let placement = placement::check_placement_of(&instance, &slots, cluster, &options.placement);
    // First: they explain why the findings after them may name nodes ambiguously.
    let mut diagnostics = if options.node_ids_checked {
        Vec::new()
    } else {
        node_ids::findings(cluster)
    };
    match &placement.outcome {
        PlacementOutcome::Feasible(_) => {}
        PlacementOutcome::Infeasible(found) => {
            diagnostics.extend(placement_findings::infeasible(
                found, &slots, &pools, cluster, spans,
            ));
        }
        PlacementOutcome::Undecided(found) => {
            diagnostics.push(placement_findings::undecided(found, slots.len()))
        }
    }
    let ray_options = options.ray_for(pools.len());
    let ray = ray_sim::simulate_of(&instance, &slots, cluster, &ray_options, Some(&placement));
    diagnostics.extend(ray_findings::ray(
        &ray,
        placement.feasible(),
        &slots,
        &pools,
        cluster,
        spans,
    ));
    for diagnostic in &mut diagnostics {
        diagnostic.word_for(options.listed_by, spans.wording());
    }
    let report = CheckReport {
        slots,
        pools,
        placement,
        ray,
        diagnostics,
    };
    (report, cluster_findings)
}

/// The input read once: the instance the placement check and Ray's simulation share, and
/// the cluster's findings against the slots ([`check_against_slots`]) from the runs of
/// nodes seen in that pass and the slot types.
fn read_input(
    slots: &[NodeSlot],
    cluster: &Cluster,
    listed_by: ClusterWording,
    written: LayoutWording,
) -> (Instance, Vec<ClusterFinding>) {
    let mut held: Vec<(&Resources, usize)> = Vec::new();
    let instance = Instance::read(slots, cluster, |node, nodes| {
        cluster_findings::add_to_runs(&mut held, cluster_findings::held_by(node), nodes);
    });
    let demands: Vec<(&Resources, usize)> = instance
        .types
        .iter()
        .filter_map(|t| Some((&slots.get(t.slots.first()?)?.demand, t.slots.len())))
        .collect();
    let findings =
        cluster_findings::findings_of(&held, cluster.nodes.len(), &demands, listed_by, written);
    (instance, findings)
}

impl<R: RoleKey> ResourcePoolManager<R> {
    /// Checks this layout against a cluster with the default budgets: the exact placement
    /// check and Ray's verdict. Call it before creating any placement group.
    pub fn check(&self, cluster: &Cluster) -> CheckReport {
        check(self, cluster, &NoSpans, &CheckOptions::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::runs_case;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]

        /// The cluster's findings read in the check's pass (runs of nodes, slot types)
        /// are those of [`check_against_slots`], which reads the nodes and slots itself.
        #[test]
        fn findings_read_with_the_input_are_the_cluster_findings((slots, cluster) in runs_case()) {
            let (_, found) = read_input(&slots, &cluster, ClusterWording::default(), LayoutWording::default());
            proptest::prop_assert_eq!(found, check_against_slots(&cluster, &slots));
        }
    }
}
