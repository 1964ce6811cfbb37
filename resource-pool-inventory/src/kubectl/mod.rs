//! `kubectl get nodes -o json` (and optionally `kubectl get pods -A -o json`), parsed into
//! an [`Inventory`].
//!
//! Nodes: a `v1 List` of `Node` objects (a single `Node` object is taken too). Read per
//! item: `metadata.name`, `metadata.labels`, `status.capacity`, `status.allocatable`,
//! `status.conditions[]` (the `Ready` condition), `status.addresses[]` (`InternalIP`) and
//! `spec.unschedulable`. Taints are ignored: a tainted node is alive, though pods without
//! a toleration will not land there.
//!
//! Mapping: `CPU` = `cpu`, `GPU` = `nvidia.com/gpu` + `amd.com/gpu`, `NPU` = the sum of
//! every `huawei.com/Ascend<model>` key (`huawei.com/Ascend910`, `huawei.com/Ascend310P`,
//! ...; not the virtual-NPU slices such as `huawei.com/Ascend910-4c`),
//! `memory` = `memory` in bytes; other resources (`pods`, `ephemeral-storage`,
//! `hugepages-*`, ...) are ignored and not validated. total = allocatable (what pods can
//! ever get: capacity less the kubelet's system reservations; capacity when a node has
//! no allocatable), available = total minus what pods request.
//! The labels in [`KEPT_LABELS`] are kept as node labels, verbatim. A node whose `Ready`
//! condition is not `"True"` (or that has none), or that is cordoned
//! (`spec.unschedulable: true`), is not alive and gets an [`InventoryNote::DeadNode`].
//!
//! Pods: the pods with `spec.nodeName` set and a `status.phase` other than `Succeeded` and
//! `Failed` take their request from their node's available resources. A pod's request is
//! Kubernetes' effective request: per resource, the larger of the containers' sum and the
//! largest init container, where sidecars (init containers with `restartPolicy: Always`)
//! add to both as the scheduler counts them; then `spec.overhead` is added. A container's
//! request for a resource falls back to its limit when no request is given (the API
//! server defaults requests to limits; extended resources such as `nvidia.com/gpu` are
//! often written as limits only). Pods on nodes that are not in the nodes file are
//! ignored silently (the two files may come from slightly different moments); only the
//! pods that count are validated.
//!
//! Quantities (`96`, `95500m`, `1.5`, `1056Gi`, `1e9`, `500M`) are parsed exactly into
//! Ray's fixed point ([`parse_quantity`]); what it cannot hold (`1n` of a CPU) is refused.
//! Errors carry byte spans into the file they come from (found by JSON path in
//! the private `json_spans` module).

mod quantity;
mod reader;

use std::collections::{BTreeMap, HashMap};

pub use quantity::{QuantityError, parse_quantity};

use super::json_spans::Step;
use super::{Inventory, InventoryNote, NodeRef};
use reader::{Path, Reader, with};
use resource_pool_core::model::{Cluster, Node, Resources, names};

/// The node labels kept in the inventory (others are dropped).
pub const KEPT_LABELS: &[&str] = &[
    "node.kubernetes.io/instance-type",
    "topology.kubernetes.io/zone",
    "nvidia.com/gpu.product",
    "nvidia.com/gpu.memory",
    "nvidia.com/gpu.count",
    "accelerator",
];

/// Why a kubectl JSON file does not make an inventory.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum KubectlError {
    /// Not JSON.
    #[error("not JSON: {detail}")]
    #[diagnostic(
        code(resource_pool::kubectl::syntax),
        help(
            "give the output of `kubectl get nodes -o json` (or `kubectl get pods -A -o json`) unchanged"
        )
    )]
    Syntax {
        /// serde_json's message.
        detail: String,
        /// Where.
        #[label("here")]
        #[serde(skip)]
        span: miette::SourceSpan,
    },
    /// JSON, but not the shape kubectl prints.
    #[error("not the shape of `kubectl get {kind} -o json`: {detail}")]
    #[diagnostic(
        code(resource_pool::kubectl::shape),
        help(
            "expected `{{\"kind\": \"List\", \"items\": [...]}}` as `kubectl get {kind} -o json` prints it"
        )
    )]
    Shape {
        /// `nodes` or `pods`.
        kind: &'static str,
        /// What was wrong.
        detail: String,
        /// Where.
        #[label("{detail}")]
        #[serde(skip)]
        span: miette::SourceSpan,
    },
    /// Two nodes with one name: the file is two listings run together, or edited.
    #[error("node `{name}` is listed twice")]
    #[diagnostic(
        code(resource_pool::kubectl::duplicate_node),
        help("give the output of one `kubectl get nodes -o json` unchanged")
    )]
    DuplicateNode {
        /// The node's name, as the tool lists it.
        name: String,
        /// The second item's `metadata.name`.
        #[label("listed again here")]
        #[serde(skip)]
        span: miette::SourceSpan,
        /// The first item's `metadata.name`.
        #[label("first listed here")]
        #[serde(skip)]
        first: miette::SourceSpan,
    },
    /// A quantity that is not one, or that Ray's fixed point cannot hold.
    #[error("{place}: `{key}` = `{value}` {reason}")]
    #[diagnostic(
        code(resource_pool::kubectl::bad_quantity),
        help(
            "Kubernetes quantities are a number with an optional suffix (`96`, `95500m`, `1056Gi`, `500M`, `1e9`); amounts finer than 0.0001 of a unit (such as `1n` of a CPU) cannot be checked"
        )
    )]
    BadQuantity {
        /// The node or pod and the field (`node `gpu-a` status.allocatable`).
        place: String,
        /// The resource key (`cpu`).
        key: String,
        /// The quantity as written.
        value: String,
        /// What is wrong with it.
        #[serde(serialize_with = "resource_pool_core::source::as_text")]
        reason: QuantityError,
        /// Where.
        #[label("{reason}")]
        #[serde(skip)]
        span: miette::SourceSpan,
    },
}

/// The model's name of a Kubernetes resource key, `None` for those not read.
fn model_name(key: &str) -> Option<&'static str> {
    match key {
        "cpu" => Some(names::CPU),
        "memory" => Some(names::MEMORY),
        "nvidia.com/gpu" | "amd.com/gpu" => Some(names::GPU),
        k if is_whole_ascend(k) => Some(names::NPU),
        _ => None,
    }
}

/// A key of whole Ascend NPUs (`huawei.com/Ascend910`, `huawei.com/Ascend310P`), not of the
/// device plugin's virtual NPUs (`huawei.com/Ascend910-4c`: slices of one chip, which Ray's
/// NPU resource does not count).
pub(crate) fn is_whole_ascend(key: &str) -> bool {
    key.strip_prefix("huawei.com/Ascend")
        .is_some_and(|model| !model.is_empty() && model.chars().all(|c| c.is_ascii_alphanumeric()))
}

/// One node of `kubectl get nodes -o json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KubeNode {
    /// `metadata.name`.
    pub name: String,
    /// The `InternalIP` address.
    pub address: Option<String>,
    /// `status.capacity`, mapped.
    pub capacity: Resources,
    /// `status.allocatable`, mapped.
    pub allocatable: Resources,
    /// The kept labels ([`KEPT_LABELS`]).
    pub labels: BTreeMap<String, String>,
    /// Why it hosts nothing (not Ready, cordoned); `None` when it is usable.
    pub unusable: Option<Unusable>,
}

/// Why a Kubernetes node hosts nothing, and what would change that.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unusable {
    /// Its Ready condition and whether it is cordoned, in words.
    pub reason: String,
    /// The kubectl commands that help.
    pub remedy: String,
}

/// What one pod takes from its node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodRequest {
    /// `namespace/name`.
    pub pod: String,
    /// `spec.nodeName`.
    pub node: String,
    /// Its effective request, mapped.
    pub request: Resources,
}

/// Parses `kubectl get nodes -o json`; every problem of the file at once.
pub fn parse_kubectl_nodes(text: &str) -> Result<Vec<KubeNode>, Vec<KubectlError>> {
    let mut reader = Reader::new(text, "nodes");
    let doc = reader.document()?;
    let mut nodes = Vec::new();
    let mut first_use: HashMap<String, Path<'_>> = HashMap::new();
    for (path, item) in reader.items(&doc, "Node") {
        if let Some(node) = reader.node(&path, item) {
            let name_path = with(&path, &[Step::Key("metadata"), Step::Key("name")]);
            if let Some(first) = first_use.get(&node.name) {
                let error = KubectlError::DuplicateNode {
                    span: reader.span(&name_path),
                    first: reader.span(first),
                    name: node.name,
                };
                reader.errors.push(error);
                continue;
            }
            first_use.insert(node.name.clone(), name_path);
            nodes.push(node);
        }
    }
    reader.finish(nodes)
}

/// Parses `kubectl get pods -A -o json` into the requests of the pods that hold resources
/// (assigned to a node, not finished); every problem of the file at once.
pub fn parse_kubectl_pods(text: &str) -> Result<Vec<PodRequest>, Vec<KubectlError>> {
    let mut reader = Reader::new(text, "pods");
    let doc = reader.document()?;
    let mut pods = Vec::new();
    for (path, item) in reader.items(&doc, "Pod") {
        if let Some(pod) = reader.pod(&path, item) {
            pods.push(pod);
        }
    }
    reader.finish(pods)
}

/// The inventory of these nodes, less what these pods request.
pub fn kubectl_inventory(nodes: Vec<KubeNode>, pods: &[PodRequest]) -> Inventory {
    let mut notes = Vec::new();
    let mut cluster_nodes = Vec::with_capacity(nodes.len());
    for kube in nodes {
        let mut used = Resources::new();
        for pod in pods.iter().filter(|p| p.node == kube.name) {
            add_saturating(&mut used, &pod.request);
        }
        // What pods can ever get: allocatable (capacity less what the kubelet reserves for
        // the system), capacity when a node states no allocatable.
        let total = if kube.allocatable.is_empty() {
            kube.capacity
        } else {
            kube.allocatable
        };
        let mut node = Node::new(kube.name.clone(), total.saturating_sub(&used)).with_total(total);
        node.address = kube.address;
        node.labels = kube.labels;
        if let Some(unusable) = kube.unusable {
            node.alive = false;
            notes.push(InventoryNote::DeadNode {
                node: NodeRef {
                    id: kube.name,
                    address: None,
                },
                reason: Some(unusable.reason),
                remedy: unusable.remedy,
            });
        }
        cluster_nodes.push(node);
    }
    let cluster = Cluster::new(cluster_nodes);
    let any_accelerator = cluster.alive().any(|n| {
        let resources = n.total.as_ref().unwrap_or(&n.available);
        !resources.get(names::GPU).is_zero() || !resources.get(names::NPU).is_zero()
    });
    if !any_accelerator {
        notes.push(InventoryNote::NoAccelerators {
            listed_by: crate::SourceKind::Kubectl,
        });
    }
    Inventory { cluster, notes }
}

fn add_saturating(sum: &mut Resources, more: &Resources) {
    for (name, amount) in more.iter() {
        let total = sum.get(name).saturating_add(amount);
        sum.set(name, total);
    }
}

fn max_each(a: &Resources, b: &Resources) -> Resources {
    let mut out = a.clone();
    for (name, amount) in b.iter() {
        if amount > out.get(name) {
            out.set(name, amount);
        }
    }
    out
}

#[cfg(test)]
mod tests;
