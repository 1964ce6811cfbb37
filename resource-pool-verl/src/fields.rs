//! The typed fields of verl's diagnostics: data that serialises as itself and shows as
//! the words of a message (`a, b and c`, `3 alive nodes`, `verl 0.5.0-0.9.1`).

use std::fmt;

use serde::Serialize;

use resource_pool_core::model::NodeName;

mod hydra_args;
pub use hydra_args::HydraArgs;

/// A list shown as `a, b and c`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Listed<T>(pub Vec<T>);

impl<T: fmt::Display> fmt::Display for Listed<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, item) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(if i + 1 == self.0.len() { " and " } else { ", " })?;
            }
            write!(f, "{item}")?;
        }
        Ok(())
    }
}

/// Keys an interpolation follows round to where it started, shown as
/// `a → b → a` (JSON: the keys in that order).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Cycle(pub Vec<&'static str>);

impl fmt::Display for Cycle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, key) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" → ")?;
            }
            write!(f, "`{key}`")?;
        }
        Ok(())
    }
}

/// A count as verl reads it. A number past i64 is read as i64's bound
/// ([`super::keys::interpret`]), and shown as such: `9223372036854775807 or more`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Count(pub i64);

impl fmt::Display for Count {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            i64::MAX => write!(f, "{} or more", i64::MAX),
            i64::MIN => write!(f, "{} or less", i64::MIN),
            n => write!(f, "{n}"),
        }
    }
}

/// A key and the value it holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KeyValue {
    /// The dotted key.
    pub key: &'static str,
    /// The value, as written.
    pub value: String,
}

impl fmt::Display for KeyValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.key, self.value)
    }
}

/// Where Ray places a pool's groups.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PoolPlacement {
    /// The pool, by its name in the config.
    pub pool: String,
    /// The node of each placed group, in order (JSON: their ids).
    pub nodes: Vec<NodeName>,
}

impl fmt::Display for PoolPlacement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "places {} on ", self.pool)?;
        for (i, node) in self.nodes.iter().take(6).enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{node}")?;
        }
        if self.nodes.len() > 6 {
            f.write_str(", …")?;
        }
        Ok(())
    }
}

/// Where Ray puts the pools before one pends, as `places A on x, and `.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Placements(pub Vec<PoolPlacement>);

impl fmt::Display for Placements {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{p}")?;
        }
        if !self.0.is_empty() {
            f.write_str(", and ")?;
        }
        Ok(())
    }
}

/// Why Ray's order hangs where a placement exists, or may.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HangCause {
    /// A placement exists; verl's creation order and Ray's spreading miss it.
    OrderMissesPlacement,
    /// Ray's choice among equally good nodes decides it.
    TieBreaks,
    /// Some tie-breaks place everything, some hang.
    DependsOnTies,
}

impl fmt::Display for HangCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HangCause::OrderMissesPlacement => {
                "a placement exists, but verl creates global_pool first and Ray spreads each group onto the emptiest node, and verl cannot pin groups"
            }
            HangCause::TieBreaks => "Ray's choice among equally good nodes decides it",
            HangCause::DependsOnTies => {
                "some of Ray's tie-breaks place everything and some hang: the launch may hang on one run and not the next"
            }
        })
    }
}

/// What to change so that Ray places every group: `resize_pools` or `node_sized_slots`
/// in JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HangRemedy {
    /// Resize the pools, or fold the reward pool into global_pool with its switch (the
    /// key the launch spells it by: `reward_model.enable_resource_pool` or
    /// `reward.reward_model.enable_resource_pool`).
    ResizePools {
        /// The reward pool's switch, when the launch has a reward pool.
        switch: Option<&'static str>,
    },
    /// Node-slots as large as the nodes.
    NodeSizedSlots,
}

impl Serialize for HangRemedy {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(match self {
            HangRemedy::ResizePools { .. } => "resize_pools",
            HangRemedy::NodeSizedSlots => "node_sized_slots",
        })
    }
}

impl fmt::Display for HangRemedy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HangRemedy::ResizePools { switch } => {
                f.write_str("give the pools sizes that fit the nodes Ray leaves free")?;
                match switch {
                    Some(key) => write!(
                        f,
                        " (for example one reward node per spare node), or set {key}=False to run the reward model in global_pool"
                    ),
                    None => Ok(()),
                }
            }
            HangRemedy::NodeSizedSlots => f.write_str(
                "use node-slots as large as the nodes (trainer.n_gpus_per_node = the accelerators per node)",
            ),
        }
    }
}

/// Nodes of one accelerator count.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NodeSize {
    /// Accelerators per node.
    pub accelerators: u64,
    /// Nodes with that many.
    pub nodes: usize,
}

impl fmt::Display for NodeSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = if self.nodes == 1 { "" } else { "s" };
        write!(f, "{} ({} node{s})", self.accelerators, self.nodes)
    }
}

/// A count of nodes, as `1 alive node` / `3 alive nodes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct AliveNodes(pub usize);

impl fmt::Display for AliveNodes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = if self.0 == 1 { "" } else { "s" };
        write!(f, "{} alive node{s}", self.0)
    }
}

/// Where else an unknown key exists.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Elsewhere {
    /// Nowhere verl has it.
    Nowhere,
    /// In these releases (left out by `--verl-version`).
    Releases(Vec<&'static str>),
    /// Under this defaults-list choice.
    Choice {
        /// The choice (`model_engine`).
        entry: &'static str,
        /// Its option (`megatron`).
        option: &'static str,
    },
}

impl fmt::Display for Elsewhere {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Elsewhere::Nowhere => Ok(()),
            Elsewhere::Releases(r) => write!(f, "; only verl {} has it", Listed(r.clone())),
            Elsewhere::Choice { entry, option } => {
                write!(f, "; it exists with `{entry}={option}`")
            }
        }
    }
}

/// A suggestion, shown as `; did you mean `x`?` when there is one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Suggestion(pub Option<&'static str>);

impl fmt::Display for Suggestion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(s) => write!(f, "; did you mean `{s}`?"),
            None => Ok(()),
        }
    }
}

/// The releases a key set covers: `verl 0.9.1`, `verl 0.5.0-0.9.1`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Releases(pub Vec<&'static str>);

impl fmt::Display for Releases {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.as_slice() {
            [] => f.write_str("verl"),
            [one] => write!(f, "verl {one}"),
            [first, .., last] => write!(f, "verl {first}-{last}"),
        }
    }
}

/// What is wrong with the launcher words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum LaunchSyntax {
    /// `ray job submit` with no `--`.
    RaySubmitWithoutEntrypoint,
    /// `python3 -c`.
    InlineCode,
    /// A flag at the end of the line that needs a value.
    MissingValue,
    /// Launcher words (`env`, `ray job submit ... --`, `python3 -u`) that start no program.
    NoProgram,
    /// A shell's command string (`bash -c '...'`) that leaves a quote open.
    OpenQuote,
}

impl fmt::Display for LaunchSyntax {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LaunchSyntax::RaySubmitWithoutEntrypoint => {
                "`ray job submit` without `--`: its entrypoint follows `--`"
            }
            LaunchSyntax::InlineCode => "`python3 -c` runs inline code: no entry point to read",
            LaunchSyntax::MissingValue => "this flag needs a value",
            LaunchSyntax::NoProgram => {
                "the line ends here, before the program these words start: nothing to check"
            }
            LaunchSyntax::OpenQuote => {
                "this command string leaves a quote, `$(`, `${` or backquote open: the shell refuses it"
            }
        })
    }
}

/// What is not judged when a value the check reads is not read: the pools (the key sizes
/// them) or the rollout's sizes (a rollout key).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NotJudgedPart {
    /// The pools verl builds.
    Pools,
    /// The rollout's sizes against the pool it runs on.
    Rollout,
}

impl fmt::Display for NotJudgedPart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NotJudgedPart::Pools => "the pools verl builds are not judged",
            NotJudgedPart::Rollout => "the rollout's sizes are not checked",
        })
    }
}

/// Which shell expansion a command-line value is (`shell_expansion`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ShellExpansionKind {
    /// `$((...))`.
    Arithmetic,
    /// `$(...)` or a backquoted command.
    CommandSubstitution,
}

impl fmt::Display for ShellExpansionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ShellExpansionKind::Arithmetic => "shell arithmetic",
            ShellExpansionKind::CommandSubstitution => "a command's output",
        })
    }
}

/// Which spelling of a reward key is followed when both are given and disagree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Followed {
    /// The newer `reward.reward_model.*` (no `--verl-version`: as verl 0.9 reads it).
    Newer,
    /// The legacy `reward_model.*`, as this release's `migrate_legacy_reward_impl` copies
    /// it over the newer key.
    Legacy(&'static str),
}

impl fmt::Display for Followed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Followed::Newer => f.write_str("resource-pool follows the newer one, as verl 0.9 does"),
            Followed::Legacy(v) => write!(
                f,
                "verl {v} follows the older one: its main_ppo copies a legacy key that is set over the newer one (migrate_legacy_reward_impl)"
            ),
        }
    }
}

/// Which text a span is in, for labels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Place {
    /// The pasted line.
    CommandLine,
    /// The YAML.
    Yaml,
    /// A config given as data (a Python dict), not a YAML file.
    Config,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Place::CommandLine => "on the command line",
            Place::Yaml => "in the YAML",
            Place::Config => "in the config",
        })
    }
}

/// Why a release does not read a pool key ([`VerlDiagnostic::NotRead`](super::VerlDiagnostic)).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NotReadWhy {
    /// Its config has no such key (Hydra adds it with `+`, or from a YAML of yours); these
    /// releases have it.
    NotInConfig(Vec<&'static str>),
    /// Its config holds the legacy key (null), but its entry point reads only this newer
    /// one: `main` no longer calls `migrate_legacy_reward_impl` (verl 0.9).
    NotMigrated(&'static str),
}

/// Why; with `#` (`{why:#}`, the help), what to do.
impl fmt::Display for NotReadWhy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotReadWhy::NotMigrated(newer) if f.alternate() => write!(f, "write `{newer}` instead"),
            NotReadWhy::NotInConfig(_) if f.alternate() => f.write_str(
                "drop it, or pass the --verl-version you launch: the pools checked are the ones this release builds, without it",
            ),
            NotReadWhy::NotInConfig(others) if others.is_empty() => {
                f.write_str("its config has no such key, and verl ignores what Hydra adds")
            }
            NotReadWhy::NotInConfig(others) => write!(
                f,
                "its config has no such key (only verl {} has it), and verl ignores what Hydra adds",
                Listed(others.clone())
            ),
            NotReadWhy::NotMigrated(newer) => write!(
                f,
                "its main_ppo reads only `{newer}` and no longer copies the legacy `reward_model.*` keys over (migrate_legacy_reward_impl)"
            ),
        }
    }
}

/// The value a key of the wrong type holds, as its message says it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "form", content = "text", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Found {
    /// A value as written (`two`).
    Plain(String),
    /// A quoted string (or a string of a config given as data): `'2'` is a string, not
    /// the number it reads like.
    String(String),
    /// An empty string (`trainer.nnodes=`).
    EmptyString,
    /// A mapping or a list, where a scalar belongs.
    MappingOrList,
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Found::Plain(text) => write!(f, "`{text}`"),
            Found::String(text) => write!(f, "the string '{text}'"),
            Found::EmptyString => f.write_str("an empty string"),
            Found::MappingOrList => f.write_str("a mapping or list"),
        }
    }
}

/// How to give a key of the wrong type its type: the data is the way (`unquote`); the
/// key, its type and the value only shape the words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeFix {
    /// The way.
    pub how: TypeFixHow,
    /// The dotted key.
    pub key: &'static str,
    /// The type it needs.
    pub expected: super::keys::Kind,
    /// The value as it should be written (`2`), for the ways that keep it.
    pub value: String,
    /// Where the value was set: how the fix is written.
    pub origin: super::settings::OriginKind,
}

/// The ways of [`TypeFix`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TypeFixHow {
    /// Set a value of the type.
    SetValue,
    /// Drop the quotes of a string that reads as the type.
    Unquote,
}

impl Serialize for TypeFix {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.how.serialize(serializer)
    }
}

impl TypeFix {
    /// The key's last part, as a YAML file writes it under its parents.
    fn leaf(&self) -> &'static str {
        self.key.rsplit('.').next().unwrap_or(self.key)
    }

    /// The value as it should be written where it was set, in backquotes: `key=2` on the
    /// command line, `leaf: 2` in a YAML file.
    fn written(&self) -> String {
        self.written_as(&self.value)
    }

    /// `value` for the key, as it would be written where the value was set.
    fn written_as(&self, value: &dyn fmt::Display) -> String {
        if self.origin == super::settings::OriginKind::CommandLine {
            format!("`{}={value}`", self.key)
        } else {
            format!("`{}: {value}`", self.leaf())
        }
    }
}

impl fmt::Display for TypeFix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let key = self.key;
        match self.how {
            TypeFixHow::SetValue => write!(
                f,
                "set `{key}` to {}, for example {}",
                self.expected,
                self.written_as(&super::keys::Example(self.expected))
            ),
            TypeFixHow::Unquote => write!(
                f,
                "write it without quotes ({}): a quoted value is a string, and verl needs {}",
                self.written(),
                self.expected
            ),
        }
    }
}
