//! The entry points a launch line may name: verl's own modules ([`ENTRY_POINTS`], one table:
//! which releases have each, and whether it builds its pools as `verl.trainer.main_ppo`
//! does), and how a module or script path is told apart. A module no release of verl has
//! (a recipe's main, a project's own trainer) is not seen: the reader cannot tell what it
//! builds.

use resource_pool_core::source::Span;

/// What one of verl's entry modules builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Builds {
    /// `global_pool = [trainer.n_gpus_per_node] * trainer.nnodes` (and `reward_pool`,
    /// `teacher_pool` beside it) with main_ppo's mapping: the verl files that show it.
    AsMainPpo(&'static str),
    /// Something else: what, and where verl does it.
    Otherwise(&'static str),
}

/// One of verl's entry modules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct EntryPoint {
    /// The module a launch line runs (`-m MODULE`).
    pub module: &'static str,
    /// The releases whose wheel has the module's file, oldest first.
    pub releases: &'static [&'static str],
    /// What it builds.
    pub builds: Builds,
}

impl EntryPoint {
    /// Whether it builds its pools as main_ppo does, and the files that show it.
    pub fn evidence(&self) -> Option<&'static str> {
        match self.builds {
            Builds::AsMainPpo(evidence) => Some(evidence),
            Builds::Otherwise(_) => None,
        }
    }
}

const ALL: &[&str] = &[
    "0.5.0", "0.6.0", "0.6.1", "0.7.0", "0.7.1", "0.8.0", "0.9.0", "0.9.1",
];
const SEPARATE_ROLLOUT: &str = "it builds trainer_pool = [trainer.n_gpus_per_node] * trainer.nnodes and a standalone rollout of rollout.nnodes × rollout.n_gpus_per_node (verl/experimental/separation/utils.py, create_resource_pool_manager)";
const SFT: &str = "it trains SFT with torchrun, without Ray's pools";

/// verl's entry modules: each `@hydra.main` of the wheels of verl 0.5.0-0.9.1 on PyPI
/// (`verl/**/*.py`), with the releases whose wheel has its file. The source of truth for
/// what an entry point builds.
pub const ENTRY_POINTS: &[EntryPoint] = &[
    EntryPoint {
        module: "verl.trainer.main_ppo",
        releases: ALL,
        builds: Builds::AsMainPpo(
            "verl/trainer/main_ppo.py (TaskRunner.init_resource_pool_mgr, verl 0.5.0-0.8.0); verl/trainer/main_ppo_v0.py and verl/trainer/ppo/v1/trainer_base.py (_init_resource_pool_mgr, verl 0.9.x)",
        ),
    },
    EntryPoint {
        module: "verl.trainer.main_ppo_sync",
        releases: &["0.8.0"],
        builds: Builds::AsMainPpo(
            "verl/trainer/main_ppo_sync.py (TaskRunner.init_resource_pool_mgr, verl 0.8.0)",
        ),
    },
    EntryPoint {
        module: "verl.experimental.one_step_off_policy.main_ppo",
        releases: &["0.8.0", "0.9.0", "0.9.1"],
        builds: Builds::Otherwise(SEPARATE_ROLLOUT),
    },
    EntryPoint {
        module: "verl.experimental.fully_async_policy.fully_async_main",
        releases: &["0.8.0", "0.9.0", "0.9.1"],
        builds: Builds::Otherwise(SEPARATE_ROLLOUT),
    },
    EntryPoint {
        module: "verl.trainer.main_generation",
        releases: &["0.5.0", "0.6.0", "0.6.1", "0.7.0"],
        builds: Builds::Otherwise(
            "it builds one pool of trainer.n_gpus_per_node × trainer.nnodes from its own generation config",
        ),
    },
    EntryPoint {
        module: "verl.trainer.main_generation_server",
        releases: &[
            "0.6.0", "0.6.1", "0.7.0", "0.7.1", "0.8.0", "0.9.0", "0.9.1",
        ],
        builds: Builds::Otherwise(
            "it starts rollout servers for generation, without verl's trainer pools",
        ),
    },
    EntryPoint {
        module: "verl.trainer.fsdp_sft_trainer",
        releases: &["0.5.0", "0.6.0", "0.6.1", "0.7.0"],
        builds: Builds::Otherwise(SFT),
    },
    EntryPoint {
        module: "verl.trainer.sft_trainer",
        releases: &[
            "0.6.0", "0.6.1", "0.7.0", "0.7.1", "0.8.0", "0.9.0", "0.9.1",
        ],
        builds: Builds::Otherwise(SFT),
    },
    EntryPoint {
        module: "verl.trainer.sft_trainer_ray",
        releases: &["0.7.0", "0.7.1", "0.8.0", "0.9.0", "0.9.1"],
        builds: Builds::Otherwise(
            "it trains SFT on one pool of trainer.n_gpus_per_node × trainer.nnodes from its own SFT config",
        ),
    },
    EntryPoint {
        module: "verl.trainer.main_eval",
        releases: ALL,
        builds: Builds::Otherwise("it evaluates outputs and builds no pools"),
    },
];

/// The entry point that builds pools when a line names none (bare overrides).
pub fn main_ppo() -> &'static EntryPoint {
    &ENTRY_POINTS[0]
}

/// What the entry point is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// One of verl's own modules.
    Verl(&'static EntryPoint),
    /// A module or script no release of verl has (`recipe.dapo.main_dapo`, `train.py`): the
    /// reader cannot see what it builds.
    Unseen,
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

    /// The verl module that builds pools as main_ppo does, when it is one.
    pub fn as_main_ppo(&self) -> Option<&'static EntryPoint> {
        match self.kind {
            EntryKind::Verl(e) if e.evidence().is_some() => Some(e),
            _ => None,
        }
    }
}

fn classify(module: &str) -> EntryKind {
    ENTRY_POINTS
        .iter()
        .find(|e| e.module == module)
        .map_or(EntryKind::Unseen, EntryKind::Verl)
}

/// A script path as the module it is (`verl/trainer/main_ppo.py` → `verl.trainer.main_ppo`):
/// from the last `verl/` folder in the path, as Python would import it.
pub(super) fn script_module(path: &str) -> Option<String> {
    let stem = path.strip_suffix(".py")?;
    let start = stem
        .match_indices("verl/")
        .map(|(i, _)| i)
        .filter(|&i| i == 0 || stem.as_bytes()[i - 1] == b'/')
        .last()?;
    Some(stem[start..].replace('/', "."))
}

/// What a script path is as an entry point: what the module it is is.
fn script_kind(path: &str) -> EntryKind {
    script_module(path).map_or(EntryKind::Unseen, |m| classify(&m))
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

/// Whether `word` names one of verl's entry points: as a module (`verl.trainer.main_ppo`)
/// or a script path (`.../verl/trainer/main_ppo.py`).
pub(super) fn names_entry_point(word: &str) -> bool {
    let kind = if word.ends_with(".py") {
        script_kind(word)
    } else {
        classify(word)
    };
    matches!(kind, EntryKind::Verl(_))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_agrees_with_the_entry_points_the_key_table_read_from_the_wheels() {
        // `scripts/verl-keys` records each release's `@hydra.main` of main_ppo's family
        // (`entry` lines of data/keys.txt): the table must give them the same releases.
        let set = crate::key_set::key_set();
        for e in ENTRY_POINTS {
            let recorded: Vec<&str> = set
                .entries
                .iter()
                .filter(|r| r.module == e.module)
                .map(|r| set.versions[r.version].0.as_str())
                .collect();
            if !recorded.is_empty() {
                assert_eq!(recorded, e.releases, "{}", e.module);
            }
        }
        // Every release of the table is one of the key table's, and each module is listed once.
        let versions: Vec<&str> = set.version_names().collect();
        for (i, e) in ENTRY_POINTS.iter().enumerate() {
            assert!(e.releases.iter().all(|r| versions.contains(r)), "{e:?}");
            assert!(ENTRY_POINTS[..i].iter().all(|o| o.module != e.module));
        }
    }

    #[test]
    fn modules_no_release_has_are_unseen() {
        for module in [
            "recipe.dapo.main_dapo",
            "my_project.train",
            "verl.trainer.main",
        ] {
            assert_eq!(classify(module), EntryKind::Unseen, "{module}");
        }
        assert_eq!(script_kind("recipe/dapo/main_dapo.py"), EntryKind::Unseen);
        assert!(matches!(
            script_kind("/opt/verl/verl/trainer/main_ppo.py"),
            EntryKind::Verl(e) if e.module == "verl.trainer.main_ppo"
        ));
    }
}
