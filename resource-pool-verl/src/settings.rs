//! The resolved settings of a launch: each pool key's value and where it came from.

use super::SpanSpace;
use super::keys::{self, *};
use super::releases::{REWARD_TWINS, Release, RewardKeys};
use resource_pool_core::model::Accelerator;
use resource_pool_core::source::{Span, to_source_span};

/// Where a value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Origin {
    /// verl's default.
    Default,
    /// The YAML, at this span.
    Yaml(Span),
    /// A config given as data (a Python dict, read as its JSON text), at this span: no
    /// YAML file the user wrote.
    Config(Span),
    /// The command line, at this span (in the span space).
    CommandLine(Span),
}

/// Where a value came from, without the span: what a diagnostic's label says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum OriginKind {
    /// verl's default.
    Default,
    /// The YAML.
    Yaml,
    /// A config given as data (a Python dict), not a YAML file.
    Config,
    /// The command line.
    CommandLine,
}

impl std::fmt::Display for OriginKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            OriginKind::Default => "verl's default",
            OriginKind::Yaml => "set in the YAML",
            OriginKind::Config => "set in the config",
            OriginKind::CommandLine => "set on the command line",
        })
    }
}

impl Origin {
    /// The span, unless a default.
    pub fn span(&self) -> Option<Span> {
        match self {
            Origin::Default => None,
            Origin::Yaml(s) | Origin::Config(s) | Origin::CommandLine(s) => Some(s.clone()),
        }
    }

    /// The origin without its span.
    pub fn kind(&self) -> OriginKind {
        match self {
            Origin::Default => OriginKind::Default,
            Origin::Yaml(_) => OriginKind::Yaml,
            Origin::Config(_) => OriginKind::Config,
            Origin::CommandLine(_) => OriginKind::CommandLine,
        }
    }
}

/// One setting's value and origin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    /// The value, after interpolations.
    pub value: Value,
    /// Where it came from.
    pub origin: Origin,
}

/// Every key of [`KEYS`], resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerlSettings {
    pub(super) settings: Vec<Setting>,
    /// The span space of the YAML and command line these came from.
    pub space: SpanSpace,
    /// The release whose entry point builds the pools (`--verl-version`); `None`: the keys
    /// are read as written ([`VerlSettings::reward_keys`]).
    pub release: Option<&'static Release>,
}

impl Default for VerlSettings {
    /// verl's defaults.
    fn default() -> VerlSettings {
        VerlSettings {
            settings: KEYS
                .iter()
                .map(|k| Setting {
                    value: k.default.value(),
                    origin: Origin::Default,
                })
                .collect(),
            space: SpanSpace::default(),
            release: None,
        }
    }
}

impl VerlSettings {
    /// The defaults of `release`'s own trainer config `config` (from [`super::key_set`]:
    /// verl 0.6.x has `reward_model.n_gpus_per_node: 0`, later releases 8; verl 0.5.0's
    /// `ppo_megatron_trainer` has a rollout tensor parallel size of 1, its `ppo_trainer` 2),
    /// or the newest release's ([`KEYS`]) without one. A null there (0.7.1+'s legacy
    /// reward keys) keeps the newest default: verl reads it as not set.
    pub fn for_release(release: Option<&'static Release>, config: &str) -> VerlSettings {
        let mut settings = VerlSettings {
            release,
            ..VerlSettings::default()
        };
        let Some(release) = release else {
            return settings;
        };
        let set = super::key_set::key_set();
        for (composition, path, text) in &set.defaults {
            let composition = &set.compositions[*composition];
            if set.versions[composition.version].0 != release.version
                || composition.config != config
            {
                continue;
            }
            let Some(id) = key_id(path) else { continue };
            if let Some(value) = keys::interpret(text, false, KEYS[id].kind, true)
                .filter(|_| !keys::is_null(text, false, true))
            {
                settings.settings[id].value = value;
            }
        }
        settings
    }

    /// A key's setting.
    pub fn get(&self, key: KeyId) -> &Setting {
        &self.settings[key]
    }

    /// Sets a key (a value from code: origin default).
    pub fn set(&mut self, key: KeyId, value: Value) -> &mut VerlSettings {
        self.settings[key] = Setting {
            value,
            origin: Origin::Default,
        };
        self
    }

    /// A key's integer (verl's default when it holds another type).
    pub fn int(&self, key: KeyId) -> i64 {
        match self.settings[key].value {
            Value::Int(n) => n,
            _ => match KEYS[key].default {
                keys::DefaultValue::Int(n) => n,
                _ => 0,
            },
        }
    }

    /// Whether a key is `True`.
    pub fn bool(&self, key: KeyId) -> bool {
        matches!(self.settings[key].value, Value::Bool(true))
    }

    /// A key's string (empty when it holds another type).
    pub fn str(&self, key: KeyId) -> &str {
        match &self.settings[key].value {
            Value::Str(s) => s,
            _ => "",
        }
    }

    /// Whether a key was given (in the YAML or on the command line).
    pub fn given(&self, key: KeyId) -> bool {
        self.settings[key].origin != Origin::Default
    }

    /// The pools verl creates, in its order, each with the keys that size it: global_pool
    /// (`trainer.*`), reward_pool when its switch is on ([`VerlSettings::reward_keys`]),
    /// teacher_pool when `distillation.enabled` (verl 0.8 and later, `main_ppo.py`:
    /// `[distillation.n_gpus_per_node] * distillation.nnodes`).
    pub fn pool_keys(&self) -> Vec<PoolKeys> {
        let mut pools = vec![PoolKeys {
            name: super::GLOBAL_POOL,
            switch: None,
            gpus: N_GPUS_PER_NODE,
            nnodes: NNODES,
        }];
        if let Some((switch, gpus, nnodes)) = self.reward_keys()
            && self.bool(switch)
        {
            pools.push(PoolKeys {
                name: super::REWARD_POOL,
                switch: Some(switch),
                gpus,
                nnodes,
            });
        }
        if self.bool(DISTILL_ENABLE) && self.release.is_none_or(|r| r.teacher_pool) {
            pools.push(PoolKeys {
                name: super::TEACHER_POOL,
                switch: Some(DISTILL_ENABLE),
                gpus: DISTILL_GPUS,
                nnodes: DISTILL_NNODES,
            });
        }
        pools
    }

    /// The reward pool's keys verl reads (switch, n_gpus_per_node, nnodes); `None` when
    /// the release has no reward pool (0.5.0). By the release's row
    /// ([`RewardKeys`]): `reward_model.*` (0.6.0-0.7.0), each
    /// legacy key when given, else its newer twin (0.7.1, 0.8.0: `migrate_legacy_reward_impl`),
    /// `reward.reward_model.*` (0.9.x). Without a release, the keys as written: the newer
    /// `reward.reward_model.*` when any is given (what 0.9 reads), else `reward_model.*`
    /// (what 0.6.0-0.8.0 read), so a line written for either gets that release's pools.
    pub fn reward_keys(&self) -> Option<(KeyId, KeyId, KeyId)> {
        let migrated = |(legacy, newer): (KeyId, KeyId)| {
            if self.given(legacy) { legacy } else { newer }
        };
        Some(match self.release.map(|r| r.reward) {
            Some(RewardKeys::NoPool) => return None,
            Some(RewardKeys::Legacy) => (RM_POOL, RM_GPUS, RM_NNODES),
            Some(RewardKeys::NewerMigrated) => (
                migrated(REWARD_TWINS[1]),
                migrated(REWARD_TWINS[2]),
                migrated(REWARD_TWINS[3]),
            ),
            Some(RewardKeys::Newer) => (NEW_RM_POOL, NEW_RM_GPUS, NEW_RM_NNODES),
            None if self.newer_reward_spelling() => (NEW_RM_POOL, NEW_RM_GPUS, NEW_RM_NNODES),
            None => (RM_POOL, RM_GPUS, RM_NNODES),
        })
    }

    /// The reward model's switch verl reads, by the release's row as
    /// [`VerlSettings::reward_keys`]. Without a release: `reward.reward_model.enable` when
    /// given, else `reward_model.enable` when given, else the spelling of the other reward
    /// keys.
    pub fn reward_model_key(&self) -> KeyId {
        match self.release.map(|r| r.reward) {
            Some(RewardKeys::NoPool | RewardKeys::Legacy) => RM_ENABLE,
            Some(RewardKeys::NewerMigrated) if self.given(RM_ENABLE) => RM_ENABLE,
            Some(RewardKeys::NewerMigrated | RewardKeys::Newer) => NEW_RM_ENABLE,
            None if self.given(NEW_RM_ENABLE)
                || (!self.given(RM_ENABLE) && self.newer_reward_spelling()) =>
            {
                NEW_RM_ENABLE
            }
            None => RM_ENABLE,
        }
    }

    /// Whether any reward key is given in the newer `reward.reward_model.*` spelling.
    fn newer_reward_spelling(&self) -> bool {
        [NEW_RM_ENABLE, NEW_RM_POOL, NEW_RM_GPUS, NEW_RM_NNODES]
            .iter()
            .any(|&k| self.given(k))
    }

    /// `trainer.device` as an accelerator, if it is one verl knows. Exactly `cuda` and
    /// `npu`: verl 0.5.0-0.8.0 (`RayResourcePool.get_placement_groups` in
    /// `verl/single_controller/ray/base.py`) turn only those into Ray's `GPU` and `NPU`
    /// and ask for any other value (`gpu`, `CUDA`) as a custom resource of that name, which
    /// no node has: the groups never place.
    pub fn accelerator(&self) -> Option<Accelerator> {
        match self.str(DEVICE) {
            "cuda" => Some(Accelerator::Gpu),
            "npu" => Some(Accelerator::Npu),
            _ => None,
        }
    }

    /// The span of a key's value, unless a default.
    pub fn span(&self, key: KeyId) -> Option<miette::SourceSpan> {
        self.settings[key].origin.span().map(|s| to_source_span(&s))
    }

    /// Where a key's value came from.
    pub fn origin(&self, key: KeyId) -> OriginKind {
        self.settings[key].origin.kind()
    }
}

/// A pool verl creates and the keys that size it ([`VerlSettings::pool_keys`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolKeys {
    /// The pool's name (`reward_pool`).
    pub name: &'static str,
    /// The key that creates it (`None` for global_pool, always created).
    pub switch: Option<KeyId>,
    /// Its accelerators per node-slot.
    pub gpus: KeyId,
    /// Its node-slots.
    pub nnodes: KeyId,
}
