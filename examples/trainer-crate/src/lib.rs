//! A trainer's layout: which part runs where is a type, the sizes come from its config.

use resource_pool::{PoolSpec, ResourcePoolManager, ResourcePools, Role};
use serde::Deserialize;

/// The parts of this trainer.
#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[role(rename_all = "snake_case")]
pub enum TrainerRole {
    ActorRollout,
    Critic,
    #[role(rename = "rm")]
    RewardModel,
}

/// Where they run, in the order verl creates the pools. Leaving a role out, or listing one
/// twice, does not compile. The attribute values are defaults the config may override.
#[derive(ResourcePools, Debug, Clone, PartialEq)]
#[resource_pools(role = TrainerRole)]
pub struct Pools {
    #[pool(roles(ActorRollout, Critic), process_on_nodes = [8, 8])]
    pub global_pool: PoolSpec,
    #[pool(roles(RewardModel), max_colocate_count = 1, process_on_nodes = [4])]
    pub reward_pool: PoolSpec,
}

/// The trainer's whole config: its own settings and the pools.
#[derive(Deserialize, Debug)]
pub struct TrainerConfig {
    pub lr: f64,
    pub total_steps: u64,
    #[serde(default = "Pools::fixed")]
    pub pools: Pools,
}

impl TrainerConfig {
    /// The layout: every role has its pool, checked by the compiler.
    pub fn layout(&self) -> ResourcePoolManager<TrainerRole> {
        self.pools.clone().into_manager()
    }
}
