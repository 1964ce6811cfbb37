//! `role(...)` for `roles(...)` is one error, the unknown key's: the derive does not add
//! that the pool hosts no role, nor that the struct needs its role enum for `rol = ...`.
use resource_pool::{PoolSpec, ResourcePools, Role};

#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[role(rename_all = "snake_case")]
enum MyRole {
    ActorRollout,
    Critic,
}

#[derive(ResourcePools)]
#[resource_pools(role = MyRole)]
struct Pools {
    #[pool(role(ActorRollout, Critic))]
    global_pool: PoolSpec,
}

#[derive(ResourcePools)]
#[resource_pools(rol = MyRole)]
struct Other {
    #[pool(roles(ActorRollout, Critic))]
    global_pool: PoolSpec,
}

fn main() {}
