//! Remedies worded in the terms of where the layout was written ([`LayoutOrigin`]): a
//! config file's keys (`accelerator`, `process_on_nodes`, `max_colocate_count`, its table
//! order), Python's `resource_pool_spec`, Rust code, or verl's settings (`trainer.device`,
//! `trainer.n_gpus_per_node`, `trainer.nnodes`), which is all a verl user can change:
//! `max_colocate_count` and the pools' order are not verl settings. The one place that
//! chooses a remedy's words by origin; the data of the JSON output never depends on it.

use super::LayoutOrigin;
use crate::model::Amount;
use crate::model::names;
use crate::words::AmountOf;

/// How the pools of a layout written at `origin` are created in another order.
pub(super) fn how_to_reorder(origin: LayoutOrigin) -> &'static str {
    match origin {
        LayoutOrigin::ConfigFile => "reorder the [pools.*] tables",
        // verl creates the pools in the dict's order (its ResourcePoolManager walks
        // resource_pool_spec's items); the config the check read is generated from it.
        LayoutOrigin::Python => {
            "reorder resource_pool_spec's keys: verl creates the pools in its order"
        }
        LayoutOrigin::Code => {
            "reorder the fields of the #[derive(ResourcePools)] struct, or the pools given to ResourcePoolManager::new"
        }
        // Said for completeness: verl's own report replaces this diagnostic, and verl's
        // hang gets a suggested layout instead (its terms are not reorderable).
        LayoutOrigin::Verl => {
            "but verl creates global_pool first, so the order cannot be chosen: resize the pools instead"
        }
    }
}

/// verl's `trainer.device` for an accelerator resource (`npu` for `NPU`, else `cuda`).
fn verl_device(accelerator: &str) -> &'static str {
    if accelerator == names::NPU {
        "npu"
    } else {
        "cuda"
    }
}

/// The pools' size per node, in verl's settings: global_pool's, or another pool's own
/// (`reward_model.n_gpus_per_node`, by release).
const VERL_PER_NODE: &str = "`trainer.n_gpus_per_node` (or the pool's own `n_gpus_per_node`)";

/// A pool asks for `asked`, and the nodes have `found` (a node-slot that fits no node).
pub(super) fn other_accelerator(origin: LayoutOrigin, asked: &str, found: &str) -> String {
    match origin {
        LayoutOrigin::Verl => format!(
            "the nodes have {found}s, not {asked}s: launch with `trainer.device={}` if that is what verl should use",
            verl_device(found)
        ),
        LayoutOrigin::ConfigFile | LayoutOrigin::Python | LayoutOrigin::Code => format!(
            "the nodes have {found}s, not {asked}s: set `accelerator = \"{found}\"` if that is what the pool should use"
        ),
    }
}

/// The node-slots ask for `wanted` and the alive nodes have only `found` (before any
/// placement).
pub(super) fn accelerator_mismatch(origin: LayoutOrigin, wanted: &str, found: &str) -> String {
    match origin {
        LayoutOrigin::Verl => format!(
            "launch with `trainer.device={}` (verl's device for {found}s), or run on nodes that declare `{wanted}`",
            verl_device(found)
        ),
        LayoutOrigin::ConfigFile | LayoutOrigin::Python | LayoutOrigin::Code => format!(
            "set the pool's accelerator to `{found}` (verl: the device setting, `NPU` on Ascend), or run on nodes that declare `{wanted}`"
        ),
    }
}

/// No node has as many of the pool's accelerator free as one node-slot needs.
pub(super) fn too_large(origin: LayoutOrigin, resource: &str, needed: Amount) -> String {
    let needed = AmountOf(needed, resource);
    match origin {
        LayoutOrigin::Verl => format!(
            "no node has {needed} free: lower {VERL_PER_NODE} to what a node has (and raise its `nnodes`), or add a larger node"
        ),
        LayoutOrigin::ConfigFile | LayoutOrigin::Python | LayoutOrigin::Code => format!(
            "no node has {needed} free: split the node-slot into smaller ones (`process_on_nodes`), or add a larger node"
        ),
    }
}

/// The nearest node has too few CPUs for one node-slot (`per_bundle` per bundle).
pub(super) fn cpus(origin: LayoutOrigin, needed: Amount, per_bundle: u32) -> String {
    let needed = AmountOf(needed, names::CPU);
    match origin {
        // verl's entry point keeps ResourcePoolManager's max_colocate_count: no setting.
        LayoutOrigin::Verl => format!(
            "{needed} needed (verl takes {per_bundle} per GPU): lower {VERL_PER_NODE}, or run on nodes with more CPUs (`ray start --num-cpus`)"
        ),
        LayoutOrigin::ConfigFile | LayoutOrigin::Python | LayoutOrigin::Code => format!(
            "{needed} needed ({per_bundle} per bundle): lower `max_colocate_count`, or start the node with more CPUs (`ray start --num-cpus`)"
        ),
    }
}

/// How a layout asks for less in all: fewer or smaller node-slots.
pub(super) fn fewer_or_smaller_slots(origin: LayoutOrigin) -> &'static str {
    match origin {
        LayoutOrigin::Verl => {
            "lower `trainer.nnodes` or `trainer.n_gpus_per_node`, or a pool's own `nnodes` or `n_gpus_per_node`"
        }
        LayoutOrigin::ConfigFile | LayoutOrigin::Python | LayoutOrigin::Code => {
            "fewer or smaller node-slots"
        }
    }
}

/// How a layout asks for fewer nodes.
pub(super) fn fewer_nodes(origin: LayoutOrigin) -> &'static str {
    match origin {
        LayoutOrigin::Verl => "lower `trainer.nnodes` (or a pool's own `nnodes`)",
        LayoutOrigin::ConfigFile | LayoutOrigin::Python | LayoutOrigin::Code => {
            "ask for fewer node-slots"
        }
    }
}

/// How a layout gets smaller node-slots, to fit fragmented nodes.
pub(super) fn smaller_slots(origin: LayoutOrigin) -> &'static str {
    match origin {
        LayoutOrigin::Verl => {
            "lower `trainer.n_gpus_per_node` (or the pool's own `n_gpus_per_node`)"
        }
        LayoutOrigin::ConfigFile | LayoutOrigin::Python | LayoutOrigin::Code => {
            "use smaller node-slots"
        }
    }
}
