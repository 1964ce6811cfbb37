//! A misspelt `#[resource_pools]` is rustc's error only: the derive does not add that the
//! struct needs its role enum.
use resource_pool::{PoolSpec, ResourcePools, Role};

#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum MyRole {
    Actor,
}

#[derive(ResourcePools)]
#[resource_pool(role = MyRole)]
struct Pools {
    #[pool(roles(Actor))]
    global_pool: PoolSpec,
}

fn main() {}
