//! The entry points a launch line may name: those that build their pools as
//! `verl.trainer.main_ppo` does ([`UNDERSTOOD`]), those known to build them otherwise, and
//! how a module or script path is told apart.

use resource_pool_core::source::Span;

/// An entry point that builds its pools as `verl.trainer.main_ppo` does, with the verl
/// files that show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Understood {
    /// The module name a launch line runs (`-m MODULE`).
    pub module: &'static str,
    /// The files whose `resource_pool_spec` is `global_pool = [trainer.n_gpus_per_node] *
    /// trainer.nnodes` (and `reward_pool` beside it) with main_ppo's role mapping.
    pub evidence: &'static str,
}

/// The entry points understood.
pub const UNDERSTOOD: &[Understood] = &[
    Understood {
        module: "verl.trainer.main_ppo",
        evidence: "verl/trainer/main_ppo.py (TaskRunner.init_resource_pool_mgr, verl 0.5.0-0.8.0); verl/trainer/main_ppo_v0.py and verl/trainer/ppo/v1/trainer_base.py (_init_resource_pool_mgr, verl 0.9.x)",
    },
    Understood {
        module: "verl.trainer.main_ppo_sync",
        evidence: "verl/trainer/main_ppo_sync.py (TaskRunner.init_resource_pool_mgr, verl 0.8.0)",
    },
];

/// Entry points known to build their pools otherwise: what they do instead.
const DIFFERENT: &[(&str, &str)] = &[
    (
        "verl.experimental.one_step_off_policy.main_ppo",
        "it adds a separate rollout pool sized by rollout.nnodes and rollout.n_gpus_per_node (verl/experimental/one_step_off_policy/main_ppo.py)",
    ),
    (
        "verl.experimental.fully_async_policy.fully_async_main",
        "it adds a separate rollout pool sized by rollout.nnodes and rollout.n_gpus_per_node (verl/experimental/fully_async_policy/fully_async_main.py)",
    ),
    (
        "recipe.dapo.main_dapo",
        "it builds global_pool only and keeps the reward model there whatever reward_model.enable_resource_pool says (recipe/dapo/main_dapo.py)",
    ),
    (
        "verl.trainer.main_generation_server",
        "it serves generation and builds no trainer pools",
    ),
    (
        "verl.trainer.sft_trainer",
        "it trains SFT with torchrun, without Ray's pools",
    ),
    (
        "verl.trainer.main_eval",
        "it evaluates outputs and builds no pools",
    ),
];

/// What the entry point is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// Builds pools as main_ppo does.
    Understood(&'static Understood),
    /// Known to build them otherwise: why.
    Different(&'static str),
    /// Not known.
    Unknown,
}

/// The program verl runs: a module or a script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// As written (`verl.trainer.main_ppo`, `verl/trainer/main_ppo.py`).
    pub text: String,
    /// Whether it was given with `-m`.
    pub module: bool,
    /// Where.
    pub span: Span,
    /// What it is.
    pub kind: EntryKind,
}

impl Entry {
    /// The entry point's folder, where Hydra resolves a relative `--config-path`: the
    /// module's package path or the script's directory.
    pub fn folder(&self) -> String {
        if self.module {
            let parts: Vec<&str> = self.text.split('.').collect();
            parts[..parts.len().saturating_sub(1)].join("/")
        } else {
            self.text
                .rsplit_once('/')
                .map_or(String::new(), |(dir, _)| dir.to_owned())
        }
    }
}

fn classify(module: &str) -> EntryKind {
    if let Some(u) = UNDERSTOOD.iter().find(|u| u.module == module) {
        return EntryKind::Understood(u);
    }
    DIFFERENT
        .iter()
        .find(|(m, _)| *m == module)
        .map_or(EntryKind::Unknown, |(_, why)| EntryKind::Different(why))
}

/// A script path as the module it is (`verl/trainer/main_ppo.py` → `verl.trainer.main_ppo`):
/// from the last `verl/` or `recipe/` folder in the path, as Python would import it.
pub(super) fn script_module(path: &str) -> Option<String> {
    let stem = path.strip_suffix(".py")?;
    let start = ["verl/", "recipe/"]
        .iter()
        .filter_map(|root| {
            stem.match_indices(root)
                .map(|(i, _)| i)
                .filter(|&i| i == 0 || stem.as_bytes()[i - 1] == b'/')
                .last()
        })
        .min()?;
    Some(stem[start..].replace('/', "."))
}

/// What a script path is as an entry point: what the module it is is.
fn script_kind(path: &str) -> EntryKind {
    script_module(path).map_or(EntryKind::Unknown, |m| classify(&m))
}

/// A script as the entry point (`python3 verl/trainer/main_ppo.py`, or the path alone, as
/// `sys.argv` starts).
pub(super) fn script_entry(word: &str, span: Span) -> Entry {
    Entry {
        text: word.to_owned(),
        module: false,
        span,
        kind: script_kind(word),
    }
}

/// A module as the entry point (`-m verl.trainer.main_ppo`, of Python or of `uv run`).
pub(super) fn module_entry(module: &str, span: Span) -> Entry {
    Entry {
        text: module.to_owned(),
        module: true,
        span,
        kind: classify(module),
    }
}

/// Whether `word` names one of verl's entry points, understood or known to differ: as a
/// module (`verl.trainer.main_ppo`) or a script path (`.../verl/trainer/main_ppo.py`).
pub(super) fn names_entry_point(word: &str) -> bool {
    let kind = if word.ends_with(".py") {
        script_kind(word)
    } else {
        classify(word)
    };
    !matches!(kind, EntryKind::Unknown)
}
