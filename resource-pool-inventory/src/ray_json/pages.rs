//! The answer of each endpoint, parsed: nodes, usage by node, placement groups.

use std::collections::BTreeMap;

use super::wire::{ListData, StatusData, WireGroup, WireNode, amount, envelope, resources};
use super::{Endpoint, RayJsonError};
use crate::{GroupRef, NodeRef};
use resource_pool_core::model::{Amount, Resources};

/// A node as `/api/v0/nodes?detail=1` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RayNode {
    /// Ray's node id.
    pub id: String,
    /// `node_ip`.
    pub address: Option<String>,
    /// `state`: `ALIVE` or `DEAD`.
    pub state: String,
    /// `state_message`, such as why it died.
    pub state_message: Option<String>,
    /// `resources_total` without Ray's internal resources, by exact name.
    pub total: Resources,
    /// `labels`.
    pub labels: BTreeMap<String, String>,
    /// Whether it is the head node (`is_head_node`, or the head's own
    /// `node:__internal_head__` resource).
    pub head: bool,
}

impl RayNode {
    /// Whether Ray says it is alive.
    pub fn is_alive(&self) -> bool {
        self.state == "ALIVE"
    }

    pub(super) fn node_ref(&self) -> NodeRef {
        NodeRef {
            id: self.id.clone(),
            address: self.address.clone(),
        }
    }
}

/// The resource Ray gives its head node alone.
const HEAD_RESOURCE: &str = "node:__internal_head__";

/// The nodes endpoint's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodesPage {
    /// `data.result.total`: every node Ray knows, also past the page.
    pub total: u64,
    /// The nodes returned.
    pub nodes: Vec<RayNode>,
    /// `partial_failure_warning`, when not empty.
    pub partial_warning: Option<String>,
}

/// Used and total amounts of one resource on one node, as the cluster status reports them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Usage {
    /// Used (including placement-group reservations).
    pub used: Amount,
    /// What the node has in all (`resources_total`).
    pub total: Amount,
}

/// The cluster status endpoint's answer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClusterUsage {
    /// `usageByNode`, by node id and then by camel-cased resource key; `None` when Ray
    /// sent none (`clusterStatus: null` under autoscaler v2).
    pub by_node: Option<BTreeMap<String, BTreeMap<String, Usage>>>,
}

/// One bundle of a placement group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RayBundle {
    /// `unit_resources`, without Ray's internal resources.
    pub resources: Resources,
    /// The node it is placed on; `None` while pending.
    pub node_id: Option<String>,
}

/// A placement group as `/api/v0/placement_groups?detail=1` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RayGroup {
    /// `placement_group_id`.
    pub id: String,
    /// `name` (may be empty).
    pub name: String,
    /// `creator_job_id`.
    pub job: String,
    /// `state`: `PENDING`, `CREATED`, `REMOVED`, `RESCHEDULING`.
    pub state: String,
    /// `stats.scheduling_state`: `FINISHED`, `NO_RESOURCES`, `INFEASIBLE`, ...
    pub scheduling_state: String,
    /// The group's bundles, in Ray's order.
    pub bundles: Vec<RayBundle>,
}

impl RayGroup {
    pub(super) fn group_ref(&self) -> GroupRef {
        GroupRef {
            id: self.id.clone(),
            name: self.name.clone(),
        }
    }

    /// Whether it still holds or waits for resources (not removed).
    pub fn is_live(&self) -> bool {
        self.state != "REMOVED"
    }

    /// Whether it waits to be (re)scheduled.
    pub fn is_waiting(&self) -> bool {
        self.state == "PENDING" || self.state == "RESCHEDULING"
    }
}

/// The placement groups endpoint's answer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GroupsPage {
    /// `data.result.total`.
    pub total: u64,
    /// The groups returned.
    pub groups: Vec<RayGroup>,
}

/// Parses `/api/v0/nodes?detail=1` (Ray's internal resources dropped).
pub fn parse_nodes(body: &[u8]) -> Result<NodesPage, RayJsonError> {
    let endpoint = Endpoint::Nodes;
    let data: ListData<WireNode> = envelope(endpoint, body)?;
    let mut nodes = Vec::with_capacity(data.result.result.len());
    for wire in data.result.result {
        let owner = format!("node {}", wire.node_id);
        let head = wire.is_head_node.unwrap_or_else(|| {
            wire.resources_total
                .as_ref()
                .is_some_and(|t| t.contains_key(HEAD_RESOURCE))
        });
        let total = resources(endpoint, &owner, wire.resources_total)?;
        nodes.push(RayNode {
            id: wire.node_id,
            address: wire.node_ip.filter(|ip| !ip.is_empty()),
            state: wire.state,
            state_message: wire.state_message.filter(|m| !m.is_empty()),
            total,
            labels: wire.labels.unwrap_or_default(),
            head,
        });
    }
    Ok(NodesPage {
        total: data.result.total,
        nodes,
        partial_warning: data
            .result
            .partial_failure_warning
            .filter(|w| !w.is_empty()),
    })
}

/// Parses `/api/cluster_status` (the unformatted one, without `format=1`).
pub fn parse_cluster_status(body: &[u8]) -> Result<ClusterUsage, RayJsonError> {
    let endpoint = Endpoint::ClusterStatus;
    let data: StatusData = envelope(endpoint, body)?;
    let Some(raw) = data
        .cluster_status
        .and_then(|s| s.load_metrics_report)
        .and_then(|l| l.usage_by_node)
    else {
        return Ok(ClusterUsage { by_node: None });
    };
    // Collected from the sorted maps serde read: each map is built in bulk, not key by key.
    let by_node = raw
        .into_iter()
        .map(|(node, usage)| {
            let out = usage
                .into_iter()
                .map(|(key, (used, total))| {
                    let what = || format!("node {node}: {key}");
                    let used = amount(endpoint, || format!("{} (used)", what()), used)?;
                    let total = amount(endpoint, || format!("{} (total)", what()), total)?;
                    Ok((key, Usage { used, total }))
                })
                .collect::<Result<BTreeMap<_, _>, RayJsonError>>()?;
            Ok((node, out))
        })
        .collect::<Result<BTreeMap<_, _>, RayJsonError>>()?;
    Ok(ClusterUsage {
        by_node: Some(by_node),
    })
}

/// Parses `/api/v0/placement_groups?detail=1`.
pub fn parse_placement_groups(body: &[u8]) -> Result<GroupsPage, RayJsonError> {
    let endpoint = Endpoint::PlacementGroups;
    let data: ListData<WireGroup> = envelope(endpoint, body)?;
    let mut groups = Vec::with_capacity(data.result.result.len());
    for wire in data.result.result {
        let owner = format!("group {}", wire.placement_group_id);
        let mut bundles = Vec::new();
        for (i, bundle) in wire.bundles.unwrap_or_default().into_iter().enumerate() {
            bundles.push(RayBundle {
                resources: resources(
                    endpoint,
                    &format!("{owner} bundle {i}"),
                    bundle.unit_resources,
                )?,
                node_id: bundle.node_id.filter(|id| !id.is_empty()),
            });
        }
        groups.push(RayGroup {
            id: wire.placement_group_id,
            name: wire.name.unwrap_or_default(),
            job: wire.creator_job_id.unwrap_or_default(),
            state: wire.state,
            scheduling_state: wire
                .stats
                .and_then(|s| s.scheduling_state)
                .unwrap_or_default(),
            bundles,
        });
    }
    Ok(GroupsPage {
        total: data.result.total,
        groups,
    })
}
