//! The role enum comes from another crate: verl's own, from `resource_pool::verl`.
#![deny(warnings)]

use resource_pool::{PoolSpec, ResourcePools, verl};

#[derive(ResourcePools)]
#[resource_pools(role = verl::Role)]
struct Pools {
    #[pool(roles(Actor, Rollout, ActorRollout, Critic, RefPolicy, ActorRolloutRef, Env, TeacherModel))]
    global_pool: PoolSpec,
    #[pool(roles(RewardModel), process_on_nodes = [2])]
    reward_pool: PoolSpec,
}

fn main() {
    let pools = Pools::from_toml_str("[global_pool]\nprocess_on_nodes = [8]\n", "pools.toml").unwrap();
    let manager = pools.into_manager();
    assert_eq!(manager.get_resource_pool(verl::Role::Critic).name, "global_pool");
}
