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
    #[pool(roles(ActorRollout), gpus_per_node = 8)]
    half_pair: PoolSpec,
    #[pool(roles(Critic), process_on_nodes = [8], nnodes = 2)]
    both_forms: PoolSpec,
    #[pool(roles(RefPolicy), gpus_per_node = 8, nnodes = 0)]
    no_slot: PoolSpec,
    #[pool(roles(RewardModel), gpus_per_node = 0, nnodes = 2000000)]
    empty_and_too_many: PoolSpec,
}

fn main() {}
