//! Every problem of a verl launch command, in verl's terms, as data: typed fields that the
//! `#[error]`/`#[help]` texts format (and that serialise as the JSON `data` object). Spans
//! are in the launch's span space (see [`SpanSpace`](super::SpanSpace)): the YAML first,
//! then the command line.
//!
//! One enum, [`VerlDiagnostic`], in three parts: what was pasted (the launch line's words,
//! its YAML and the configs it names: [`VerlLaunchDiagnostic`], in `launch_line`), the
//! settings read from it (keys, values and what verl rejects: the variants here), and the
//! layout on a cluster ([`VerlClusterDiagnostic`], in `on_cluster`). The parts are wrapped
//! transparently: code, message, labels and JSON are the part's own.

use miette::{LabeledSpan, SourceSpan};
use serde::Serialize;

use super::fields::*;
use super::keys::Kind;
use super::settings::OriginKind;
use super::yaml::Unread;

mod launch_line;
mod on_cluster;

pub use launch_line::VerlLaunchDiagnostic;
pub use on_cluster::VerlClusterDiagnostic;

/// A problem of verl's settings, or of its layout on a cluster.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum VerlDiagnostic {
    /// A problem of what was pasted: the launch line, its YAML, the configs it names.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Launch(#[from] VerlLaunchDiagnostic),

    /// A problem of the layout on the cluster checked.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Cluster(#[from] VerlClusterDiagnostic),

    /// A defaults-list choice set to an option verl does not have.
    #[error(
        "`{entry}={option}`: verl has no option `{option}` for `{entry}` ({releases}); its options are {options}"
    )]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::unknown_option),
        help("choose one of verl's options; the keys under `{entry}` are not judged")
    )]
    UnknownOption {
        /// The choice.
        entry: String,
        /// The option given.
        option: String,
        /// The releases looked in.
        releases: Releases,
        /// verl's options.
        options: Listed<&'static str>,
        /// Where.
        #[label("option")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// A known key holds a value of the wrong type.
    #[error("`{key}` must be {expected}, not {found}")]
    #[diagnostic(code(resource_pool::verl::wrong_type), help("{fix}"))]
    WrongType {
        /// The dotted key, as written.
        key: &'static str,
        /// The type it needs.
        expected: Kind,
        /// What was given.
        found: Found,
        /// How to fix it (JSON: the way, `unquote`).
        fix: TypeFix,
        /// An example value of the type.
        example: super::keys::Example,
        /// The value.
        #[label("{origin}")]
        #[serde(skip)]
        span: SourceSpan,
        /// Where the value came from.
        origin: OriginKind,
    },

    /// A count verl multiplies into a pool is zero or negative.
    #[error(
        "`{key}={value}` gives an empty pool: verl builds `[n_gpus_per_node] * nnodes` node-slots"
    )]
    #[diagnostic(
        code(resource_pool::verl::not_positive),
        help("`{key}` must be at least 1")
    )]
    NotPositive {
        /// The dotted key, as written.
        key: &'static str,
        /// The value as verl would read it.
        value: Count,
        /// The value.
        #[label("{origin}")]
        #[serde(skip)]
        span: Option<SourceSpan>,
        /// Where the value came from.
        origin: OriginKind,
    },

    /// A separate reward pool without a size: verl raises `ValueError`.
    #[error(
        "the reward pool is enabled but `{key}={value}`: verl raises ValueError (\"{key} must be greater than 0\")"
    )]
    #[diagnostic(
        code(resource_pool::verl::reward_pool_size),
        help(
            "give the reward pool a size, for example `{key}=1`, or set `{enable_key}=False` to keep the reward model in global_pool"
        )
    )]
    RewardPoolWithoutSize {
        /// The size key.
        key: &'static str,
        /// The value as verl would read it.
        value: Count,
        /// The switch's key.
        enable_key: &'static str,
        /// The size's value, when given.
        #[label("the size")]
        #[serde(skip)]
        span: Option<SourceSpan>,
        /// The switch.
        #[label("enabled here")]
        #[serde(skip)]
        enable: Option<SourceSpan>,
    },

    /// Distillation's teacher pool without a size: verl raises `ValueError`.
    #[error(
        "distillation is enabled but `{key}={value}`: verl raises ValueError (\"config.{key} must be greater than 0\")"
    )]
    #[diagnostic(
        code(resource_pool::verl::teacher_pool_size),
        help(
            "give the teacher pool a size, for example `{key}=1`, or set `distillation.enabled=False`"
        )
    )]
    TeacherPoolWithoutSize {
        /// The size key.
        key: &'static str,
        /// The value as verl would read it.
        value: Count,
        /// The size's value, when given.
        #[label("the size")]
        #[serde(skip)]
        span: Option<SourceSpan>,
        /// `distillation.enabled`.
        #[label("enabled here")]
        #[serde(skip)]
        enable: Option<SourceSpan>,
    },

    /// A reward pool that no worker uses.
    #[error(
        "`{enable_key}=True` but `{model_key}` is False: verl still reserves reward_pool, for no worker"
    )]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::reward_pool_unused),
        help(
            "set `{model_key}=True` to run a reward model there, or drop `{enable_key}` to free its accelerators"
        )
    )]
    RewardPoolUnused {
        /// The switch's key.
        enable_key: &'static str,
        /// The reward model's switch, in the same spelling.
        model_key: &'static str,
        /// The switch.
        #[label("reward_pool reserved here")]
        #[serde(skip)]
        span: Option<SourceSpan>,
    },

    /// Both spellings of a reward-pool key, with different values.
    #[error("`{legacy}` and `{newer}` disagree; {followed}")]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::conflicting_spellings),
        help(
            "set only `{newer}` (newer verl) or only `{legacy}` (older verl), whichever your verl reads"
        )
    )]
    ConflictingSpellings {
        /// The older key.
        legacy: &'static str,
        /// The newer key.
        newer: &'static str,
        /// The one verl follows.
        followed: Followed,
        /// The older key's value.
        #[label("older spelling")]
        #[serde(skip)]
        legacy_span: Option<SourceSpan>,
        /// The newer key's value.
        #[label("newer spelling")]
        #[serde(skip)]
        newer_span: Option<SourceSpan>,
    },

    /// A pool key that the release of `--verl-version` does not read: its pools are not
    /// the ones meant.
    #[error("verl {release} does not read `{key}`: {why}")]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::not_read),
        help("{why:#}")
    )]
    NotRead {
        /// The key.
        key: &'static str,
        /// The release.
        release: &'static str,
        /// Why (and, shown with `#`, what to do).
        why: NotReadWhy,
        /// The key or its value.
        #[label("{place}")]
        #[serde(skip)]
        span: SourceSpan,
        /// Which text the span is in.
        #[serde(skip)]
        place: Place,
    },

    /// A device verl does not know.
    #[error("`trainer.device={value}` is neither `cuda` nor `npu`")]
    #[diagnostic(
        code(resource_pool::verl::unknown_device),
        help(
            "use `trainer.device=cuda` (GPU bundles) or `trainer.device=npu` (Ascend NPU bundles), in lower case: verl up to 0.8 asks Ray for any other value as a resource of that name, which no node has, and waits forever"
        )
    )]
    UnknownDevice {
        /// The value, as written.
        value: String,
        /// The value.
        #[label("{origin}")]
        #[serde(skip)]
        span: Option<SourceSpan>,
        /// Where it came from.
        origin: OriginKind,
    },

    /// `+key=value` for a key every release of verl has, without `--verl-version`: Hydra
    /// refuses it with any of them, but the line's verl is not known (a fork may lack it).
    #[error(
        "`+{key}` adds a key the config of {releases} already has: with these releases Hydra stops (\"Could not append to config. An item is already at '{key}'\")"
    )]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::add_existing),
        help(
            "override it with `{key}=...` (no `+`), or force it with `++{key}=...`; pass the --verl-version you launch to have it judged against that release"
        )
    )]
    AddExistingAnyRelease {
        /// The dotted key, as written.
        key: String,
        /// The releases that all have it.
        releases: Releases,
        /// The override.
        #[label("on the command line")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// `+key=value` for a key the YAML, or the config of the release given, already has:
    /// Hydra refuses it.
    #[error(
        "`+{key}` adds a key the config already has: Hydra stops with \"Could not append to config. An item is already at '{key}'\""
    )]
    #[diagnostic(
        code(resource_pool::verl::add_existing),
        help("override it with `{key}=...` (no `+`), or force it with `++{key}=...`")
    )]
    AddExisting {
        /// The dotted key, as written.
        key: String,
        /// The override.
        #[label("on the command line")]
        #[serde(skip)]
        span: SourceSpan,
        /// The key in the YAML (none when it is verl's own config that has it).
        #[label("already here")]
        #[serde(skip)]
        existing: Option<SourceSpan>,
    },

    /// `~key` for a key verl reads.
    #[error("`~{key}` deletes a key verl reads: verl stops with a ConfigAttributeError")]
    #[diagnostic(
        code(resource_pool::verl::deleted_key),
        help("keep `{key}` (remove `~{key}`); set it to the value you want instead")
    )]
    DeletedKey {
        /// The dotted key, as written.
        key: &'static str,
        /// The override.
        #[label("on the command line")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// An override key that the config of the release given (`--verl-version`) does not
    /// have: the config the line loads, on which Hydra stops.
    #[error("`{key}` is not a key of {releases} {config}{elsewhere}{suggestion}")]
    #[diagnostic(
        code(resource_pool::verl::unknown_key),
        help(
            "Hydra stops on it (\"Could not override '{key}'\"): check the key against verl's config, or add it with `+{key}=...` when your code reads it"
        )
    )]
    UnknownKeyOfRelease {
        /// The dotted key, as written.
        key: String,
        /// The config judged against.
        config: String,
        /// The release judged against.
        releases: Releases,
        /// Where else the key exists.
        elsewhere: Elsewhere,
        /// A key alike it.
        suggestion: Suggestion,
        /// The key.
        #[label("on the command line")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// An override key that no release's config has, without `--verl-version`: Hydra stops
    /// on it with any of them, but the line's verl is not known (a fork may have the key).
    #[error("`{key}` is not a key of {releases} {config}{elsewhere}{suggestion}")]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::unknown_key),
        help(
            "with these releases Hydra stops on it (\"Could not override '{key}'\"): check the key against verl's config; pass the --verl-version you launch to have it judged against that release"
        )
    )]
    UnknownKey {
        /// The dotted key, as written.
        key: String,
        /// The config judged against.
        config: String,
        /// The releases judged against.
        releases: Releases,
        /// Where else the key exists.
        elsewhere: Elsewhere,
        /// A key alike it.
        suggestion: Suggestion,
        /// The key.
        #[label("on the command line")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// An unknown key whose closest known key decides the pools: the layout verl would
    /// build is not the one meant.
    #[error("`{key}` is not a key of verl; did you mean `{suggestion}`, which sizes the pools?")]
    #[diagnostic(
        code(resource_pool::verl::pool_key_typo),
        help(
            "write `{suggestion}`: as typed, verl keeps its value of `{suggestion}` and builds other pools than meant"
        )
    )]
    PoolKeyTypo {
        /// The dotted key, as written.
        key: String,
        /// The pool key it resembles.
        suggestion: &'static str,
        /// The key.
        #[label("{place}")]
        #[serde(skip)]
        span: SourceSpan,
        /// Which text the key is in.
        #[serde(skip)]
        place: Place,
    },

    /// A value of a key the check reads, in a form the reader does not read: what verl
    /// gets from it is not claimed.
    #[error(
        "`{key}` comes from `{text}`, {form}, which resource-pool does not read offline: {part}"
    )]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::unresolved),
        help(
            "give `{key}` a plain value (on the command line: `{key}=...`) to have it checked, or check the launch with verl's own code: `resource-pool verl --python PYTHON -- LINE`"
        )
    )]
    Unresolved {
        /// The dotted key, as written.
        key: &'static str,
        /// The value, as written.
        text: String,
        /// Its form.
        form: Unread,
        /// What is not judged for it.
        part: NotJudgedPart,
        /// The value.
        #[label("not read")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// A command-line value that is a shell variable (`$NNODES`, `${NNODES}`,
    /// `${NNODES:-1}`): a line pasted from a script, before the shell expanded it.
    #[error(
        "`{key}` is `{text}`, a shell variable that the shell fills in before verl starts: {part}"
    )]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::shell_variable),
        help(
            "check the line as the shell runs it, with `{variable}` filled in (`bash -x` prints it; from Python, pass `sys.argv` or expand the words first), or write `{key}=...` with its value"
        )
    )]
    ShellVariable {
        /// The dotted key, as written.
        key: &'static str,
        /// The value, as written.
        text: String,
        /// The shell variable's name.
        variable: String,
        /// What is not judged for it.
        part: NotJudgedPart,
        /// The value.
        #[label("the shell's variable")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// A command-line value that is shell arithmetic or a command's output (`$((NODES))`,
    /// `$(nproc)`): a line pasted from a script, before the shell expanded it.
    #[error("`{key}` is `{text}`, {kind} that the shell expands before verl starts: {part}")]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::shell_expansion),
        help(
            "check the line as the shell runs it, with `{text}` expanded (`bash -x` prints it; from Python, pass `sys.argv`), or write `{key}=...` with its value"
        )
    )]
    ShellExpansion {
        /// The dotted key, as written.
        key: &'static str,
        /// The value, as written.
        text: String,
        /// Which expansion.
        kind: ShellExpansionKind,
        /// What is not judged for it.
        part: NotJudgedPart,
        /// The value.
        #[label("the shell's to expand")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// Interpolations that lead back to a key they passed through (`nnodes:
    /// ${trainer.n_gpus_per_node}` beside `n_gpus_per_node: ${trainer.nnodes}`).
    #[error("`{key}` is `{text}`, and the interpolations come back to it: {cycle}")]
    #[diagnostic(
        code(resource_pool::verl::interpolation_cycle),
        help(
            "OmegaConf stops on this (\"Recursive interpolation detected\") when verl resolves its config: give one of these keys a value"
        )
    )]
    InterpolationCycle {
        /// The key the interpolations come back to, as written.
        key: &'static str,
        /// Its interpolation.
        text: String,
        /// The keys followed, from `key` round to `key` again.
        cycle: Cycle,
        /// The value.
        #[label("leads back here")]
        #[serde(skip)]
        span: SourceSpan,
        /// The values of the cycle's other keys that were set in the YAML or on the
        /// command line (`interpolates trainer.nnodes`): each is a place to break it.
        #[label(collection)]
        #[serde(skip)]
        others: Vec<LabeledSpan>,
    },

    /// More accelerators in one node-slot than a count of them can hold.
    #[error("`{key}={value}` asks for more accelerators per node-slot than the limit of {limit}")]
    #[diagnostic(
        code(resource_pool::verl::too_many_accelerators),
        help(
            "`{key}` is the accelerators of one node-slot, that is of one node: set it to the accelerators per node (8 on most GPU nodes)"
        )
    )]
    TooManyAccelerators {
        /// The dotted key, as written.
        key: &'static str,
        /// The value as verl would read it.
        value: Count,
        /// The most accelerators of one node-slot (`u32::MAX`).
        limit: u64,
        /// The value.
        #[label("{origin}")]
        #[serde(skip)]
        span: Option<SourceSpan>,
        /// Where it came from.
        origin: OriginKind,
    },

    /// Too many node-slots to check.
    #[error("`{key}={value}` asks for more node-slots than the limit of {limit}")]
    #[diagnostic(
        code(resource_pool::verl::too_many_slots),
        help("lower `{key}`, or raise the limit with --max-slots")
    )]
    TooManySlots {
        /// The dotted key, as written.
        key: &'static str,
        /// The value as verl would read it.
        value: Count,
        /// The limit that was passed (a `--max-*` setting or its default).
        limit: u64,
        /// The value.
        #[label("{origin}")]
        #[serde(skip)]
        span: Option<SourceSpan>,
        /// Where it came from.
        origin: OriginKind,
    },

    /// The rollout's parallel sizes do not divide the pool actor_rollout runs on: each
    /// actor_rollout worker asserts it at start-up (see `rollout.rs`).
    #[error(
        "the rollout's {divisor_name} {divisor} ({sizes}) does not divide the {world_size} accelerators of `{pool}`, where actor_rollout runs: verl stops at start-up (\"rollout world_size: {world_size} is not divisible by {divisor_name}: {divisor}\")"
    )]
    #[diagnostic(
        code(resource_pool::verl::rollout_parallel_size),
        help(
            "make `{per_node_key}` × `{nodes_key}` a multiple of {divisor}, or set `{tp_key}` (times the rollout's data and pipeline parallel sizes, where set) to a divisor of {world_size}"
        )
    )]
    RolloutIndivisible {
        /// The rollout's sizes that multiply into verl's divisor, each as verl reads it.
        sizes: Listed<KeyValue>,
        /// Their product.
        divisor: u64,
        /// verl's name of it (`infer_tp` in 0.5.0, `infer_world_size` later).
        divisor_name: &'static str,
        /// The accelerators of actor_rollout's pool (verl's rollout `world_size`).
        world_size: u64,
        /// That pool.
        pool: String,
        /// The key of that pool's accelerators per node-slot.
        per_node_key: &'static str,
        /// The key of that pool's node-slots.
        nodes_key: &'static str,
        /// The rollout's tensor parallel size.
        tp_key: &'static str,
        /// The key labelled: a rollout size when written, else the pool's.
        key: &'static str,
        /// Its value.
        #[label("{origin}")]
        #[serde(skip)]
        span: Option<SourceSpan>,
        /// Where it came from.
        origin: OriginKind,
    },

    /// A rollout replica larger than a node that is no multiple of the node's size: verl's
    /// rollout replicas assert it when they are built at start-up (see `rollout.rs`).
    #[error(
        "a rollout replica of {replica} accelerators ({sizes}) is larger than `{per_node_key}` = {per_node} and no multiple of it: verl stops at start-up (\"world_size {replica} must be divisible by gpus_per_node {per_node}\")"
    )]
    #[diagnostic(
        code(resource_pool::verl::rollout_replica_nodes),
        help(
            "a replica over several nodes must take whole nodes: set `{tp_key}` (times the rollout's data and pipeline parallel sizes, where set) to at most {per_node} or a multiple of it, or `{per_node_key}` to a divisor of {replica}"
        )
    )]
    RolloutReplicaNodes {
        /// The rollout's sizes that multiply into a replica, each as verl reads it.
        sizes: Listed<KeyValue>,
        /// Their product (the replica's `world_size`).
        replica: u64,
        /// The accelerators per node verl gives the replicas (`gpus_per_node`).
        per_node: u64,
        /// The key verl reads that from (`trainer.n_gpus_per_node`, or from 0.7.1
        /// `actor_rollout_ref.rollout.n_gpus_per_node`).
        per_node_key: &'static str,
        /// The rollout's tensor parallel size.
        tp_key: &'static str,
        /// The key labelled: a rollout size when written, else the per-node key when
        /// written, else the rollout's mode when written.
        key: &'static str,
        /// Its value.
        #[label("{origin}")]
        #[serde(skip)]
        span: Option<SourceSpan>,
        /// Where it came from.
        origin: OriginKind,
    },
}
