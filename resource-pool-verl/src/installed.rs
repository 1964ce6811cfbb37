//! verl as installed (`resource-pool verl --python PYTHON`, `rp.verl.check` where verl
//! imports): what the probe, run in that Python, answers. Hydra composes the line with the
//! entry point's own config, and verl's own start-up code builds the pools; this module
//! reads the answer into pools, a mapping and the release whose rules the launch follows,
//! and into diagnostics where verl or Hydra stopped first.
//!
//! The probe is `python/resource_pool/_verl_probe.py` of the Python package; running it
//! is the front end's (the `resource-pool` crate's `report::installed`). Nothing here does
//! I/O.

use std::collections::BTreeMap;

use resource_pool_core::model::{Accelerator, PoolSpec, ResourcePool};
use resource_pool_core::source::Span;
use serde::{Deserialize, Serialize};

use crate::launch::Launch;
use crate::roles::VERL_ROLES;

/// The entry point verl runs when a line names none (overrides alone).
pub const DEFAULT_ENTRY: &str = "verl.trainer.main_ppo";

/// What the probe is asked: the program and the words Python hands it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProbeRequest {
    /// The entry point.
    pub entry: ProbeEntry,
    /// `sys.argv[1:]`: Hydra's flags and the overrides, as the line gives them.
    pub args: Vec<String>,
}

/// A module (`-m verl.trainer.main_ppo`) or a script path, as Python runs it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ProbeEntry {
    /// `python -m MODULE`.
    Module(String),
    /// `python PATH`, relative to where the command runs.
    Script(String),
}

impl ProbeRequest {
    /// The request for a parsed launch line: its entry point (main_ppo when it names
    /// none), its Hydra flags, then its overrides.
    pub fn of(launch: &Launch) -> ProbeRequest {
        let entry = match &launch.entry {
            Some(entry) if entry.module => ProbeEntry::Module(entry.text.clone()),
            Some(entry) => ProbeEntry::Script(entry.text.clone()),
            None => ProbeEntry::Module(DEFAULT_ENTRY.to_owned()),
        };
        let mut args = Vec::new();
        let flags = [
            ("--config-path", &launch.config_path),
            ("--config-name", &launch.config_name),
            ("--config-dir", &launch.config_dir),
        ];
        for (flag, value) in flags {
            if let Some(value) = value {
                args.push(format!("{flag}={}", value.value));
            }
        }
        if launch.multirun.is_some() {
            args.push("--multirun".to_owned());
        }
        args.extend(launch.overrides.iter().map(|(word, _)| word.clone()));
        ProbeRequest { entry, args }
    }

    /// The entry point as a user reads it.
    pub fn entry_text(&self) -> &str {
        match &self.entry {
            ProbeEntry::Module(m) | ProbeEntry::Script(m) => m,
        }
    }
}

/// How far the probe got.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProbeOutcome {
    /// verl constructed its `ResourcePoolManager`: the pools are in the answer.
    Built,
    /// The Python cannot import verl.
    NoVerl,
    /// The entry point does not import.
    EntryFails,
    /// The entry point has no `@hydra.main`.
    NoHydraMain,
    /// Hydra refuses the line (an unknown key, a bad value, a missing config).
    HydraRefuses,
    /// verl's start-up raised before its pools.
    VerlStops,
    /// Start-up asks Ray for work before its pools, which the probe does not run.
    NeedsRay,
    /// The entry point ran to its end without building pools.
    NoPools,
    /// The probe itself failed.
    ProbeFails,
}

/// The verl the Python has.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
pub struct InstalledVerl {
    /// `verl.__version__`.
    pub version: Option<String>,
    /// Its package folder.
    pub path: String,
}

/// The entry point's `@hydra.main`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
pub struct HydraMain {
    /// `module.function`.
    pub main: String,
    /// Its `config_path`.
    pub config_path: Option<String>,
    /// Its `config_name`.
    pub config_name: Option<String>,
}

/// One pool verl built: `resource_pool_spec[name]`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
pub struct BuiltPool {
    /// The pool's name.
    pub name: String,
    /// Its accelerators per node-slot.
    pub process_on_nodes: Vec<u32>,
}

/// One role of verl's mapping, by its `Role` enum's name (`ActorRollout`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
pub struct BuiltRole {
    /// The role.
    pub role: String,
    /// Its pool.
    pub pool: String,
}

/// The probe's answer.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
pub struct ProbeAnswer {
    /// How far it got.
    pub outcome: ProbeOutcome,
    /// The verl imported.
    #[serde(default)]
    pub verl: Option<InstalledVerl>,
    /// The entry point's Hydra main.
    #[serde(default)]
    pub hydra: Option<HydraMain>,
    /// The composed values of the keys that size and place the pools (`None`: absent).
    #[serde(default)]
    pub config: BTreeMap<String, serde_json::Value>,
    /// Model paths not on this machine, for which verl's config code read a stand-in.
    #[serde(default)]
    pub stand_in_model_for: Vec<String>,
    /// Where verl constructed its `ResourcePoolManager` (`file:line (function)`).
    #[serde(default)]
    pub built_at: Option<String>,
    /// The pools, in `resource_pool_spec`'s order.
    #[serde(default)]
    pub pools: Vec<BuiltPool>,
    /// The mapping.
    #[serde(default)]
    pub mapping: Vec<BuiltRole>,
    /// The manager's `max_colocate_count`, in releases that give it one.
    #[serde(default)]
    pub max_colocate_count: Option<u32>,
    /// The exception's type, where something raised.
    #[serde(default)]
    pub error_type: Option<String>,
    /// Its message.
    #[serde(default)]
    pub message: Option<String>,
    /// Where it raised (`file:line`).
    #[serde(default, rename = "where")]
    pub raised_at: Option<String>,
}

impl ProbeAnswer {
    /// verl's version, as `verl.__version__` says.
    pub fn version(&self) -> Option<&str> {
        self.verl.as_ref()?.version.as_deref()
    }

    /// The accelerator verl's config asks for (`trainer.device`), as written.
    pub fn accelerator(&self) -> Accelerator {
        match self.config.get("trainer.device").and_then(|v| v.as_str()) {
            Some("npu") => Accelerator::Npu,
            _ => Accelerator::Gpu,
        }
    }

    /// The pools verl built, as the check's pools (the accelerator as written; the
    /// release's rules decide the CPUs per bundle).
    pub fn pools(&self) -> Vec<ResourcePool> {
        let accelerator = self.accelerator();
        (self.pools.iter())
            .map(|pool| {
                let mut spec = PoolSpec::with_slots(pool.process_on_nodes.clone());
                spec.accelerator = accelerator;
                if let Some(count) = self.max_colocate_count {
                    spec.max_colocate_count = count;
                }
                ResourcePool::new(pool.name.clone(), spec)
            })
            .collect()
    }

    /// The mapping by verl's role names (`actor_rollout`), and the roles resource-pool
    /// does not know (a fork's), which make no worker group in the check.
    pub fn mapping(&self) -> (Vec<(&'static str, String)>, Vec<String>) {
        let mut known = Vec::new();
        let mut unknown = Vec::new();
        for built in &self.mapping {
            let found = VERL_ROLES.iter().find(|r| {
                r.variant == built.role || r.name == built.role || r.aliases.contains(&&*built.role)
            });
            match found {
                Some(role) => known.push((role.name, built.pool.clone())),
                None => unknown.push(built.role.clone()),
            }
        }
        (known, unknown)
    }

    /// What stopped the probe before the pools, as a diagnostic pointing at `entry` (the
    /// entry point's span on the line, when it names one); `None` when verl built them.
    pub fn stop(&self, python: &str, entry: Option<Span>) -> Option<InstalledDiagnostic> {
        let message = self.message.clone().unwrap_or_default();
        let raised = Raised {
            error_type: self.error_type.clone().unwrap_or_default(),
            message,
            raised_at: self.raised_at.clone(),
        };
        let span = entry.map(|s| s.into());
        let version = self.version().unwrap_or("?").to_owned();
        Some(match self.outcome {
            ProbeOutcome::Built => return None,
            ProbeOutcome::NoVerl => InstalledDiagnostic::NoVerl {
                python: python.to_owned(),
                raised,
            },
            ProbeOutcome::EntryFails => InstalledDiagnostic::EntryFails { raised, span },
            ProbeOutcome::NoHydraMain => InstalledDiagnostic::NoHydraMain { span },
            ProbeOutcome::HydraRefuses => InstalledDiagnostic::HydraRefuses { raised, span },
            ProbeOutcome::VerlStops => InstalledDiagnostic::VerlStops {
                version,
                raised,
                stand_in_model_for: self.stand_in_model_for.clone(),
                span,
            },
            ProbeOutcome::NeedsRay => InstalledDiagnostic::NeedsRay { raised, span },
            ProbeOutcome::NoPools => InstalledDiagnostic::NoPools { span },
            ProbeOutcome::ProbeFails => InstalledDiagnostic::ProbeFails {
                python: python.to_owned(),
                raised,
            },
        })
    }
}

/// An exception raised in the probe: its type, message and place.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Raised {
    /// The type (`ValueError`).
    pub error_type: String,
    /// The message.
    pub message: String,
    /// `file:line`.
    pub raised_at: Option<String>,
}

/// How much of an exception's message the words show: Hydra's wrap the cause on the
/// following lines, which is what a user needs to read.
const SHOWN_MESSAGE_CHARS: usize = 400;

impl std::fmt::Display for Raised {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let joined = (self.message.lines().map(str::trim))
            .filter(|line| !line.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        let shown: String = joined.chars().take(SHOWN_MESSAGE_CHARS).collect();
        let more = if shown.len() < joined.len() {
            "…"
        } else {
            ""
        };
        match &self.raised_at {
            Some(at) => write!(f, "{}: {shown}{more} ({at})", self.error_type),
            None => write!(f, "{}: {shown}{more}", self.error_type),
        }
    }
}

/// Where the installed verl or Hydra stops before the pools, or why the probe could not
/// reach them.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum InstalledDiagnostic {
    /// The Python named cannot import verl.
    #[error("{python} cannot import verl: {raised}")]
    #[diagnostic(
        code(resource_pool::verl::installed::no_verl),
        help(
            "name the Python of verl's environment (`--python .venv/bin/python`), or leave `--python` out to read the line offline"
        )
    )]
    NoVerl {
        /// The Python.
        python: String,
        /// What it raised.
        raised: Raised,
    },
    /// The entry point does not import.
    #[error("the entry point does not import: {raised}")]
    #[diagnostic(
        code(resource_pool::verl::installed::entry_fails),
        help("run the command where verl runs (a recipe imports from the folder that holds it)")
    )]
    EntryFails {
        /// What it raised.
        raised: Raised,
        /// The entry point.
        #[label("this entry point")]
        #[serde(skip)]
        span: Option<miette::SourceSpan>,
    },
    /// No `@hydra.main` in the entry point.
    #[error("the entry point has no `@hydra.main`: no Hydra config to compose")]
    #[diagnostic(
        code(resource_pool::verl::installed::no_hydra_main),
        help(
            "the guard checks any entry point live: `python -m resource_pool.guard -m MODULE ...`"
        )
    )]
    NoHydraMain {
        /// The entry point.
        #[label("no @hydra.main here")]
        #[serde(skip)]
        span: Option<miette::SourceSpan>,
    },
    /// Hydra refuses the line.
    #[error("Hydra refuses the line: {raised}")]
    #[diagnostic(
        code(resource_pool::verl::installed::hydra_refuses),
        help(
            "verl stops here at launch; fix what Hydra names (`+key=value` adds a key the config lacks)"
        )
    )]
    HydraRefuses {
        /// Hydra's error.
        raised: Raised,
        /// The entry point.
        #[label("composed for this entry point")]
        #[serde(skip)]
        span: Option<miette::SourceSpan>,
    },
    /// verl's start-up raised before the pools.
    #[error("verl {version} stops before building its pools: {raised}")]
    #[diagnostic(
        code(resource_pool::verl::installed::verl_stops),
        help("{}", stops_help(stand_in_model_for))
    )]
    VerlStops {
        /// verl's version.
        version: String,
        /// What it raised.
        raised: Raised,
        /// Model paths read as a stand-in.
        stand_in_model_for: Vec<String>,
        /// The entry point.
        #[label("started here")]
        #[serde(skip)]
        span: Option<miette::SourceSpan>,
    },
    /// Start-up uses Ray before its pools.
    #[error("the entry point uses Ray before building its pools ({raised}): not run here")]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::installed::needs_ray),
        help(
            "the guard checks it live: `python -m resource_pool.guard` followed by the line's Python arguments"
        )
    )]
    NeedsRay {
        /// What asked for Ray.
        raised: Raised,
        /// The entry point.
        #[label("this entry point")]
        #[serde(skip)]
        span: Option<miette::SourceSpan>,
    },
    /// The entry point built no ResourcePoolManager.
    #[error("the entry point ran to its end without building verl's ResourcePoolManager")]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::installed::no_pools),
        help("it places no pools through verl's ResourcePoolManager; nothing to check")
    )]
    NoPools {
        /// The entry point.
        #[label("this entry point")]
        #[serde(skip)]
        span: Option<miette::SourceSpan>,
    },
    /// The probe failed.
    #[error("resource-pool's probe failed in {python}: {raised}")]
    #[diagnostic(
        code(resource_pool::verl::installed::probe_fails),
        help("this is resource-pool's fault: please report it with the line")
    )]
    ProbeFails {
        /// The Python.
        python: String,
        /// What went wrong.
        raised: Raised,
    },
    /// An installed verl older than every release known (a fork of 0.1-0.4).
    #[error(
        "verl {version} is older than every release resource-pool knows: checked as verl {assumed} launches"
    )]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::installed::release_not_known),
        help(
            "the pools are verl's own; the order it creates them in and their CPUs are {assumed}'s: the guard checks the launch live"
        )
    )]
    ReleaseNotKnown {
        /// `verl.__version__`.
        version: String,
        /// The release whose rules stand in.
        assumed: &'static str,
    },
    /// Roles of the mapping that resource-pool does not know.
    #[error("verl's mapping has roles resource-pool does not know: {}", roles.join(", "))]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::installed::unknown_roles),
        help(
            "their pools are checked; whether verl makes a worker group for them is not known: the guard checks it live"
        )
    )]
    UnknownRoles {
        /// The roles.
        roles: Vec<String>,
    },
}

fn stops_help(stand_ins: &[String]) -> String {
    let own = "this is verl's own error at launch: fix what it names";
    match stand_ins.is_empty() {
        true => own.to_owned(),
        false => format!(
            "{own}; the model ({}) is not on this machine, so verl's config code read a stand-in model: if the error is about the model, run where the model is",
            stand_ins.join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch::parse_launch;

    fn request(line: &str) -> ProbeRequest {
        let words: Vec<String> = line.split(' ').map(str::to_owned).collect();
        ProbeRequest::of(&parse_launch(&words))
    }

    #[test]
    fn a_request_is_the_entry_point_then_hydras_flags_then_the_overrides() {
        let r = request(
            "python3 -m recipe.dapo.main_dapo --config-name dapo_trainer trainer.nnodes=2 +x.y=1",
        );
        assert_eq!(r.entry, ProbeEntry::Module("recipe.dapo.main_dapo".into()));
        assert_eq!(
            r.args,
            ["--config-name=dapo_trainer", "trainer.nnodes=2", "+x.y=1"]
        );
        let r = request("trainer.nnodes=2");
        assert_eq!(r.entry, ProbeEntry::Module(DEFAULT_ENTRY.into()));
        let r = request("python3 train.py a=1");
        assert_eq!(r.entry, ProbeEntry::Script("train.py".into()));
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            r#"{"entry":{"script":"train.py"},"args":["a=1"]}"#
        );
    }

    fn answer(json: &str) -> ProbeAnswer {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn an_answer_reads_into_pools_and_roles_by_verls_names() {
        let a = answer(
            r#"{"outcome": "built", "verl": {"version": "0.8.0", "path": "/v"},
                "config": {"trainer.device": "npu"}, "max_colocate_count": 3,
                "pools": [{"name": "global_pool", "process_on_nodes": [8, 8]},
                          {"name": "rollout_pool", "process_on_nodes": [4]}],
                "mapping": [{"role": "ActorRolloutRef", "pool": "global_pool"},
                            {"role": "Rollout", "pool": "rollout_pool"},
                            {"role": "Judge", "pool": "rollout_pool"}]}"#,
        );
        let pools = a.pools();
        assert_eq!(pools.len(), 2);
        assert_eq!(pools[0].spec.process_on_nodes, [8, 8]);
        assert_eq!(pools[1].name, "rollout_pool");
        assert_eq!(pools[0].spec.accelerator, Accelerator::Npu);
        let (known, unknown) = a.mapping();
        assert_eq!(
            known,
            [
                ("actor_rollout_ref", "global_pool".to_owned()),
                ("rollout", "rollout_pool".to_owned())
            ]
        );
        assert_eq!(unknown, ["Judge"]);
        assert!(a.stop("py", None).is_none());
    }

    #[test]
    fn a_stop_says_what_raised_where() {
        let a = answer(
            r#"{"outcome": "hydra_refuses", "verl": {"version": "0.9.1", "path": "/v"},
                "error_type": "ConfigCompositionException",
                "message": "Could not override 'trainer.nnodez'.\nTo append use +trainer.nnodez=2",
                "where": "hydra/_internal/config_loader_impl.py:100"}"#,
        );
        let stop = a.stop("python3", Some(Span { start: 0, end: 4 })).unwrap();
        assert_eq!(
            stop.to_string(),
            "Hydra refuses the line: ConfigCompositionException: Could not override 'trainer.nnodez'. To append use +trainer.nnodez=2 (hydra/_internal/config_loader_impl.py:100)"
        );
        // A long message is cut, and says so.
        let long = Raised {
            error_type: "E".into(),
            message: "x".repeat(SHOWN_MESSAGE_CHARS + 1),
            raised_at: None,
        };
        assert!(long.to_string().ends_with("x…"), "{long}");
        let a = answer(
            r#"{"outcome": "verl_stops", "verl": {"version": "0.9.1", "path": "/v"},
                "error_type": "ValueError", "message": "bad", "stand_in_model_for": ["Qwen/Qwen3-8B"]}"#,
        );
        let stop = a.stop("python3", None).unwrap();
        let help = miette::Diagnostic::help(&stop).unwrap().to_string();
        assert!(help.contains("Qwen/Qwen3-8B"), "{help}");
    }
}
