//! Typed, checked GPU/NPU resource pools for distributed RL trainers (verl on Ray).
//!
//! At the root, what a trainer names: its pools ([`PoolSpec`], [`ResourcePool`],
//! [`ResourcePoolManager`]), its roles ([`Role`](derive@Role), a derive, and the
//! [`Role`](trait@Role) trait), the cluster ([`Cluster`], [`Node`], [`Resources`],
//! [`Amount`]) and, with the `check` feature, [`check`](fn@check). The derives make a
//! trainer's role → pool mapping checked by the compiler.
//!
//! ```
//! use resource_pool::{PoolSpec, ResourcePools, Role};
//!
//! #[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
//! #[role(rename_all = "snake_case")]
//! enum MyRole { ActorRollout, Critic, RefPolicy, RewardModel }
//!
//! #[derive(ResourcePools)]
//! #[resource_pools(role = MyRole)]
//! struct Pools {
//!     #[pool(roles(ActorRollout, Critic, RefPolicy), process_on_nodes = [8, 8])]
//!     global_pool: PoolSpec,
//!     #[pool(roles(RewardModel), max_colocate_count = 1)]
//!     reward_pool: PoolSpec,
//! }
//!
//! let pools = Pools::from_toml_str("[reward_pool]\nprocess_on_nodes = [4]\n", "pools.toml")?;
//! let manager = pools.into_manager();
//! assert_eq!(manager.get_resource_pool(MyRole::RewardModel).process_on_nodes(), [4]);
//! # Ok::<(), resource_pool::config::ConfigErrors>(())
//! ```
//!
//! # Features
//!
//! None is on by default: a trainer that only derives its pools builds the model, the
//! config loader and the derives, no more.
//!
//! - `check`: the exact placement check, Ray's scheduler simulated and the whole check
//!   ([`check`](fn@check), the modules `check`, `placement` and `ray_sim`).
//! - `verl`: the module `verl`: verl's roles and default layout, what each verl release
//!   does with its pools, verl's launch lines and YAML (the `resource-pool-verl` crate).
//! - `inventory`: where a cluster comes from (the `resource-pool-inventory` crate): cluster
//!   files, Ray's dashboard JSON, Slurm, kubectl, KubeRay.
//! - `ray`: the Ray dashboard client, the module `ray_http` (blocking HTTP with rustls).
//! - `local`: this machine's accelerators, the modules `local_machine` and `nvml_gpus`
//!   (NVML loaded at run time, `nvidia-smi`, `npu-smi`).
//! - `report`: reports for people and tools, the modules `report` (the CLI's whole check in
//!   one call, `report::CheckRun`, with its human, JSON, GitHub and SARIF output) and
//!   `render` (the plan picture); turns on miette's graphical handler.
//! - `testing`: the module `testing`, proptest strategies of clusters and an assertion
//!   that prints what the CLI prints, for a trainer's own tests (take it as a
//!   dev-dependency feature); turns on `report`.
//! - `schema`: the JSON Schemas of the config and cluster files (`json_schema`).
//!
//! The diagnostics are `miette::Diagnostic`s: reading a code, help or labels needs
//! `miette = "7"` in the trainer's own `Cargo.toml` (`use miette::Diagnostic;`).
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

// The derives' generated code names `::resource_pool`, also inside this crate.
extern crate self as resource_pool;

mod derived;
mod role_error;

#[cfg(feature = "local")]
pub mod local_machine;
#[cfg(feature = "local")]
pub mod nvml_gpus;
#[cfg(feature = "ray")]
pub mod ray_http;
#[cfg(feature = "report")]
pub mod render;
#[cfg(feature = "report")]
pub mod report;
#[cfg(feature = "testing")]
pub mod testing;
#[cfg(feature = "verl")]
pub mod verl;

// The core's stages a trainer's pools travel: the model, its files, their lint and load.
pub use resource_pool_core::{config, file_keys, lint, load, model, source, toml_support};
// The check: placement, Ray's simulation, the findings.
#[cfg(feature = "check")]
pub use resource_pool_core::{check, placement, ray_sim};
// Where a cluster comes from.
#[cfg(feature = "schema")]
pub use resource_pool_core::json_schema;
#[cfg(feature = "inventory")]
pub use resource_pool_inventory as inventory;
// The types a trainer names.
#[cfg(feature = "check")]
pub use resource_pool_core::check::{CheckReport, check};
pub use resource_pool_core::model::{
    Accelerator, Amount, AmountError, Cluster, DEFAULT_MAX_COLOCATE_COUNT, ManagerError, Node,
    NodeSlot, PoolId, PoolSpec, ResourceName, ResourcePool, ResourcePoolManager, Resources, Role,
    RoleKey, RoleName,
};

#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub use resource_pool_core::fuzzing;

pub use derived::LoadPoolsError;
pub use resource_pool_derive::{ResourcePools, Role};
pub use role_error::ParseRoleError;

// The Rust examples of docs/rust.md compile and run as this crate's doctests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/rust.md")]
struct DocsRust;

/// What the derives' generated code uses. Not a public API: it changes without notice.
#[doc(hidden)]
pub mod __private {
    pub use std::borrow::Cow;

    pub use serde;

    pub use crate::derived::{
        PoolAttrs, RoleEnum, RoleVariants, deserialize_pools, fixed_pools, load_pools_file,
        load_pools_str, unassigned_error, unassigned_len, unassigned_message, unwrap_manager,
    };
    pub use crate::load::serialize_struct_pools as serialize_pools;
    pub use crate::role_error::{deserialize_role, parse_role};
}
