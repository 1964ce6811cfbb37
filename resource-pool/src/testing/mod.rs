//! Layout checks in a trainer's own `cargo test`, built on proptest (feature `testing`;
//! take it as a dev-dependency feature).
//!
//! - Cluster strategies: [`homogeneous`] and [`heterogeneous`] clusters, GPU or NPU
//!   ([`NodeShape`]), [`with_dead_nodes`](ClusterStrategy::with_dead_nodes) and
//!   [`with_busy`](ClusterStrategy::with_busy) resources. They shrink toward fewer and
//!   smaller nodes, so a failing property ends at a small cluster, printed as a cluster
//!   file ([`TestCluster`]).
//! - [`places`]: the whole check of `resource-pool check` (the placement, Ray's scheduler
//!   in verl's order, the cluster against the node-slots) of a manager on a cluster; on
//!   failure an error whose text is what the CLI prints (diagnostics, plan, summary), and
//!   which `?` turns into a failed proptest case. [`assert_places`] panics with it, for a
//!   plain `#[test]`.
//! - [`load_cluster`]: a cluster file committed in the repository, for a plain `#[test]`.
//!
//! The crate is not on crates.io: the dev-dependency names the same `path` as the
//! dependency (cargo refuses a crate whose source differs between the two):
//!
//! ```toml
//! [dependencies]
//! resource-pool = { path = "../resource-pool/resource-pool" }  # the library in a checkout
//!
//! [dev-dependencies]
//! resource-pool = { path = "../resource-pool/resource-pool", features = ["testing"] }
//! proptest = "1"
//! ```
//!
//! ```
//! use proptest::prelude::*;
//! use resource_pool::testing::{NodeShape, homogeneous, places};
//! use resource_pool::{PoolSpec, ResourcePools, Role};
//!
//! #[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
//! enum MyRole { Actor, Critic }
//!
//! #[derive(ResourcePools)]
//! #[resource_pools(role = MyRole)]
//! struct Pools {
//!     #[pool(roles(Actor, Critic), process_on_nodes = [8, 8])]
//!     global_pool: PoolSpec,
//! }
//!
//! proptest! {
//!     // Our layout places on every cluster of 3 to 16 eight-GPU nodes with one dead.
//!     // In a test file, `#[test]` goes here.
//!     fn places_with_a_spare_node(
//!         cluster in homogeneous(3..=16, NodeShape::gpu(8, 96)).with_dead_nodes(0..=1)
//!     ) {
//!         places(&Pools::fixed().into_manager(), &cluster)?;
//!     }
//! }
//! # places_with_a_spare_node();
//! ```

mod check;
mod clusters;
mod shrink;

pub use check::{LayoutFailure, assert_places, load_cluster, places, places_with, test_options};
pub use clusters::{ClusterStrategy, NodeShape, PerNode, TestCluster, heterogeneous, homogeneous};
pub use shrink::ClusterTree;
