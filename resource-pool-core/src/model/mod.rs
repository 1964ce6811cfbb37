//! The typed model: resources, pools, roles, the manager and the cluster.
//!
//! Nothing here knows of files, spans or terminals: the parse and lint stages build these
//! types, and the placement check reads them.

mod cluster;
mod manager;
mod pool;
mod resource_name;
mod resources;
mod role;

pub use cluster::{Cluster, DisplayName, GroupRef, Node, NodeName, repeated_ids};
pub use manager::{ManagerError, NodeSlot, PoolId, ResourcePoolManager, node_slots};
pub use pool::{
    Accelerator, DEFAULT_MAX_COLOCATE_COUNT, DemandOverflow, PoolSpec, ResourcePool,
    UnknownAccelerator,
};
pub use resources::{Amount, AmountError, AmountOf, ResourceName, Resources, names};
pub use role::{Role, RoleKey, RoleName};
