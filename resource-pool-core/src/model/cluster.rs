//! A cluster inventory: the nodes a layout is checked against.

use std::collections::{BTreeMap, HashSet};

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
    /// Labels of the node (`zone`, `gpu_type`, ...), kept as its source gives them.
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
    /// A cluster of these nodes; nodes with equal resources share them
    /// ([`Cluster::share_equal_resources`]).
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Amount;

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
