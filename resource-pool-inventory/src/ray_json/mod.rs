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
//! One job per module: `wire` holds the JSON shapes serde reads (only the fields we use),
//! `pages` the parsed answer of each endpoint, `reconcile` joins the three into nodes
//! and notes. Ray's internal resources ([`names::is_ray_internal`](resource_pool_core::model::names::is_ray_internal))
//! are ignored. Dead nodes stay in the cluster with `alive = false` and nothing
//! available, each with an [`InventoryNote::DeadNode`](super::InventoryNote::DeadNode)
//! (the [`Inventory`] contract). Every malformed body (not JSON, wrong shape, negative,
//! non-finite or huge numbers) is a typed [`RayJsonError`], never a panic; nesting is
//! bounded by serde_json's recursion limit, and the caller bounds the body's size.

mod pages;
mod reconcile;
mod wire;

#[cfg(test)]
mod tests;

use std::fmt;

pub use pages::{
    ClusterUsage, GroupsPage, NodesPage, RayBundle, RayGroup, RayNode, Usage, parse_cluster_status,
    parse_nodes, parse_placement_groups,
};
pub use reconcile::{assemble, to_camel_case};

use super::Inventory;
use resource_pool_core::model::AmountError;

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
#[non_exhaustive]
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
        #[serde(serialize_with = "resource_pool_core::source::as_text")]
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
        #[serde(serialize_with = "resource_pool_core::source::as_text")]
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
        #[serde(serialize_with = "resource_pool_core::source::as_text")]
        endpoint: Endpoint,
        /// Where: node or group and resource.
        what: String,
        /// The number as read.
        value: f64,
        /// What is wrong with it.
        #[serde(serialize_with = "resource_pool_core::source::as_text")]
        problem: AmountError,
    },
    /// Ray returned fewer entries than it has.
    #[error("{endpoint} returned {returned} of {total} entries")]
    #[diagnostic(
        code(resource_pool::ray::truncated),
        help(
            "the dashboard caps its lists at `RAY_MAX_LIMIT_FROM_API_SERVER` ({DEFAULT_LIMIT} by default): restart the head with RAY_MAX_LIMIT_FROM_API_SERVER={total} or more in its environment"
        )
    )]
    Truncated {
        /// The endpoint.
        #[serde(serialize_with = "resource_pool_core::source::as_text")]
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
        #[serde(serialize_with = "resource_pool_core::source::as_text")]
        endpoint: Endpoint,
        /// Ray's node id (hex).
        id: String,
    },
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
