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
#[resource_pools(role = MyRole, pool_order = "fields")]
struct Pools {
    #[pool(roles(ActorRollout, Critic, RefPolicy), max_colocate = 3)]
    global_pool: PoolSpec,
    #[pool(roles(RewardModel), gpus = 4)]
    reward_pool: PoolSpec,
}

fn main() {}
