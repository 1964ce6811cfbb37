//! A suggestion in the terms of where the layout came from: which pools may split, whether
//! pools may be reordered, and the overrides to paste (a config's `--set`, verl's Hydra
//! overrides through the public keys of [`crate::verl_settings::keys`]).

use super::space::{PoolChoice, Reshape};
use crate::check::{NoSpans, SlotSpans};
use crate::config::write::toml_key;
use crate::config::{PoolDefaults, SlotSource};
use crate::load::LoadedConfig;
use crate::model::PoolId;
use crate::verl_settings::VerlSettings;
use crate::verl_settings::keys::{KEYS, KeyId};

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
        let defaults = PoolDefaults::default();
        match (
            self.doc.pools.get(pool).map(|p| p.slot_source(&defaults)),
            choice.reshape,
        ) {
            (Some(SlotSource::Repeat { size, count, .. }), Reshape::Split) => {
                let mut out = Vec::new();
                if choice.size != size {
                    out.push(format!("{}={}", key("gpus_per_node"), choice.size));
                }
                if choice.count != count {
                    out.push(format!("{}={}", key("nnodes"), choice.count));
                }
                out
            }
            _ => {
                let list: Vec<String> = process_on_nodes.iter().map(u32::to_string).collect();
                vec![format!("{}=[{}]", key("process_on_nodes"), list.join(","))]
            }
        }
    }
}

/// verl's settings: both pools may split; overrides are Hydra's, on the keys verl reads
/// for that pool (the reward pool's newer or older spelling, as
/// [`VerlSettings::reward_keys`] picks).
impl LayoutTerms for VerlSettings {
    fn reshape(&self, _: PoolId) -> Reshape {
        Reshape::Split
    }
    fn reorderable(&self) -> bool {
        false
    }
    fn style(&self) -> OverrideStyle {
        OverrideStyle::Hydra
    }
    fn overrides(&self, pool: PoolId, _: &str, choice: &PoolChoice, _: &[u32]) -> Vec<String> {
        let Some(keys) = self.pool_keys().get(pool).copied() else {
            return Vec::new();
        };
        let (gpus, nnodes): (KeyId, KeyId) = (keys.gpus, keys.nnodes);
        let current = |key: KeyId| match &self.get(key).value {
            crate::verl_settings::keys::Value::Int(n) => Some(*n),
            _ => None,
        };
        let mut out = Vec::new();
        if current(gpus) != Some(i64::from(choice.size)) {
            out.push(format!("{}={}", KEYS[gpus].path, choice.size));
        }
        if current(nnodes) != Some(i64::from(choice.count)) {
            out.push(format!("{}={}", KEYS[nnodes].path, choice.count));
        }
        out
    }
}

/// `word` as one shell word: as it is when it holds only characters no shell treats
/// specially, in single quotes otherwise.
pub fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-=,/:@+%".contains(&b));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_are_quoted_when_needed() {
        assert_eq!(shell_word("trainer.nnodes=2"), "trainer.nnodes=2");
        assert_eq!(
            shell_word("pools.global_pool.process_on_nodes=[8,8]"),
            "'pools.global_pool.process_on_nodes=[8,8]'"
        );
        assert_eq!(shell_word("a'b"), r"'a'\''b'");
        assert_eq!(shell_word(""), "''");
    }
}
