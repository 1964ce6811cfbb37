//! A role enum named as the trait the derive generates beside the user's path
//! (`DeriveRole`) still compiles: the generated trait then takes another name.
#![deny(warnings)]

use resource_pool::{PoolSpec, ResourcePools, Role};

#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum DeriveRole {
    Actor,
    Critic,
}

#[derive(ResourcePools)]
#[resource_pools(role = DeriveRole)]
struct Pools {
    #[pool(roles(Actor, Critic), process_on_nodes = [8])]
    global_pool: PoolSpec,
}

fn main() {
    let manager = Pools::fixed().into_manager();
    assert_eq!(manager.get_resource_pool(DeriveRole::Critic).name, "global_pool");
}
