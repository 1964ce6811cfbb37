//! The resource pool manager: named pools in creation order and the role → pool mapping.

use super::pool::{DemandOverflow, PoolSpec, ResourcePool};
use super::resources::Resources;
use super::role::{Role, RoleKey};

/// Why pools and a mapping do not make a manager.
///
/// `Serialize` writes the data fields only, untagged (`"global_pool"` for
/// `ZeroColocate("global_pool")`): which error it is, is the variant, and its message is
/// `Display`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, serde::Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum ManagerError {
    /// Two pools share a name.
    #[error("pool `{0}` is defined twice")]
    DuplicatePool(String),
    /// A role is mapped to a pool that does not exist.
    #[error("role `{role}` is mapped to pool `{pool}`, which does not exist")]
    UnknownPool {
        /// The role, by its name.
        role: String,
        /// The missing pool.
        pool: String,
    },
    /// A role is mapped twice.
    #[error("role `{0}` is mapped twice")]
    DuplicateRole(String),
    /// A role of a closed set is mapped to no pool.
    #[error("role `{0}` is not assigned to any pool")]
    UnmappedRole(String),
    /// A pool has no node-slot, or a node-slot of zero accelerators.
    #[error("pool `{0}` needs at least one node-slot, each of at least one accelerator")]
    EmptyPool(String),
    /// A pool's `max_colocate_count` is zero.
    #[error("pool `{0}` has max_colocate_count = 0; each bundle needs at least one CPU")]
    ZeroColocate(String),
    /// A pool whose roles run as separate worker groups gives each bundle fewer CPUs than
    /// it has groups: each group's worker needs one. (A count of 0 is [`ZeroColocate`].)
    ///
    /// [`ZeroColocate`]: ManagerError::ZeroColocate
    #[error(
        "pool `{pool}` has max_colocate_count = {count}, but its roles run as {}, each needing one CPU per bundle",
        worker_groups(*groups)
    )]
    ColocateTooSmall {
        /// The pool.
        pool: String,
        /// Its worker groups.
        groups: u32,
        /// Its `max_colocate_count`.
        count: u32,
    },
    /// A node-slot's resources overflow Ray's fixed point.
    #[error("pool `{0}`: {DemandOverflow}")]
    Overflow(String),
}

/// `2 separate worker groups`; one group is the fused one, not "separate".
fn worker_groups(groups: u32) -> String {
    match groups {
        1 => "1 worker group".to_owned(),
        n => crate::words::count(n as usize, "separate worker group"),
    }
}

/// Index of a pool in a manager's creation order.
pub type PoolId = usize;

/// One node-slot: one STRICT_PACK placement group of a pool.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NodeSlot {
    /// The pool it belongs to.
    pub pool: PoolId,
    /// Its index in the pool's `process_on_nodes`.
    pub slot: usize,
    /// Its number of bundles (accelerators).
    pub bundles: u32,
    /// The summed resources of its bundles: what it needs free on one node.
    pub demand: Resources,
}

/// The node-slots of pools given in creation order (pool ids are their positions), slots
/// in list order. Pools that overflow Ray's fixed point get an empty demand: managers
/// refuse them on construction.
pub fn node_slots<'a>(pools: impl IntoIterator<Item = &'a PoolSpec>) -> Vec<NodeSlot> {
    let mut slots = Vec::new();
    for (pool, spec) in pools.into_iter().enumerate() {
        // Slots of one size share one demand (most pools have one size).
        let mut last: Option<(u32, Resources)> = None;
        for (slot, &bundles) in spec.process_on_nodes.iter().enumerate() {
            let demand = match &last {
                Some((size, demand)) if *size == bundles => demand.clone(),
                _ => {
                    let demand = spec.slot_demand(bundles).unwrap_or_default();
                    last = Some((bundles, demand.clone()));
                    demand
                }
            };
            slots.push(NodeSlot {
                pool,
                slot,
                bundles,
                demand,
            });
        }
    }
    slots
}

/// Named pools in the order verl creates them, and the roles they host.
///
/// Generic over the role type: [`RoleName`](super::RoleName) for configs read by name,
/// a `#[derive(Role)]` enum for the typed path, where [`get_resource_pool`] cannot fail.
///
/// [`get_resource_pool`]: ResourcePoolManager::get_resource_pool
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourcePoolManager<R> {
    pools: Vec<ResourcePool>,
    /// Sorted as [`Role::ALL`] for closed role sets, in insertion order otherwise.
    mapping: Vec<(R, PoolId)>,
}

impl<R: RoleKey> ResourcePoolManager<R> {
    /// Pools in creation order and a mapping of roles to pool names.
    ///
    /// Checks what a running trainer would otherwise find late: unique pool names, pools
    /// that exist, roles mapped once, and, for a closed role set, every role mapped.
    pub fn new<'a>(
        pools: Vec<ResourcePool>,
        mapping: impl IntoIterator<Item = (R, &'a str)>,
    ) -> Result<ResourcePoolManager<R>, ManagerError> {
        for (i, pool) in pools.iter().enumerate() {
            if pools[..i].iter().any(|p| p.name == pool.name) {
                return Err(ManagerError::DuplicatePool(pool.name.clone()));
            }
            let spec = &pool.spec;
            if spec.process_on_nodes.is_empty() || spec.process_on_nodes.contains(&0) {
                return Err(ManagerError::EmptyPool(pool.name.clone()));
            }
            if spec.max_colocate_count == 0 {
                return Err(ManagerError::ZeroColocate(pool.name.clone()));
            }
            // The largest slot overflows first: demand grows with the bundles.
            if let Some(&largest) = spec.process_on_nodes.iter().max() {
                spec.slot_demand(largest)
                    .map_err(|_| ManagerError::Overflow(pool.name.clone()))?;
            }
        }
        let mut pairs: Vec<(R, PoolId)> = Vec::new();
        for (role, pool_name) in mapping {
            let Some(id) = pools.iter().position(|p| p.name == pool_name) else {
                return Err(ManagerError::UnknownPool {
                    role: role.key_name().into_owned(),
                    pool: pool_name.to_owned(),
                });
            };
            if pairs.iter().any(|(r, _)| *r == role) {
                return Err(ManagerError::DuplicateRole(role.key_name().into_owned()));
            }
            pairs.push((role, id));
        }
        if let Some(all) = R::closed_set() {
            let mut sorted = Vec::with_capacity(all.len());
            for role in all {
                match pairs.iter().find(|(r, _)| r == role) {
                    Some(pair) => sorted.push(pair.clone()),
                    None => return Err(ManagerError::UnmappedRole(role.key_name().into_owned())),
                }
            }
            pairs = sorted;
        }
        Ok(ResourcePoolManager {
            pools,
            mapping: pairs,
        })
    }

    /// The pools, in creation order.
    pub fn pools(&self) -> &[ResourcePool] {
        &self.pools
    }

    /// The pool of that name.
    pub fn pool(&self, name: &str) -> Option<&ResourcePool> {
        self.pools.iter().find(|p| p.name == name)
    }

    /// The pool a role is mapped to, if any.
    pub fn pool_of(&self, role: &R) -> Option<&ResourcePool> {
        self.mapping
            .iter()
            .find(|(r, _)| r == role)
            .map(|&(_, id)| &self.pools[id])
    }

    /// Every role with its pool, sorted as [`Role::ALL`] for closed sets.
    pub fn mapping(&self) -> impl Iterator<Item = (&R, &ResourcePool)> + '_ {
        self.mapping.iter().map(|(r, id)| (r, &self.pools[*id]))
    }

    /// The roles a pool hosts.
    pub fn roles_of(&self, pool: PoolId) -> impl Iterator<Item = &R> + '_ {
        self.mapping
            .iter()
            .filter(move |(_, id)| *id == pool)
            .map(|(r, _)| r)
    }

    /// Every node-slot, pools in creation order and slots in list order: the order in
    /// which verl creates the placement groups and Ray schedules them.
    pub fn node_slots(&self) -> Vec<NodeSlot> {
        node_slots(self.pools.iter().map(|p| &p.spec))
    }
}

impl<R: Role> ResourcePoolManager<R> {
    /// The pool that hosts `role`. Infallible: a manager over a closed role set maps every
    /// role (checked by [`ResourcePoolManager::new`] and, for derived pools, by the
    /// compiler).
    pub fn get_resource_pool(&self, role: R) -> &ResourcePool {
        // `new` sorted the mapping as `Role::ALL` and refused gaps, so position `index`
        // holds `role`.
        let (_, id) = &self.mapping[role.index()];
        &self.pools[*id]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{PoolSpec, RoleName};

    fn pools() -> Vec<ResourcePool> {
        vec![
            ResourcePool::new("global_pool", PoolSpec::with_slots([8, 8])),
            ResourcePool::new("reward_pool", PoolSpec::with_slots([4])),
        ]
    }

    #[test]
    fn slots_come_in_creation_order() {
        let manager = ResourcePoolManager::<RoleName>::new(
            pools(),
            [
                ("actor_rollout".into(), "global_pool"),
                ("rm".into(), "reward_pool"),
            ],
        )
        .unwrap();
        let order: Vec<_> = manager
            .node_slots()
            .iter()
            .map(|s| (s.pool, s.slot, s.bundles))
            .collect();
        assert_eq!(order, [(0, 0, 8), (0, 1, 8), (1, 0, 4)]);
        assert_eq!(
            manager.pool_of(&"rm".into()).map(|p| p.name.as_str()),
            Some("reward_pool")
        );
        assert_eq!(manager.roles_of(0).count(), 1);
    }

    #[test]
    fn bad_managers_are_refused() {
        let unknown = ResourcePoolManager::<RoleName>::new(pools(), [("critic".into(), "globl")]);
        assert!(matches!(unknown, Err(ManagerError::UnknownPool { .. })));
        let twice = ResourcePoolManager::<RoleName>::new(
            pools(),
            [
                ("critic".into(), "global_pool"),
                ("critic".into(), "reward_pool"),
            ],
        );
        assert_eq!(twice, Err(ManagerError::DuplicateRole("critic".into())));
        let mut dup = pools();
        dup.push(ResourcePool::new("global_pool", PoolSpec::with_slots([1])));
        assert!(matches!(
            ResourcePoolManager::<RoleName>::new(dup, []),
            Err(ManagerError::DuplicatePool(_))
        ));
        let empty = vec![ResourcePool::new("p", PoolSpec::with_slots([8, 0]))];
        assert!(matches!(
            ResourcePoolManager::<RoleName>::new(empty, []),
            Err(ManagerError::EmptyPool(_))
        ));
    }
}
