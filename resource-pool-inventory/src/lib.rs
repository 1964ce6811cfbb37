//! Inventories: where a [`Cluster`] comes from, and what its source found on the way.
//!
//! An [`InventorySource`] loads a cluster (from a file, from a live Ray cluster over the
//! dashboard's HTTP API, ...) together with [`InventoryNote`]s: typed, user-actionable
//! findings such as dead nodes, resources that a running placement group holds ("busy
//! now") or a cluster that declares no accelerator at all. What the cluster says about a
//! config's node-slots is a check ([`resource_pool_core::check::check_against_slots`]).
//!
//! Sans-IO: [`ray_json`] parses the bodies of Ray's dashboard endpoints, and the HTTP
//! client lives in the facade crate. [`slurm`] and [`kubectl`] read
//! the JSON those tools print.

#![forbid(unsafe_code)]

pub mod cluster_file;
mod file;
mod json_spans;
pub mod kubectl;
pub mod kuberay;
pub mod local;
pub mod ray_json;
pub mod slurm;
mod source_words;
// Shared with verl's YAML reader; not an API.
#[doc(hidden)]
pub mod yaml_text;

#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;

pub use file::{ClusterErrors, FileSource};

use std::fmt;

pub use resource_pool_core::model::GroupRef;
use resource_pool_core::model::{Cluster, Resources};

/// A cluster as a source saw it, with what the source noticed on the way.
///
/// The contract every source keeps ([`FileSource`], Ray's dashboard
/// ([`ray_json::assemble`]), Slurm, kubectl, this machine ([`local::local_inventory`])):
/// every node the source lists is in `cluster`, the dead (down, drained, cordoned,
/// stopped) ones too, with `alive = false`. The checks place nothing on a dead node and
/// count it in their messages ("only 3 are alive (1 node is dead)"); reports draw it. A
/// source that knows why a node is dead adds one [`InventoryNote::DeadNode`] for it, with
/// the reason and what brings it back (a cluster file says `alive = false` itself, and
/// this machine is alive whenever it is probed). A dead node's `available` is what its
/// source reports free on it (Ray reports nothing for a dead node: empty), and its
/// `total` what it has.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inventory {
    /// Every node listed, alive or dead.
    pub cluster: Cluster,
    /// Findings about the cluster, in the order they were made.
    pub notes: Vec<InventoryNote>,
}

impl Inventory {
    /// The notes of dead nodes, one per node the source reported dead.
    pub fn dead_node_notes(&self) -> impl Iterator<Item = &InventoryNote> {
        self.notes
            .iter()
            .filter(|n| matches!(n, InventoryNote::DeadNode { .. }))
    }
}

/// Something that can list a cluster's nodes: a cluster file, a live Ray cluster.
pub trait InventorySource {
    /// A short human name of the source, for messages (`ray at http://head:8265`).
    fn name(&self) -> String;

    /// Reads the cluster now.
    fn load(&self) -> Result<Inventory, InventoryError>;
}

/// Why an inventory could not be loaded.
///
/// Parsing errors of Ray's JSON are typed here; any other source (HTTP, files) brings its
/// own diagnostic, kept whole in [`InventoryError::Source`].
#[derive(Debug)]
#[non_exhaustive]
pub enum InventoryError {
    /// A Ray dashboard body was not what we expect.
    RayJson(ray_json::RayJsonError),
    /// The source failed in its own way (network, file); its diagnostic is kept, with its
    /// typed fields as JSON (what the JSON output's `data` shows).
    Source(
        Box<dyn miette::Diagnostic + Send + Sync + 'static>,
        serde_json::Value,
    ),
}

impl InventoryError {
    /// Wraps any source's diagnostic.
    pub fn source(
        error: impl miette::Diagnostic + serde::Serialize + Send + Sync + 'static,
    ) -> InventoryError {
        let data = serde_json::to_value(&error).unwrap_or_default();
        InventoryError::Source(Box::new(error), data)
    }

    /// The diagnostic inside, whatever its kind.
    pub fn as_diagnostic(&self) -> &(dyn miette::Diagnostic + Send + Sync + 'static) {
        match self {
            InventoryError::RayJson(error) => error,
            InventoryError::Source(error, _) => error.as_ref(),
        }
    }
}

impl From<ray_json::RayJsonError> for InventoryError {
    fn from(error: ray_json::RayJsonError) -> InventoryError {
        InventoryError::RayJson(error)
    }
}

/// The inner diagnostic's typed fields.
impl serde::Serialize for InventoryError {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            InventoryError::RayJson(error) => error.serialize(serializer),
            InventoryError::Source(_, data) => data.serialize(serializer),
        }
    }
}

impl fmt::Display for InventoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_diagnostic(), f)
    }
}

impl std::error::Error for InventoryError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.as_diagnostic().source()
    }
}

impl miette::Diagnostic for InventoryError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.as_diagnostic().code()
    }
    fn severity(&self) -> Option<miette::Severity> {
        self.as_diagnostic().severity()
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.as_diagnostic().help()
    }
    fn url<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.as_diagnostic().url()
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.as_diagnostic().source_code()
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        self.as_diagnostic().labels()
    }
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn miette::Diagnostic> + 'a>> {
        self.as_diagnostic().related()
    }
    fn diagnostic_source(&self) -> Option<&dyn miette::Diagnostic> {
        self.as_diagnostic().diagnostic_source()
    }
}

/// A node, as notes name it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct NodeRef {
    /// Ray's node id (hex).
    pub id: String,
    /// Its address, when known.
    pub address: Option<String>,
}

impl fmt::Display for NodeRef {
    /// `127.0.0.3 (fd71bcc4…)`, or the id alone: [`resource_pool_core::model::DisplayName`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        resource_pool_core::model::DisplayName::new(&self.id, self.address.as_deref()).fmt(f)
    }
}

/// The remedy for a dead Ray node.
pub const RAY_DEAD_NODE_REMEDY: &str =
    "restart its raylet (`ray start --address=...`) if the job needs it";

/// A finding about a cluster that the user can act on. Each is a miette diagnostic
/// (warning or advice) with a stable code and a help line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[serde(untagged)]
pub enum InventoryNote {
    /// A node is listed but dead: it is in the cluster with `alive = false` and hosts
    /// nothing.
    #[error("node {node} is dead{}; nothing is placed on it", reason_suffix(.reason))]
    #[diagnostic(
        code(resource_pool::inventory::dead_node),
        severity(Warning),
        help("{remedy}")
    )]
    DeadNode {
        /// The node, by Ray's id and its address.
        node: NodeRef,
        /// The source's message about its end, if any.
        reason: Option<String>,
        /// What brings it back, in the source's own terms.
        remedy: String,
    },
    /// Ray's cluster status carried no per-node usage (autoscaler v2 reports
    /// `clusterStatus: null`), so available resources are totals minus what placement
    /// groups reserve.
    #[error(
        "Ray reported no per-node usage ({reason}); available resources are totals minus placement-group reservations"
    )]
    #[diagnostic(
        code(resource_pool::inventory::usage_from_groups),
        severity(Advice),
        help(
            "resources held by tasks and actors outside placement groups are not seen; check `ray status` if the cluster runs other work"
        )
    )]
    UsageFromPlacementGroups {
        /// Why: `clusterStatus is null (autoscaler v2)`, or the node that had no usage.
        reason: String,
    },
    /// A running placement group holds resources on a node: they are busy now, and free
    /// again when the group is removed.
    #[error("{group} holds {resources} on node {node}")]
    #[diagnostic(
        code(resource_pool::inventory::held_by_group),
        severity(Advice),
        help(
            "these resources are busy now, not missing: remove the group (`ray.util.remove_placement_group`) or stop the job that owns it (job {job}) to free them"
        )
    )]
    HeldByPlacementGroup {
        /// The placement group, by id and name.
        group: GroupRef,
        /// The job that created it.
        job: String,
        /// The node it holds resources on.
        node: NodeRef,
        /// What it holds there (the sum of its bundles on that node).
        resources: Resources,
    },
    /// A placement group waits to be scheduled: Ray will place it before any group created
    /// after it.
    #[error("{group} is pending ({scheduling_state}), asking for {demand}")]
    #[diagnostic(
        code(resource_pool::inventory::pending_group),
        severity(Warning),
        help(
            "a pending group is scheduled before any group created after it and takes resources first; remove it if it is left over (job {job})"
        )
    )]
    PendingPlacementGroup {
        /// The placement group, by id and name.
        group: GroupRef,
        /// The job that created it.
        job: String,
        /// Ray's scheduling state (`NO_RESOURCES`, `INFEASIBLE`, ...).
        scheduling_state: String,
        /// The sum of its bundles.
        demand: Resources,
    },
    /// No alive node declares a single GPU or NPU.
    #[error("no alive node declares any GPU or NPU")]
    #[diagnostic(
        code(resource_pool::inventory::no_accelerators),
        severity(Warning),
        help("{}", no_accelerators_help(*.listed_by))
    )]
    NoAccelerators {
        /// The source that lists the nodes: the help says what brings accelerators in
        /// there.
        listed_by: SourceKind,
    },
    /// A KubeRay worker group whose `minReplicas` is above its `maxReplicas`: KubeRay runs
    /// `maxReplicas` pods of it (`GetWorkerGroupDesiredReplicas`) and logs it, nothing more.
    #[error(
        "group `{group}` has minReplicas {min} above maxReplicas {max}: KubeRay runs {} of it",
        resource_pool_core::words::count(*.max as usize, "replica")
    )]
    #[diagnostic(
        code(resource_pool::kuberay::min_above_max),
        severity(Warning),
        help(
            "set `minReplicas` at most `maxReplicas`; until then the group is counted at `maxReplicas`, with `--replicas min` too"
        )
    )]
    MinAboveMaxReplicas {
        /// The worker group, by its `groupName`.
        group: String,
        /// `minReplicas`.
        min: u32,
        /// `maxReplicas`.
        max: u32,
    },
    /// This machine (`--local`) has no GPU or NPU that Ray would declare.
    #[error("this machine has no GPU or NPU ({reason}); it is one node with zero GPUs")]
    #[diagnostic(
        code(resource_pool::inventory::no_local_accelerators),
        severity(Warning),
        help(
            "run on a node with accelerators, or check the driver (`nvidia-smi`, `npu-smi info`) and `CUDA_VISIBLE_DEVICES`/`ASCEND_RT_VISIBLE_DEVICES`"
        )
    )]
    NoLocalAccelerators {
        /// Why, per tool: `nvidia-smi is not installed; npu-smi lists no NPU`.
        reason: String,
    },
    /// A Ray endpoint warned that its answer is partial.
    #[error("Ray's {endpoint} answer is partial: {warning}")]
    #[diagnostic(
        code(resource_pool::inventory::partial),
        severity(Warning),
        help("retry in a moment; a node or the GCS may be overloaded")
    )]
    PartialData {
        /// The dashboard endpoint that answered, by its path.
        endpoint: String,
        /// Ray's warning.
        warning: String,
    },
    /// Two resource names of a node camel-case to the same key in Ray's cluster status,
    /// so their usage cannot be told apart; their available amounts come from placement
    /// groups instead.
    #[error("resources {names:?} on node {node} cannot be told apart in Ray's cluster status")]
    #[diagnostic(
        code(resource_pool::inventory::ambiguous_names),
        severity(Advice),
        help(
            "rename one of the custom resources; their availability was estimated from placement groups"
        )
    )]
    AmbiguousResourceNames {
        /// The node, by Ray's id and its address.
        node: NodeRef,
        /// The exact names.
        names: Vec<String>,
    },
}

/// The kind of source that listed a cluster's nodes, for notes whose remedy depends on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    /// A live Ray cluster's dashboard.
    Ray,
    /// Slurm's `scontrol show node --json`.
    Slurm,
    /// Kubernetes' `kubectl get nodes -o json`.
    Kubectl,
    /// A KubeRay `RayCluster` manifest.
    KubeRay,
}

fn no_accelerators_help(source: SourceKind) -> &'static str {
    match source {
        SourceKind::Ray => {
            "Ray saw no accelerators: start the raylets with `--num-gpus=N` (or `--resources='{\"NPU\": N}'`), and check `CUDA_VISIBLE_DEVICES` and the drivers on each node"
        }
        SourceKind::Slurm => {
            "no alive node has a `gpu` gres: check the nodes' `Gres=gpu:...` in slurm.conf and gres.conf, and `scontrol show node NAME`"
        }
        SourceKind::Kubectl => {
            "no ready node has `nvidia.com/gpu` or an Ascend NPU allocatable: install the device plugin (NVIDIA's or Ascend's) on the accelerator nodes, and check `kubectl describe node NAME`"
        }
        SourceKind::KubeRay => {
            "no group gives its Ray container an accelerator: add `nvidia.com/gpu: N` (or an Ascend resource) to the worker groups' container `resources.limits`, or set `rayStartParams.num-gpus`"
        }
    }
}

fn reason_suffix(reason: &Option<String>) -> String {
    match reason {
        Some(reason) if !reason.is_empty() => format!(" ({reason})"),
        _ => String::new(),
    }
}

impl InventoryNote {
    /// The placement groups the notes say hold resources, each with its node's id: who
    /// holds a busy cluster ([`Suggestions::name_holders`](resource_pool_core::check::suggest::Suggestions::name_holders)).
    pub fn held_by_groups(notes: &[InventoryNote]) -> impl Iterator<Item = (&str, &GroupRef)> {
        notes.iter().filter_map(|note| match note {
            InventoryNote::HeldByPlacementGroup { group, node, .. } => {
                Some((node.id.as_str(), group))
            }
            _ => None,
        })
    }

    /// The stable code of the note, as its diagnostic shows it.
    pub fn code_str(&self) -> String {
        miette::Diagnostic::code(self)
            .map(|code| code.to_string())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_errors_keep_their_diagnostic() {
        #[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
        #[error("down")]
        #[diagnostic(code(x::y), help("start it"))]
        struct Down;
        let error = InventoryError::source(Down);
        assert_eq!(error.to_string(), "down");
        let code = miette::Diagnostic::code(&error).map(|c| c.to_string());
        assert_eq!(code.as_deref(), Some("x::y"));
    }

    #[test]
    fn placement_groups_are_named_whole() {
        let named = GroupRef {
            id: "pg1".into(),
            name: "train".into(),
        };
        assert_eq!(named.to_string(), "placement group `train` (pg1)");
        let unnamed = GroupRef {
            id: "pg2".into(),
            name: String::new(),
        };
        assert_eq!(unnamed.to_string(), "unnamed placement group pg2");
    }

    #[test]
    fn no_accelerators_says_what_to_do_in_the_sources_terms() {
        let help = |listed_by| {
            let note = InventoryNote::NoAccelerators { listed_by };
            miette::Diagnostic::help(&note)
                .map(|h| h.to_string())
                .unwrap_or_default()
        };
        assert!(help(SourceKind::Ray).contains("--num-gpus"));
        assert!(help(SourceKind::Slurm).contains("Gres=gpu"));
        assert!(help(SourceKind::Kubectl).contains("device plugin"));
        assert!(help(SourceKind::KubeRay).contains("resources.limits"));
        let data = serde_json::to_value(InventoryNote::NoAccelerators {
            listed_by: SourceKind::KubeRay,
        });
        assert_eq!(data.ok(), Some(serde_json::json!({"listed_by": "kuberay"})));
    }
}
