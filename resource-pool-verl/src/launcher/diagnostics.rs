//! What verl itself does with a layout before, and besides, Ray's verdict: its own check's
//! refusal, a driver that cannot start, `IndexError` at a pool no worker group hosts, and
//! the CPUs per bundle and accelerator it runs with where they are not what was written.

use std::fmt;

use miette::SourceSpan;
use serde::Serialize;

use resource_pool_core::model::Amount;

/// A verl release, as findings name it (`verl 0.9.1`; JSON: `"0.9.1"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct VerlRelease(pub &'static str);

impl fmt::Display for VerlRelease {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "verl {}", self.0)
    }
}

/// What holds CPUs before verl's first group (JSON: `"task_runner"`,
/// `"transfer_queue_controller"`, `{"storage_unit": N}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HeldBy {
    /// `main_ppo`'s `TaskRunner` (`num_cpus=1`).
    TaskRunner,
    /// TransferQueue's controller (`num_cpus=1`).
    TransferQueueController,
    /// A TransferQueue storage unit (`num_cpus=1`, pinned to its node), by its rank.
    StorageUnit(u32),
}

impl fmt::Display for HeldBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeldBy::TaskRunner => f.write_str("its TaskRunner (1 CPU)"),
            HeldBy::TransferQueueController => f.write_str("TransferQueue's controller (1 CPU)"),
            HeldBy::StorageUnit(n) => write!(f, "TransferQueue's storage unit {n} (1 CPU)"),
        }
    }
}

/// What verl's own check found short (JSON: an object with `kind`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Refusal {
    /// Fewer accelerators free on the alive nodes than every pool asks for.
    Total {
        /// Free, summed over the alive nodes.
        available: Amount,
        /// Asked, summed over every pool.
        desired: Amount,
    },
    /// 0.5.0's fit: a pool's node-slots, each sized as its first, found too few nodes.
    Pool {
        /// The pool.
        pool: String,
        /// Its first node-slot's size.
        size: u32,
        /// The node-slots no node was found for.
        unmet: usize,
    },
}

/// verl's message, as it raises it (`ValueError`), its own missing space kept.
impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Total { available, desired } => {
                let available = if available.units() % Amount::SCALE == 0 {
                    format!("{available}.0")
                } else {
                    available.to_string()
                };
                write!(
                    f,
                    "Total available GPUs {available} is less than total desired GPUs {desired}"
                )
            }
            Refusal::Pool { pool, size, unmet } => write!(
                f,
                "Resource pool {pool}: {size}*{unmet}cannot be satisfied in this ray cluster"
            ),
        }
    }
}

/// verl's own doing with a layout: a part of the check's findings for verl.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum LaunchDiagnostic {
    /// verl's own check refuses the layout before Ray sees a group.
    #[error(
        "{release}'s own check refuses this layout before Ray sees it: `ValueError: {refusal}`"
    )]
    #[diagnostic(
        code(resource_pool::verl::pre_check),
        help(
            "{release} counts the accelerators free on the alive nodes (GPU, else NPU) against those of every pool, pools without a placement group included{}: ask for fewer, or free some",
            greedy_note(.refusal)
        )
    )]
    PreCheckRefuses {
        /// The release.
        release: VerlRelease,
        /// What its check found short.
        refusal: Refusal,
        /// The pool it names, else the first.
        #[label("refused here")]
        #[serde(skip)]
        span: Option<SourceSpan>,
    },

    /// verl 0.5.0's own check refuses the layout in some orders of the nodes, not in
    /// others: it fits each pool greedily in the order Ray lists the nodes, which changes
    /// from one start of the cluster to the next.
    #[error(
        "{release}'s own check may refuse this layout before Ray sees it, as Ray lists the nodes in one order or another: `ValueError: {refusal}`"
    )]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::pre_check_order),
        help(
            "{release} fits each pool alone, every node-slot sized as its first and on a node of its own, nodes in the order Ray lists them (which changes from start to start): give the pools node-slots that fit wherever they go"
        )
    )]
    PreCheckMayRefuse {
        /// The release.
        release: VerlRelease,
        /// What its check finds short in some order.
        refusal: Refusal,
        /// The pool it names, else the first.
        #[label("refused in some orders")]
        #[serde(skip)]
        span: Option<SourceSpan>,
    },

    /// Something verl holds from before its first group on finds no CPU: verl waits for it
    /// forever, before creating any pool.
    #[error("{release} waits forever before creating any pool: {by} finds no CPU free{}", on_node(.node.as_deref()))]
    #[diagnostic(
        code(resource_pool::verl::driver_pends),
        help(
            "give the nodes a CPU more (`ray start --num-cpus`), or free one: verl's driver and TransferQueue need their CPUs before any placement group"
        )
    )]
    DriverPends {
        /// The release.
        release: VerlRelease,
        /// What cannot start.
        by: HeldBy,
        /// The node it is pinned to (a TransferQueue storage unit), by id.
        node: Option<String>,
    },

    /// A TransferQueue storage unit is pinned to a node that could never hold it: Ray
    /// refuses the actor at once and `tq.init` raises, before any pool.
    #[error(
        "{release} stops before creating any pool: {by} is pinned to node {node}, which has no CPU at all, and Ray refuses it (`ActorUnschedulableError` in TransferQueue's `tq.init`)"
    )]
    #[diagnostic(
        code(resource_pool::verl::driver_fails),
        help(
            "give node {node} a CPU (`ray start --num-cpus`), or leave it out of the cluster verl runs on: TransferQueue pins its storage units round-robin to every alive node"
        )
    )]
    DriverFails {
        /// The release.
        release: VerlRelease,
        /// What cannot start.
        by: HeldBy,
        /// The node it is pinned to, by id.
        node: String,
    },

    /// verl stops with `IndexError` at a pool none of whose roles makes a worker group.
    #[error(
        "{release} stops with `IndexError` at pool `{pool}`: none of its roles makes a worker group, and {release} does not skip such a pool"
    )]
    #[diagnostic(
        code(resource_pool::verl::stops_at_pool),
        help(
            "map the actor, critic or reference policy to it, or remove it (verl 0.7.1 and later skip it); in 0.7.0 a reward model on a pool of its own needs `reward_model.use_reward_loop=False`"
        )
    )]
    StopsAtPool {
        /// The release.
        release: VerlRelease,
        /// The pool.
        pool: String,
        /// The pool's header.
        #[label("no worker group")]
        #[serde(skip)]
        span: Option<SourceSpan>,
    },

    /// A release that fixes the CPUs per bundle does not read the value written.
    #[error(
        "{release} gives every bundle {cpus} CPU{}: pool `{pool}`'s `max_colocate_count = {written}` is not what it runs with; checked with {cpus}",
        if *.cpus == 1 { "" } else { "s" }
    )]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::bundle_cpus_fixed),
        help(
            "{release} hard-codes max_colocate_count in ResourcePoolManager.create_resource_pool (a field from verl 0.8.0 on, set only by code that builds the manager)"
        )
    )]
    BundleCpusFixed {
        /// The release.
        release: VerlRelease,
        /// The pool.
        pool: String,
        /// The value written.
        written: u32,
        /// The release's.
        cpus: u32,
        /// The pool's header.
        #[label("not read by {release}")]
        #[serde(skip)]
        span: Option<SourceSpan>,
    },

    /// verl asks for another accelerator than the one written.
    #[error("{release} asks pool `{pool}` for {used}s, not the {written}s written")]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::accelerator_chosen),
        help("{}", accelerator_help(.release, .used, *.ascend))
    )]
    AcceleratorChosen {
        /// The release.
        release: VerlRelease,
        /// The pool.
        pool: String,
        /// The accelerator written.
        written: &'static str,
        /// The one verl asks for.
        used: &'static str,
        /// Whether the cluster is an Ascend one (NPUs, no GPU).
        ascend: bool,
        /// The pool's header.
        #[label("{used}")]
        #[serde(skip)]
        span: Option<SourceSpan>,
    },
}

impl LaunchDiagnostic {
    /// Whether verl stops here before Ray sees a group.
    pub fn stops_before_ray(&self) -> bool {
        matches!(
            self,
            LaunchDiagnostic::PreCheckRefuses { .. }
                | LaunchDiagnostic::DriverPends { .. }
                | LaunchDiagnostic::DriverFails { .. }
        )
    }
}

/// What 0.5.0's greedy fit adds to the help.
fn greedy_note(refusal: &Refusal) -> &'static str {
    match refusal {
        Refusal::Total { .. } => "",
        Refusal::Pool { .. } => {
            "; verl 0.5.0 then fits each pool alone, every node-slot sized as its first and on a node of its own, which refuses layouts Ray would place (a node holding two of a pool's node-slots)"
        }
    }
}

/// ` on node X`, or nothing.
fn on_node(node: Option<&str>) -> String {
    node.map_or_else(String::new, |n| {
        format!(" on node {n}, which it is pinned to")
    })
}

/// Why verl asks for the accelerator it does.
fn accelerator_help(release: &VerlRelease, used: &str, ascend: bool) -> String {
    if ascend {
        format!(
            "the cluster's nodes are Ascend ones (NPUs, no GPU), and {release} asks for the accelerator it detects where its driver starts (`torch_npu` there: NPU)"
        )
    } else if used == "GPU" {
        format!(
            "{release} asks for GPUs here: the reward model's and teacher's pools of verl 0.7.x always ask for GPUs, and verl 0.9 asks for what its platform has (GPU unless the nodes are Ascend ones)"
        )
    } else {
        format!("{release} asks for {used}s here")
    }
}
