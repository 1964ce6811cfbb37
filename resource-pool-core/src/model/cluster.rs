//! A cluster inventory: the nodes a layout is checked against.

use std::collections::BTreeMap;

use super::resources::Resources;

/// One node of a cluster, as Ray sees it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Node {
    /// The node's id (Ray's node id, or any unique name).
    pub id: String,
    /// Its address, when known.
    pub address: Option<String>,
    /// Whether it is alive: dead nodes host nothing.
    pub alive: bool,
    /// What is free on it now.
    pub available: Resources,
    /// What it has when idle, when known: tells "busy now" from "never".
    pub total: Option<Resources>,
    /// Its labels.
    pub labels: BTreeMap<String, String>,
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
}

/// The nodes of a cluster, in the order the inventory listed them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cluster {
    /// Every node, alive or dead.
    pub nodes: Vec<Node>,
}

impl Cluster {
    /// A cluster of these nodes.
    pub fn new(nodes: Vec<Node>) -> Cluster {
        Cluster { nodes }
    }

    /// The nodes that can host groups.
    pub fn alive(&self) -> impl Iterator<Item = &Node> + '_ {
        self.nodes.iter().filter(|n| n.alive)
    }

    /// Whether every alive node states its idle total.
    pub fn has_totals(&self) -> bool {
        self.alive().all(|n| n.total.is_some())
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
}
