//! Witnesses: the node of every slot, and their validation.

use std::fmt;

use super::problem::{demanded_names, fill_vector};
use crate::model::{Amount, Cluster, NodeSlot};

/// A placement: `nodes[i]` is the index (into `cluster.nodes`) of the node that hosts
/// slot `i` (an index into the slots that were checked).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Witness {
    /// The node of every slot.
    pub nodes: Vec<usize>,
}

/// Why a [`Witness`] is not a valid placement.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WitnessError {
    /// It places a different number of slots than there are.
    #[error("the witness places {placed} slots, but there are {slots}")]
    Length {
        /// Slots in the witness.
        placed: usize,
        /// Slots checked.
        slots: usize,
    },
    /// A slot's node does not exist.
    #[error("slot {slot} is placed on node {node}, which does not exist")]
    NoSuchNode {
        /// The node-slot's index in its pool.
        slot: usize,
        /// The node index.
        node: usize,
    },
    /// A slot is placed on a dead node.
    #[error("slot {slot} is placed on dead node `{node}`")]
    DeadNode {
        /// The node-slot's index in its pool.
        slot: usize,
        /// The node's id.
        node: String,
    },
    /// The slots on a node need more than it has free.
    #[error("node `{node}` is overfilled: {resource} {used} used of {available} free")]
    Overfilled {
        /// The node's id.
        node: String,
        /// The resource that overflows.
        resource: String,
        /// What the node's slots need of it.
        used: String,
        /// What the node has free.
        available: String,
    },
}

impl Witness {
    /// Checks that every slot is on an existing, alive node and that no node is asked for
    /// more of any resource than it has available. Sums saturate, so an overflowing sum
    /// counts as overfilled. Linear in slots plus nodes (times the resources demanded).
    pub fn validate(&self, slots: &[NodeSlot], cluster: &Cluster) -> Result<(), WitnessError> {
        if self.nodes.len() != slots.len() {
            return Err(WitnessError::Length {
                placed: self.nodes.len(),
                slots: slots.len(),
            });
        }
        // Dense vectors over the demanded resources: one row per node.
        let names = demanded_names(slots.iter().map(|s| &s.demand));
        let dims = names.len();
        let mut used = vec![0u64; cluster.nodes.len().saturating_mul(dims)];
        let mut buf = vec![0u64; dims];
        for (slot, (&node, s)) in self.nodes.iter().zip(slots).enumerate() {
            let Some(n) = cluster.nodes.get(node) else {
                return Err(WitnessError::NoSuchNode { slot, node });
            };
            if !n.alive {
                return Err(WitnessError::DeadNode {
                    slot,
                    node: n.id.clone(),
                });
            }
            fill_vector(&s.demand, &names, &mut buf);
            for (u, d) in used[node * dims..(node + 1) * dims].iter_mut().zip(&buf) {
                *u = u.saturating_add(*d);
            }
        }
        for (node, n) in cluster.nodes.iter().enumerate() {
            let row = &used[node * dims..(node + 1) * dims];
            if row.iter().all(|&u| u == 0) {
                continue;
            }
            fill_vector(&n.available, &names, &mut buf);
            for r in 0..dims {
                if row[r] > buf[r] {
                    return Err(WitnessError::Overfilled {
                        node: n.id.clone(),
                        resource: names[r].to_string(),
                        used: Amount::from_units(row[r]).to_string(),
                        available: Amount::from_units(buf[r]).to_string(),
                    });
                }
            }
        }
        Ok(())
    }

    /// The slots each node hosts, by node index (only nodes that host some).
    pub fn by_node(&self) -> Vec<(usize, Vec<usize>)> {
        let mut pairs: Vec<(usize, usize)> = self
            .nodes
            .iter()
            .enumerate()
            .map(|(slot, &node)| (node, slot))
            .collect();
        pairs.sort_unstable();
        let mut out: Vec<(usize, Vec<usize>)> = Vec::new();
        for (node, slot) in pairs {
            match out.last_mut() {
                Some((n, list)) if *n == node => list.push(slot),
                _ => out.push((node, vec![slot])),
            }
        }
        out
    }
}

impl fmt::Display for Witness {
    /// `slot 0 → node 1, slot 1 → node 0`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, node) in self.nodes.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "slot {i} → node {node}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Amount, Node, Resources};

    fn gpus(n: u64) -> Resources {
        Resources::new().with("GPU", Amount::from_units(n * 10_000))
    }

    fn slot(i: usize, n: u64) -> NodeSlot {
        NodeSlot {
            pool: 0,
            slot: i,
            bundles: n as u32,
            demand: gpus(n),
        }
    }

    #[test]
    fn validation_catches_every_fault() {
        let mut dead = Node::new("d", gpus(8));
        dead.alive = false;
        let cluster = Cluster::new(vec![Node::new("a", gpus(8)), dead]);
        let slots = [slot(0, 4), slot(1, 4)];
        assert_eq!(
            Witness { nodes: vec![0, 0] }.validate(&slots, &cluster),
            Ok(())
        );
        assert!(matches!(
            Witness { nodes: vec![0] }.validate(&slots, &cluster),
            Err(WitnessError::Length { .. })
        ));
        assert!(matches!(
            Witness { nodes: vec![0, 7] }.validate(&slots, &cluster),
            Err(WitnessError::NoSuchNode { slot: 1, node: 7 })
        ));
        assert!(matches!(
            Witness { nodes: vec![1, 0] }.validate(&slots, &cluster),
            Err(WitnessError::DeadNode { slot: 0, .. })
        ));
        let three = [slot(0, 4), slot(1, 4), slot(2, 1)];
        let err = Witness {
            nodes: vec![0, 0, 0],
        }
        .validate(&three, &cluster);
        assert!(matches!(err, Err(WitnessError::Overfilled { .. })));
        assert_eq!(
            Witness {
                nodes: vec![1, 0, 1]
            }
            .by_node(),
            [(0, vec![1]), (1, vec![0, 2])]
        );
    }
}
