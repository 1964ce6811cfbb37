// `#[derive(ResourcePools)]` implements serde's traits itself, with the attribute values as
// the defaults of what a file leaves out; serde's derive could not know them.
use resource_pool::{PoolSpec, ResourcePools, Role};

#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum MyRole {
    Actor,
}

#[derive(ResourcePools, serde::Deserialize)]
#[resource_pools(role = MyRole)]
struct Pools {
    #[pool(roles(Actor), process_on_nodes = [8])]
    global_pool: PoolSpec,
}

fn main() {}
