//! The pools and mapping verl builds from valid settings.

use super::keys::*;
use super::settings::VerlSettings;
use super::{GLOBAL_POOL, REWARD_POOL, TEACHER_POOL};
use resource_pool_core::model::{PoolSpec, ResourcePool};

/// The pool verl runs actor_rollout (or actor_rollout_ref) on: always global_pool.
pub const ACTOR_ROLLOUT_POOL: &str = GLOBAL_POOL;

/// The pools and mapping verl builds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerlLayout {
    /// `global_pool`, then `reward_pool` and `teacher_pool` when verl creates them.
    pub pools: Vec<ResourcePool>,
    /// Every role verl creates a worker group for, by verl's string, and its pool.
    pub mapping: Vec<(&'static str, &'static str)>,
}

/// The pools and mapping of valid settings (`None` if a count does not fit).
pub(super) fn layout(s: &VerlSettings) -> Option<VerlLayout> {
    let accelerator = s.accelerator()?;
    let pool = |per_node: i64, nodes: i64| -> Option<PoolSpec> {
        let per_node = u32::try_from(per_node).ok()?;
        let nodes = usize::try_from(nodes).ok()?;
        Some(PoolSpec {
            accelerator,
            ..PoolSpec::with_slots(vec![per_node; nodes])
        })
    };
    let mut pools = Vec::new();
    for keys in s.pool_keys() {
        pools.push(ResourcePool::new(
            keys.name,
            pool(s.int(keys.gpus), s.int(keys.nnodes))?,
        ));
    }
    let reward_pool = pools.iter().any(|p| p.name == REWARD_POOL);
    let kl = s.bool(KL_IN_REWARD) || s.bool(KL_LOSS);
    let new_engine = s.str(LEGACY_WORKER_IMPL) == "disable";
    let mut mapping = vec![(
        if new_engine && kl {
            "actor_rollout_ref"
        } else {
            "actor_rollout"
        },
        ACTOR_ROLLOUT_POOL,
    )];
    mapping.push(("critic", GLOBAL_POOL));
    if s.bool(s.reward_model_key()) {
        mapping.push((
            "rm",
            if reward_pool {
                REWARD_POOL
            } else {
                GLOBAL_POOL
            },
        ));
    }
    if !new_engine && kl {
        mapping.push(("ref", GLOBAL_POOL));
    }
    if pools.iter().any(|p| p.name == TEACHER_POOL) {
        mapping.push(("teacher", TEACHER_POOL));
    }
    Some(VerlLayout { pools, mapping })
}
