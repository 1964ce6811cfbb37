//! Doc comments and other attributes beside ours are left alone.
#![deny(warnings, missing_docs)]

use resource_pool::{PoolSpec, ResourcePools, Role};

/// The roles of this trainer.
#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[role(rename_all = "kebab-case")]
#[allow(clippy::enum_variant_names)]
pub enum MyRole {
    /// The policy, training and generating.
    ActorRollout,
    /// The value model.
    #[role(rename = "value")]
    #[doc(alias = "value")]
    Critic,
}

/// Where the roles run.
#[derive(ResourcePools, Debug, Clone)]
#[resource_pools(role = MyRole)]
pub struct Pools {
    /// Everything, on the training nodes.
    #[pool(roles(ActorRollout, Critic))]
    #[doc(alias = "main")]
    pub global_pool: PoolSpec,
}

fn main() {
    let pools = Pools::from_toml_str("[global_pool]\nprocess_on_nodes = [8]\n", "p.toml").unwrap();
    assert_eq!(pools.clone().into_manager().get_resource_pool(MyRole::Critic).name, "global_pool");
    assert_eq!(MyRole::Critic.to_string(), "value");
    let _ = format!("{pools:?}");
}
