use resource_pool::{PoolSpec, ResourcePools, Role};

#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[role(rename_all = "snake_case")]
enum MyRole {
    ActorRollout,
    Critic,
}

// Both slot forms, with both halves of the pair: one mistake, one error.
#[derive(ResourcePools)]
#[resource_pools(role = MyRole)]
struct Pools {
    #[pool(roles(ActorRollout), process_on_nodes = [8])]
    global_pool: PoolSpec,
    #[pool(roles(Critic), gpus_per_node = 4, nnodes = 1, process_on_nodes = [4])]
    critic_pool: PoolSpec,
}

fn main() {}
