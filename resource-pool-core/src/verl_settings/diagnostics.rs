//! Every problem of a verl launch command, in verl's terms, as data: typed fields that the
//! `#[error]`/`#[help]` texts format (and that serialise as the JSON `data` object). Spans
//! are in the launch's span space (see [`SpanSpace`](super::SpanSpace)): the YAML first,
//! then the command line.

use miette::SourceSpan;
use serde::Serialize;

use super::fields::*;
use super::hydra::OverrideProblem;
use super::keys::Kind;
use super::settings::OriginKind;

/// A problem of verl's settings, or of its layout on a cluster.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum VerlDiagnostic {
    /// The YAML does not parse.
    #[error("the YAML does not parse: {message}")]
    #[diagnostic(
        code(resource_pool::verl::yaml_syntax),
        help("fix the YAML syntax; Hydra and verl would stop here too")
    )]
    YamlSyntax {
        /// The parser's words.
        message: String,
        /// Where.
        #[label("here")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// An override is malformed.
    #[error("`{text}` {problem}")]
    #[diagnostic(
        code(resource_pool::verl::override_syntax),
        help(
            "write overrides as Hydra does: `key=value`, `+key=value` to add a key, `~key` to delete one"
        )
    )]
    OverrideSyntax {
        /// What is wrong.
        problem: OverrideProblem,
        /// The text at fault.
        text: String,
        /// The override.
        #[label("on the command line")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// The launcher words are malformed.
    #[error("{problem}")]
    #[diagnostic(
        code(resource_pool::verl::launch_syntax),
        help(
            "paste the line that starts verl: `python3 -m verl.trainer.main_ppo k=v ...`, optionally after `env VAR=...` or `ray job submit [options] --`"
        )
    )]
    LaunchSyntax {
        /// What is wrong.
        problem: LaunchSyntax,
        /// Where.
        #[label("here")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// The shell's syntax at the end of a line held as words (`shlex.split(script)`):
    /// `"$@"`, a redirection, a pipe; it and what follows are not read.
    #[error("`{ignored}` is the shell's, not verl's: not read")]
    #[diagnostic(
        severity(Advice),
        code(resource_pool::verl::shell_syntax),
        help(
            "resource-pool reads the words verl gets; what the shell does with the line (`\"$@\"`, redirections such as `2>&1`, a `| tee log` pipe) is left out from the first such word on"
        )
    )]
    ShellSyntax {
        /// The words not read, as written (at most 60 characters).
        ignored: String,
        /// Where.
        #[label("not read")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// A word of the launch line that is not UTF-8, where the check reads it.
    #[error(
        "`{word}` is not UTF-8 (its bad bytes shown as `�`), and resource-pool reads this word"
    )]
    #[diagnostic(
        code(resource_pool::verl::not_unicode),
        help(
            "write the entry point, Hydra's flags, `ray job submit`'s address and the overrides of the keys that size the pools in UTF-8; other words (a data path) may hold any bytes"
        )
    )]
    NotUnicode {
        /// The word, its bad bytes as U+FFFD (at most 60 characters).
        word: String,
        /// Where.
        #[label("not UTF-8")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// A program that is no launcher understood.
    #[error("`{word}` is neither a launcher resource-pool understands nor a Hydra override")]
    #[diagnostic(
        code(resource_pool::verl::unknown_launcher),
        help(
            "resource-pool reads `python3`/`python` (with `-m MODULE` or a script), `env VAR=...`, leading `VAR=value` words and `ray job submit [options] --`; paste verl's own command, or only its overrides"
        )
    )]
    UnknownLauncher {
        /// The word of the pasted line that is not understood.
        word: String,
        /// Where.
        #[label("not understood")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// An entry point that does not build its pools as `verl.trainer.main_ppo` does.
    #[error("`{entry}` does not build its pools the way verl.trainer.main_ppo does{why}")]
    #[diagnostic(
        code(resource_pool::verl::entry_point),
        help(
            "resource-pool builds the pools of {understood}; for another entry point, write its layout as a resource-pool config"
        )
    )]
    EntryPoint {
        /// The entry point as written.
        entry: String,
        /// What it does instead, when known.
        why: EntryDifference,
        /// The entry points understood.
        understood: Listed<&'static str>,
        /// Where.
        #[label("entry point")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// `--config-name` names a config verl does not ship.
    #[error("verl has no config `{name}` ({releases}); its trainer configs are {known}")]
    #[diagnostic(
        code(resource_pool::verl::unknown_config),
        help(
            "use one of verl's configs, or point --config-path at the folder that holds yours (or pass it with --config)"
        )
    )]
    UnknownConfig {
        /// The config name, as given.
        name: String,
        /// The releases looked in.
        releases: Releases,
        /// verl's trainer configs.
        known: Listed<&'static str>,
        /// Where.
        #[label("--config-name")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// A config in the user's tree that could not be read: its keys cannot be judged.
    #[error("the config `{path}` could not be read: the keys and defaults it adds are not judged")]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::config_unread),
        help(
            "run resource-pool where verl runs (Hydra resolves a relative --config-path from the entry point's folder), or pass the file with --config"
        )
    )]
    ConfigUnread {
        /// The file looked for.
        path: String,
        /// `--config-path`.
        #[label("--config-path")]
        #[serde(skip)]
        span: Option<SourceSpan>,
    },

    /// `hydra.searchpath` or `--config-dir` folders whose configs cannot be read.
    #[error(
        "{places} add configs resource-pool cannot read: keys that only they add are not judged"
    )]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::search_path_unread),
        help("pass the config you compose with --config to have its keys judged")
    )]
    SearchPathUnread {
        /// The search path entries.
        places: Listed<String>,
        /// Where.
        #[label("search path")]
        #[serde(skip)]
        span: SourceSpan,
    },

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

    /// `+key=value` for a key the YAML (or verl's own config) already has: Hydra refuses it.
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

    /// An override key verl's config does not have.
    #[error("`{key}` is not a key of {releases} {config}{elsewhere}{suggestion}")]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::unknown_key),
        help(
            "check the key against verl's config: as typed, Hydra stops (\"Could not override '{key}'\") or, with `+`, adds a key verl does not read"
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
        /// The closest known key.
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

    /// An interpolation resource-pool cannot resolve.
    #[error(
        "`{key}` is `{text}`, which resource-pool cannot resolve; it uses verl's default `{default}`"
    )]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::unresolved),
        help("give `{key}` a literal value (on the command line: `{key}=...`) to have it checked")
    )]
    Unresolved {
        /// The dotted key, as written.
        key: &'static str,
        /// The interpolation.
        text: String,
        /// The default used.
        default: String,
        /// The value.
        #[label("not resolved")]
        #[serde(skip)]
        span: SourceSpan,
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

    /// More nodes asked for than the cluster has alive.
    #[error("`trainer.nnodes={nnodes}` but the cluster has {alive}")]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::nnodes_vs_cluster),
        help(
            "verl's node-slots can share a node only when one node holds several of them; start the missing nodes, or set `trainer.nnodes` to the alive nodes"
        )
    )]
    NnodesExceedAlive {
        /// `trainer.nnodes`.
        nnodes: i64,
        /// Alive nodes.
        alive: AliveNodes,
        /// `trainer.nnodes`.
        #[label("{origin}")]
        #[serde(skip)]
        span: Option<SourceSpan>,
        /// Where it came from.
        origin: OriginKind,
    },

    /// GPU bundles asked on a cluster of NPUs only: verl 0.7 and later set `trainer.device`
    /// from the machine they start on (`verl.utils.device.auto_set_device`), so on Ascend
    /// they ask for NPUs.
    #[error(
        "`trainer.device={value}` asks for GPUs, but the cluster has {nodes} with NPUs and none with a GPU: checked with NPU bundles, as verl 0.7 and later run it there"
    )]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::device_detected),
        help(
            "verl 0.7 and later switch to `npu` by themselves where `torch_npu` is installed (`auto_set_device`); earlier releases ask for GPUs here and wait forever: write `trainer.device=npu`"
        )
    )]
    DeviceDetected {
        /// `trainer.device` as set (`cuda` by default).
        value: String,
        /// The alive nodes that declare NPUs.
        nodes: AliveNodes,
        /// `trainer.device`, when written.
        #[label("{origin}")]
        #[serde(skip)]
        span: Option<SourceSpan>,
        /// Where it came from.
        origin: OriginKind,
    },

    /// Nodes with different accelerator counts, and pools that need more than the nodes
    /// their sizes fill: verl's `[n] * nnodes` cannot say "8 here, 4 there".
    #[error(
        "the alive nodes have {counts} {accelerator}s, and verl's node-slots of `trainer.n_gpus_per_node={per_node}` need more nodes than those they fill"
    )]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::uneven_nodes),
        help(
            "verl gives every node one node-slot size and its workers one local world size (process_on_nodes[0], verl#1182), so a node whose count is not a multiple of it stays partly or wholly idle: choose a `trainer.n_gpus_per_node` that divides the node sizes the job needs, lower `trainer.nnodes` to the nodes it fills, or run on nodes of one size"
        )
    )]
    UnevenNodes {
        /// The distinct counts (the largest six), with their node counts.
        counts: Listed<NodeSize>,
        /// `GPU` or `NPU`.
        accelerator: &'static str,
        /// `trainer.n_gpus_per_node`.
        per_node: i64,
        /// `trainer.n_gpus_per_node`.
        #[label("one size for every node")]
        #[serde(skip)]
        span: Option<SourceSpan>,
    },

    /// Ray, in verl's creation order, leaves a group pending forever.
    #[error("with {settings}, Ray {placed}{pool}[{slot}] waits forever ({state}; {nearest})")]
    #[diagnostic(code(resource_pool::verl::ray_hangs), help("{cause}; {remedy}"))]
    RayHangs {
        /// The settings that shape the pools.
        settings: Listed<KeyValue>,
        /// Where Ray puts the pools before one pends.
        placed: Placements,
        /// The pool that pends.
        pool: String,
        /// Its pending node-slot.
        slot: usize,
        /// Ray's scheduling state of the pending group.
        state: String,
        /// The nearest node and what it lacks (`nearest big: CPU 20 of 24`).
        nearest: String,
        /// Why.
        cause: HangCause,
        /// What to do.
        remedy: HangRemedy,
        /// The setting of the pool that pends.
        #[label("{pool} pends")]
        #[serde(skip)]
        span: Option<SourceSpan>,
    },
}
