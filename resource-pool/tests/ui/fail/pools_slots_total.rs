use resource_pool::{PoolSpec, ResourcePools, Role};

#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[role(rename_all = "snake_case")]
enum MyRole {
    ActorRollout,
    Critic,
    RewardModel,
}

// Each pool is under the limit, all of them together are not: `fixed()` would load more
// node-slots than any loader accepts.
#[derive(ResourcePools)]
#[resource_pools(role = MyRole)]
struct Pools {
    #[pool(roles(ActorRollout), gpus_per_node = 8, nnodes = 600000)]
    global_pool: PoolSpec,
    #[pool(roles(Critic), process_on_nodes = [8])]
    critic_pool: PoolSpec,
    #[pool(roles(RewardModel), gpus_per_node = 8, nnodes = 600000)]
    reward_pool: PoolSpec,
}

fn main() {}
