//! Which pools a launcher creates placement groups for, and in what order, when that is not
//! every pool in the layout's order: verl creates its worker groups' pools in the layout's
//! order and the reward model's and teacher's later, and none for a pool no role of those
//! uses. The front end that knows its launcher gives it ([`CheckOptions::creation`]).
//!
//! [`CheckOptions::creation`]: super::CheckOptions::creation

use crate::model::{NodeSlot, PoolId, ResourcePool, node_slots};

/// Stages of pool creation, one after the other. The pools of a stage get their groups in
/// the order listed, which their author may change within the stage; a fix that reorders
/// pools keeps every stage after the one before it. A pool in no stage gets no groups.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Creation {
    /// The stages, first created first.
    pub stages: Vec<Vec<PoolId>>,
}

impl Creation {
    /// Every pool in the layout's order, one stage: what a launcher that creates them all
    /// does.
    pub fn all(pools: usize) -> Creation {
        Creation {
            stages: vec![(0..pools).collect()],
        }
    }

    /// The pools that get groups, first created first.
    pub fn order(&self) -> impl Iterator<Item = PoolId> + '_ {
        self.stages.iter().flatten().copied()
    }

    /// Whether `pool` gets groups.
    pub fn creates(&self, pool: PoolId) -> bool {
        self.order().any(|p| p == pool)
    }

    /// The node-slots of the pools that get groups, in creation order (slots in list order);
    /// each keeps its pool's id, its position in `pools`.
    pub fn slots(&self, pools: &[ResourcePool]) -> Vec<NodeSlot> {
        let all = node_slots(pools.iter().map(|p| &p.spec));
        let mut out = Vec::with_capacity(all.len());
        for pool in self.order() {
            out.extend(all.iter().filter(|s| s.pool == pool).cloned());
        }
        out
    }

    /// Each pool's stage (pools in no stage last): what a fix must keep in order.
    pub fn ranks(&self, pools: usize) -> Vec<u32> {
        let mut ranks = vec![u32::MAX; pools];
        for (stage, members) in self.stages.iter().enumerate() {
            for &pool in members {
                if let Some(rank) = ranks.get_mut(pool) {
                    *rank = stage as u32;
                }
            }
        }
        ranks
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::PoolSpec;

    #[test]
    fn slots_come_stage_by_stage_and_keep_their_pools() {
        let pools = [
            ResourcePool::new("reward_pool", PoolSpec::with_slots([4])),
            ResourcePool::new("global_pool", PoolSpec::with_slots([8, 8])),
            ResourcePool::new("spare", PoolSpec::with_slots([2])),
        ];
        let creation = Creation {
            stages: vec![vec![1], vec![0]],
        };
        let order: Vec<_> = creation
            .slots(&pools)
            .iter()
            .map(|s| (s.pool, s.slot, s.bundles))
            .collect();
        assert_eq!(order, [(1, 0, 8), (1, 1, 8), (0, 0, 4)]);
        assert!(!creation.creates(2));
        assert_eq!(creation.ranks(3), [1, 0, u32::MAX]);
        assert_eq!(Creation::all(3).slots(&pools).len(), 4);
    }
}
