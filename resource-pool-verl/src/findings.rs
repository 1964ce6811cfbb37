//! The check's findings in verl's terms: the cluster against `trainer.nnodes` and verl's
//! one node size, and a Ray hang told in verl's settings.

use crate::keys::{DEVICE, KEYS, N_GPUS_PER_NODE, NNODES};
use crate::releases::release;
use crate::{
    AliveNodes, HangCause, HangRemedy, KeyValue, Listed, NodeSize, Placements, PoolPlacement,
    VerlClusterDiagnostic, VerlDiagnostic, VerlSettings,
};
use resource_pool_core::check::{
    CheckDiagnostic, CheckReport, ClusterFinding, LayoutWording, SlotSpans,
};
use resource_pool_core::model::{Accelerator, Cluster, Node, PoolId, names};
use resource_pool_core::ray_sim::{GroupFate, RayVerdict};
use resource_pool_core::source::Span;

/// The device verl runs with on `cluster`, when it is not the settings': GPU bundles asked
/// (`trainer.device=cuda`, verl's default) on a cluster whose alive nodes declare NPUs and
/// none a GPU, under a key set that holds a release whose `main` sets `trainer.device` from
/// the machine it starts on (`verl.utils.device.auto_set_device`: `npu` where `torch_npu`
/// is installed, whatever the config says; the release's [`DeviceRule`](crate::releases::DeviceRule)) among
/// `releases` (as [`LaunchInfo`](crate::LaunchInfo) lists them). Verl then
/// asks for NPUs: the layout is checked with NPU bundles, and the warning says why.
pub fn detected_device(
    settings: &VerlSettings,
    releases: &[&str],
    cluster: &Cluster,
) -> Option<VerlDiagnostic> {
    let auto = releases
        .iter()
        .any(|r| release(r).is_some_and(|r| r.device != crate::releases::DeviceRule::AsWritten));
    if !auto || settings.accelerator() != Some(Accelerator::Gpu) {
        return None;
    }
    let declares = |node: &resource_pool_core::model::Node, name: &str| {
        !node.available.get(name).is_zero()
            || node.total.as_ref().is_some_and(|t| !t.get(name).is_zero())
    };
    let alive: Vec<_> = cluster.alive().collect();
    let npu_nodes = alive.iter().filter(|n| declares(n, names::NPU)).count();
    if npu_nodes == 0 || alive.iter().any(|n| declares(n, names::GPU)) {
        return None;
    }
    Some(
        VerlClusterDiagnostic::DeviceDetected {
            value: settings.str(DEVICE).to_owned(),
            nodes: AliveNodes(npu_nodes),
            span: settings.span(DEVICE),
            origin: settings.origin(DEVICE),
        }
        .into(),
    )
}

/// What the cluster says about verl's settings: nodes against `trainer.nnodes`, uneven
/// nodes (counting `accelerator`, the one verl runs with). The generic slot/node checks of
/// the inventories come on top.
pub fn cluster_findings(
    settings: &VerlSettings,
    accelerator: Accelerator,
    cluster: &Cluster,
) -> Vec<VerlDiagnostic> {
    let mut out = Vec::new();
    let alive: Vec<_> = cluster.alive().collect();
    let nnodes = settings.int(NNODES);
    if nnodes > alive.len() as i64 {
        out.push(
            VerlClusterDiagnostic::NnodesExceedAlive {
                nnodes,
                alive: AliveNodes(alive.len()),
                span: settings.span(NNODES),
                origin: settings.origin(NNODES),
            }
            .into(),
        );
    }
    let name = match accelerator {
        Accelerator::Gpu => names::GPU,
        Accelerator::Npu => names::NPU,
    };
    let mut counts: Vec<(u64, usize)> = Vec::new();
    for node in &alive {
        let total = node.total.as_ref().unwrap_or(&node.available);
        let n = total.get(name).units() / resource_pool_core::model::Amount::SCALE;
        match counts.iter_mut().find(|(c, _)| *c == n) {
            Some(entry) => entry.1 += 1,
            None => counts.push((n, 1)),
        }
    }
    counts.retain(|(c, _)| *c > 0);
    // Uneven nodes matter when the pools need nodes their slot sizes cannot fill: some
    // node's count is no multiple of any pool's size, and the node-slots do not all fit
    // on the nodes whose counts are ([`fit_on_filled`]). Idle nodes of another size are
    // normal (two 8-GPU slots on the 8-GPU nodes of an 8/8/4 cluster).
    let pools: Vec<(u64, u64)> = settings
        .pool_keys()
        .iter()
        .filter_map(|p| {
            let size = u64::try_from(settings.int(p.gpus)).ok()?;
            let nodes = u64::try_from(settings.int(p.nnodes)).ok()?;
            (size > 0 && nodes > 0).then_some((size, nodes))
        })
        .collect();
    let fillable = |c: u64| pools.iter().any(|&(s, _)| c.is_multiple_of(s));
    let filled: Vec<(u64, usize)> = counts
        .iter()
        .copied()
        .filter(|&(c, _)| fillable(c))
        .collect();
    if counts.len() > 1
        && counts.iter().any(|&(c, _)| !fillable(c))
        && !fit_on_filled(&filled, &pools)
    {
        counts.sort_unstable_by_key(|&(c, _)| std::cmp::Reverse(c));
        out.push(
            VerlClusterDiagnostic::UnevenNodes {
                counts: Listed(
                    counts
                        .iter()
                        .take(6)
                        .map(|&(accelerators, nodes)| NodeSize {
                            accelerators,
                            nodes,
                        })
                        .collect(),
                ),
                accelerator: name,
                per_node: settings.int(N_GPUS_PER_NODE),
                span: settings.span(N_GPUS_PER_NODE),
            }
            .into(),
        );
    }
    out
}

/// The cluster's findings ([`check_against_slots`](resource_pool_core::check::check_against_slots)) that
/// verl's own findings (`verl`, from [`cluster_findings`]) do not already say: the generic
/// `too_few_nodes` is dropped when `nnodes_vs_cluster` names the shortage with a count at
/// least as large (`trainer.nnodes=6` on 1 node needs no "at least 2 nodes" after it).
/// A larger bound is kept: the pools' own `nnodes` may ask for more than `trainer.nnodes`.
pub fn unsaid_cluster_findings(
    found: Vec<ClusterFinding>,
    verl: &[VerlDiagnostic],
) -> Vec<ClusterFinding> {
    let nnodes = verl.iter().find_map(|d| match d {
        VerlDiagnostic::Cluster(VerlClusterDiagnostic::NnodesExceedAlive { nnodes, .. }) => {
            Some(*nnodes)
        }
        _ => None,
    });
    found
        .into_iter()
        .filter(|f| match (f, nnodes) {
            (ClusterFinding::TooFewAliveNodes { needed, .. }, Some(nnodes)) => {
                i64::try_from(*needed).is_ok_and(|needed| needed > nnodes)
            }
            _ => true,
        })
        .collect()
}

/// Whether node-slots of `pools` (each a slot size and a count) fit, by accelerator count
/// alone, on `nodes` (counts, each with how many nodes have it): larger slots first, each
/// on the nodes with the most left. A lower bound's kind of question (CPUs and the order
/// Ray creates groups in are the placement check's), answered per run of equal nodes so
/// that 100,000 nodes of one size take one step.
fn fit_on_filled(nodes: &[(u64, usize)], pools: &[(u64, u64)]) -> bool {
    let mut left: std::collections::BTreeMap<u64, u64> = std::collections::BTreeMap::new();
    for &(count, n) in nodes {
        *left.entry(count).or_default() += n as u64;
    }
    let mut pools = pools.to_vec();
    pools.sort_unstable_by_key(|&(size, _)| std::cmp::Reverse(size));
    for (size, mut need) in pools {
        while need > 0 {
            let Some((&most, &n)) = left.iter().next_back() else {
                return false;
            };
            if most < size {
                return false;
            }
            let per_node = most / size;
            // Whole nodes of this run filled with `per_node` slots each, else one node
            // taking what is left to place.
            let (nodes, slots) = match (need / per_node).min(n) {
                0 => (1, need),
                whole => (whole, per_node),
            };
            if n == nodes {
                left.remove(&most);
            } else {
                left.insert(most, n - nodes);
            }
            *left.entry(most - slots * size).or_default() += nodes;
            need -= nodes * slots;
        }
    }
    true
}

/// The check's Ray findings in verl's terms: the generic `ray::hangs` and
/// `ray::depends_on_ties` diagnostics are replaced by [`VerlClusterDiagnostic::RayHangs`], which
/// names the settings and where Ray puts each pool. Returns the check diagnostics kept and
/// the verl ones.
pub fn ray_findings(
    settings: &VerlSettings,
    report: &CheckReport,
    cluster: &Cluster,
) -> (Vec<CheckDiagnostic>, Vec<VerlDiagnostic>) {
    let kept: Vec<CheckDiagnostic> = report
        .diagnostics
        .iter()
        .filter(|d| {
            !matches!(
                d,
                CheckDiagnostic::RayHangs { .. } | CheckDiagnostic::RayDependsOnTies { .. }
            )
        })
        .cloned()
        .collect();
    let replaced = kept.len() < report.diagnostics.len();
    if !replaced
        || !matches!(
            report.ray.verdict,
            RayVerdict::Hangs | RayVerdict::DependsOnTies
        )
    {
        return (report.diagnostics.clone(), Vec::new());
    }
    let branch = &report.ray.representative;
    let Some((pending_slot, pending)) = branch.first_pending() else {
        return (report.diagnostics.clone(), Vec::new());
    };
    let keys: Vec<_> = settings
        .pool_keys()
        .iter()
        .take(report.pools.len())
        .flat_map(|p| [p.nnodes, p.gpus])
        .collect();
    let shown = keys
        .iter()
        .map(|&k| KeyValue {
            key: KEYS[k].path,
            value: settings.get(k).value.to_string(),
        })
        .collect();
    let placed = report
        .pools
        .iter()
        .enumerate()
        .map(|(p, pool)| PoolPlacement {
            pool: pool.name.clone(),
            nodes: branch
                .groups
                .iter()
                .enumerate()
                .filter(|(i, _)| report.slots[*i].pool == p)
                .filter_map(|(_, g)| match g {
                    GroupFate::Placed { node } => cluster.nodes.get(*node).map(Node::name),
                    _ => None,
                })
                .collect(),
        })
        .filter(|p| !p.nodes.is_empty())
        .collect();
    let slot = &report.slots[pending_slot];
    let cause = if report.ray.verdict == RayVerdict::DependsOnTies {
        HangCause::DependsOnTies
    } else if report.feasible() == Some(true) {
        HangCause::OrderMissesPlacement
    } else {
        HangCause::TieBreaks
    };
    let remedy = if report.pools.len() > 1 {
        let reward = report.pools.iter().any(|p| p.name == crate::REWARD_POOL);
        let switch = (settings.reward_keys())
            .filter(|_| reward)
            .map(|(switch, _, _)| KEYS[switch].path);
        HangRemedy::ResizePools { switch }
    } else {
        HangRemedy::NodeSizedSlots
    };
    let hang = VerlClusterDiagnostic::RayHangs {
        settings: Listed(shown),
        placed: Placements(placed),
        pool: report.pools[slot.pool].name.clone(),
        slot: slot.slot,
        state: pending.state.to_string(),
        nearest: pending
            .nearest
            .as_ref()
            .map_or_else(|| "no node is alive".to_owned(), |n| format!("nearest {n}")),
        cause,
        remedy,
        span: resource_pool_core::check::SlotSpans::pool_span(settings, slot.pool)
            .map(|s| resource_pool_core::source::to_source_span(&s)),
    }
    .into();
    (kept, vec![hang])
}

/// Placement diagnostics point at the settings that size each pool.
impl SlotSpans for VerlSettings {
    fn pool_span(&self, pool: PoolId) -> Option<Span> {
        let keys = self.pool_keys().get(pool).copied()?;
        [keys.nnodes, keys.gpus]
            .iter()
            .find_map(|&k| self.get(k).origin.span())
    }

    fn slot_span(&self, pool: PoolId, _slot: usize) -> Option<Span> {
        self.pool_span(pool)
    }

    fn wording(&self) -> LayoutWording {
        crate::remedy_words::VerlWords::wording()
    }
}

#[cfg(test)]
mod tests {
    use super::{
        ClusterFinding, VerlClusterDiagnostic, VerlDiagnostic, fit_on_filled,
        unsaid_cluster_findings,
    };
    use crate::{AliveNodes, OriginKind};

    /// `too_few_nodes` after `nnodes_vs_cluster` says nothing new when its bound is at
    /// most `trainer.nnodes`; a larger bound (pools of their own) and the other findings
    /// stay, and without `nnodes_vs_cluster` nothing is dropped.
    #[test]
    fn too_few_nodes_is_not_said_twice() {
        let too_few = |needed| ClusterFinding::TooFewAliveNodes {
            alive: 3,
            needed,
            dead: 0,
            listed_by: resource_pool_core::check::ClusterWording::default(),
            written: crate::remedy_words::VerlWords::wording(),
        };
        let missing = ClusterFinding::MissingResource {
            resource: "x".into(),
            slots: 1,
        };
        let nnodes = VerlDiagnostic::Cluster(VerlClusterDiagnostic::NnodesExceedAlive {
            nnodes: 4,
            alive: AliveNodes(3),
            span: None,
            origin: OriginKind::CommandLine,
        });
        let found = || vec![too_few(4), missing.clone()];
        assert_eq!(
            unsaid_cluster_findings(found(), std::slice::from_ref(&nnodes)),
            std::slice::from_ref(&missing)
        );
        assert_eq!(unsaid_cluster_findings(found(), &[]), found());
        assert_eq!(
            unsaid_cluster_findings(vec![too_few(5)], &[nnodes]),
            [too_few(5)]
        );
    }

    #[test]
    fn slots_fit_on_the_nodes_they_fill_by_count() {
        // Two 8s on two 8-GPU nodes; a third needs another.
        assert!(fit_on_filled(&[(8, 2)], &[(8, 2)]));
        assert!(!fit_on_filled(&[(8, 2)], &[(8, 3)]));
        // Fours share an 8-GPU node; a 16-GPU node holds two 8s.
        assert!(fit_on_filled(&[(8, 1), (4, 1)], &[(4, 3)]));
        assert!(!fit_on_filled(&[(8, 1), (4, 1)], &[(4, 4)]));
        assert!(fit_on_filled(&[(16, 1)], &[(8, 2)]));
        // An 8 and two 4s: not on an 8 and a 4, but on two 8s.
        assert!(!fit_on_filled(&[(8, 1), (4, 1)], &[(4, 2), (8, 1)]));
        assert!(fit_on_filled(&[(8, 2)], &[(4, 2), (8, 1)]));
        // A run of 100,000 nodes is one step, not 100,000.
        assert!(fit_on_filled(&[(8, 100_000)], &[(8, 100_000)]));
        assert!(!fit_on_filled(&[], &[(8, 1)]));
    }
}
