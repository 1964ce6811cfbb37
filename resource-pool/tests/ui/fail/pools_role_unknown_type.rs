//! `role = MyRol`, a type that does not exist: rustc says so once, at the path, not once per role.
use resource_pool::{PoolSpec, ResourcePools, Role};

#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[role(rename_all = "snake_case")]
enum MyRole {
    ActorRollout,
    Critic,
    RefPolicy,
    RewardModel,
}

#[derive(ResourcePools)]
#[resource_pools(role = MyRol)]
struct Pools {
    #[pool(roles(ActorRollout, Critic, RefPolicy))]
    global_pool: PoolSpec,
    #[pool(roles(RewardModel))]
    reward_pool: PoolSpec,
}

fn main() {}
