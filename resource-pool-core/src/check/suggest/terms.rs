//! A suggestion in the terms of where the layout came from: which pools may split, whether
//! pools may be reordered, and the overrides to paste (a config's `--set`; a front end's
//! own, such as verl's Hydra overrides).

use super::choices::{PoolChoice, Reshape};
use crate::check::{NoSpans, SlotSpans};
use crate::config::{PoolDefaults, SlotSource};
use crate::load::LoadedConfig;
use crate::model::{Cluster, PoolId, ResourcePool};
use crate::source::Span;
use crate::toml_support::toml_key;

/// How the overrides of a suggestion are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OverrideStyle {
    /// `check --set KEY=VALUE` (TOML keys and values).
    Set,
    /// verl's Hydra overrides (`trainer.nnodes=2`).
    Hydra,
    /// A layout built in code: none.
    None,
}

/// Where a layout came from, as a suggestion needs it.
pub trait LayoutTerms: SlotSpans {
    /// How pool `pool` may change.
    fn reshape(&self, pool: PoolId) -> Reshape;
    /// Whether the pools may be created in another order (a config's tables may be
    /// reordered; verl creates global_pool first).
    fn reorderable(&self) -> bool;
    /// How overrides are written.
    fn style(&self) -> OverrideStyle;
    /// The overrides that turn pool `pool` (named `name`) into `choice`, whose node-slots
    /// are `process_on_nodes`: only the keys that change, each `KEY=VALUE`.
    fn overrides(
        &self,
        pool: PoolId,
        name: &str,
        choice: &PoolChoice,
        process_on_nodes: &[u32],
    ) -> Vec<String>;

    /// Where the suggestion's labels go for pool `pool` turned into `choice`: what
    /// [`LayoutTerms::overrides`] changes. By default the first node-slot a trim drops
    /// (or its pool's header), and the first node-slot's span of a split (the key that
    /// sizes it); layouts whose split is two keys say which of them change.
    fn edit_spans(&self, pool: PoolId, choice: &PoolChoice) -> Vec<Span> {
        slot_edit_span(self, pool, choice)
    }

    /// A number pool `pool`'s accelerators must be a multiple of in any suggested layout
    /// (verl's rollout replica size for the pool actor_rollout runs on); 1 by default.
    fn multiple(&self, _pool: PoolId) -> u64 {
        1
    }

    /// What [`LayoutTerms::multiple`] of pool `pool` is, for the advice when no layout
    /// fits: `None` by default (and for a multiple of 1).
    fn multiple_source(&self, _pool: PoolId) -> Option<MultipleSource> {
        None
    }

    /// Whether the launcher's own check lets `pools` through on `cluster` before Ray sees
    /// them (verl's pre-check); a suggested layout must pass it. Every layout by default.
    fn admits(&self, _pools: &[ResourcePool], _cluster: &Cluster) -> bool {
        true
    }
}

/// What a pool's multiple ([`LayoutTerms::multiple`]) is, as the advice names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MultipleSource {
    /// What it is, in a phrase: `the rollout's replica size`.
    pub what: &'static str,
    /// What to do to lower it: `lower the rollout's parallel sizes`.
    pub remedy: &'static str,
    /// The settings whose values multiply into it, each as read (settings of 1 may be
    /// left out).
    pub factors: Vec<Factor>,
}

/// A setting whose value is a factor of a pool's multiple.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Factor {
    /// The setting, as the layout's overrides name it (verl's dotted key).
    pub key: String,
    /// Its value.
    pub value: u64,
}

/// The span of the first node-slot a trim of `pool` drops, or of a split's first node-slot
/// (the key that sizes them all), else the pool's header.
pub fn slot_edit_span<T: SlotSpans + ?Sized>(
    terms: &T,
    pool: PoolId,
    choice: &PoolChoice,
) -> Vec<Span> {
    let slot = match choice.reshape {
        Reshape::Trim => choice.count as usize,
        Reshape::Split | Reshape::Spread => 0,
    };
    terms
        .slot_span(pool, slot)
        .or_else(|| terms.pool_span(pool))
        .into_iter()
        .collect()
}

/// A layout built in code: pools trimmed, no overrides.
impl LayoutTerms for NoSpans {
    fn reshape(&self, _: PoolId) -> Reshape {
        Reshape::Trim
    }
    fn reorderable(&self) -> bool {
        true
    }
    fn style(&self) -> OverrideStyle {
        OverrideStyle::None
    }
    fn overrides(&self, _: PoolId, _: &str, _: &PoolChoice, _: &[u32]) -> Vec<String> {
        Vec::new()
    }
}

/// A config file: a pool written `gpus_per_node`/`nnodes` may split, a
/// `process_on_nodes` list is trimmed; overrides are `--set` values.
impl LayoutTerms for LoadedConfig {
    fn reshape(&self, pool: PoolId) -> Reshape {
        let defaults = PoolDefaults::default();
        match self.doc.pools.get(pool).map(|p| p.slot_source(&defaults)) {
            Some(SlotSource::Repeat { .. }) => Reshape::Split,
            _ => Reshape::Trim,
        }
    }
    fn reorderable(&self) -> bool {
        true
    }
    fn style(&self) -> OverrideStyle {
        OverrideStyle::Set
    }
    fn overrides(
        &self,
        pool: PoolId,
        name: &str,
        choice: &PoolChoice,
        process_on_nodes: &[u32],
    ) -> Vec<String> {
        let key = |field: &str| format!("pools.{}.{field}", toml_key(name));
        match split_keys(self, pool, choice) {
            Some(keys) => keys
                .iter()
                .map(|k| format!("{}={}", key(k.field), k.value))
                .collect(),
            None => {
                let list: Vec<String> = process_on_nodes.iter().map(u32::to_string).collect();
                vec![format!("{}=[{}]", key("process_on_nodes"), list.join(","))]
            }
        }
    }

    /// A split pool: the `gpus_per_node` and `nnodes` values that change (`--set
    /// pools.x.nnodes=3` is labelled at `nnodes`, not at `gpus_per_node`, the span every
    /// node-slot of the pool has).
    fn edit_spans(&self, pool: PoolId, choice: &PoolChoice) -> Vec<Span> {
        match split_keys(self, pool, choice) {
            Some(keys) => keys.into_iter().map(|k| k.span).collect(),
            None => slot_edit_span(self, pool, choice),
        }
    }
}

/// A key of a config's pool that a suggestion changes.
struct KeyEdit {
    /// `gpus_per_node` or `nnodes`.
    field: &'static str,
    /// Its new value.
    value: u32,
    /// Where its value is written.
    span: Span,
}

/// The keys that turn pool `pool` of a config into `choice`, in the order they are written
/// out (`gpus_per_node`, then `nnodes`); `None` unless the pool is written `gpus_per_node` ×
/// `nnodes` and split (a `process_on_nodes` list is written whole).
fn split_keys(config: &LoadedConfig, pool: PoolId, choice: &PoolChoice) -> Option<Vec<KeyEdit>> {
    if choice.reshape != Reshape::Split {
        return None;
    }
    let table = config.doc.pools.get(pool)?;
    let defaults = PoolDefaults::default();
    let SlotSource::Repeat { .. } = table.slot_source(&defaults) else {
        return None;
    };
    let (size, count) = (table.gpus_per_node.as_ref()?, table.nnodes.as_ref()?);
    let edits = [
        ("gpus_per_node", size, choice.size),
        ("nnodes", count, choice.count),
    ];
    Some(
        edits
            .into_iter()
            .filter(|(_, written, value)| written.value != *value)
            .map(|(field, written, value)| KeyEdit {
                field,
                value,
                span: written.span.clone(),
            })
            .collect(),
    )
}
