use resource_pool::{PoolSpec, ResourcePools, Role};

#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[role(rename_all = "snake_case")]
enum MyRole {
    ActorRollout,
    Critic,
    RefPolicy,
    RewardModel,
}

#[derive(ResourcePools)]
#[resource_pools(role = MyRole)]
struct Pools {
    #[pool(roles(ActorRollout, Critic, RefPolicy), max_colocate_count = "3", process_on_nodes = 8)]
    global_pool: PoolSpec,
    #[pool(roles(RewardModel), accelerator = "TPU", accelerator_type = H100, separate_worker_groups = true)]
    reward_pool: PoolSpec,
}

fn main() {}
