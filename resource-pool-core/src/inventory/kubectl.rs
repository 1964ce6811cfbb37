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

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use super::json_spans::{Locator, Step, offset_of_line_column};
use super::{Inventory, InventoryNote, NodeRef};
use crate::model::{Amount, Cluster, Node, Resources, names};

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
        /// The name.
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
        #[serde(serialize_with = "crate::source::as_text")]
        reason: QuantityError,
        /// Where.
        #[label("{reason}")]
        #[serde(skip)]
        span: miette::SourceSpan,
    },
}

/// Why a Kubernetes quantity cannot be an [`Amount`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QuantityError {
    /// Not `<number><suffix>`.
    #[error("is not a Kubernetes quantity")]
    Malformed,
    /// Below zero.
    #[error("is negative")]
    Negative,
    /// Finer than `0.0001` of a unit.
    #[error("is finer than Ray's resolution of 0.0001")]
    TooFine,
    /// Larger than an amount holds.
    #[error("is too large (at most {} units)", Amount::MAX_WHOLE)]
    TooLarge,
}

/// A Kubernetes quantity (`96`, `95500m`, `1.5`, `1056Gi`, `1e9`, `500M`) as an exact
/// [`Amount`]; checked arithmetic throughout, refusing what does not fit exactly.
pub fn parse_quantity(text: &str) -> Result<Amount, QuantityError> {
    let (negative, rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let number_len = rest
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b'.')
        .count();
    let (number, suffix) = rest.split_at(number_len);
    let (int_part, frac_part) = number.split_once('.').unwrap_or((number, ""));
    if (int_part.is_empty() && frac_part.is_empty()) || frac_part.contains('.') {
        return Err(QuantityError::Malformed);
    }
    let (exp10, binary_power): (i128, u32) = match suffix {
        "" => (0, 0),
        "n" => (-9, 0),
        "u" => (-6, 0),
        "m" => (-3, 0),
        "k" => (3, 0),
        "M" => (6, 0),
        "G" => (9, 0),
        "T" => (12, 0),
        "P" => (15, 0),
        "E" => (18, 0),
        "Ki" => (0, 10),
        "Mi" => (0, 20),
        "Gi" => (0, 30),
        "Ti" => (0, 40),
        "Pi" => (0, 50),
        "Ei" => (0, 60),
        exponent => {
            let digits = exponent
                .strip_prefix(['e', 'E'])
                .ok_or(QuantityError::Malformed)?;
            let unsigned = digits.strip_prefix(['+', '-']).unwrap_or(digits);
            if unsigned.is_empty() || !unsigned.bytes().all(|b| b.is_ascii_digit()) {
                return Err(QuantityError::Malformed);
            }
            // Saturating: any exponent beyond a few dozen is too large or too fine anyway.
            let value = digits.parse::<i64>().unwrap_or(if digits.starts_with('-') {
                i64::MIN
            } else {
                i64::MAX
            });
            (i128::from(value), 0)
        }
    };
    let digits = format!("{int_part}{frac_part}");
    let significant = digits.trim_start_matches('0');
    let mantissa_digits = significant.trim_end_matches('0');
    if mantissa_digits.is_empty() {
        return Ok(Amount::ZERO);
    }
    if negative {
        return Err(QuantityError::Negative);
    }
    let trailing_zeros = (significant.len() - mantissa_digits.len()) as i128;
    // units = mantissa * 2^binary_power * 10^exponent
    let exponent = exp10 + 4 - frac_part.len() as i128 + trailing_zeros;
    if mantissa_digits.len() > 38 {
        return Err(if exponent >= 0 {
            QuantityError::TooLarge
        } else {
            QuantityError::TooFine
        });
    }
    let mantissa: u128 = mantissa_digits
        .parse()
        .map_err(|_| QuantityError::Malformed)?;
    let value = mantissa
        .checked_mul(1u128 << binary_power)
        .ok_or(QuantityError::TooLarge)?;
    let units = if exponent >= 0 {
        let power = u32::try_from(exponent)
            .ok()
            .and_then(|e| 10u128.checked_pow(e))
            .ok_or(QuantityError::TooLarge)?;
        value.checked_mul(power).ok_or(QuantityError::TooLarge)?
    } else {
        // value < 10^39, so it is a multiple of 10^d only for d <= 38.
        let power = u32::try_from(-exponent)
            .ok()
            .and_then(|e| 10u128.checked_pow(e))
            .ok_or(QuantityError::TooFine)?;
        if value % power != 0 {
            return Err(QuantityError::TooFine);
        }
        value / power
    };
    u64::try_from(units)
        .map(Amount::from_units)
        .map_err(|_| QuantityError::TooLarge)
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
fn is_whole_ascend(key: &str) -> bool {
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
        notes.push(InventoryNote::NoAccelerators);
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

type Path<'d> = Vec<Step<'d>>;

fn with<'d>(path: &[Step<'d>], more: &[Step<'d>]) -> Path<'d> {
    let mut out = path.to_vec();
    out.extend_from_slice(more);
    out
}

/// Reads one file, collecting its problems.
struct Reader<'t> {
    text: &'t str,
    kind: &'static str,
    errors: Vec<KubectlError>,
    spans: Locator<'t>,
}

impl<'t> Reader<'t> {
    fn new(text: &'t str, kind: &'static str) -> Reader<'t> {
        Reader {
            text,
            kind,
            errors: Vec::new(),
            spans: Locator::new(text, "items"),
        }
    }

    fn document(&self) -> Result<Value, Vec<KubectlError>> {
        serde_json::from_str(self.text).map_err(|e| {
            let offset = offset_of_line_column(self.text, e.line(), e.column());
            vec![KubectlError::Syntax {
                detail: e.to_string(),
                span: (offset, 0).into(),
            }]
        })
    }

    fn finish<T>(self, out: T) -> Result<T, Vec<KubectlError>> {
        if self.errors.is_empty() {
            Ok(out)
        } else {
            Err(self.errors)
        }
    }

    fn span(&self, path: &[Step<'_>]) -> miette::SourceSpan {
        self.spans
            .span(path)
            .map(|range| (range.start, range.len()).into())
            .unwrap_or_else(|| (0, 0).into())
    }

    fn shape(&mut self, path: &[Step<'_>], detail: String) {
        let span = self.span(path);
        self.errors.push(KubectlError::Shape {
            kind: self.kind,
            detail,
            span,
        });
    }

    /// The items of a `List`, or the document itself when it is one object of `kind`.
    fn items<'d>(&mut self, doc: &'d Value, kind: &str) -> Vec<(Path<'d>, &'d Value)> {
        if doc.get("kind").and_then(Value::as_str) == Some(kind) {
            return vec![(Vec::new(), doc)];
        }
        match doc.get("items") {
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, item)| (vec![Step::Key("items"), Step::Index(i)], item))
                .collect(),
            Some(_) => {
                self.shape(&[Step::Key("items")], "`items` is not an array".into());
                Vec::new()
            }
            None => {
                self.shape(&[], "no `items` array".into());
                Vec::new()
            }
        }
    }

    /// The item's `metadata.name`, or a shape error (`None`).
    fn name<'d>(&mut self, path: &[Step<'d>], item: &'d Value, what: &str) -> Option<&'d str> {
        match item.pointer("/metadata/name") {
            Some(Value::String(name)) => Some(name),
            Some(_) => {
                self.shape(
                    &with(path, &[Step::Key("metadata"), Step::Key("name")]),
                    format!("{what} `metadata.name` is not a string"),
                );
                None
            }
            None => {
                self.shape(path, format!("a {what} without `metadata.name`"));
                None
            }
        }
    }

    /// An object at `at` (absent: `None` without an error).
    fn object<'d>(
        &mut self,
        path: &[Step<'d>],
        value: Option<&'d Value>,
        shown: &str,
    ) -> Option<&'d serde_json::Map<String, Value>> {
        match value {
            None | Some(Value::Null) => None,
            Some(Value::Object(map)) => Some(map),
            Some(_) => {
                self.shape(path, format!("`{shown}` is not an object"));
                None
            }
        }
    }

    /// The mapped resources of the resource list `value` at `path`, shown as `shown` if
    /// it is not an object; none when it is absent.
    fn resource_list<'d>(
        &mut self,
        path: &[Step<'d>],
        value: Option<&'d Value>,
        shown: &str,
        place: &str,
    ) -> Resources {
        match self.object(path, value, shown) {
            Some(map) => self.resources(path, map, place),
            None => Resources::new(),
        }
    }

    /// The mapped resources of a resource list (`capacity`, `requests`, ...).
    fn resources<'d>(
        &mut self,
        path: &[Step<'d>],
        map: &'d serde_json::Map<String, Value>,
        place: &str,
    ) -> Resources {
        let mut out = Resources::new();
        for (key, value) in map {
            let Some(name) = model_name(key) else {
                continue;
            };
            let at = with(path, &[Step::Key(key)]);
            let text = match value {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                _ => {
                    self.shape(&at, format!("{place}: `{key}` is not a quantity string"));
                    continue;
                }
            };
            let amount = parse_quantity(&text).and_then(|amount| {
                out.add(name, amount).ok_or(QuantityError::TooLarge)?;
                Ok(amount)
            });
            if let Err(reason) = amount {
                let span = self.span(&at);
                self.errors.push(KubectlError::BadQuantity {
                    place: place.to_owned(),
                    key: key.clone(),
                    value: text,
                    reason,
                    span,
                });
            }
        }
        out
    }

    fn node<'d>(&mut self, path: &[Step<'d>], item: &'d Value) -> Option<KubeNode> {
        if !item.is_object() {
            self.shape(path, "a node that is not an object".into());
            return None;
        }
        let name = self.name(path, item, "node")?;
        let status_path = with(path, &[Step::Key("status")]);
        let list = |reader: &mut Self, key: &'static str| -> Resources {
            let at = with(&status_path, &[Step::Key(key)]);
            let shown = format!("status.{key}");
            let value = item.pointer(&format!("/status/{key}"));
            reader.resource_list(&at, value, &shown, &format!("node `{name}` {shown}"))
        };
        let capacity = list(self, "capacity");
        let allocatable = list(self, "allocatable");

        let mut labels = BTreeMap::new();
        let labels_path = with(path, &[Step::Key("metadata"), Step::Key("labels")]);
        if let Some(map) = self.object(
            &labels_path,
            item.pointer("/metadata/labels"),
            "metadata.labels",
        ) {
            for key in KEPT_LABELS {
                if let Some(Value::String(value)) = map.get(*key) {
                    labels.insert((*key).to_owned(), value.clone());
                }
            }
        }

        let address = item
            .pointer("/status/addresses")
            .and_then(Value::as_array)
            .and_then(|addresses| {
                addresses
                    .iter()
                    .find(|a| a.get("type").and_then(Value::as_str) == Some("InternalIP"))
            })
            .and_then(|a| a.get("address"))
            .and_then(Value::as_str)
            .map(str::to_owned);

        let mut problems = Vec::new();
        let mut remedies = Vec::new();
        let ready = item
            .pointer("/status/conditions")
            .and_then(Value::as_array)
            .and_then(|conditions| {
                conditions
                    .iter()
                    .find(|c| c.get("type").and_then(Value::as_str) == Some("Ready"))
            });
        match ready {
            None => {
                problems.push("no Ready condition".to_owned());
                remedies.push(format!(
                    "`kubectl describe node {name}` shows its kubelet's state"
                ));
            }
            Some(condition) => {
                let status = condition
                    .get("status")
                    .and_then(Value::as_str)
                    .unwrap_or("Unknown");
                if status != "True" {
                    let text = |key: &str| {
                        condition
                            .get(key)
                            .and_then(Value::as_str)
                            .filter(|s| !s.is_empty())
                    };
                    let mut problem = format!("Ready={status}");
                    match (text("reason"), text("message")) {
                        (Some(r), Some(m)) => problem.push_str(&format!(": {r}: {m}")),
                        (Some(x), None) | (None, Some(x)) => problem.push_str(&format!(": {x}")),
                        (None, None) => {}
                    }
                    problems.push(problem);
                    remedies.push(format!(
                        "`kubectl describe node {name}` shows why it is not Ready"
                    ));
                }
            }
        }
        if item.pointer("/spec/unschedulable").and_then(Value::as_bool) == Some(true) {
            problems.push("cordoned (spec.unschedulable)".to_owned());
            remedies.push(format!("`kubectl uncordon {name}` if the job may use it"));
        }
        let unusable = (!problems.is_empty()).then(|| Unusable {
            reason: problems.join("; "),
            remedy: remedies.join("; "),
        });
        Some(KubeNode {
            name: name.to_owned(),
            address,
            capacity,
            allocatable,
            labels,
            unusable,
        })
    }

    fn pod<'d>(&mut self, path: &[Step<'d>], item: &'d Value) -> Option<PodRequest> {
        if !item.is_object() {
            self.shape(path, "a pod that is not an object".into());
            return None;
        }
        let node = item
            .pointer("/spec/nodeName")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())?;
        let phase = item.pointer("/status/phase").and_then(Value::as_str);
        if matches!(phase, Some("Succeeded" | "Failed")) {
            return None;
        }
        let name = self.name(path, item, "pod")?;
        let namespace = item
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .unwrap_or("default");
        let pod = format!("{namespace}/{name}");
        let spec_path = with(path, &[Step::Key("spec")]);

        let containers = self.containers(&spec_path, item, "containers", &pod);
        let mut request = Resources::new();
        for (container, _) in &containers {
            add_saturating(&mut request, container);
        }
        // Init containers run one at a time before the containers; sidecars
        // (`restartPolicy: Always`) keep running alongside what follows them.
        let mut sidecars = Resources::new();
        let mut init_peak = Resources::new();
        for (container, sidecar) in self.containers(&spec_path, item, "initContainers", &pod) {
            if sidecar {
                add_saturating(&mut sidecars, &container);
                init_peak = max_each(&init_peak, &sidecars);
            } else {
                let mut running = container;
                add_saturating(&mut running, &sidecars);
                init_peak = max_each(&init_peak, &running);
            }
        }
        add_saturating(&mut request, &sidecars);
        let mut request = max_each(&request, &init_peak);
        let overhead = self.resource_list(
            &with(&spec_path, &[Step::Key("overhead")]),
            item.pointer("/spec/overhead"),
            "spec.overhead",
            &format!("pod `{pod}` overhead"),
        );
        add_saturating(&mut request, &overhead);
        Some(PodRequest {
            pod,
            node: node.to_owned(),
            request,
        })
    }

    /// The effective requests of `spec.<key>[]`, each with whether it is a sidecar.
    fn containers<'d>(
        &mut self,
        spec_path: &[Step<'d>],
        item: &'d Value,
        key: &'static str,
        pod: &str,
    ) -> Vec<(Resources, bool)> {
        let at = with(spec_path, &[Step::Key(key)]);
        let list = match item.get("spec").and_then(|s| s.get(key)) {
            None | Some(Value::Null) => return Vec::new(),
            Some(Value::Array(list)) => list,
            Some(_) => {
                self.shape(&at, format!("pod `{pod}`: `spec.{key}` is not an array"));
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for (i, container) in list.iter().enumerate() {
            let container_path = with(&at, &[Step::Index(i)]);
            let cname = container.get("name").and_then(Value::as_str).unwrap_or("?");
            let place = |which: &str| format!("pod `{pod}` container `{cname}` {which}");
            let read = |reader: &mut Self, which: &'static str| -> Resources {
                let list_path = with(&container_path, &[Step::Key("resources"), Step::Key(which)]);
                let value = container.get("resources").and_then(|r| r.get(which));
                reader.resource_list(
                    &list_path,
                    value,
                    &format!("resources.{which}"),
                    &place(which),
                )
            };
            let requests = read(self, "requests");
            let limits = read(self, "limits");
            // A limit stands for a missing request, resource by resource.
            let mut effective = requests.clone();
            for (name, amount) in limits.iter() {
                if requests.get(name).is_zero() && !has_request_for(container, name) {
                    effective.set(name, amount);
                }
            }
            let sidecar = container.get("restartPolicy").and_then(Value::as_str) == Some("Always");
            out.push((effective, sidecar));
        }
        out
    }
}

/// Whether the container's requests name a key that maps to `name` (an explicit zero
/// request is kept, not replaced by the limit).
fn has_request_for(container: &Value, name: &str) -> bool {
    container
        .pointer("/resources/requests")
        .and_then(Value::as_object)
        .is_some_and(|map| map.keys().any(|k| model_name(k) == Some(name)))
}

#[cfg(test)]
mod tests;
