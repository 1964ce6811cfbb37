//! Every size fixed in the attributes: the layout needs no file.
#![deny(warnings)]

use resource_pool::{Accelerator, PoolSpec, ResourcePools, Role};

#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum MyRole {
    Actor,
    Rollout,
    Critic,
    RewardModel,
}

#[derive(ResourcePools)]
#[resource_pools(role = MyRole)]
struct Pools {
    #[pool(
        roles(Actor, Rollout, Critic),
        separate_worker_groups,
        max_colocate_count = 3,
        process_on_nodes = [16, 16],
        accelerator = "NPU",
        accelerator_type = "accelerator_type:910B",
    )]
    global_pool: PoolSpec,
    #[pool(roles(RewardModel), process_on_nodes = [8], max_colocate_count = 1)]
    reward_pool: PoolSpec,
}

fn main() {
    let manager = Pools::fixed().into_manager();
    let pool = manager.get_resource_pool(MyRole::Rollout);
    assert_eq!(pool.process_on_nodes(), [16, 16]);
    assert_eq!(pool.spec.accelerator, Accelerator::Npu);
    assert_eq!(manager.get_resource_pool(MyRole::RewardModel).spec.max_colocate_count, 1);
}
