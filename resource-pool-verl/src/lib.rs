//! verl for resource-pool: verl's roles, what each release does with its pools, and
//! verl's launch settings: the line a verl user pastes (launchers, entry point, Hydra's
//! flags, `key=value` overrides) and the Hydra YAML they already have, read into the pools
//! and mapping verl's PPO entry point builds from them, with every key judged against
//! verl's own config.
//!
//! One module per job: [`launch`] reads the pasted line, [`hydra`] the overrides,
//! [`yaml`] the YAML, [`key_set`] holds every key of verl's config per release (a fact
//! table generated from verl's wheels), [`keys`] the keys that size the pools, `loading`
//! applies it all in Hydra's order, `rules` checks what verl rejects, `layout` builds the
//! pools, [`rollout`] checks the rollout's parallel sizes against them, [`findings`] says what a cluster means for
//! them, and [`roles`] holds verl's roles.
//!
//! The rules follow verl's `verl/trainer/main_ppo.py` (`TaskRunner`) and
//! `ppo_trainer.yaml`, see [`VERL_VERSION`]:
//! - `global_pool = [trainer.n_gpus_per_node] * trainer.nnodes` (defaults 8 and 1);
//! - `reward_pool = [n_gpus_per_node] * nnodes` of the reward model when
//!   `enable_resource_pool` is set (`reward.reward_model.*` in newer verl,
//!   `reward_model.*` before; a size of 0 or less is verl's `ValueError`);
//! - `actor_rollout` (or `actor_rollout_ref` with `trainer.use_legacy_worker_impl=disable`
//!   and KL in use) and `critic` on global_pool; `rm` when `reward_model.enable`, on
//!   reward_pool when it exists; `ref` on global_pool when
//!   `algorithm.use_kl_in_reward` or `actor_rollout_ref.actor.use_kl_loss` (legacy
//!   workers only; the new engine fuses it into `actor_rollout_ref`);
//! - bundles of `GPU`, or `NPU` with `trainer.device=npu`; `max_colocate_count` 3 (verl's
//!   `ResourcePoolManager` default).
//!
//! Every value keeps where it came from: verl's default, a span in the YAML, or a span in
//! the command line. Both live in one [`SpanSpace`]: the YAML's bytes first, then the
//! command line's, so one span type serves every diagnostic, and a
//! [`SourceFile::with_layer`](resource_pool_core::source::SourceFile::with_layer) of the YAML and the
//! command line shows each label in its text.

#![forbid(unsafe_code)]

mod config_file;
mod diagnostics;
mod fields;
pub mod findings;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod grammar_tokens;
pub mod hydra;
mod judge;
pub mod key_set;
pub mod keys;
pub mod launch;
pub mod launcher;
mod layout;
mod loading;
mod omegaconf_grammar;
mod python_numbers;
pub mod releases;
pub mod remedy_words;
mod resolve;
pub mod roles;
pub mod rollout;
mod rules;
mod settings;
mod shell_expansion;
mod suggest_terms;
pub mod version;
pub mod yaml;

pub use config_file::user_config_file;
pub use diagnostics::{VerlClusterDiagnostic, VerlDiagnostic, VerlLaunchDiagnostic};
pub use fields::{
    AliveNodes, CommandForm, ConfigUnreadWhy, Elsewhere, EntryDifference, Found, HangCause,
    HangRemedy, HydraArgs, KeyValue, LaunchSyntax, Listed, NodeSize, Placements, PoolPlacement,
    Releases, ShellExpansionKind, Suggestion, TypeFix, TypeFixHow,
};
pub use layout::{ACTOR_ROLLOUT_POOL, VerlLayout};
pub use loading::{LaunchInfo, VerlOptions, load_launch, load_verl};
pub use settings::{Origin, OriginKind, PoolKeys, Setting, VerlSettings};

/// The name a verl config given as data is shown by (Python's resolved `DictConfig` or
/// dict, passed as its JSON text): set [`VerlOptions::config_is_data`] for it, so that its
/// values are not said to be "in the YAML".
pub const CONFIG_DATA_NAME: &str = "<config>";

/// The verl whose defaults and rules are followed.
pub const VERL_VERSION: &str = "verl main, late 2025 (commit 006cebf8 of verl/trainer/main_ppo.py)";

/// verl's main pool.
pub const GLOBAL_POOL: &str = "global_pool";
/// verl's reward pool.
pub const REWARD_POOL: &str = "reward_pool";
/// verl's teacher pool (0.8 and later, with `distillation.enabled`).
pub const TEACHER_POOL: &str = "teacher_pool";

/// Where a launch's spans point: the YAML's bytes first, then, one byte further, the
/// command line's ([`Launch::line`](launch::Launch::line): the pasted words joined by
/// spaces, whitespace-only words left out). This is the layout of
/// [`SourceFile::with_layer`](resource_pool_core::source::SourceFile::with_layer), whose
/// [`locate`](resource_pool_core::source::SourceFile::locate) names the text a span is in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SpanSpace {
    /// The YAML's length, 0 without one.
    pub yaml_len: usize,
}

impl SpanSpace {
    /// Where the command line starts.
    pub fn command_line_base(self) -> usize {
        self.yaml_len + 1
    }

    fn command_line(
        self,
        span: &resource_pool_core::source::Span,
    ) -> resource_pool_core::source::Span {
        let base = self.command_line_base();
        span.start + base..span.end + base
    }
}

/// The settings of a launch, with every problem found on the way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadedVerl {
    /// The settings (verl's defaults where a value is missing or unusable).
    pub settings: VerlSettings,
    /// The problems, in the span space of `settings.space`.
    pub diagnostics: Vec<VerlDiagnostic>,
    /// The layout verl builds, unless a problem stops verl first.
    pub layout: Option<VerlLayout>,
    /// What was recognised of the launch: entry point, config, key set.
    pub launch: LaunchInfo,
}

impl LoadedVerl {
    /// Whether an error (not a warning) was found.
    pub fn has_errors(&self) -> bool {
        any_error(&self.diagnostics)
    }
}

/// Whether any of `diagnostics` is an error (not a warning).
pub(crate) fn any_error(diagnostics: &[VerlDiagnostic]) -> bool {
    use miette::Diagnostic;
    diagnostics
        .iter()
        .any(|d| matches!(d.severity(), None | Some(miette::Severity::Error)))
}

#[cfg(test)]
mod differential;
#[cfg(test)]
mod release_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod wording_tests;
