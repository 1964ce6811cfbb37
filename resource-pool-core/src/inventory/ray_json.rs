//! The bodies of Ray's dashboard endpoints, parsed into an [`Inventory`].
//!
//! Three endpoints (Ray 2.x, dashboard port 8265 by default), see [`Endpoint`]:
//! - `/api/v0/nodes?detail=1&limit=N`: each node's id, address, state, exact resource
//!   names and totals, and labels; `data.result.total` counts every node, also past the
//!   limit, so a truncated answer is detected ([`RayJsonError::Truncated`]).
//! - `/api/cluster_status`: `usageByNode`, `{node id: {resource: [used, total]}}`, whose
//!   resource keys are camel-cased ([`to_camel_case`]) and are mapped back through the
//!   exact names of the first endpoint. Placement-group reservations count as used, so
//!   available = total - used. `clusterStatus` is `null` under autoscaler v2: then
//!   available = total - what placement groups reserve, and a note says so.
//! - `/api/v0/placement_groups?detail=1&limit=N`: each group's state and bundles, for the
//!   "busy now" notes (and the fallback above). Ray's status lags a few seconds behind the
//!   groups, so available is also capped by total - reserved.
//!
//! Ray's internal resources ([`names::is_ray_internal`]) are ignored. Dead nodes are left
//! out of the cluster and reported as [`InventoryNote::DeadNode`]. Every malformed body
//! (not JSON, wrong shape, negative, non-finite or huge numbers) is a typed
//! [`RayJsonError`], never a panic; nesting is bounded by serde_json's recursion limit,
//! and the caller bounds the body's size.

use std::collections::BTreeMap;
use std::fmt;
use std::net::IpAddr;

use serde::Deserialize;

use super::{GroupRef, Inventory, InventoryNote, NodeRef};
use crate::model::{Amount, AmountError, Cluster, Node, Resources, names};

/// Ray's largest page (`RAY_MAX_LIMIT_FROM_API_SERVER`): the `limit` we ask for.
pub const DEFAULT_LIMIT: usize = 10_000;

/// One of the dashboard endpoints we read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Endpoint {
    /// `/api/v0/nodes?detail=1&limit=N`.
    Nodes,
    /// `/api/cluster_status`.
    ClusterStatus,
    /// `/api/v0/placement_groups?detail=1&limit=N`.
    PlacementGroups,
}

impl Endpoint {
    /// Every endpoint, in the order they are read.
    pub const ALL: [Endpoint; 3] = [
        Endpoint::Nodes,
        Endpoint::ClusterStatus,
        Endpoint::PlacementGroups,
    ];

    /// The path and query to request, asking for at most `limit` entries.
    pub fn path(self, limit: usize) -> String {
        match self {
            Endpoint::Nodes => format!("/api/v0/nodes?detail=1&limit={limit}"),
            Endpoint::ClusterStatus => "/api/cluster_status".to_owned(),
            Endpoint::PlacementGroups => format!("/api/v0/placement_groups?detail=1&limit={limit}"),
        }
    }

    /// The path without the query, for messages.
    pub fn bare_path(self) -> &'static str {
        match self {
            Endpoint::Nodes => "/api/v0/nodes",
            Endpoint::ClusterStatus => "/api/cluster_status",
            Endpoint::PlacementGroups => "/api/v0/placement_groups",
        }
    }
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.bare_path())
    }
}

/// Why a dashboard body does not make an inventory.
#[derive(Clone, Debug, PartialEq, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[serde(untagged)]
pub enum RayJsonError {
    /// Not JSON, or JSON of another shape than Ray's.
    #[error("the answer of {endpoint} is not what Ray 2.x sends: {detail}")]
    #[diagnostic(
        code(resource_pool::ray::bad_body),
        help(
            "check that the URL is Ray's dashboard (default port 8265, `ray[default]` installed on the head) and not another service or a proxy's error page"
        )
    )]
    BadBody {
        /// The endpoint.
        #[serde(serialize_with = "crate::source::as_text")]
        endpoint: Endpoint,
        /// What was wrong, with serde_json's line and column.
        detail: String,
    },
    /// Ray answered `result: false`.
    #[error("Ray's {endpoint} failed: {message}")]
    #[diagnostic(
        code(resource_pool::ray::api_failed),
        help(
            "retry in a moment; if it persists, look at the dashboard's log (`/tmp/ray/session_latest/logs/dashboard.log` on the head)"
        )
    )]
    ApiFailed {
        /// The endpoint.
        #[serde(serialize_with = "crate::source::as_text")]
        endpoint: Endpoint,
        /// Ray's `msg`.
        message: String,
    },
    /// A resource amount is negative, not finite or too large.
    #[error("{endpoint}: {what} = {value} {problem}")]
    #[diagnostic(
        code(resource_pool::ray::bad_number),
        help(
            "Ray reports amounts as finite, non-negative numbers; this answer is corrupt or not from Ray"
        )
    )]
    BadNumber {
        /// The endpoint.
        #[serde(serialize_with = "crate::source::as_text")]
        endpoint: Endpoint,
        /// Where: node or group and resource.
        what: String,
        /// The number as read.
        value: f64,
        /// What is wrong with it.
        #[serde(serialize_with = "crate::source::as_text")]
        problem: AmountError,
    },
    /// Ray returned fewer entries than it has.
    #[error("{endpoint} returned {returned} of {total} entries")]
    #[diagnostic(
        code(resource_pool::ray::truncated),
        help(
            "ask for a larger page (the `limit` parameter, at most {DEFAULT_LIMIT} by Ray's default `RAY_MAX_LIMIT_FROM_API_SERVER`)"
        )
    )]
    Truncated {
        /// The endpoint.
        #[serde(serialize_with = "crate::source::as_text")]
        endpoint: Endpoint,
        /// Entries that exist.
        total: u64,
        /// Entries returned.
        returned: usize,
    },
    /// Two nodes share an id.
    #[error("{endpoint} lists node `{id}` twice")]
    #[diagnostic(
        code(resource_pool::ray::bad_body),
        help("this answer is corrupt or not from Ray")
    )]
    DuplicateNode {
        /// The endpoint.
        #[serde(serialize_with = "crate::source::as_text")]
        endpoint: Endpoint,
        /// The id.
        id: String,
    },
}

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
}

impl RayNode {
    /// Whether Ray says it is alive.
    pub fn is_alive(&self) -> bool {
        self.state == "ALIVE"
    }

    fn node_ref(&self) -> NodeRef {
        NodeRef {
            id: self.id.clone(),
            address: self.address.clone(),
        }
    }
}

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
    /// Total.
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
    /// Its bundles.
    pub bundles: Vec<RayBundle>,
}

impl RayGroup {
    fn group_ref(&self) -> GroupRef {
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

// ---- Wire shapes (only the fields we read; serde skips the rest). ----

#[derive(Deserialize)]
struct Envelope<T> {
    result: bool,
    #[serde(default)]
    msg: Option<String>,
    #[serde(default = "Option::default")]
    data: Option<T>,
}

#[derive(Deserialize)]
struct ListData<T> {
    result: ListResult<T>,
}

#[derive(Deserialize)]
struct ListResult<T> {
    total: u64,
    result: Vec<T>,
    #[serde(default)]
    partial_failure_warning: Option<String>,
}

#[derive(Deserialize)]
struct WireNode {
    node_id: String,
    #[serde(default)]
    node_ip: Option<String>,
    state: String,
    #[serde(default)]
    state_message: Option<String>,
    #[serde(default)]
    resources_total: Option<BTreeMap<String, f64>>,
    #[serde(default)]
    labels: Option<BTreeMap<String, String>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StatusData {
    #[serde(default)]
    cluster_status: Option<WireClusterStatus>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireClusterStatus {
    #[serde(default)]
    load_metrics_report: Option<WireLoadMetrics>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireLoadMetrics {
    #[serde(default)]
    usage_by_node: Option<BTreeMap<String, WireUsage>>,
}

/// `{resource key: [used, total]}` of one node.
type WireUsage = BTreeMap<String, (f64, f64)>;

#[derive(Deserialize)]
struct WireGroup {
    placement_group_id: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    creator_job_id: Option<String>,
    state: String,
    #[serde(default)]
    bundles: Option<Vec<WireBundle>>,
    #[serde(default)]
    stats: Option<WireStats>,
}

#[derive(Deserialize)]
struct WireStats {
    #[serde(default)]
    scheduling_state: Option<String>,
}

#[derive(Deserialize)]
struct WireBundle {
    #[serde(default)]
    unit_resources: Option<BTreeMap<String, f64>>,
    #[serde(default)]
    node_id: Option<String>,
}

fn envelope<'a, T: Deserialize<'a>>(endpoint: Endpoint, body: &'a [u8]) -> Result<T, RayJsonError> {
    let envelope: Envelope<T> =
        serde_json::from_slice(body).map_err(|e| RayJsonError::BadBody {
            endpoint,
            detail: e.to_string(),
        })?;
    if !envelope.result {
        return Err(RayJsonError::ApiFailed {
            endpoint,
            message: envelope.msg.unwrap_or_else(|| "no message".to_owned()),
        });
    }
    envelope.data.ok_or_else(|| RayJsonError::BadBody {
        endpoint,
        detail: "`data` is missing or null".to_owned(),
    })
}

fn amount(
    endpoint: Endpoint,
    what: impl FnOnce() -> String,
    value: f64,
) -> Result<Amount, RayJsonError> {
    Amount::from_f64_rounded(value).map_err(|problem| RayJsonError::BadNumber {
        endpoint,
        what: what(),
        value,
        problem,
    })
}

fn resources(
    endpoint: Endpoint,
    owner: &str,
    raw: Option<BTreeMap<String, f64>>,
) -> Result<Resources, RayJsonError> {
    let mut out = Resources::new();
    for (name, value) in raw.unwrap_or_default() {
        if names::is_ray_internal(&name) {
            continue;
        }
        let amount = amount(endpoint, || format!("{owner}: {name}"), value)?;
        out.set(name, amount);
    }
    Ok(out)
}

/// Parses `/api/v0/nodes?detail=1` (Ray's internal resources dropped).
pub fn parse_nodes(body: &[u8]) -> Result<NodesPage, RayJsonError> {
    let endpoint = Endpoint::Nodes;
    let data: ListData<WireNode> = envelope(endpoint, body)?;
    let mut nodes = Vec::with_capacity(data.result.result.len());
    for wire in data.result.result {
        let owner = format!("node {}", wire.node_id);
        let total = resources(endpoint, &owner, wire.resources_total)?;
        nodes.push(RayNode {
            id: wire.node_id,
            address: wire.node_ip.filter(|ip| !ip.is_empty()),
            state: wire.state,
            state_message: wire.state_message.filter(|m| !m.is_empty()),
            total,
            labels: wire.labels.unwrap_or_default(),
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
    let mut by_node = BTreeMap::new();
    for (node, usage) in raw {
        let mut out = BTreeMap::new();
        for (key, (used, total)) in usage {
            let what = || format!("node {node}: {key}");
            let used = amount(endpoint, || format!("{} (used)", what()), used)?;
            let total = amount(endpoint, || format!("{} (total)", what()), total)?;
            out.insert(key, Usage { used, total });
        }
        by_node.insert(node, out);
    }
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

/// Ray's camel-casing of dictionary keys in the cluster status
/// (`ray.dashboard.utils.to_camel_case`): split on `_`, every part after the first
/// title-cased as Python's `str.title` does (`my_custom` -> `myCustom`,
/// `accelerator_type:H100` -> `acceleratorType:H100`, `node:__internal_head__` ->
/// `node:InternalHead`).
pub fn to_camel_case(name: &str) -> String {
    let mut parts = name.split('_');
    let mut out = String::with_capacity(name.len());
    out.push_str(parts.next().unwrap_or_default());
    for part in parts {
        let mut previous_cased = false;
        for c in part.chars() {
            if previous_cased {
                out.extend(c.to_lowercase());
            } else {
                out.extend(c.to_uppercase());
            }
            previous_cased = c.is_lowercase() || c.is_uppercase();
        }
    }
    out
}

/// The three parsed answers, checked and joined into an inventory.
///
/// Errors when a page is truncated (`total` larger than what was returned) or a node is
/// listed twice.
pub fn assemble(
    nodes: NodesPage,
    usage: ClusterUsage,
    groups: GroupsPage,
) -> Result<Inventory, RayJsonError> {
    for (endpoint, total, returned) in [
        (Endpoint::Nodes, nodes.total, nodes.nodes.len()),
        (Endpoint::PlacementGroups, groups.total, groups.groups.len()),
    ] {
        if u64::try_from(returned).is_ok_and(|r| r < total) {
            return Err(RayJsonError::Truncated {
                endpoint,
                total,
                returned,
            });
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    for node in &nodes.nodes {
        if !seen.insert(node.id.as_str()) {
            return Err(RayJsonError::DuplicateNode {
                endpoint: Endpoint::Nodes,
                id: node.id.clone(),
            });
        }
    }

    let mut notes = Vec::new();
    if let Some(warning) = &nodes.partial_warning {
        notes.push(InventoryNote::PartialData {
            endpoint: Endpoint::Nodes.to_string(),
            warning: warning.clone(),
        });
    }

    // What live groups reserve, per node id.
    let mut reserved: BTreeMap<&str, Resources> = BTreeMap::new();
    for group in groups.groups.iter().filter(|g| g.is_live()) {
        for bundle in &group.bundles {
            if let Some(node) = &bundle.node_id {
                let sum = reserved.entry(node.as_str()).or_default();
                for (name, amount) in bundle.resources.iter() {
                    if sum.add(name, amount).is_none() {
                        sum.set(name, Amount::from_units(u64::MAX));
                    }
                }
            }
        }
    }

    if usage.by_node.is_none() {
        notes.push(InventoryNote::UsageFromPlacementGroups {
            reason: "clusterStatus is null, as under autoscaler v2".to_owned(),
        });
    }

    let mut alive = Vec::new();
    for node in &nodes.nodes {
        if !node.is_alive() {
            let reason = match (&node.state_message, node.state.as_str()) {
                (Some(m), "DEAD") => Some(m.clone()),
                (Some(m), state) => Some(format!("state {state}: {m}")),
                (None, "DEAD") => None,
                (None, state) => Some(format!("state {state}")),
            };
            notes.push(InventoryNote::DeadNode {
                node: node.node_ref(),
                reason,
                remedy: super::RAY_DEAD_NODE_REMEDY.to_owned(),
            });
            continue;
        }
        let empty = Resources::new();
        let held = reserved.get(node.id.as_str()).unwrap_or(&empty);
        let by_groups = node.total.saturating_sub(held);
        let node_usage = usage.by_node.as_ref().map(|by| by.get(&node.id));
        let available = match node_usage {
            None => by_groups,
            Some(None) => {
                notes.push(InventoryNote::UsageFromPlacementGroups {
                    reason: format!(
                        "no usage was reported for node {}, which may have just joined",
                        node.node_ref()
                    ),
                });
                by_groups
            }
            Some(Some(reported)) => {
                let (available, ambiguous) = from_usage(&node.total, reported, &by_groups);
                if !ambiguous.is_empty() {
                    notes.push(InventoryNote::AmbiguousResourceNames {
                        node: node.node_ref(),
                        names: ambiguous,
                    });
                }
                available
            }
        };
        alive.push(Node {
            id: node.id.clone(),
            address: node.address.clone(),
            alive: true,
            available,
            total: Some(node.total.clone()),
            labels: node.labels.clone(),
        });
    }
    alive.sort_by_key(node_order);

    let address_of = |id: &str| {
        nodes
            .nodes
            .iter()
            .find(|n| n.id == id)
            .and_then(|n| n.address.clone())
    };
    let is_alive = |id: &str| alive.iter().any(|n| n.id == id);
    for group in groups.groups.iter().filter(|g| g.is_live()) {
        let mut per_node: BTreeMap<&str, Resources> = BTreeMap::new();
        let mut demand = Resources::new();
        for bundle in &group.bundles {
            for (name, amount) in bundle.resources.iter() {
                let _ = demand.add(name, amount);
                if let Some(node) = bundle.node_id.as_deref().filter(|id| is_alive(id)) {
                    let _ = per_node.entry(node).or_default().add(name, amount);
                }
            }
        }
        for (node, resources) in per_node {
            notes.push(InventoryNote::HeldByPlacementGroup {
                group: group.group_ref(),
                job: group.job.clone(),
                node: NodeRef {
                    id: node.to_owned(),
                    address: address_of(node),
                },
                resources,
            });
        }
        if group.is_waiting() {
            notes.push(InventoryNote::PendingPlacementGroup {
                group: group.group_ref(),
                job: group.job.clone(),
                scheduling_state: group.scheduling_state.clone(),
                demand,
            });
        }
    }

    let has_accelerators = alive.iter().any(|n| {
        n.total
            .as_ref()
            .is_some_and(|t| !t.get(names::GPU).is_zero() || !t.get(names::NPU).is_zero())
    });
    if !has_accelerators {
        notes.push(InventoryNote::NoAccelerators);
    }

    Ok(Inventory {
        cluster: Cluster::new(alive),
        notes,
    })
}

/// Available per exact name from the camel-keyed usage, capped by `cap` (total minus what
/// groups reserve, since the status lags); names whose keys collide take `cap`.
fn from_usage(
    total: &Resources,
    reported: &BTreeMap<String, Usage>,
    cap: &Resources,
) -> (Resources, Vec<String>) {
    let mut by_key: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for (name, _) in total.iter() {
        by_key.entry(to_camel_case(name)).or_default().push(name);
    }
    let mut available = Resources::new();
    let mut ambiguous = Vec::new();
    for (key, exact) in by_key {
        if let [name] = exact.as_slice() {
            let own_total = total.get(name);
            let free = match reported.get(&key).or_else(|| reported.get(*name)) {
                Some(usage) => own_total.min(usage.total).saturating_sub(usage.used),
                None => own_total,
            };
            available.set(*name, free.min(cap.get(name)));
        } else {
            for name in exact {
                available.set(name, cap.get(name));
                ambiguous.push(name.to_owned());
            }
        }
    }
    (available, ambiguous)
}

/// Nodes sorted by address (as IP when it parses), then id: a stable order for output.
fn node_order(node: &Node) -> (Option<IpAddr>, Option<String>, String) {
    let ip = node.address.as_deref().and_then(|a| a.parse().ok());
    let text = if ip.is_some() {
        None
    } else {
        node.address.clone()
    };
    (ip, text, node.id.clone())
}

/// Parses the three bodies and joins them: [`parse_nodes`], [`parse_cluster_status`],
/// [`parse_placement_groups`], then [`assemble`].
pub fn parse_inventory(
    nodes: &[u8],
    cluster_status: &[u8],
    placement_groups: &[u8],
) -> Result<Inventory, RayJsonError> {
    assemble(
        parse_nodes(nodes)?,
        parse_cluster_status(cluster_status)?,
        parse_placement_groups(placement_groups)?,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! fixture {
        ($name:literal) => {
            include_bytes!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../tests/data/ray-2.60/",
                $name
            ))
            .as_slice()
        };
    }

    const IDLE_NODES: &[u8] = fixture!("idle_api_v0_nodes_detail.json");
    const IDLE_STATUS: &[u8] = fixture!("idle_api_cluster_status.json");
    const IDLE_GROUPS: &[u8] = fixture!("idle_api_v0_placement_groups_detail.json");
    const HELD_NODES: &[u8] = fixture!("heldpg_api_v0_nodes_detail.json");
    const HELD_STATUS: &[u8] = fixture!("heldpg_api_cluster_status.json");
    const HELD_GROUPS: &[u8] = fixture!("heldpg_api_v0_placement_groups_detail.json");
    const MIXED_NODES: &[u8] = fixture!("mixedpg_api_v0_nodes_detail.json");
    const MIXED_STATUS: &[u8] = fixture!("mixedpg_api_cluster_status.json");
    const MIXED_GROUPS: &[u8] = fixture!("mixedpg_api_v0_placement_groups_detail.json");
    const DEAD_NODES: &[u8] = fixture!("deadnode_api_v0_nodes_detail.json");
    const V2_STATUS: &[u8] = fixture!("autoscaler_v2_api_cluster_status.json");

    fn whole(n: u64) -> Amount {
        Amount::from_whole(n).unwrap_or_default()
    }

    fn res(pairs: &[(&str, u64)]) -> Resources {
        pairs.iter().map(|&(name, n)| (name, whole(n))).collect()
    }

    /// (address, available, total) of each node, in order.
    fn shape(inventory: &Inventory) -> Vec<(String, Resources, Resources)> {
        inventory
            .cluster
            .nodes
            .iter()
            .map(|n| {
                (
                    n.address.clone().unwrap_or_default(),
                    n.available.clone(),
                    n.total.clone().unwrap_or_default(),
                )
            })
            .collect()
    }

    fn big() -> Resources {
        res(&[("GPU", 8), ("CPU", 32)])
    }
    fn small() -> Resources {
        res(&[("GPU", 4), ("CPU", 8)])
    }
    fn h100() -> Resources {
        res(&[
            ("GPU", 4),
            ("CPU", 16),
            ("accelerator_type:H100", 1),
            ("my_custom", 2),
        ])
    }

    #[test]
    fn idle_cluster_node_by_node() {
        let inventory = parse_inventory(IDLE_NODES, IDLE_STATUS, IDLE_GROUPS).unwrap();
        assert_eq!(
            shape(&inventory),
            [
                ("127.0.0.2".into(), big(), big()),
                ("127.0.0.3".into(), small(), small()),
                ("127.0.0.4".into(), h100(), h100()),
            ]
        );
        assert!(inventory.notes.is_empty(), "{:?}", inventory.notes);
        let head = &inventory.cluster.nodes[0];
        assert_eq!(
            head.id,
            "998d0f6441b2ab5b165b2c827979a04d442dfc2b27c607c508cb07c4"
        );
        assert!(head.alive);
        let worker = &inventory.cluster.nodes[2];
        assert_eq!(worker.labels.get("zone").map(String::as_str), Some("z1"));
    }

    #[test]
    fn held_group_is_used_and_named() {
        let inventory = parse_inventory(HELD_NODES, HELD_STATUS, HELD_GROUPS).unwrap();
        assert_eq!(
            shape(&inventory),
            [
                ("127.0.0.2".into(), res(&[("GPU", 4), ("CPU", 20)]), big()),
                ("127.0.0.3".into(), small(), small()),
                ("127.0.0.4".into(), h100(), h100()),
            ]
        );
        let held: Vec<_> = inventory
            .notes
            .iter()
            .filter_map(|n| match n {
                InventoryNote::HeldByPlacementGroup {
                    group,
                    node,
                    resources,
                    ..
                } => Some((group.name.as_str(), node.address.clone(), resources.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(
            held,
            [(
                "held",
                Some("127.0.0.2".to_owned()),
                res(&[("CPU", 12), ("GPU", 4)])
            )]
        );
        assert_eq!(inventory.notes.len(), 1);
        let message = inventory.notes[0].to_string();
        assert!(
            message.contains("`held`") && message.contains("127.0.0.2"),
            "{message}"
        );
    }

    #[test]
    fn pending_and_infeasible_groups_are_reported() {
        let inventory = parse_inventory(MIXED_NODES, MIXED_STATUS, MIXED_GROUPS).unwrap();
        let shape = shape(&inventory);
        assert_eq!(
            shape[0],
            ("127.0.0.2".into(), res(&[("GPU", 4), ("CPU", 20)]), big())
        );
        assert_eq!(shape[1], ("127.0.0.3".into(), small(), small()));
        assert_eq!(shape[2], ("127.0.0.4".into(), h100(), h100()));
        let pending: Vec<_> = inventory
            .notes
            .iter()
            .filter_map(|n| match n {
                InventoryNote::PendingPlacementGroup {
                    group,
                    scheduling_state,
                    demand,
                    ..
                } => Some((
                    group.name.clone(),
                    scheduling_state.clone(),
                    demand.get("GPU"),
                )),
                _ => None,
            })
            .collect();
        assert_eq!(
            pending,
            [
                (
                    "poolCverl_group_12:0".into(),
                    "INFEASIBLE".into(),
                    whole(12)
                ),
                (
                    "poolBverl_group_8:0".into(),
                    "NO_RESOURCES".into(),
                    whole(8)
                ),
            ]
        );
        assert!(inventory.notes.iter().any(|n| matches!(n,
            InventoryNote::HeldByPlacementGroup { group, .. } if group.name == "poolAverl_group_4:0")));
    }

    #[test]
    fn dead_nodes_are_left_out_and_named() {
        let inventory = parse_inventory(DEAD_NODES, IDLE_STATUS, IDLE_GROUPS).unwrap();
        let addresses: Vec<_> = inventory
            .cluster
            .nodes
            .iter()
            .map(|n| n.address.clone())
            .collect();
        assert_eq!(
            addresses,
            [Some("127.0.0.2".to_owned()), Some("127.0.0.4".to_owned())]
        );
        assert_eq!(
            inventory.notes,
            [InventoryNote::DeadNode {
                node: NodeRef {
                    id: "fd71bcc4884d53163cce23d96b75e509237e5aa7371a287954d18014".into(),
                    address: Some("127.0.0.3".into()),
                },
                reason: Some("Expected termination: received SIGTERM".into()),
                remedy: crate::inventory::RAY_DEAD_NODE_REMEDY.to_owned(),
            }]
        );
        assert_eq!(
            inventory.notes[0].code_str(),
            "resource_pool::inventory::dead_node"
        );
        assert!(
            inventory.notes[0]
                .to_string()
                .contains("127.0.0.3 (fd71bcc4…)")
        );
    }

    #[test]
    fn autoscaler_v2_falls_back_to_groups() {
        let inventory = parse_inventory(HELD_NODES, V2_STATUS, HELD_GROUPS).unwrap();
        assert_eq!(shape(&inventory)[0].1, res(&[("GPU", 4), ("CPU", 20)]));
        assert_eq!(shape(&inventory)[2].1, h100());
        assert!(matches!(
            inventory.notes[0],
            InventoryNote::UsageFromPlacementGroups { .. }
        ));
        assert_eq!(
            parse_cluster_status(V2_STATUS).unwrap(),
            ClusterUsage { by_node: None }
        );
    }

    #[test]
    fn stale_status_is_capped_by_groups() {
        // The idle status with the held groups: the status lags behind a new group.
        let inventory = parse_inventory(HELD_NODES, IDLE_STATUS, HELD_GROUPS).unwrap();
        assert_eq!(shape(&inventory)[0].1, res(&[("GPU", 4), ("CPU", 20)]));
    }

    #[test]
    fn camel_case_matches_ray() {
        assert_eq!(to_camel_case("my_custom"), "myCustom");
        assert_eq!(
            to_camel_case("accelerator_type:H100"),
            "acceleratorType:H100"
        );
        assert_eq!(to_camel_case("node:__internal_head__"), "node:InternalHead");
        assert_eq!(to_camel_case("object_store_memory"), "objectStoreMemory");
        assert_eq!(
            to_camel_case("GPU_group_0_8ef88dd73dfac6acfa5ca13a17ae04000000"),
            "GPUGroup08Ef88Dd73Dfac6Acfa5Ca13A17Ae04000000"
        );
        assert_eq!(
            to_camel_case("accelerator_type:A100-SXM"),
            "acceleratorType:A100-Sxm"
        );
        assert_eq!(to_camel_case("GPU"), "GPU");
        assert_eq!(to_camel_case(""), "");
    }

    #[test]
    fn truncated_pages_are_refused() {
        let text = std::str::from_utf8(IDLE_NODES)
            .unwrap()
            .replace("\"total\": 3", "\"total\": 300");
        let error = parse_inventory(text.as_bytes(), IDLE_STATUS, IDLE_GROUPS).unwrap_err();
        assert_eq!(
            error,
            RayJsonError::Truncated {
                endpoint: Endpoint::Nodes,
                total: 300,
                returned: 3
            }
        );
    }

    fn node_body(resources: &str) -> String {
        format!(
            r#"{{"result": true, "msg": "", "data": {{"result": {{"total": 1, "result": [
            {{"node_id": "n1", "node_ip": "10.0.0.1", "state": "ALIVE", "resources_total": {resources}}}]}}}}}}"#
        )
    }

    #[test]
    fn malformed_bodies_are_typed_errors() {
        let bad_body = |body: &[u8]| matches!(parse_nodes(body), Err(RayJsonError::BadBody { .. }));
        assert!(bad_body(b""));
        assert!(bad_body(b"<html>502 Bad Gateway</html>"));
        assert!(bad_body(b"[1, 2, 3]"));
        assert!(bad_body(br#"{"result": true}"#));
        assert!(bad_body(
            br#"{"result": true, "data": {"result": {"total": -1, "result": []}}}"#
        ));
        assert!(bad_body(node_body(r#"{"GPU": NaN}"#).as_bytes()));
        assert!(bad_body(node_body(r#"{"GPU": 1e400}"#).as_bytes()));
        assert!(bad_body(node_body(r#"{"GPU": "8"}"#).as_bytes()));
        assert!(bad_body(&b"[".repeat(100_000)));
        assert!(matches!(
            parse_nodes(node_body(r#"{"GPU": -8}"#).as_bytes()),
            Err(RayJsonError::BadNumber {
                problem: AmountError::Negative,
                ..
            })
        ));
        assert!(matches!(
            parse_nodes(node_body(r#"{"GPU": 1e300}"#).as_bytes()),
            Err(RayJsonError::BadNumber {
                problem: AmountError::TooLarge,
                ..
            })
        ));
        // Internal resources are not even read.
        assert!(parse_nodes(node_body(r#"{"memory": -1, "GPU": 8}"#).as_bytes()).is_ok());
        assert!(matches!(
            parse_nodes(br#"{"result": false, "msg": "GCS down"}"#),
            Err(RayJsonError::ApiFailed { .. })
        ));
        let status = br#"{"result": true, "data": {"clusterStatus": {"loadMetricsReport": {"usageByNode": {"n1": {"GPU": [1.0]}}}}}}"#;
        assert!(matches!(
            parse_cluster_status(status),
            Err(RayJsonError::BadBody { .. })
        ));
        let groups = br#"{"result": true, "data": {"result": {"total": 1, "result": [{"placement_group_id": "g", "state": "CREATED", "bundles": [{"unit_resources": {"GPU": -1}}]}]}}}"#;
        assert!(matches!(
            parse_placement_groups(groups),
            Err(RayJsonError::BadNumber { .. })
        ));
        let error = parse_nodes(b"nope").unwrap_err();
        assert_eq!(
            miette::Diagnostic::code(&error)
                .map(|c| c.to_string())
                .as_deref(),
            Some("resource_pool::ray::bad_body")
        );
    }

    #[test]
    fn no_accelerators_and_collisions_are_noted() {
        let nodes = node_body(r#"{"CPU": 8, "my_custom": 1, "myCustom": 2}"#);
        let status = br#"{"result": true, "data": {"clusterStatus": {"loadMetricsReport": {"usageByNode": {"n1": {"CPU": [2.0, 8.0], "myCustom": [1.0, 3.0]}}}}}}"#;
        let inventory = parse_inventory(nodes.as_bytes(), status, IDLE_GROUPS).unwrap();
        let node = &inventory.cluster.nodes[0];
        assert_eq!(
            node.available,
            res(&[("CPU", 6), ("my_custom", 1), ("myCustom", 2)])
        );
        assert!(inventory.notes.contains(&InventoryNote::NoAccelerators));
        assert!(
            inventory
                .notes
                .iter()
                .any(|n| matches!(n, InventoryNote::AmbiguousResourceNames { .. }))
        );
    }

    #[test]
    fn a_node_missing_from_the_status_uses_groups() {
        let nodes = node_body(r#"{"GPU": 8, "CPU": 8}"#);
        let status = br#"{"result": true, "data": {"clusterStatus": {"loadMetricsReport": {"usageByNode": {}}}}}"#;
        let inventory = parse_inventory(nodes.as_bytes(), status, IDLE_GROUPS).unwrap();
        assert_eq!(
            inventory.cluster.nodes[0].available,
            res(&[("GPU", 8), ("CPU", 8)])
        );
        assert!(matches!(
            inventory.notes[0],
            InventoryNote::UsageFromPlacementGroups { .. }
        ));
    }

    #[test]
    fn many_nodes_parse() {
        let mut body =
            String::from(r#"{"result": true, "data": {"result": {"total": 5000, "result": ["#);
        for i in 0..5000 {
            if i > 0 {
                body.push(',');
            }
            body.push_str(&format!(
                r#"{{"node_id": "n{i}", "node_ip": "10.0.{}.{}", "state": "ALIVE", "resources_total": {{"GPU": 8, "CPU": 64}}}}"#,
                i / 256,
                i % 256
            ));
        }
        body.push_str("]}}}");
        let status = br#"{"result": true, "data": {"clusterStatus": null}}"#;
        let inventory = parse_inventory(body.as_bytes(), status, IDLE_GROUPS).unwrap();
        assert_eq!(inventory.cluster.nodes.len(), 5000);
        assert_eq!(
            inventory.cluster.nodes[257].address.as_deref(),
            Some("10.0.1.1")
        );
    }
}
