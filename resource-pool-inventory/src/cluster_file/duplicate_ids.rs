//! Ids used twice: for each node whose id a node before it has, that first node.
//!
//! A file of 100,000 nodes has 100,000 ids to look up, so they go through a
//! [`HashIndex`] (a quarter of std's memory, a cheaper hash) whose slots are read
//! sixteen ids at a time, so that their cache misses overlap; should the ids crowd its
//! slots, [`repeated_ids`] (std's `HashMap`, whose SipHash no file can crowd) answers instead. Both give
//! the same answer, which a test checks.

use super::hash_index::{Budget, Crowded, HashIndex};
use resource_pool_core::model::{Node, repeated_ids};

/// The average probes per id that the [`HashIndex`] may make (about three are) before
/// std's `HashMap` answers instead.
const ID_PROBES: usize = 16;

/// How many ids' slots are read at once.
const BATCH: usize = 16;

/// Each node whose id a node before it has, with the first of those, in node order.
pub(crate) fn first_uses(nodes: &[Node]) -> Vec<(usize, usize)> {
    first_uses_by_index(nodes).unwrap_or_else(|Crowded| repeated_ids(nodes))
}

/// [`first_uses`] through a [`HashIndex`], or `Crowded` when the ids fall on too few of its
/// slots.
fn first_uses_by_index(nodes: &[Node]) -> Result<Vec<(usize, usize)>, Crowded> {
    let mut index = HashIndex::new(nodes.len(), Budget::PerKey(ID_PROBES));
    let mut found = Vec::new();
    let mut hashes = [0; BATCH];
    for (batch, ids) in nodes.chunks(BATCH).enumerate() {
        // The batch's slots are read one right after the other, so that their cache
        // misses overlap, before any is walked (see `HashIndex::warm`).
        for (hash, node) in hashes.iter_mut().zip(ids) {
            *hash = index.hash(node.id.as_bytes());
        }
        for hash in &hashes[..ids.len()] {
            index.warm(*hash);
        }
        for (k, (hash, node)) in hashes.iter().zip(ids).enumerate() {
            let i = batch * BATCH + k;
            if let Some(first) = index.find_or_add(*hash, i, |j| nodes[j].id == node.id)? {
                found.push((i, first));
            }
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use resource_pool_core::model::Resources;

    fn nodes(ids: &[String]) -> Vec<Node> {
        ids.iter()
            .map(|id| Node::new(id.as_str(), Resources::new()))
            .collect()
    }

    proptest! {
        /// The index finds what std's `HashMap` does, ids of every length among them.
        #[test]
        fn the_index_finds_the_first_uses_std_does(
            ids in prop::collection::vec("[ab]{0,3}|node-[0-9]{1,2}|[a-z]{8,20}", 0..60),
        ) {
            let nodes = nodes(&ids);
            prop_assert_eq!(first_uses_by_index(&nodes), Ok(repeated_ids(&nodes)));
        }
    }

    #[test]
    fn many_ids_are_read() {
        let ids: Vec<String> = (0..20_000)
            .map(|i| format!("node-{}", i % 15_000))
            .collect();
        let nodes = nodes(&ids);
        let found = first_uses_by_index(&nodes).expect("not crowded");
        assert_eq!(found.len(), 5_000);
        assert_eq!(found, repeated_ids(&nodes));
    }
}
