//! Every problem a config file can have, each a miette diagnostic with a stable code, a
//! label on its span and a help line.

use miette::SourceSpan;

use crate::toml_support::walk::StructureError;

/// A problem of a config file (`[pools.*]` and `[mapping]`) or of a derived pool struct's
/// file.
///
/// `Serialize` writes the data fields only, untagged and without spans or prose (the
/// `data` of the CLI's JSON, which writes the code beside it): two variants may serialize
/// alike. Which problem it is, is [`Diagnostic::code`](miette::Diagnostic::code) (or the
/// variant); to log one as JSON, write its code next to its data.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum ConfigDiagnostic {
    /// Syntax, unknown keys, wrong types and bad numbers.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Structure(#[from] StructureError),

    /// The file is YAML (verl's Hydra config, most likely), not a TOML config: one error
    /// instead of its TOML syntax errors.
    #[error("`{file}` is YAML, not a resource-pool config (TOML)")]
    #[diagnostic(
        code(resource_pool::config::yaml),
        help(
            "check verl's YAML with the line that launches verl: `resource-pool verl --config {file} --cluster FILE -- python3 -m verl.trainer.main_ppo ...` (in Python: `resource_pool.verl.check(overrides, config=...)`); a resource-pool config is TOML with `[pools.NAME]` tables"
        )
    )]
    Yaml {
        /// The file, as named.
        file: String,
        /// Its first meaningful line.
        #[label("YAML")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// The file defines no pool.
    #[error("no pool is defined")]
    #[diagnostic(
        code(resource_pool::config::no_pools),
        help("add a pool, for example:\n[pools.global_pool]\nprocess_on_nodes = [8]")
    )]
    NoPools {
        /// The `[pools]` table, or the start of the file.
        #[label("no pool here")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// A pool gives neither `process_on_nodes` nor `gpus_per_node` with `nnodes`.
    #[error("pool `{pool}` does not say how many accelerators it needs")]
    #[diagnostic(
        code(resource_pool::config::missing_slots),
        help(
            "add `process_on_nodes = [8]` (accelerators per node-slot) or `gpus_per_node = 8` with `nnodes = 1`"
        )
    )]
    MissingSlots {
        /// The pool, by its name in the config.
        pool: String,
        /// The pool's header.
        #[label("pool without a size")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// Both `process_on_nodes` and `gpus_per_node`/`nnodes` are given.
    #[error("pool `{pool}` gives both `process_on_nodes` and `gpus_per_node`/`nnodes`")]
    #[diagnostic(
        code(resource_pool::config::both_slot_forms),
        help(
            "keep one form: `process_on_nodes = [8, 8]` is the same as `gpus_per_node = 8` with `nnodes = 2`"
        )
    )]
    BothSlotForms {
        /// The pool, by its name in the config.
        pool: String,
        /// `process_on_nodes`.
        #[label("one form")]
        #[serde(skip)]
        list: SourceSpan,
        /// `gpus_per_node` or `nnodes`.
        #[label("the other form")]
        #[serde(skip)]
        pair: SourceSpan,
    },

    /// `gpus_per_node` without `nnodes`, or the reverse.
    #[error("pool `{pool}` gives `{given}` without `{missing}`")]
    #[diagnostic(
        code(resource_pool::config::incomplete_slot_form),
        help("add `{missing}` beside `{given}`")
    )]
    IncompleteSlotForm {
        /// The pool, by its name in the config.
        pool: String,
        /// The key given.
        given: &'static str,
        /// The key missing.
        missing: &'static str,
        /// The given key.
        #[label("needs `{missing}` too")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// `process_on_nodes = []` or `nnodes = 0`.
    #[error("pool `{pool}` has no node-slot")]
    #[diagnostic(
        code(resource_pool::config::empty_process_on_nodes),
        help("a pool needs at least one node-slot, such as `process_on_nodes = [8]`")
    )]
    EmptySlots {
        /// The pool, by its name in the config.
        pool: String,
        /// The empty list or the zero count.
        #[label("no node-slot")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// A node-slot of zero accelerators.
    #[error("pool `{pool}` has a node-slot of 0 accelerators")]
    #[diagnostic(
        code(resource_pool::config::zero_slot),
        help("every node-slot needs at least one accelerator; remove the 0")
    )]
    ZeroSlot {
        /// The pool, by its name in the config.
        pool: String,
        /// The zero.
        #[label("0 accelerators")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// More node-slots over all pools than the limit (a typo such as
    /// `nnodes = 4294967295`), on the largest pool: the value most likely mistyped, which
    /// need not be the pool whose node-slots pass the limit (a default the file never
    /// wrote, say).
    #[error("{}", too_many_slots(pool, *count, *total, *limit))]
    #[diagnostic(
        code(resource_pool::config::too_many_slots),
        help(
            "is this a typo? the limit counts all pools together; if the layout is really this large, raise it: `--max-slots` on the command line, `LintOptions::limits` with `resource_pool::load::load_config`; a derived pool struct's loaders and serde keep the default"
        )
    )]
    TooManySlots {
        /// The pool with the most node-slots (the first of equals), by its name in the
        /// config.
        pool: String,
        /// Its node-slots.
        count: u64,
        /// The node-slots counted when the limit was passed: of the pool that passed it
        /// and every pool before.
        total: u64,
        /// The limit that was passed (a `--max-*` setting or its default).
        limit: u64,
        /// The count.
        #[label("{count} node-slots")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// `max_colocate_count = 0`.
    #[error("pool `{pool}` has max_colocate_count = 0")]
    #[diagnostic(
        code(resource_pool::config::zero_colocate),
        help(
            "each bundle reserves max_colocate_count CPUs, one per colocated worker; use at least 1 (verl's default is 3)"
        )
    )]
    ZeroColocate {
        /// The pool, by its name in the config.
        pool: String,
        /// The zero.
        #[label("must be at least 1")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// `max_colocate_count` below the worker groups that share the pool.
    #[error("pool `{pool}` hosts {groups} worker groups but max_colocate_count is {count}")]
    #[diagnostic(
        code(resource_pool::config::colocate_too_small),
        help(
            "each colocated worker group needs one CPU per bundle: set max_colocate_count to at least {groups}"
        )
    )]
    ColocateTooSmall {
        /// The pool, by its name in the config.
        pool: String,
        /// The worker groups.
        groups: u32,
        /// The value given.
        count: u32,
        /// The value.
        #[label("at least {groups}")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// An accelerator other than `GPU` or `NPU`.
    #[error("unknown accelerator `{name}`")]
    #[diagnostic(code(resource_pool::config::unknown_accelerator), help("{help}"))]
    UnknownAccelerator {
        /// What was written.
        name: String,
        /// A suggestion.
        #[serde(skip)] // prose: the JSON has it as `help`
        help: String,
        /// Where.
        #[label("not GPU or NPU")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// `accelerator_type = ""`: a bundle would ask for a resource with no name.
    #[error("pool `{pool}` has an empty accelerator_type")]
    #[diagnostic(
        code(resource_pool::config::empty_accelerator_type),
        help(
            "name the custom Ray resource the nodes declare, such as \"accelerator_type:H100\", or remove the key"
        )
    )]
    EmptyAcceleratorType {
        /// The pool, by its name in the config.
        pool: String,
        /// The empty string.
        #[label("empty")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// A bundle resource that is empty or shadows one verl sets itself.
    #[error("bundle resource `{name}` {problem}")]
    #[diagnostic(code(resource_pool::config::bad_bundle_resource), help("{help}"))]
    BadBundleResource {
        /// The resource.
        name: String,
        /// What is wrong.
        problem: &'static str,
        /// What to do.
        help: &'static str,
        /// Where.
        #[label("{problem}")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// One node-slot's resources overflow Ray's fixed point.
    #[error("pool `{pool}`: one node-slot asks for more than Ray can count")]
    #[diagnostic(
        code(resource_pool::config::demand_overflow),
        help("lower the node-slot's size, max_colocate_count or bundle_resources")
    )]
    DemandOverflow {
        /// The pool, by its name in the config.
        pool: String,
        /// The pool's header.
        #[label("overflows")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// A role mapped to a pool that does not exist.
    #[error("role `{role}` is mapped to pool `{pool}`, which does not exist")]
    #[diagnostic(code(resource_pool::config::unknown_pool), help("{help}"))]
    UnknownPool {
        /// The role, by the name written for it.
        role: String,
        /// The missing pool.
        pool: String,
        /// A suggestion and the pools there are.
        #[serde(skip)] // prose: the JSON has it as `help`
        help: String,
        /// The pool name.
        #[label("no such pool")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// A pool that no role is mapped to.
    #[error("no role is mapped to pool `{pool}`")]
    #[diagnostic(
        code(resource_pool::config::unused_pool),
        severity(Warning),
        help(
            "map a role to it in [mapping] (such as `rm = \"{pool}\"`), or remove it: verl still creates its placement groups"
        )
    )]
    UnusedPool {
        /// The pool, by its name in the config.
        pool: String,
        /// The pool's header.
        #[label("unused")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// Node-slots of different sizes in one pool.
    #[error("pool `{pool}` has node-slots of different sizes")]
    #[diagnostic(
        code(resource_pool::config::uneven_slots),
        severity(Warning),
        help(
            "verl's workers take the first entry ({first}) as the local world size of every node; use equal sizes or split the pool"
        )
    )]
    UnevenSlots {
        /// The pool, by its name in the config.
        pool: String,
        /// The first entry.
        first: u32,
        /// The first entry that differs.
        #[label("differs from the first entry, {first}")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// A role name not in the role set.
    #[error("`{role}` is not a known role")]
    #[diagnostic(
        code(resource_pool::config::unknown_role),
        severity(Warning),
        help("{help}")
    )]
    UnknownRole {
        /// The role, by the name written for it.
        role: String,
        /// A suggestion and the known roles.
        #[serde(skip)] // prose: the JSON has it as `help`
        help: String,
        /// The role's key.
        #[label("unknown role")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// Two names of one role (`ref` and `ref_policy`) are both mapped.
    #[error("role `{role}` is mapped twice, as `{first}` and as `{second}`")]
    #[diagnostic(
        code(resource_pool::config::role_mapped_twice),
        help("keep one of the two lines")
    )]
    RoleMappedTwice {
        /// The role's canonical name.
        role: String,
        /// The first spelling.
        first: String,
        /// The second spelling.
        second: String,
        /// The second key.
        #[label("mapped again here")]
        #[serde(skip)]
        span: SourceSpan,
        /// The first key.
        #[label("first mapped here")]
        #[serde(skip)]
        first_span: SourceSpan,
    },

    /// A pool of a derived struct that the file does not define.
    #[error("the file has no table for pool `{pool}`")]
    #[diagnostic(
        code(resource_pool::config::missing_pool),
        help("add:\n[{pool}]\nprocess_on_nodes = [8]")
    )]
    MissingPool {
        /// The pool, by its name in the config.
        pool: String,
        /// The start of the file.
        #[label("expected [{pool}]")]
        #[serde(skip)]
        span: SourceSpan,
    },
}

impl ConfigDiagnostic {
    /// Whether this is a TOML syntax error.
    pub fn is_syntax(&self) -> bool {
        matches!(
            self,
            ConfigDiagnostic::Structure(
                StructureError::Syntax { .. } | StructureError::DuplicateKey { .. }
            ) | ConfigDiagnostic::Yaml { .. }
        )
    }

    /// Whether this is an error (anything that is not a warning or advice).
    pub fn is_error(&self) -> bool {
        use miette::Diagnostic;
        matches!(self.severity(), None | Some(miette::Severity::Error))
    }
}

/// The message of [`ConfigDiagnostic::TooManySlots`]: the largest pool alone, or all pools
/// together and the largest of them.
fn too_many_slots(pool: &str, count: u64, total: u64, limit: u64) -> String {
    if count == total {
        format!("pool `{pool}` asks for {count} node-slots, more than the limit of {limit}")
    } else {
        format!(
            "the pools ask for more node-slots than the limit of {limit} ({total} so far); the \
             largest is pool `{pool}`, with {count}"
        )
    }
}
