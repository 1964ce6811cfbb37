//! A suggestion in verl's settings ([`LayoutTerms`]): which keys change, as Hydra's
//! overrides.

use resource_pool_core::check::suggest::{
    Factor, LayoutTerms, MultipleSource, OverrideStyle, PoolChoice, Reshape, slot_edit_span,
};
use resource_pool_core::model::PoolId;
use resource_pool_core::source::Span;

use crate::keys::{KEYS, KeyId};
use crate::releases::RolloutWorld;
use crate::rollout::{self, rollout_factors, rollout_world};
use crate::{ACTOR_ROLLOUT_POOL, VerlSettings};

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
        crate::keys::Value::Int(n) => Some(*n),
        _ => None,
    };
    [(keys.gpus, choice.size), (keys.nnodes, choice.count)]
        .into_iter()
        .filter(|&(key, value)| current(key) != Some(i64::from(value)))
        .collect()
}
