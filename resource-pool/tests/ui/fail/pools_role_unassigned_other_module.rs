//! The role enum in another module, named by a path: the error lands on the enum's name.
mod roles {
    #[derive(resource_pool::Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum MyRole {
        Actor,
        Critic,
        RewardModel,
    }
}

#[derive(resource_pool::ResourcePools)]
#[resource_pools(role = crate::roles::MyRole)]
struct Pools {
    #[pool(roles(Actor, Critic))]
    global_pool: resource_pool::PoolSpec,
}

fn main() {}
