//! Joining the three answers: each node's available resources (Ray's usage, capped by
//! what placement groups reserve), dead nodes, and the notes on held and pending groups.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;

use super::pages::{ClusterUsage, GroupsPage, NodesPage, RayNode, Usage};
use super::{Endpoint, RayJsonError};
use crate::{Inventory, InventoryNote, NodeRef};
use resource_pool_core::model::{Amount, Cluster, Node, Resources, names};

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
/// Errors when a page is truncated (`total` larger than what was returned), or a node is
/// listed twice or without an id.
pub fn assemble(
    nodes: NodesPage,
    usage: ClusterUsage,
    groups: GroupsPage,
) -> Result<Inventory, RayJsonError> {
    check_complete(&nodes, &groups)?;
    check_node_ids(&nodes)?;

    let mut notes = Vec::new();
    if let Some(warning) = &nodes.partial_warning {
        notes.push(InventoryNote::PartialData {
            endpoint: Endpoint::Nodes.to_string(),
            warning: warning.clone(),
        });
    }
    let reserved = reserved_by_node(&groups);
    if usage.by_node.is_none() {
        notes.push(InventoryNote::UsageFromPlacementGroups {
            reason: "clusterStatus is null, as under autoscaler v2".to_owned(),
        });
    }

    let mut cluster = Vec::with_capacity(nodes.nodes.len());
    for node in &nodes.nodes {
        let node = if node.is_alive() {
            live_node(node, &usage, &reserved, &mut notes)
        } else {
            dead_node(node, &mut notes)
        };
        cluster.push(node);
    }
    cluster.sort_by_cached_key(node_order);

    group_notes(&nodes, &groups, &mut notes);
    if !has_accelerators(&cluster) {
        notes.push(InventoryNote::NoAccelerators {
            listed_by: crate::SourceKind::Ray,
        });
    }

    Ok(Inventory {
        cluster: Cluster::new(cluster),
        notes,
    })
}

/// Refuses a truncated page: one whose `total` is larger than what it returned.
fn check_complete(nodes: &NodesPage, groups: &GroupsPage) -> Result<(), RayJsonError> {
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
    Ok(())
}

/// Refuses a node without an id, or listed twice.
fn check_node_ids(nodes: &NodesPage) -> Result<(), RayJsonError> {
    let mut seen = std::collections::BTreeSet::new();
    for node in &nodes.nodes {
        // Ray names every node by a hex id; an empty one would make a node the cluster
        // file (what `inventory` writes) refuses, and that the check could not name.
        if node.id.is_empty() {
            return Err(RayJsonError::BadBody {
                endpoint: Endpoint::Nodes,
                detail: "a node with an empty `node_id`".into(),
            });
        }
        if !seen.insert(node.id.as_str()) {
            return Err(RayJsonError::DuplicateNode {
                endpoint: Endpoint::Nodes,
                id: node.id.clone(),
            });
        }
    }
    Ok(())
}

/// What live groups reserve, per node id and resource (summed, saturating), then as one
/// list per node.
fn reserved_by_node(groups: &GroupsPage) -> HashMap<&str, Resources> {
    let mut sums: HashMap<&str, BTreeMap<&str, Amount>> = HashMap::new();
    for group in groups.groups.iter().filter(|g| g.is_live()) {
        for bundle in &group.bundles {
            if let Some(node) = &bundle.node_id {
                let sum = sums.entry(node.as_str()).or_default();
                for (name, amount) in bundle.resources.iter() {
                    let held = sum.entry(name).or_default();
                    *held = held.saturating_add(amount);
                }
            }
        }
    }
    sums.into_iter()
        .map(|(node, sum)| (node, sum.into_iter().collect()))
        .collect()
}

/// A dead node, with nothing free (Ray reports no usage for one), and its note.
fn dead_node(node: &RayNode, notes: &mut Vec<InventoryNote>) -> Node {
    let reason = match (&node.state_message, node.state.as_str()) {
        (Some(m), "DEAD") => Some(m.clone()),
        (Some(m), state) => Some(format!("state {state}: {m}")),
        (None, "DEAD") => None,
        (None, state) => Some(format!("state {state}")),
    };
    notes.push(InventoryNote::DeadNode {
        node: node.node_ref(),
        reason,
        remedy: crate::RAY_DEAD_NODE_REMEDY.to_owned(),
    });
    Node {
        id: node.id.clone(),
        address: node.address.clone(),
        alive: false,
        available: Resources::new(),
        total: Some(node.total.clone()),
        labels: node.labels.clone(),
        head: node.head,
    }
}

/// A live node, available as its reported usage says, capped by what groups reserve on
/// it; from the groups alone, with a note, when its usage is missing.
fn live_node(
    node: &RayNode,
    usage: &ClusterUsage,
    reserved: &HashMap<&str, Resources>,
    notes: &mut Vec<InventoryNote>,
) -> Node {
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
    Node {
        id: node.id.clone(),
        address: node.address.clone(),
        alive: true,
        available,
        total: Some(node.total.clone()),
        labels: node.labels.clone(),
        head: node.head,
    }
}

/// The notes on live groups: what each holds on each live node, and the demand of each
/// still waiting to be placed.
fn group_notes(nodes: &NodesPage, groups: &GroupsPage, notes: &mut Vec<InventoryNote>) {
    // Every lookup by node id goes through this map, built once: groups × bundles × their
    // resources would scan the node list otherwise.
    let by_id: HashMap<&str, &RayNode> = nodes.nodes.iter().map(|n| (n.id.as_str(), n)).collect();
    let alive_node = |id: &str| by_id.get(id).copied().filter(|n| n.is_alive());
    for group in groups.groups.iter().filter(|g| g.is_live()) {
        let mut per_node: BTreeMap<&str, Resources> = BTreeMap::new();
        let mut demand = Resources::new();
        for bundle in &group.bundles {
            let node = bundle.node_id.as_deref().and_then(alive_node);
            for (name, amount) in bundle.resources.iter() {
                let _ = demand.add(name, amount);
                if let Some(node) = node {
                    let _ = per_node.entry(&node.id).or_default().add(name, amount);
                }
            }
        }
        for (node, resources) in per_node {
            notes.push(InventoryNote::HeldByPlacementGroup {
                group: group.group_ref(),
                job: group.job.clone(),
                node: NodeRef {
                    id: node.to_owned(),
                    address: by_id.get(node).and_then(|n| n.address.clone()),
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
}

/// Whether a live node has any GPU or NPU.
fn has_accelerators(cluster: &[Node]) -> bool {
    cluster.iter().filter(|n| n.alive).any(|n| {
        n.total
            .as_ref()
            .is_some_and(|t| !t.get(names::GPU).is_zero() || !t.get(names::NPU).is_zero())
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
    let mut available = Vec::with_capacity(total.len());
    let mut ambiguous = Vec::new();
    for (key, exact) in by_key {
        if let [name] = exact.as_slice() {
            let own_total = total.get(name);
            let free = match reported.get(&key).or_else(|| reported.get(*name)) {
                Some(usage) => own_total.min(usage.total).saturating_sub(usage.used),
                None => own_total,
            };
            available.push((*name, free.min(cap.get(name))));
        } else {
            for name in exact {
                available.push((name, cap.get(name)));
                ambiguous.push(name.to_owned());
            }
        }
    }
    (available.into_iter().collect(), ambiguous)
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
