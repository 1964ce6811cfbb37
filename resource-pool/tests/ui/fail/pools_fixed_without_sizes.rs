//! `fixed()` on a struct whose pools do not all fix their node-slots: one error, naming the
//! pools that do not.
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
    #[pool(roles(ActorRollout), process_on_nodes = [8, 8])]
    global_pool: PoolSpec,
    #[pool(roles(Critic))]
    critic_pool: PoolSpec,
    #[pool(roles(RewardModel), max_colocate_count = 1)]
    reward_pool: PoolSpec,
}

fn main() {
    let _ = Pools::fixed();
}
