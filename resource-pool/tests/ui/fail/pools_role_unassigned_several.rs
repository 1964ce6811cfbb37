//! Every role no pool lists is named, in one error.
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
#[resource_pools(role = MyRole)]
struct Pools {
    #[pool(roles(ActorRollout))]
    global_pool: PoolSpec,
}

#[derive(ResourcePools)]
#[resource_pools(role = MyRole)]
struct TwoMissing {
    #[pool(roles(ActorRollout, RefPolicy))]
    global_pool: PoolSpec,
}

fn main() {}
