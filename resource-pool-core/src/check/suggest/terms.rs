//! A suggestion in the terms of where the layout came from: which pools may split, whether
//! pools may be reordered, and the overrides to paste (a config's `--set`, verl's Hydra
//! overrides through the public keys of [`crate::verl_settings::keys`]).

use super::choices::{PoolChoice, Reshape};
use crate::check::{NoSpans, SlotSpans};
use crate::config::{PoolDefaults, SlotSource};
use crate::load::LoadedConfig;
use crate::model::PoolId;
use crate::source::Span;
use crate::toml_support::toml_key;
use crate::verl_settings::keys::{KEYS, KeyId};
use crate::verl_settings::releases::RolloutWorld;
use crate::verl_settings::rollout::{self, rollout_factors, rollout_world};
use crate::verl_settings::{ACTOR_ROLLOUT_POOL, VerlSettings};

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
fn slot_edit_span<T: SlotSpans + ?Sized>(
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

/// verl's settings: both pools may split, a node-slot per node (`nnodes` counts machines);
/// overrides are Hydra's, on the keys verl reads
/// for that pool (the reward pool's newer or older spelling, as
/// [`VerlSettings::reward_keys`] picks).
impl LayoutTerms for VerlSettings {
    fn reshape(&self, _: PoolId) -> Reshape {
        Reshape::Spread
    }
    /// The rollout's replica size for the pool actor_rollout runs on: a layout it does not
    /// divide stops verl at start-up (`rollout_parallel_size`).
    fn multiple(&self, pool: PoolId) -> u64 {
        let actor_rollout = self
            .pool_keys()
            .get(pool)
            .is_some_and(|p| p.name == ACTOR_ROLLOUT_POOL);
        actor_rollout
            .then(|| rollout_world(self))
            .flatten()
            .unwrap_or(1)
    }
    /// The rollout's parallel sizes that multiply into that replica size (the tensor
    /// parallel size alone in verl 0.5.0).
    fn multiple_source(&self, pool: PoolId) -> Option<MultipleSource> {
        let (what, remedy) = match rollout::kind(self) {
            RolloutWorld::Tp => (
                "the rollout's tensor parallel size",
                "lower the rollout's tensor parallel size",
            ),
            RolloutWorld::TpDpPp => (
                "the rollout's replica size",
                "lower the rollout's parallel sizes",
            ),
        };
        (self.multiple(pool) > 1).then(|| MultipleSource {
            what,
            remedy,
            factors: rollout_factors(self)
                .into_iter()
                .map(|(key, value)| Factor {
                    key: KEYS[key].path.to_owned(),
                    value,
                })
                .collect(),
        })
    }
    fn reorderable(&self) -> bool {
        false
    }
    fn style(&self) -> OverrideStyle {
        OverrideStyle::Hydra
    }
    fn overrides(&self, pool: PoolId, _: &str, choice: &PoolChoice, _: &[u32]) -> Vec<String> {
        verl_edits(self, pool, choice)
            .into_iter()
            .map(|(key, value)| format!("{}={value}", KEYS[key].path))
            .collect()
    }

    /// The keys that change, where their values were given; when only defaults change
    /// (they have no span), where the pool's slots are, as for other layouts, so that the
    /// suggestion keeps a place (GitHub's and SARIF's annotations need one).
    fn edit_spans(&self, pool: PoolId, choice: &PoolChoice) -> Vec<Span> {
        let given: Vec<Span> = verl_edits(self, pool, choice)
            .into_iter()
            .filter_map(|(key, _)| self.get(key).origin.span())
            .collect();
        if given.is_empty() {
            slot_edit_span(self, pool, choice)
        } else {
            given
        }
    }
}

/// The keys of verl's settings that turn pool `pool` into `choice`, with their new values:
/// the pool's GPUs per node, then its nodes, each when it differs from what verl reads now.
fn verl_edits(settings: &VerlSettings, pool: PoolId, choice: &PoolChoice) -> Vec<(KeyId, u32)> {
    let Some(keys) = settings.pool_keys().get(pool).copied() else {
        return Vec::new();
    };
    let current = |key: KeyId| match &settings.get(key).value {
        crate::verl_settings::keys::Value::Int(n) => Some(*n),
        _ => None,
    };
    [(keys.gpus, choice.size), (keys.nnodes, choice.count)]
        .into_iter()
        .filter(|&(key, value)| current(key) != Some(i64::from(value)))
        .collect()
}
