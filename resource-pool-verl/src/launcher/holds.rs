//! What verl holds before its first placement group, and where Ray puts it: the
//! `TaskRunner`'s CPU (0.5.0-0.8.0), or TransferQueue's controller and storage units (0.9,
//! whose `TaskRunnerV1` needs a CPU free to start but holds none).
//!
//! Ray 2.60 schedules these actors with its hybrid policy (`hybrid_scheduling_policy.cc`):
//! a request without GPUs tries the nodes without GPUs first; among the nodes that have the
//! CPU free, the owner's node (the driver's, the head under `ray job submit`) wins unless
//! another is less used, "used" being a node's CPU use when it is at least half, else 0;
//! otherwise the least used, ties broken by Ray's own node order (the cluster's order
//! stands in for it). With no node free now, the actor waits on a node that could hold it.
//! TransferQueue pins each storage unit to a node (hard affinity), round-robin over the
//! alive nodes in the order of their node ids: a unit whose node is busy waits, and with it
//! verl; one whose node has no CPU at all is refused at once, and verl stops.
//!
//! Held CPUs come off a node's available CPUs only: Ray judges a group infeasible against a
//! node's total, which actors do not lower.

use resource_pool_core::check::SlotSpans;
use resource_pool_core::model::{Amount, Cluster, names};

use super::diagnostics::{HeldBy, LaunchDiagnostic, VerlRelease};
use crate::releases::{Driver, Release};

/// CPUs verl holds on a node from before its first group on.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Hold {
    /// The node, by its index in the cluster.
    #[serde(skip)]
    pub node: usize,
    /// The node's id.
    #[serde(rename = "node")]
    pub node_id: String,
    /// The CPUs held.
    pub cpus: u32,
    /// What holds them.
    pub by: HeldBy,
}

/// `cluster` with what `release` holds taken off each node's available CPUs (they are not
/// the groups'), and the holds; an actor that cannot start is a finding that stops verl.
pub(super) fn hold(
    release: &Release,
    cluster: &Cluster,
    _spans: &dyn SlotSpans,
    findings: &mut Vec<LaunchDiagnostic>,
) -> (Cluster, Vec<Hold>) {
    let mut held = Held {
        cluster: cluster.clone(),
        holds: Vec::new(),
        release: VerlRelease(release.version),
    };
    let driver = cluster.head();
    match release.driver {
        Driver::TaskRunner => {
            let placed = hybrid(&held.cluster, driver);
            held.take(placed, HeldBy::TaskRunner, findings);
        }
        Driver::TransferQueue { units } => {
            // `TaskRunnerV1` needs a CPU free to start, and owns what it starts.
            let runner = match hybrid(&held.cluster, driver) {
                Placed::On(node) => node,
                placed => return held.pends(placed, HeldBy::TaskRunner, findings),
            };
            let placed = hybrid(&held.cluster, Some(runner));
            if !held.take(placed, HeldBy::TransferQueueController, findings) {
                return (held.cluster, held.holds);
            }
            held.storage_units(units, findings);
        }
    }
    (held.cluster, held.holds)
}

/// Where Ray puts an actor of one CPU.
enum Placed {
    /// On a node with the CPU free.
    On(usize),
    /// Nowhere now: it waits on a node that could hold it.
    Waits(Option<usize>),
    /// On no node, ever.
    Never,
}

/// Where Ray's hybrid policy puts an actor of one CPU (no GPU) owned by a process on
/// `owner`: the nodes without GPUs that have the CPU free first, then any with it free,
/// then it waits on one whose total could hold it.
fn hybrid(cluster: &Cluster, owner: Option<usize>) -> Placed {
    let alive: Vec<usize> = (0..cluster.nodes.len())
        .filter(|&i| cluster.nodes[i].alive)
        .collect();
    let free: Vec<usize> = alive
        .iter()
        .copied()
        .filter(|&i| free_cpus(cluster, i) >= 1)
        .collect();
    let without_gpus: Vec<usize> = free
        .iter()
        .copied()
        .filter(|&i| !has_gpus(cluster, i))
        .collect();
    for candidates in [&without_gpus, &free] {
        if let Some(node) = least_used(cluster, candidates, owner) {
            return Placed::On(node);
        }
    }
    let feasible: Vec<usize> = alive
        .into_iter()
        .filter(|&i| total_cpus(cluster, i) >= 1)
        .collect();
    match feasible.is_empty() {
        true => Placed::Never,
        false => Placed::Waits(least_used(cluster, &feasible, owner)),
    }
}

/// Ray's pick among `candidates`: the owner's node when no candidate is less used, else
/// the least used, the first listed among equals.
fn least_used(cluster: &Cluster, candidates: &[usize], owner: Option<usize>) -> Option<usize> {
    let best = (candidates.iter().copied()).min_by(|&a, &b| {
        let (ua, ub) = (use_score(cluster, a), use_score(cluster, b));
        ua.total_cmp(&ub).then(a.cmp(&b))
    })?;
    match owner.filter(|o| candidates.contains(o)) {
        Some(owner) if use_score(cluster, owner) <= use_score(cluster, best) => Some(owner),
        _ => Some(best),
    }
}

/// A node's use as Ray's hybrid policy scores it: its CPU use (1 - free / total), counted
/// from half on, else 0.
fn use_score(cluster: &Cluster, node: usize) -> f64 {
    let total = total_cpus(cluster, node);
    if total == 0 {
        return 0.0;
    }
    let used = 1.0 - free_cpus(cluster, node) as f64 / total as f64;
    if used < 0.5 { 0.0 } else { used }
}

/// The cluster as the holds leave it, and the holds.
struct Held {
    cluster: Cluster,
    holds: Vec<Hold>,
    release: VerlRelease,
}

impl Held {
    /// A CPU held by `by` where it is placed; `false`, with the finding, when it cannot
    /// start (it waits, or no node could ever hold it) and verl waits forever.
    fn take(&mut self, placed: Placed, by: HeldBy, findings: &mut Vec<LaunchDiagnostic>) -> bool {
        let Placed::On(node) = placed else {
            self.pends(placed, by, findings);
            return false;
        };
        take_cpu(&mut self.cluster, node);
        self.holds.push(Hold {
            node,
            node_id: self.cluster.nodes[node].id.clone(),
            cpus: 1,
            by,
        });
        true
    }

    /// The finding of an actor that cannot start; the cluster and holds as they are.
    fn pends(
        &mut self,
        placed: Placed,
        by: HeldBy,
        findings: &mut Vec<LaunchDiagnostic>,
    ) -> (Cluster, Vec<Hold>) {
        let node = match placed {
            Placed::Waits(node) => node.map(|n| self.cluster.nodes[n].id.clone()),
            _ => None,
        };
        let release = self.release;
        findings.push(LaunchDiagnostic::DriverPends { release, by, node });
        (self.cluster.clone(), self.holds.clone())
    }

    /// TransferQueue's storage units, pinned round-robin to the alive nodes in the order
    /// of their ids, all started at once: each is held where its CPU is free. One whose node
    /// has no CPU at all is refused at once and verl stops; else one whose node is busy
    /// waits, and verl with it.
    fn storage_units(&mut self, units: u32, findings: &mut Vec<LaunchDiagnostic>) {
        let nodes = &self.cluster.nodes;
        let mut alive: Vec<usize> = (0..nodes.len()).filter(|&i| nodes[i].alive).collect();
        alive.sort_by(|&a, &b| nodes[a].id.cmp(&nodes[b].id));
        let release = self.release;
        let (mut refused, mut waiting) = (None, None);
        for unit in 0..units {
            let Some(&node) = alive.get(unit as usize % alive.len().max(1)) else {
                break;
            };
            let by = HeldBy::StorageUnit(unit);
            let node_id = self.cluster.nodes[node].id.clone();
            if total_cpus(&self.cluster, node) < 1 {
                refused.get_or_insert(LaunchDiagnostic::DriverFails {
                    release,
                    by,
                    node: node_id,
                });
            } else if free_cpus(&self.cluster, node) >= 1 {
                self.take(Placed::On(node), by, findings);
            } else {
                let node = Some(node_id);
                waiting.get_or_insert(LaunchDiagnostic::DriverPends { release, by, node });
            }
        }
        findings.extend(refused.or(waiting));
    }
}

/// The whole CPUs free on a node.
fn free_cpus(cluster: &Cluster, node: usize) -> u64 {
    cluster.nodes[node].available.get(names::CPU).units() / Amount::SCALE
}

/// The whole CPUs a node has in all (what is free, where its total is not known).
fn total_cpus(cluster: &Cluster, node: usize) -> u64 {
    let node = &cluster.nodes[node];
    let total = node.total.as_ref().unwrap_or(&node.available);
    total.get(names::CPU).units() / Amount::SCALE
}

/// Whether a node has GPUs (in all, where its total is known).
fn has_gpus(cluster: &Cluster, node: usize) -> bool {
    let node = &cluster.nodes[node];
    let total = node.total.as_ref().unwrap_or(&node.available);
    !total.get(names::GPU).is_zero()
}

/// One CPU off a node's available CPUs.
fn take_cpu(cluster: &mut Cluster, node: usize) {
    let one = Amount::from_units(Amount::SCALE);
    let node = &mut cluster.nodes[node];
    let left = node.available.get(names::CPU).saturating_sub(one);
    node.available.set(names::CPU, left);
}
