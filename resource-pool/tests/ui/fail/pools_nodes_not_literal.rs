//! Sizes written as consts: one error on each, saying what to write; no "no node-slot" or
//! "`nnodes` without `gpus_per_node`" after it.
use resource_pool::{PoolSpec, ResourcePools, Role};

const N: u32 = 8;
const GPUS: u32 = 4;

#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[role(rename_all = "snake_case")]
enum MyRole {
    ActorRollout,
    Critic,
    RewardModel,
}

#[derive(ResourcePools)]
#[resource_pools(role = MyRole)]
struct Pools {
    #[pool(roles(ActorRollout, Critic), process_on_nodes = [N, N])]
    global_pool: PoolSpec,
    #[pool(roles(RewardModel), gpus_per_node = GPUS, nnodes = 2)]
    reward_pool: PoolSpec,
}

fn main() {}
