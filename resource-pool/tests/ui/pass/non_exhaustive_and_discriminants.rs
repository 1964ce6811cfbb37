//! Explicit discriminants (as verl's enum has) and `#[non_exhaustive]` are fine: the
//! check iterates the derive's own list of roles.
#![deny(warnings)]

use resource_pool::{PoolSpec, ResourcePools, Role};

#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[repr(u8)]
pub enum MyRole {
    Actor = 2,
    Critic = 0,
}

#[derive(ResourcePools)]
#[resource_pools(role = self::MyRole)]
pub struct Pools {
    #[pool(roles(Actor, Critic), process_on_nodes = [1])]
    pub global_pool: PoolSpec,
}

fn main() {
    assert_eq!(MyRole::Critic.index(), 1);
    let _ = Pools::fixed().into_manager();
}
