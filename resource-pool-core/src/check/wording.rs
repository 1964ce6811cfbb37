//! How remedies are worded: in the terms of where the layout was written (the keys its
//! author changes) and of the source that listed the cluster (what brings a missing node,
//! what holds resources now). The check words its own config files and layouts built in
//! code; front ends (Python's arguments, verl's settings, each inventory) implement the
//! traits for theirs. Only the words depend on them, never the data of the JSON output.

use std::fmt;

use crate::model::AmountOf;
use crate::model::{Amount, ResourcePool, names};

/// The remedies of a layout in the terms of where it was written.
pub trait LayoutWords: Sync + 'static {
    /// A short stable name (`config_file`), for `Debug` and equality.
    fn name(&self) -> &'static str;
    /// How its pools are created in another order.
    fn how_to_reorder(&self) -> String;
    /// A pool asks for `asked`, and the nodes have `found` (a node-slot that fits no node).
    fn other_accelerator(&self, asked: &str, found: &str) -> String;
    /// The node-slots ask for `wanted` and the alive nodes have only `found`.
    fn accelerator_mismatch(&self, wanted: &str, found: &str) -> String;
    /// No node has `needed` of the pool's accelerator free, as one node-slot needs.
    fn too_large(&self, resource: &str, needed: Amount) -> String;
    /// The nearest node has too few CPUs for one node-slot (`per_bundle` per bundle).
    fn cpus(&self, needed: Amount, per_bundle: u32) -> String;
    /// How the layout asks for less in all.
    fn fewer_or_smaller_slots(&self) -> String;
    /// How the layout asks for fewer nodes.
    fn fewer_nodes(&self) -> String;
    /// How the layout gets smaller node-slots, to fit fragmented nodes.
    fn smaller_slots(&self) -> String;
    /// The advice to paste the whole suggested layout `pools`, when that is how its author
    /// changes it (Python's `resource_pool_spec`); `None`: the advice gives overrides.
    fn whole_layout(&self, _pools: &[ResourcePool]) -> Option<String> {
        None
    }
}

/// The remedies of a cluster in the terms of the source that listed its nodes.
pub trait ClusterWords: Sync + 'static {
    /// A short stable name (`ray`), for `Debug` and equality.
    fn name(&self) -> &'static str;
    /// What brings the missing nodes, or `fewer` (in the layout's terms) asks for fewer.
    fn too_few_nodes(&self, fewer: &str) -> String;
    /// The start of a help whose layout fits the idle cluster but not what is free now.
    fn busy_now(&self) -> &'static str;
}

macro_rules! handle {
    ($(#[$doc:meta])* $handle:ident, $trait:ident, $default:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub struct $handle(pub &'static dyn $trait);

        impl std::ops::Deref for $handle {
            type Target = dyn $trait;
            fn deref(&self) -> &Self::Target {
                self.0
            }
        }

        impl Default for $handle {
            fn default() -> $handle {
                $handle($default)
            }
        }

        impl fmt::Debug for $handle {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.0.name())
            }
        }

        impl PartialEq for $handle {
            fn eq(&self, other: &$handle) -> bool {
                self.0.name() == other.0.name()
            }
        }

        impl Eq for $handle {}

        impl std::hash::Hash for $handle {
            fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
                self.0.name().hash(state);
            }
        }
    };
}

handle!(
    /// Where a layout was written, as the words of its remedies: a config file by default.
    LayoutWording,
    LayoutWords,
    &CONFIG_FILE
);
handle!(
    /// The source that listed a cluster, as the words of its remedies: an unknown source
    /// by default (a cluster file, or a cluster built in code).
    ClusterWording,
    ClusterWords,
    &ANY_SOURCE
);

/// The words of a config file: its keys and its table order.
pub static CONFIG_FILE: FileWords = FileWords;
/// The words of a layout built in code: the fields of a `#[derive(ResourcePools)]` struct,
/// or the pools given to `ResourcePoolManager::new`.
pub static CODE: CodeWords = CodeWords;
/// The words of a cluster whose source is not known.
pub static ANY_SOURCE: AnySource = AnySource;

/// See [`CONFIG_FILE`].
#[derive(Debug)]
pub struct FileWords;
/// See [`CODE`].
#[derive(Debug)]
pub struct CodeWords;
/// See [`ANY_SOURCE`].
#[derive(Debug)]
pub struct AnySource;

/// The words shared by layouts whose pools are written as `process_on_nodes`,
/// `accelerator` and `max_colocate_count` (config files and code), but for the reorder.
mod pool_keys {
    use super::*;

    pub(super) fn other_accelerator(asked: &str, found: &str) -> String {
        format!(
            "the nodes have {found}s, not {asked}s: set `accelerator = \"{found}\"` if that is what the pool should use"
        )
    }
    pub(super) fn accelerator_mismatch(wanted: &str, found: &str) -> String {
        format!(
            "set the pool's accelerator to `{found}` (verl: the device setting, `NPU` on Ascend), or run on nodes that declare `{wanted}`"
        )
    }
    pub(super) fn too_large(resource: &str, needed: Amount) -> String {
        format!(
            "no node has {} free: split the node-slot into smaller ones (`process_on_nodes`), or add a larger node",
            AmountOf(needed, resource)
        )
    }
    pub(super) fn cpus(needed: Amount, per_bundle: u32) -> String {
        format!(
            "{} needed ({per_bundle} per bundle): lower `max_colocate_count`, or start the node with more CPUs (`ray start --num-cpus`)",
            AmountOf(needed, names::CPU)
        )
    }
}

macro_rules! pool_key_words {
    ($ty:ty, $name:literal, $reorder:literal) => {
        impl LayoutWords for $ty {
            fn name(&self) -> &'static str {
                $name
            }
            fn how_to_reorder(&self) -> String {
                $reorder.to_owned()
            }
            fn other_accelerator(&self, asked: &str, found: &str) -> String {
                pool_keys::other_accelerator(asked, found)
            }
            fn accelerator_mismatch(&self, wanted: &str, found: &str) -> String {
                pool_keys::accelerator_mismatch(wanted, found)
            }
            fn too_large(&self, resource: &str, needed: Amount) -> String {
                pool_keys::too_large(resource, needed)
            }
            fn cpus(&self, needed: Amount, per_bundle: u32) -> String {
                pool_keys::cpus(needed, per_bundle)
            }
            fn fewer_or_smaller_slots(&self) -> String {
                "fewer or smaller node-slots".to_owned()
            }
            fn fewer_nodes(&self) -> String {
                "ask for fewer node-slots".to_owned()
            }
            fn smaller_slots(&self) -> String {
                "use smaller node-slots".to_owned()
            }
        }
    };
}

pool_key_words!(FileWords, "config_file", "reorder the [pools.*] tables");
pool_key_words!(
    CodeWords,
    "code",
    "reorder the fields of the #[derive(ResourcePools)] struct, or the pools given to ResourcePoolManager::new"
);

impl ClusterWords for AnySource {
    fn name(&self) -> &'static str {
        "any_source"
    }
    fn too_few_nodes(&self, fewer: &str) -> String {
        format!(
            "a node may be missing or down (on a live Ray cluster, `ray status` on the head says which; `ray start --address=HEAD:PORT` joins one), or {fewer}"
        )
    }
    fn busy_now(&self) -> &'static str {
        "other work holds the resources now: wait for it to finish, or free its placement groups; "
    }
}

/// A layout's spans and terms with the words of another front end: a config that a front
/// end generated from its own terms (Python's `resource_pool_spec`) keeps its spans and
/// overrides, and its remedies are worded as its author wrote it.
pub struct WordedAs<'a, T: ?Sized>(pub &'a T, pub LayoutWording);

impl<T: super::SlotSpans + ?Sized> super::SlotSpans for WordedAs<'_, T> {
    fn pool_span(&self, pool: crate::model::PoolId) -> Option<crate::source::Span> {
        self.0.pool_span(pool)
    }
    fn slot_span(&self, pool: crate::model::PoolId, slot: usize) -> Option<crate::source::Span> {
        self.0.slot_span(pool, slot)
    }
    fn wording(&self) -> LayoutWording {
        self.1
    }
}

impl<T: super::suggest::LayoutTerms + ?Sized> super::suggest::LayoutTerms for WordedAs<'_, T> {
    fn reshape(&self, pool: crate::model::PoolId) -> super::suggest::Reshape {
        self.0.reshape(pool)
    }
    fn reorderable(&self) -> bool {
        self.0.reorderable()
    }
    fn style(&self) -> super::suggest::OverrideStyle {
        self.0.style()
    }
    fn overrides(
        &self,
        pool: crate::model::PoolId,
        name: &str,
        choice: &super::suggest::PoolChoice,
        process_on_nodes: &[u32],
    ) -> Vec<String> {
        self.0.overrides(pool, name, choice, process_on_nodes)
    }
    fn edit_spans(
        &self,
        pool: crate::model::PoolId,
        choice: &super::suggest::PoolChoice,
    ) -> Vec<crate::source::Span> {
        self.0.edit_spans(pool, choice)
    }
    fn multiple(&self, pool: crate::model::PoolId) -> u64 {
        self.0.multiple(pool)
    }
    fn multiple_source(
        &self,
        pool: crate::model::PoolId,
    ) -> Option<super::suggest::MultipleSource> {
        self.0.multiple_source(pool)
    }
    fn admits(
        &self,
        pools: &[crate::model::ResourcePool],
        cluster: &crate::model::Cluster,
    ) -> bool {
        self.0.admits(pools, cluster)
    }
}
