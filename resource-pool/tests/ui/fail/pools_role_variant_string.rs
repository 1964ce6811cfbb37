use resource_pool::{PoolSpec, ResourcePools, Role};

#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[role(rename_all = "snake_case")]
enum MyRole {
    ActorRollout,
    Critic,
}

// A role written as its name in a file: the error says which variant to write.
#[derive(ResourcePools)]
#[resource_pools(role = MyRole)]
struct Pools {
    #[pool(roles("actor_rollout", Critic), process_on_nodes = [8])]
    global_pool: PoolSpec,
}

fn main() {}
