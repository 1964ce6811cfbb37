//! The role enum lives in another module than the pools, and is named by its path.
#![deny(warnings)]

mod roles {
    use resource_pool::Role;

    #[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
    #[role(rename_all = "snake_case")]
    pub enum TrainerRole {
        ActorRollout,
        Critic,
        RewardModel,
    }
}

mod layout {
    use resource_pool::{PoolSpec, ResourcePools};

    #[derive(ResourcePools)]
    #[resource_pools(role = crate::roles::TrainerRole)]
    pub struct Pools {
        #[pool(roles(ActorRollout, Critic), process_on_nodes = [8, 8])]
        pub global_pool: PoolSpec,
        #[pool(roles(RewardModel), process_on_nodes = [4], max_colocate_count = 1)]
        pub reward_pool: PoolSpec,
    }
}

fn main() {
    let manager = layout::Pools::fixed().into_manager();
    let pool = manager.get_resource_pool(roles::TrainerRole::RewardModel);
    assert_eq!(pool.name, "reward_pool");
}
