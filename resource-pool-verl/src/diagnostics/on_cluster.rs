//! The problems of verl's layout on the cluster checked: more nodes asked than alive,
//! a device verl detects itself, uneven nodes, and Ray's hang in verl's creation order.

use miette::SourceSpan;
use serde::Serialize;

use super::super::fields::*;
use super::super::settings::OriginKind;

/// A problem of verl's layout on a cluster (a part of
/// [`VerlDiagnostic`](super::VerlDiagnostic)).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum VerlClusterDiagnostic {
    /// More nodes asked for than the cluster has alive.
    #[error("`trainer.nnodes={nnodes}` but the cluster has {alive}")]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::nnodes_vs_cluster),
        help(
            "verl's node-slots can share a node only when one node holds several of them; start the missing nodes, or set `trainer.nnodes` to the alive nodes"
        )
    )]
    NnodesExceedAlive {
        /// `trainer.nnodes`.
        nnodes: i64,
        /// Alive nodes.
        alive: AliveNodes,
        /// `trainer.nnodes`.
        #[label("{origin}")]
        #[serde(skip)]
        span: Option<SourceSpan>,
        /// Where it came from.
        origin: OriginKind,
    },

    /// GPU bundles asked on a cluster of NPUs only: verl 0.7 and later set `trainer.device`
    /// from the machine they start on (`verl.utils.device.auto_set_device`), so on Ascend
    /// they ask for NPUs.
    #[error(
        "`trainer.device={value}` asks for GPUs, but the cluster has {nodes} with NPUs and none with a GPU: checked with NPU bundles, as verl 0.7 and later run it there"
    )]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::device_detected),
        help(
            "verl 0.7 and later switch to `npu` by themselves where `torch_npu` is installed (`auto_set_device`); earlier releases ask for GPUs here and wait forever: write `trainer.device=npu`"
        )
    )]
    DeviceDetected {
        /// `trainer.device` as set (`cuda` by default).
        value: String,
        /// The alive nodes that declare NPUs.
        nodes: AliveNodes,
        /// `trainer.device`, when written.
        #[label("{origin}")]
        #[serde(skip)]
        span: Option<SourceSpan>,
        /// Where it came from.
        origin: OriginKind,
    },

    /// Nodes with different accelerator counts, and pools that need more than the nodes
    /// their sizes fill: verl's `[n] * nnodes` cannot say "8 here, 4 there".
    #[error(
        "the alive nodes have {counts} {accelerator}s, and verl's node-slots of `trainer.n_gpus_per_node={per_node}` need more nodes than those they fill"
    )]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::uneven_nodes),
        help(
            "verl gives every node one node-slot size and its workers one local world size (process_on_nodes[0], verl#1182), so a node whose count is not a multiple of it stays partly or wholly idle: choose a `trainer.n_gpus_per_node` that divides the node sizes the job needs, lower `trainer.nnodes` to the nodes it fills, or run on nodes of one size"
        )
    )]
    UnevenNodes {
        /// The distinct counts (the largest six), with their node counts.
        counts: Listed<NodeSize>,
        /// `GPU` or `NPU`.
        accelerator: &'static str,
        /// `trainer.n_gpus_per_node`.
        per_node: i64,
        /// `trainer.n_gpus_per_node`.
        #[label("one size for every node")]
        #[serde(skip)]
        span: Option<SourceSpan>,
    },

    /// Ray, in verl's creation order, leaves a group pending forever.
    #[error("with {settings}, Ray {placed}{pool}[{slot}] waits forever ({state}; {nearest})")]
    #[diagnostic(code(resource_pool::verl::ray_hangs), help("{cause}; {remedy}"))]
    RayHangs {
        /// The settings that shape the pools.
        settings: Listed<KeyValue>,
        /// Where Ray puts the pools before one pends.
        placed: Placements,
        /// The pool that pends.
        pool: String,
        /// Its pending node-slot.
        slot: usize,
        /// Ray's scheduling state of the pending group.
        state: String,
        /// The nearest node and what it lacks (`nearest big: CPU 20 of 24`).
        nearest: String,
        /// Why.
        cause: HangCause,
        /// What to do.
        remedy: HangRemedy,
        /// The setting of the pool that pends.
        #[label("{pool} pends")]
        #[serde(skip)]
        span: Option<SourceSpan>,
    },
}
