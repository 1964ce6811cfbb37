//! verl for resource-pool: verl's roles ([`roles`]), what each release does with its pools
//! ([`releases`], the table every verl fact here is read from) and how it launches them on
//! a cluster ([`launcher`]); the launch line a verl user pastes, read offline into the pools
//! verl's PPO entry point builds ([`launch`], [`hydra`], [`yaml`], [`key_set`], [`keys`],
//! `loading`, `rules`, `layout`, [`rollout`], [`findings`]); and the answer of verl's own
//! code where it is installed ([`installed`]).
//!
//! The offline reader says only what it can prove: a line whose entry point or config it
//! cannot see (a recipe's main, a fork) is one `not_judged` notice; `--python` and the guard
//! (the Python package) use verl's own code instead.
//!
//! The pools follow `verl/trainer/main_ppo.py` of each release (0.5.0 to 0.9.1):
//! - `global_pool = [trainer.n_gpus_per_node] * trainer.nnodes` (defaults 8 and 1);
//! - `reward_pool = [n_gpus_per_node] * nnodes` of the reward model when
//!   `enable_resource_pool` is set (`reward.reward_model.*` in newer verl,
//!   `reward_model.*` before; a size of 0 or less is verl's `ValueError`);
//!   `teacher_pool` with distillation (0.8 and later);
//! - `actor_rollout` (or `actor_rollout_ref`) and `critic` on global_pool; `rm` on
//!   reward_pool when it exists; `ref` on global_pool when KL is used (legacy workers);
//! - CPUs per bundle, the accelerator and the order of the pools' groups are the release
//!   table's.
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
pub mod hydra;
pub mod installed;
mod judge;
pub mod key_set;
pub mod keys;
pub mod launch;
pub mod launcher;
mod layout;
mod loading;
mod not_judged;
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

pub use diagnostics::{VerlClusterDiagnostic, VerlDiagnostic, VerlLaunchDiagnostic};
pub use fields::{
    AliveNodes, Elsewhere, Found, HangCause, HangRemedy, HydraArgs, KeyValue, LaunchSyntax, Listed,
    NodeSize, NotJudgedPart, Placements, PoolPlacement, Releases, ShellExpansionKind, Suggestion,
    TypeFix, TypeFixHow,
};
pub use layout::{ACTOR_ROLLOUT_POOL, VerlLayout};
pub use loading::{LaunchInfo, VerlOptions, load_launch, load_verl};
pub use not_judged::NotJudged;
pub use settings::{Origin, OriginKind, PoolKeys, Setting, VerlSettings};

/// The name a verl config given as data is shown by (Python's resolved `DictConfig` or
/// dict, passed as its JSON text): set [`VerlOptions::config_is_data`] for it, so that its
/// values are not said to be "in the YAML".
pub const CONFIG_DATA_NAME: &str = "<config>";

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
mod judging_tests;
#[cfg(test)]
mod release_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod wording_tests;
