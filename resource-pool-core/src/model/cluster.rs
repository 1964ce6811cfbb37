//! A cluster inventory: the nodes a layout is checked against.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;

use super::resources::Resources;

/// One node of a cluster, as Ray sees it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Node {
    /// The node's id (Ray's node id, or any unique name): not empty, and no other
    /// node's (see [`Cluster::new`]).
    pub id: String,
    /// Its address, when known.
    pub address: Option<String>,
    /// Whether it is alive: dead nodes host nothing.
    pub alive: bool,
    /// What is free on it now.
    pub available: Resources,
    /// What it has when idle, when known: tells "busy now" from "never".
    pub total: Option<Resources>,
    /// Labels of the node (`zone`, `gpu_type`, ...), kept as its source gives them.
    pub labels: BTreeMap<String, String>,
    /// Whether it is the cluster's head node, where `ray job submit` runs a job's driver
    /// (Ray's `is_head_node`); see [`Cluster::head`].
    pub head: bool,
}

impl Node {
    /// An alive node with these free resources.
    pub fn new(id: impl Into<String>, available: Resources) -> Node {
        Node {
            id: id.into(),
            alive: true,
            available,
            ..Node::default()
        }
    }

    /// Builder: the node's idle total.
    pub fn with_total(mut self, total: Resources) -> Node {
        self.total = Some(total);
        self
    }

    /// How people read the node's name ([`DisplayName`]).
    pub fn display_name(&self) -> DisplayName<'_> {
        DisplayName::new(&self.id, self.address.as_deref())
    }

    /// The node's name as diagnostics keep it: its id as data, [`DisplayName`] in words.
    pub fn name(&self) -> NodeName {
        NodeName {
            id: self.id.clone(),
            address: self.address.clone(),
        }
    }
}

/// How many hex digits an id has at least to be read as a Ray node id. Ray's `NodeID` is
/// 28 random bytes, 56 hex digits (20 bytes, 40 digits, in old releases); a name a person
/// gives a node (`node-a`, `gpu01`, a host name) is never 32 hex digits, and an id that
/// is one is as unreadable as Ray's.
pub(crate) const RAY_NODE_ID_MIN_DIGITS: usize = 32;

/// Whether `id` looks like a Ray node id: only hex digits, at least
/// [`RAY_NODE_ID_MIN_DIGITS`] of them.
pub(crate) fn is_ray_node_id(id: &str) -> bool {
    id.len() >= RAY_NODE_ID_MIN_DIGITS && id.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The one rule for naming a node to people, everywhere output is read rather than parsed
/// (pictures, diagnostics, notes): a Ray node id with a known address is
/// `127.0.0.13 (5f0a544b…)`, since 56 hex digits tell no machine from another; any other
/// id is shown as it is (a cluster file's `node-a` is what its author wrote, address or
/// not). JSON keeps the id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DisplayName<'a> {
    id: &'a str,
    address: Option<&'a str>,
}

impl<'a> DisplayName<'a> {
    /// The name of the node `id` at `address`.
    pub fn new(id: &'a str, address: Option<&'a str>) -> DisplayName<'a> {
        DisplayName { id, address }
    }
}

impl fmt::Display for DisplayName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.address.filter(|a| !a.is_empty()) {
            Some(address) if is_ray_node_id(self.id) => {
                // Ray ids are ASCII: the cut is on a character boundary.
                write!(f, "{address} ({}…)", &self.id[..8])
            }
            _ => f.write_str(self.id),
        }
    }
}

/// A node named in a diagnostic: JSON carries its id (a plain string), the words its
/// [`DisplayName`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NodeName {
    /// The node's id.
    pub id: String,
    /// Its address, when known.
    pub address: Option<String>,
}

impl NodeName {
    /// How people read it.
    pub fn display_name(&self) -> DisplayName<'_> {
        DisplayName::new(&self.id, self.address.as_deref())
    }
}

impl fmt::Display for NodeName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.display_name().fmt(f)
    }
}

impl serde::Serialize for NodeName {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.id)
    }
}

/// The nodes of a cluster, in the order the inventory listed them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cluster {
    /// Every node, alive or dead.
    pub nodes: Vec<Node>,
}

/// Each node whose id a node before it has, with the first of those, in node order.
/// Through std's `HashMap`, whose SipHash no id list can crowd; the cluster files' reader
/// looks up its 100,000 ids through an index of its own first.
pub fn repeated_ids(nodes: &[Node]) -> Vec<(usize, usize)> {
    let mut first_use: HashMap<&str, usize> = HashMap::with_capacity(nodes.len());
    let mut found = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        // One hash per id: the entry, not a look-up and then an insert.
        let first = *first_use.entry(node.id.as_str()).or_insert(i);
        if first != i {
            found.push((i, first));
        }
    }
    found
}

impl Cluster {
    /// The head node (where a job's driver runs): the node marked as the head, else the
    /// first alive node; `None` when no node is alive.
    pub fn head(&self) -> Option<usize> {
        self.nodes
            .iter()
            .position(|n| n.head && n.alive)
            .or_else(|| self.nodes.iter().position(|n| n.alive))
    }

    /// A cluster of these nodes; nodes with equal resources share them
    /// ([`Cluster::share_equal_resources`]).
    ///
    /// Give every node its own, non-empty id: findings and plans name nodes by it. This
    /// does not fail; the check reports an id two nodes share
    /// ([`CheckDiagnostic::DuplicateNode`](crate::check::CheckDiagnostic::DuplicateNode))
    /// or an empty one
    /// ([`CheckDiagnostic::EmptyNodeId`](crate::check::CheckDiagnostic::EmptyNodeId)) as
    /// an error, as the cluster files refuse them.
    pub fn new(nodes: Vec<Node>) -> Cluster {
        let mut cluster = Cluster { nodes };
        cluster.share_equal_resources();
        cluster
    }

    /// The nodes that can host groups.
    pub fn alive(&self) -> impl Iterator<Item = &Node> + '_ {
        self.nodes.iter().filter(|n| n.alive)
    }

    /// Whether every alive node states its idle total.
    pub fn has_totals(&self) -> bool {
        self.alive().all(|n| n.total.is_some())
    }

    /// Whether other work holds part of the cluster now: every alive node states its
    /// total, and some have less available.
    pub fn busy(&self) -> bool {
        self.has_totals() && self.alive().any(|n| n.total.as_ref() != Some(&n.available))
    }

    /// The same cluster with nothing held: each alive node's total as its available.
    /// `None` when some alive node has no total.
    pub fn idle(&self) -> Option<Cluster> {
        let mut nodes = Vec::with_capacity(self.nodes.len());
        for node in &self.nodes {
            let mut idle = node.clone();
            if node.alive {
                idle.available = node.total.clone()?;
            }
            nodes.push(idle);
        }
        Some(Cluster { nodes })
    }

    /// Makes nodes with equal resources share one list (see [`Resources`]), so that the
    /// check reads a cluster of a few kinds of node from cache. Changes no value.
    /// [`Cluster::new`] does it; call it after building or changing `nodes` by hand.
    pub fn share_equal_resources(&mut self) {
        let mut seen: HashSet<Resources> = HashSet::new();
        let mut share = |res: &mut Resources| match seen.get(res) {
            Some(shared) => *res = shared.clone(),
            None => {
                seen.insert(res.clone());
            }
        };
        for node in &mut self.nodes {
            share(&mut node.available);
            if let Some(total) = &mut node.total {
                share(total);
            }
        }
    }
}

/// A placement group that holds resources on a cluster, by Ray's id and its name.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct GroupRef {
    /// Ray's placement group id (hex).
    pub id: String,
    /// Its name; empty when it was created without one.
    pub name: String,
}

impl fmt::Display for GroupRef {
    /// ``placement group `name` (id)``, or `unnamed placement group ID`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.name.is_empty() {
            write!(f, "unnamed placement group {}", self.id)
        } else {
            write!(f, "placement group `{}` ({})", self.name, self.id)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Amount;

    const RAY_ID: &str = "5f0a544bbf97a58613e20dcd890be334820af9041f50d366b23d1f40";

    #[test]
    fn a_ray_id_with_an_address_is_named_by_the_address_and_short_id() {
        let mut node = Node::new(RAY_ID, Resources::new());
        assert_eq!(node.display_name().to_string(), RAY_ID);
        node.address = Some("127.0.0.13".into());
        assert_eq!(node.display_name().to_string(), "127.0.0.13 (5f0a544b…)");
        assert_eq!(node.name().to_string(), "127.0.0.13 (5f0a544b…)");
        // An empty address is no address.
        node.address = Some(String::new());
        assert_eq!(node.display_name().to_string(), RAY_ID);
    }

    #[test]
    fn other_ids_stay_as_they_are_with_or_without_an_address() {
        for id in [
            "node-a",
            "gpu01",
            "deadbeef",
            // 31 hex digits: one short of a Ray id.
            &RAY_ID[..31],
            // Not all hex.
            "5f0a544bbf97a58613e20dcd890be334820af9041f50d366b23d1f4g",
        ] {
            let node = Node {
                address: Some("10.0.0.1".into()),
                ..Node::new(id, Resources::new())
            };
            assert_eq!(node.display_name().to_string(), id);
        }
        assert!(is_ray_node_id(&RAY_ID[..32]));
        assert!(is_ray_node_id(&RAY_ID.to_uppercase()));
        assert!(!is_ray_node_id(&RAY_ID[..31]));
    }

    #[test]
    fn a_node_name_serializes_as_its_id() {
        let name = NodeName {
            id: RAY_ID.into(),
            address: Some("127.0.0.13".into()),
        };
        assert_eq!(
            serde_json::to_string(&name).unwrap(),
            format!("\"{RAY_ID}\"")
        );
    }

    #[test]
    fn equal_resources_are_shared_and_unchanged() {
        let res = |gpu: u64| Resources::new().with("GPU", Amount::from_units(gpu * 10_000));
        let nodes = vec![
            Node::new("a", res(8)).with_total(res(8)),
            Node::new("b", res(4)).with_total(res(8)),
            Node::new("c", res(8)),
        ];
        let cluster = Cluster::new(nodes.clone());
        assert_eq!(cluster.nodes, nodes);
        let [a, b, c] = &cluster.nodes[..] else {
            panic!("three nodes")
        };
        assert!(a.available.shares_with(&c.available));
        assert!(a.available.shares_with(a.total.as_ref().unwrap()));
        assert!(a.available.shares_with(b.total.as_ref().unwrap()));
        assert!(!a.available.shares_with(&b.available));
        assert!(!nodes[0].available.shares_with(&nodes[2].available));
    }
}
