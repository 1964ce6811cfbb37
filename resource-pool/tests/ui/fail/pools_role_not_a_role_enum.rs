use resource_pool::{PoolSpec, ResourcePools};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum NotARole {
    Actor,
}

#[derive(ResourcePools)]
#[resource_pools(role = NotARole)]
struct Pools {
    #[pool(roles(Actor))]
    global_pool: PoolSpec,
}

fn main() {}
