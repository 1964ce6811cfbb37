//! The check's remedies in verl's settings ([`LayoutWords`]): `trainer.device`,
//! `trainer.n_gpus_per_node`, `trainer.nnodes` and the pools' own sizes, which are all a
//! verl user can change: `max_colocate_count` and the pools' order are not verl settings.

use resource_pool_core::check::{LayoutWording, LayoutWords};
use resource_pool_core::model::{Amount, AmountOf, names};

/// The words of verl's settings.
pub static VERL_SETTINGS: VerlWords = VerlWords;

/// See [`VERL_SETTINGS`].
#[derive(Debug)]
pub struct VerlWords;

impl VerlWords {
    /// The check's words for a layout verl builds from its settings.
    pub fn wording() -> LayoutWording {
        LayoutWording(&VERL_SETTINGS)
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
const PER_NODE: &str = "`trainer.n_gpus_per_node` (or the pool's own `n_gpus_per_node`)";

impl LayoutWords for VerlWords {
    fn name(&self) -> &'static str {
        "verl"
    }

    // Said for completeness: verl's own report replaces the diagnostic that uses it, and
    // verl's hang gets a suggested layout instead.
    fn how_to_reorder(&self) -> String {
        "but verl creates global_pool first, so the order cannot be chosen: resize the pools instead".to_owned()
    }

    fn other_accelerator(&self, asked: &str, found: &str) -> String {
        format!(
            "the nodes have {found}s, not {asked}s: launch with `trainer.device={}` if that is what verl should use",
            verl_device(found)
        )
    }

    fn accelerator_mismatch(&self, wanted: &str, found: &str) -> String {
        format!(
            "launch with `trainer.device={}` (verl's device for {found}s), or run on nodes that declare `{wanted}`",
            verl_device(found)
        )
    }

    fn too_large(&self, resource: &str, needed: Amount) -> String {
        format!(
            "no node has {} free: lower {PER_NODE} to what a node has (and raise its `nnodes`), or add a larger node",
            AmountOf(needed, resource)
        )
    }

    // verl's entry point keeps ResourcePoolManager's max_colocate_count: no setting.
    fn cpus(&self, needed: Amount, per_bundle: u32) -> String {
        format!(
            "{} needed (verl takes {per_bundle} per GPU): lower {PER_NODE}, or run on nodes with more CPUs (`ray start --num-cpus`)",
            AmountOf(needed, names::CPU)
        )
    }

    fn fewer_or_smaller_slots(&self) -> String {
        "lower `trainer.nnodes` or `trainer.n_gpus_per_node`, or a pool's own `nnodes` or `n_gpus_per_node`".to_owned()
    }

    fn fewer_nodes(&self) -> String {
        "lower `trainer.nnodes` (or a pool's own `nnodes`)".to_owned()
    }

    fn smaller_slots(&self) -> String {
        "lower `trainer.n_gpus_per_node` (or the pool's own `n_gpus_per_node`)".to_owned()
    }
}
