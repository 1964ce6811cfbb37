//! Every problem of a verl launch command, in verl's terms. Spans are in the launch's
//! span space (see [`SpanSpace`](super::SpanSpace)): the YAML first, then the command line.

use miette::SourceSpan;

/// A problem of verl's settings, or of its layout on a cluster.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[serde(untagged)]
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
    #[error("{message}")]
    #[diagnostic(
        code(resource_pool::verl::override_syntax),
        help(
            "write overrides as Hydra does: `key=value`, `+key=value` to add a key, `~key` to delete one"
        )
    )]
    OverrideSyntax {
        /// What is wrong.
        message: String,
        /// The override.
        #[label("on the command line")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// A known key holds a value of the wrong type.
    #[error("`{key}` must be {expected}, not `{found}`")]
    #[diagnostic(
        code(resource_pool::verl::wrong_type),
        help("set `{key}` to {expected}, for example `{key}={example}`")
    )]
    WrongType {
        /// The key.
        key: &'static str,
        /// The type it needs.
        expected: &'static str,
        /// What was given.
        found: String,
        /// An example value.
        example: String,
        /// The value.
        #[label("{from}")]
        #[serde(skip)]
        span: SourceSpan,
        /// Where the value came from.
        from: &'static str,
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
        /// The key.
        key: &'static str,
        /// Its value.
        value: i64,
        /// The value.
        #[label("{from}")]
        #[serde(skip)]
        span: Option<SourceSpan>,
        /// Where the value came from.
        from: &'static str,
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
        /// Its value.
        value: i64,
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

    /// A reward pool that no worker uses.
    #[error(
        "`{enable_key}=True` but `reward_model.enable` is False: verl still reserves reward_pool, for no worker"
    )]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::reward_pool_unused),
        help(
            "set `reward_model.enable=True` to run a reward model there, or drop `{enable_key}` to free its accelerators"
        )
    )]
    RewardPoolUnused {
        /// The switch's key.
        enable_key: &'static str,
        /// The switch.
        #[label("reward_pool reserved here")]
        #[serde(skip)]
        span: Option<SourceSpan>,
    },

    /// Both spellings of a reward-pool key, with different values.
    #[error(
        "`{legacy}` and `{newer}` disagree; resource-pool follows `{newer}`, as newer verl does"
    )]
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
        /// The older key's value.
        #[label("older spelling")]
        #[serde(skip)]
        legacy_span: Option<SourceSpan>,
        /// The newer key's value.
        #[label("newer spelling, used")]
        #[serde(skip)]
        newer_span: Option<SourceSpan>,
    },

    /// A device verl does not know.
    #[error("`trainer.device={value}` is neither `cuda` nor `npu`")]
    #[diagnostic(
        code(resource_pool::verl::unknown_device),
        help(
            "use `trainer.device=cuda` (GPU bundles) or `trainer.device=npu` (Ascend NPU bundles)"
        )
    )]
    UnknownDevice {
        /// The value.
        value: String,
        /// The value.
        #[label("{from}")]
        #[serde(skip)]
        span: Option<SourceSpan>,
        /// Where it came from.
        from: &'static str,
    },

    /// `+key=value` for a key the YAML already has: Hydra refuses it.
    #[error(
        "`+{key}` adds a key the config already has: Hydra stops with \"Could not append to config. An item is already at '{key}'\""
    )]
    #[diagnostic(
        code(resource_pool::verl::add_existing),
        help("override it with `{key}=...` (no `+`), or force it with `++{key}=...`")
    )]
    AddExisting {
        /// The key.
        key: String,
        /// The override.
        #[label("on the command line")]
        #[serde(skip)]
        span: SourceSpan,
        /// The key in the YAML.
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
        /// The key.
        key: &'static str,
        /// The override.
        #[label("on the command line")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// An override key that is close to a resource key: probably misspelt.
    #[error("`{key}` is not a key verl reads for its pools; did you mean `{suggestion}`?")]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::unknown_key),
        help("write `{suggestion}`; as typed, Hydra adds or rejects `{key}` and verl ignores it")
    )]
    UnknownKey {
        /// The key.
        key: String,
        /// The known key it resembles.
        suggestion: &'static str,
        /// The key.
        #[label("on the command line")]
        #[serde(skip)]
        span: SourceSpan,
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
        /// The key.
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

    /// Too many node-slots to check.
    #[error("`{key}={value}` asks for more node-slots than the limit of {limit}")]
    #[diagnostic(
        code(resource_pool::verl::too_many_slots),
        help("lower `{key}`, or raise the limit with --max-slots")
    )]
    TooManySlots {
        /// The key.
        key: &'static str,
        /// Its value.
        value: i64,
        /// The limit.
        limit: u64,
        /// The value.
        #[label("{from}")]
        #[serde(skip)]
        span: Option<SourceSpan>,
        /// Where it came from.
        from: &'static str,
    },

    /// More nodes asked for than the cluster has alive.
    #[error("`trainer.nnodes={nnodes}` but the cluster has {alive} alive node{plural}")]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::nnodes_vs_cluster),
        help(
            "verl's node-slots can share a node only when one node holds several of them; start the missing nodes, or set `trainer.nnodes={alive}`"
        )
    )]
    NnodesExceedAlive {
        /// `trainer.nnodes`.
        nnodes: i64,
        /// Alive nodes.
        alive: usize,
        /// `s` or nothing.
        plural: &'static str,
        /// `trainer.nnodes`.
        #[label("{from}")]
        #[serde(skip)]
        span: Option<SourceSpan>,
        /// Where it came from.
        from: &'static str,
    },

    /// Nodes with different accelerator counts: verl's `[n] * nnodes` cannot say so.
    #[error(
        "the alive nodes have {counts} {accelerator}s, and verl's node-slots of `trainer.n_gpus_per_node={per_node}` cannot fill some of them"
    )]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::uneven_nodes),
        help(
            "verl's workers read one local world size (process_on_nodes[0]) and cannot use uneven nodes (verl#1182); keep one node size per pool, or write the layout as a resource-pool config with one entry per node"
        )
    )]
    UnevenNodes {
        /// The distinct counts, with their node counts.
        counts: String,
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
    #[error("with {settings}, Ray {story}")]
    #[diagnostic(code(resource_pool::verl::ray_hangs), help("{help}"))]
    RayHangs {
        /// The settings that shape the pools.
        settings: String,
        /// Where Ray puts the groups and which pends.
        story: String,
        /// What to do.
        #[serde(skip)] // prose: the JSON has it as `help`
        help: String,
        /// The setting of the pool that pends.
        #[label("{pool} pends")]
        #[serde(skip)]
        span: Option<SourceSpan>,
        /// The pool that pends.
        pool: String,
    },
}
