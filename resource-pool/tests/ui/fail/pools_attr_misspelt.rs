//! A misspelt `#[pool]` is rustc's error only ("cannot find attribute `pools`", with its
//! did-you-mean): the derive adds no "hosts no role", nor any other consequence.
use resource_pool::{PoolSpec, ResourcePools, Role};

#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[role(rename_all = "snake_case")]
enum MyRole {
    ActorRollout,
    Critic,
    RewardModel,
}

#[derive(ResourcePools)]
#[resource_pools(role = MyRole)]
struct Pools {
    #[pools(roles(ActorRollout, Critic))]
    global_pool: PoolSpec,
    #[pool(roles(RewardModel))]
    reward_pool: PoolSpec,
}

fn main() {
    // The struct's API is there, so its uses add no error either.
    let _ = Pools::from_toml_str("", "pools.toml");
}
