//! What verl holds before its first placement group, and where Ray puts it: the
//! `TaskRunner`'s CPU (0.5.0-0.8.0), or TransferQueue's controller and storage units (0.9).
//!
//! An actor of the driver goes, under Ray's default scheduling, to the driver's own node
//! while that node has room: the head, where `ray job submit` runs the driver (and where
//! people run `python3 -m verl.trainer.main_ppo`). When the head has no CPU free it goes to
//! another node; the one with the most CPUs free stands in for Ray's choice among the
//! least used. TransferQueue pins each storage unit to a node (hard affinity), round-robin
//! over the alive nodes in the order of their node ids: a unit whose node has no CPU free
//! waits forever, and with it verl.

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

/// `cluster` with what `release` holds taken off each node's available and total (they are
/// not the groups'), and the holds; a hold that finds no CPU is a finding that stops verl.
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
    match release.driver {
        Driver::TaskRunner => {
            let node = beside_the_driver(&held.cluster);
            held.take(node, HeldBy::TaskRunner, findings);
        }
        Driver::TransferQueue { units } => {
            let node = beside_the_driver(&held.cluster);
            held.take(node, HeldBy::TransferQueueController, findings);
            let nodes = &held.cluster.nodes;
            let mut alive: Vec<usize> = (0..nodes.len()).filter(|&i| nodes[i].alive).collect();
            alive.sort_by(|&a, &b| nodes[a].id.cmp(&nodes[b].id));
            for unit in 0..units {
                let Some(&node) = alive.get(unit as usize % alive.len().max(1)) else {
                    break;
                };
                let pinned = (free_cpus(&held.cluster, node) >= 1).then_some(node);
                let by = HeldBy::StorageUnit(unit);
                match pinned {
                    Some(node) => held.take(Some(node), by, findings),
                    None => findings.push(LaunchDiagnostic::DriverPends {
                        release: held.release,
                        by,
                        node: Some(held.cluster.nodes[node].id.clone()),
                    }),
                }
            }
        }
    }
    (held.cluster, held.holds)
}

/// The cluster as the holds leave it, and the holds.
struct Held {
    cluster: Cluster,
    holds: Vec<Hold>,
    release: VerlRelease,
}

impl Held {
    /// A CPU held on `node` by `by`; `None`: no node has one, and verl waits forever.
    fn take(&mut self, node: Option<usize>, by: HeldBy, findings: &mut Vec<LaunchDiagnostic>) {
        let Some(node) = node else {
            findings.push(LaunchDiagnostic::DriverPends {
                release: self.release,
                by,
                node: None,
            });
            return;
        };
        take_cpu(&mut self.cluster, node);
        self.holds.push(Hold {
            node,
            node_id: self.cluster.nodes[node].id.clone(),
            cpus: 1,
            by,
        });
    }
}

/// Where an actor of the driver goes: the head while it has a CPU free, else the alive node
/// with the most CPUs free; `None` when no alive node has one.
fn beside_the_driver(cluster: &Cluster) -> Option<usize> {
    if let Some(head) = cluster.head().filter(|&h| free_cpus(cluster, h) >= 1) {
        return Some(head);
    }
    (0..cluster.nodes.len())
        .filter(|&i| cluster.nodes[i].alive && free_cpus(cluster, i) >= 1)
        .max_by_key(|&i| (free_cpus(cluster, i), std::cmp::Reverse(i)))
}

/// The whole CPUs free on a node.
fn free_cpus(cluster: &Cluster, node: usize) -> u64 {
    cluster.nodes[node].available.get(names::CPU).units() / Amount::SCALE
}

/// One CPU off a node's available and total.
fn take_cpu(cluster: &mut Cluster, node: usize) {
    let one = Amount::from_units(Amount::SCALE);
    let node = &mut cluster.nodes[node];
    let left = node.available.get(names::CPU).saturating_sub(one);
    node.available.set(names::CPU, left);
    if let Some(total) = &mut node.total {
        let left = total.get(names::CPU).saturating_sub(one);
        total.set(names::CPU, left);
    }
}
