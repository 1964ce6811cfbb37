//! verl's own roles and its default layout, ready to use; and the verl crate
//! ([`resource_pool_verl`]): what each verl release does with its pools, verl's launch
//! lines and YAML read into them, verl's findings.
//!
//! ```
//! use resource_pool::verl;
//!
//! // trainer.n_gpus_per_node=8 trainer.nnodes=2, and a reward model on its own node.
//! let manager = verl::default_layout(8, 2, Some((4, 1)))?;
//! assert_eq!(manager.get_resource_pool(verl::Role::Critic).process_on_nodes(), [8, 8]);
//! assert_eq!(manager.get_resource_pool(verl::Role::RewardModel).name, "reward_pool");
//! assert_eq!(verl::Role::RefPolicy.to_string(), "ref");
//! # Ok::<(), resource_pool::ManagerError>(())
//! ```

use crate::{ManagerError, PoolSpec, ResourcePool, ResourcePoolManager, Role as _};

pub use resource_pool_verl::roles::{VERL_ROLES, VerlRole, role_set};
pub use resource_pool_verl::*;

/// verl's roles (`verl/trainer/ppo/utils.py`), in its order, with its strings: the roles
/// of [`VERL_ROLES`] (a test holds them equal; a derive cannot read a table).
#[derive(crate::Role, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// `actor`: the policy being trained.
    #[role(rename = "actor")]
    Actor,
    /// `rollout`: generation.
    #[role(rename = "rollout")]
    Rollout,
    /// `actor_rollout`: actor and rollout fused in one worker group.
    #[role(rename = "actor_rollout")]
    ActorRollout,
    /// `critic`: the value model.
    #[role(rename = "critic")]
    Critic,
    /// `ref`: the reference policy.
    #[role(rename = "ref")]
    RefPolicy,
    /// `rm`: the reward model.
    #[role(rename = "rm")]
    RewardModel,
    /// `actor_rollout_ref`: actor, rollout and reference policy fused.
    #[role(rename = "actor_rollout_ref")]
    ActorRolloutRef,
    /// `env`: environment workers.
    #[role(rename = "env")]
    Env,
    /// `teacher`: a teacher model for distillation.
    #[role(rename = "teacher")]
    TeacherModel,
}

/// verl's default layout: `global_pool = [n_gpus_per_node] * nnodes` hosting every role,
/// and, when `reward` gives `(n_gpus_per_node, nnodes)` of the reward model's pool
/// (`reward_model.enable_resource_pool`), `reward_pool` hosting [`Role::RewardModel`].
/// Pools use verl's defaults otherwise (GPU, `max_colocate_count = 3`).
///
/// # Errors
///
/// A pool of no node or of zero GPUs per node ([`ManagerError::EmptyPool`]).
pub fn default_layout(
    n_gpus_per_node: u32,
    nnodes: u32,
    reward: Option<(u32, u32)>,
) -> Result<ResourcePoolManager<Role>, ManagerError> {
    let slots = |per_node: u32, nodes: u32| vec![per_node; nodes as usize];
    let mut pools = vec![ResourcePool::new(
        GLOBAL_POOL,
        PoolSpec::with_slots(slots(n_gpus_per_node, nnodes)),
    )];
    if let Some((per_node, nodes)) = reward {
        pools.push(ResourcePool::new(
            REWARD_POOL,
            PoolSpec::with_slots(slots(per_node, nodes)),
        ));
    }
    let mapping = Role::ALL.iter().map(|&role| {
        let pool = match role {
            Role::RewardModel if reward.is_some() => REWARD_POOL,
            _ => GLOBAL_POOL,
        };
        (role, pool)
    });
    ResourcePoolManager::new(pools, mapping)
}

/// The typed manager of the layout verl builds from its settings ([`load_verl`]).
///
/// The roles verl creates workers for ([`VerlLayout::mapping`]) are mapped where verl maps
/// them. A manager over verl's closed role set maps every role, so the roles verl creates
/// no worker for (and never asks a pool of) are mapped to `global_pool`.
///
/// ```
/// use resource_pool::verl;
///
/// let overrides = ["trainer.nnodes=2", "reward_model.enable=True",
///     "reward_model.enable_resource_pool=True", "reward_model.n_gpus_per_node=4",
///     "reward_model.nnodes=1"].map(String::from);
/// let loaded = verl::load_verl(None, &overrides, 100_000);
/// let manager = verl::manager_from_layout(loaded.layout.as_ref().unwrap())?;
/// assert_eq!(manager.get_resource_pool(verl::Role::ActorRollout).process_on_nodes(), [8, 8]);
/// assert_eq!(manager.get_resource_pool(verl::Role::RewardModel).process_on_nodes(), [4]);
/// # Ok::<(), resource_pool::ManagerError>(())
/// ```
///
/// # Errors
///
/// The pools' own errors ([`ManagerError`]), which [`load_verl`] already reports.
pub fn manager_from_layout(layout: &VerlLayout) -> Result<ResourcePoolManager<Role>, ManagerError> {
    manager_from_parts(&layout.pools, &layout.mapping)
}

/// A manager of `pools` with `mapping` (verl's role names to pool names): every role
/// verl's mapping lacks goes to `global_pool` (the first pool when there is none), as the
/// manager maps every role; only the mapped roles' pools get worker groups in the check.
///
/// # Errors
///
/// The pools' own errors ([`ManagerError`]).
pub fn manager_from_parts<P: AsRef<str>>(
    pools: &[ResourcePool],
    mapping: &[(&'static str, P)],
) -> Result<ResourcePoolManager<Role>, ManagerError> {
    let filler = match pools.iter().any(|p| p.name == GLOBAL_POOL) {
        true => GLOBAL_POOL,
        false => pools.first().map_or(GLOBAL_POOL, |p| p.name.as_str()),
    };
    let mapping = Role::ALL.iter().map(|&role| {
        let pool = (mapping.iter())
            .find(|(name, _)| *name == role.name())
            .map_or(filler, |(_, pool)| pool.as_ref());
        (role, pool)
    });
    ResourcePoolManager::new(pools.to_vec(), mapping)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_roles_are_the_cores_table() {
        assert_eq!(Role::ALL.len(), VERL_ROLES.len());
        for (role, row) in Role::ALL.iter().zip(VERL_ROLES) {
            assert_eq!(format!("{role:?}"), row.variant);
            assert_eq!(role.name(), row.name);
            assert_eq!(
                role.index(),
                VERL_ROLES.iter().position(|r| r == &row).unwrap()
            );
        }
        assert_eq!(Role::TeacherModel.index(), 8);
        assert_eq!("rm".parse(), Ok(Role::RewardModel));
        // The lint's role set is the same table, with its aliases.
        let roles = role_set();
        for role in Role::ALL {
            assert_eq!(roles.resolve(role.name()), Some(role.name()));
        }
        assert_eq!(roles.resolve("ref_policy"), Some(Role::RefPolicy.name()));
    }

    #[test]
    fn default_layout_follows_verl() {
        let manager = default_layout(8, 1, None).unwrap();
        assert_eq!(manager.pools().len(), 1);
        assert!(
            Role::ALL
                .iter()
                .all(|&r| manager.get_resource_pool(r).name == GLOBAL_POOL)
        );

        let manager = default_layout(8, 2, Some((2, 1))).unwrap();
        let reward = manager.get_resource_pool(Role::RewardModel);
        assert_eq!(
            (reward.name.as_str(), reward.process_on_nodes()),
            (REWARD_POOL, &[2][..])
        );
        assert_eq!(
            manager.get_resource_pool(Role::Actor).process_on_nodes(),
            [8, 8]
        );
        assert_eq!(manager.roles_of(0).count(), 8);

        assert_eq!(
            default_layout(8, 0, None).unwrap_err(),
            ManagerError::EmptyPool(GLOBAL_POOL.into())
        );
    }
}
