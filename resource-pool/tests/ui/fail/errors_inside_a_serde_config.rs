// A derive's mistake is reported once: a serde config holding the role enum or the pools
// struct still derives, with no cascade of "`Pools: Deserialize` is not satisfied".
use resource_pool::{PoolSpec, ResourcePools, Role};

#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[role(rename_all = "snake_case")]
enum MyRole {
    Actor,
    #[role(rename = "actor")]
    Critic,
}

#[derive(ResourcePools)]
#[resource_pools(role = MyRole)]
struct Pools {
    #[pool(roles(Actor, Critic), process_on_nodes = [])]
    global_pool: PoolSpec,
}

#[derive(serde::Deserialize, serde::Serialize)]
struct TrainerConfig {
    role: MyRole,
    pools: Pools,
}

fn main() {}
