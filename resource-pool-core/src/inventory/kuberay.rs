//! KubeRay's `RayCluster` (`ray.io/v1`) as an inventory, before the cluster exists: the
//! YAML manifest itself, or `kubectl get raycluster NAME -o json`.
//!
//! Each group becomes nodes with the resources Ray will declare on them. The rules follow
//! KubeRay's operator at commit `b2f504f2aea6f49277b3d80d2fa0d9f9a8cc064f`
//! (`ray-operator/controllers/ray/common/pod.go`: `generateRayStartCommand`,
//! `addWellKnownAcceleratorResources`; `utils/util.go`: `GetWorkerGroupDesiredReplicas`),
//! and Ray's own detection of Ascend NPUs:
//!
//! - The Ray container is the pod template's first container.
//! - `CPU` = `rayStartParams.num-cpus`; else the container's CPU limit, else its CPU
//!   request, rounded up to a whole number (Kubernetes' `Quantity.Value()`). With neither,
//!   Ray would count the CPUs of whatever host the pod lands on: an error here.
//! - `GPU` = `rayStartParams.num-gpus`; else the first (in sorted key order) non-zero
//!   container *limit* whose key ends in `gpu` (`nvidia.com/gpu`, `amd.com/gpu`) or is an
//!   NVIDIA MIG slice (`nvidia.com/mig-1g.10gb`), rounded up. Requests are not read for GPUs.
//! - `rayStartParams.resources` (a JSON object, possibly quoted) declares custom resources
//!   by Ray's exact names; then the first non-zero limit of `google.com/tpu` (as `TPU`) or
//!   `aws.amazon.com/neuroncore` (as `neuron_cores`) is added unless `resources` names one.
//! - `NPU`: KubeRay passes no NPU flag; Ray counts the Ascend chips it sees in the pod, which
//!   are the ones the device plugin mounts: the sum of the whole-chip limits
//!   `huawei.com/Ascend<model>` (not the virtual slices such as `Ascend910-4c`), unless
//!   `rayStartParams.resources` names `NPU`.
//! - `memory` and `object_store_memory` are Ray-internal and left out, as the other Ray
//!   sources do; Ray's `accelerator_type:…` resources come from what Ray detects on the
//!   GPU and are not predicted.
//! - Replicas: the head group is one node. A worker group has `clamp(replicas, minReplicas,
//!   maxReplicas) × numOfHosts` nodes (`maxReplicas` when `minReplicas > maxReplicas`; 0
//!   when `suspend: true`), or with [`Replicas::Min`]/[`Replicas::Max`] its minimum or
//!   maximum; defaults are KubeRay's CRD defaults (`replicas` 0, `minReplicas` 0,
//!   `maxReplicas` unbounded, which `--replicas max` refuses).
//!
//! Every node is idle (available = total): nothing runs on a cluster that does not exist
//! yet. Errors carry byte spans into the manifest (YAML or JSON, both read by
//! `kuberay::tree`), every problem of the file at once.

mod tree;

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;

use serde::Serialize;

use self::tree::{Node, Value};
use super::kubectl::{QuantityError, is_whole_ascend, parse_quantity};
use super::{Inventory, InventoryNote};
use crate::model::{Amount, Cluster, Resources, names};

/// Which replica count of each worker group becomes nodes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Replicas {
    /// What KubeRay reconciles to now: `replicas`, clamped to the group's bounds.
    #[default]
    Current,
    /// `minReplicas`: the cluster scaled all the way down.
    Min,
    /// `maxReplicas`: the cluster scaled all the way up.
    Max,
}

impl Replicas {
    /// Every choice, as `--replicas` spells them.
    pub const ALL: [(&'static str, Replicas); 3] = [
        ("current", Replicas::Current),
        ("min", Replicas::Min),
        ("max", Replicas::Max),
    ];
}

impl fmt::Display for Replicas {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = Replicas::ALL
            .iter()
            .find(|(_, r)| r == self)
            .map_or("current", |(name, _)| name);
        f.write_str(name)
    }
}

/// How a manifest becomes an inventory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KubeRayOptions {
    /// Which replica count becomes nodes.
    pub replicas: Replicas,
    /// The most nodes made (a bound on memory for any manifest).
    pub max_nodes: u64,
}

impl KubeRayOptions {
    /// The default bound on nodes.
    pub const DEFAULT_MAX_NODES: u64 = 100_000;
}

impl Default for KubeRayOptions {
    fn default() -> KubeRayOptions {
        KubeRayOptions {
            replicas: Replicas::Current,
            max_nodes: KubeRayOptions::DEFAULT_MAX_NODES,
        }
    }
}

/// Why a manifest does not make an inventory. Spans point into the manifest.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic, Serialize)]
#[serde(untagged)]
pub enum KubeRayError {
    /// Neither YAML nor JSON.
    #[error("not YAML or JSON: {detail}")]
    #[diagnostic(
        code(resource_pool::kuberay::syntax),
        help(
            "give the RayCluster manifest, or the output of `kubectl get raycluster NAME -o json`, unchanged"
        )
    )]
    Syntax {
        /// The parser's message.
        detail: String,
        /// Where.
        #[label("here")]
        #[serde(skip)]
        span: miette::SourceSpan,
    },
    /// Not the shape of a RayCluster.
    #[error("not a RayCluster as KubeRay reads it: {detail}")]
    #[diagnostic(
        code(resource_pool::kuberay::shape),
        help(
            "expected `kind: RayCluster` with `spec.headGroupSpec` and `spec.workerGroupSpecs[]` (ray.io/v1), each with a pod `template`"
        )
    )]
    Shape {
        /// What is wrong.
        detail: String,
        /// Where.
        #[label("{detail}")]
        #[serde(skip)]
        span: miette::SourceSpan,
    },
    /// A container quantity that is not one.
    #[error("group `{group}`: `{key}` = `{value}` {reason}")]
    #[diagnostic(
        code(resource_pool::kuberay::bad_quantity),
        help(
            "Kubernetes quantities are a number with an optional suffix (`8`, `500m`, `1.5`, `64Gi`)"
        )
    )]
    BadQuantity {
        /// The group.
        group: String,
        /// The resource key (`nvidia.com/gpu`).
        key: String,
        /// As written.
        value: String,
        /// What is wrong with it.
        #[serde(serialize_with = "as_display")]
        reason: QuantityError,
        /// Where.
        #[label("{reason}")]
        #[serde(skip)]
        span: miette::SourceSpan,
    },
    /// A `rayStartParams` value that `ray start` would refuse.
    #[error("group `{group}`: rayStartParams `{param}` = `{value}` {problem}")]
    #[diagnostic(
        code(resource_pool::kuberay::bad_start_param),
        help(
            "`num-cpus` and `num-gpus` take whole numbers (`\"8\"`); `resources` takes a JSON object of custom resources (`'{{\"my_resource\": 2}}'`), without CPU or GPU, which have their own flags"
        )
    )]
    BadStartParam {
        /// The group.
        group: String,
        /// The parameter (`num-gpus`).
        param: String,
        /// As written.
        value: String,
        /// What is wrong with it.
        problem: String,
        /// Where.
        #[label("{problem}")]
        #[serde(skip)]
        span: miette::SourceSpan,
    },
    /// Nothing says how many CPUs Ray will declare.
    #[error(
        "group `{group}`: neither rayStartParams `num-cpus` nor a CPU limit or request on the Ray container"
    )]
    #[diagnostic(
        code(resource_pool::kuberay::unknown_cpus),
        help(
            "Ray would count the CPUs of whatever host the pod lands on; set `resources.limits.cpu` on the group's first container, or `rayStartParams: {{num-cpus: \"N\"}}`"
        )
    )]
    UnknownCpus {
        /// The group.
        group: String,
        /// The Ray container.
        #[label("the Ray container (the first one)")]
        #[serde(skip)]
        span: miette::SourceSpan,
    },
    /// `--replicas max` on a group without `maxReplicas`.
    #[error("group `{group}` has no `maxReplicas`: it may grow without bound")]
    #[diagnostic(
        code(resource_pool::kuberay::unbounded_replicas),
        help(
            "set `maxReplicas` on the group, or check with `--replicas current` or `--replicas min`"
        )
    )]
    UnboundedReplicas {
        /// The group.
        group: String,
        /// The group's spec.
        #[label("no maxReplicas here")]
        #[serde(skip)]
        span: miette::SourceSpan,
    },
    /// More nodes than the bound.
    #[error("the manifest makes {nodes} nodes, more than the limit of {limit}")]
    #[diagnostic(
        code(resource_pool::kuberay::too_many_nodes),
        help(
            "check `replicas`, `maxReplicas` and `numOfHosts`; the limit keeps a mistyped count from exhausting memory"
        )
    )]
    TooManyNodes {
        /// Nodes the manifest makes.
        nodes: u64,
        /// The bound.
        limit: u64,
        /// The worker groups.
        #[label("these groups")]
        #[serde(skip)]
        span: miette::SourceSpan,
    },
    /// Two groups with one name (KubeRay refuses the manifest).
    #[error("worker group `{group}` is defined twice")]
    #[diagnostic(
        code(resource_pool::kuberay::duplicate_group),
        help("KubeRay requires unique `groupName`s: rename one")
    )]
    DuplicateGroup {
        /// The name.
        group: String,
        /// The second.
        #[label("defined again here")]
        #[serde(skip)]
        span: miette::SourceSpan,
        /// The first.
        #[label("first defined here")]
        #[serde(skip)]
        first: miette::SourceSpan,
    },
}

fn as_display<T: fmt::Display, S: serde::Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(value)
}

/// A group's replica settings as written (KubeRay's defaults applied when counted).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ReplicaCounts {
    /// `replicas`.
    pub replicas: Option<u32>,
    /// `minReplicas`.
    pub min: Option<u32>,
    /// `maxReplicas`.
    pub max: Option<u32>,
    /// `numOfHosts` (pods per replica; default 1).
    pub hosts: u32,
    /// `suspend: true`.
    pub suspended: bool,
}

impl ReplicaCounts {
    /// The pods of the group for `which`; `None` for [`Replicas::Max`] without `maxReplicas`.
    pub fn pods(&self, which: Replicas) -> Option<u64> {
        if self.suspended {
            return Some(0);
        }
        let min = self.min.unwrap_or(0);
        let max = self.max.unwrap_or(i32::MAX as u32);
        let replicas = match which {
            Replicas::Current if min > max => max,
            Replicas::Current => self.replicas.unwrap_or(min).clamp(min, max),
            Replicas::Min => min,
            Replicas::Max => self.max?,
        };
        Some(u64::from(replicas) * u64::from(self.hosts))
    }
}

/// One group of a RayCluster, as Ray will see each of its nodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RayGroup {
    /// `groupName` (`headgroup` for the head).
    pub name: String,
    /// Whether it is the head group (always one node).
    pub head: bool,
    /// The replica settings (workers only; the head's are one replica).
    pub replicas: ReplicaCounts,
    /// What Ray will declare on each of its nodes (Ray-internal resources left out).
    pub resources: Resources,
    span: Range<usize>,
}

/// A RayCluster manifest, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RayClusterSpec {
    /// `metadata.name` (`raycluster` when absent).
    pub name: String,
    /// The head group first, then the worker groups in order.
    pub groups: Vec<RayGroup>,
    workers_span: Range<usize>,
}

/// Reads a RayCluster (or the cluster of a RayJob or RayService) from a YAML manifest or
/// `kubectl get ... -o json`; every problem at once.
pub fn parse_raycluster(text: &str) -> Result<RayClusterSpec, Vec<KubeRayError>> {
    let documents = tree::parse_documents(text).map_err(|e| {
        vec![KubeRayError::Syntax {
            detail: e.message,
            span: span(&e.span),
        }]
    })?;
    let mut reader = Reader::default();
    let spec = reader.cluster(&documents);
    match spec {
        Some(spec) if reader.errors.is_empty() => Ok(spec),
        _ => Err(reader.errors),
    }
}

/// [`parse_raycluster`], then [`RayClusterSpec::inventory`].
pub fn kuberay_inventory(
    text: &str,
    options: &KubeRayOptions,
) -> Result<Inventory, Vec<KubeRayError>> {
    parse_raycluster(text)?.inventory(options)
}

impl RayClusterSpec {
    /// The nodes of every group for `options.replicas`, all idle. Node ids are
    /// `NAME-head` and `NAME-GROUP-I`; labels `ray.io/node-type` and `ray.io/group`.
    pub fn inventory(&self, options: &KubeRayOptions) -> Result<Inventory, Vec<KubeRayError>> {
        let mut errors = Vec::new();
        let mut counts = Vec::with_capacity(self.groups.len());
        let mut total: u64 = 0;
        for group in &self.groups {
            let pods = if group.head {
                Some(1)
            } else {
                group.replicas.pods(options.replicas)
            };
            match pods {
                Some(n) => {
                    total = total.saturating_add(n);
                    counts.push(n);
                }
                None => errors.push(KubeRayError::UnboundedReplicas {
                    group: group.name.clone(),
                    span: span(&group.span),
                }),
            }
        }
        if errors.is_empty() && total > options.max_nodes {
            errors.push(KubeRayError::TooManyNodes {
                nodes: total,
                limit: options.max_nodes,
                span: span(&self.workers_span),
            });
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let mut nodes = Vec::new();
        for (group, &count) in self.groups.iter().zip(&counts) {
            let kind = if group.head { "head" } else { "worker" };
            let labels: BTreeMap<String, String> = [
                ("ray.io/node-type".to_owned(), kind.to_owned()),
                ("ray.io/group".to_owned(), group.name.clone()),
            ]
            .into();
            for i in 0..count {
                let id = if group.head {
                    format!("{}-head", self.name)
                } else {
                    format!("{}-{}-{i}", self.name, group.name)
                };
                let mut node = crate::model::Node::new(id, group.resources.clone())
                    .with_total(group.resources.clone());
                node.labels = labels.clone();
                nodes.push(node);
            }
        }
        let cluster = Cluster::new(nodes);
        let mut notes = Vec::new();
        let any_accelerator = cluster.alive().any(|n| {
            !n.available.get(names::GPU).is_zero() || !n.available.get(names::NPU).is_zero()
        });
        if !any_accelerator {
            notes.push(InventoryNote::NoAccelerators);
        }
        Ok(Inventory { cluster, notes })
    }
}

fn span(range: &Range<usize>) -> miette::SourceSpan {
    (range.start, range.len()).into()
}

/// The Ray resource of a custom accelerator KubeRay passes through `--resources`.
const CUSTOM_ACCELERATORS: [(&str, &str); 2] = [
    ("aws.amazon.com/neuroncore", "neuron_cores"),
    ("google.com/tpu", "TPU"),
];

/// KubeRay's GPU keys: ending in `gpu`, or an NVIDIA MIG slice `nvidia.com/mig-<N>g.<M>gb`.
fn is_gpu_key(key: &str) -> bool {
    if key.ends_with("gpu") {
        return true;
    }
    let Some(slice) = key
        .strip_prefix("nvidia.com/mig-")
        .and_then(|s| s.strip_suffix("gb"))
    else {
        return false;
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    slice
        .split_once("g.")
        .is_some_and(|(slices, memory)| digits(slices) && digits(memory))
}

/// A whole number of an amount, rounded up (Kubernetes' `Quantity.Value()`).
fn ceil_whole(amount: Amount) -> Amount {
    Amount::from_whole(amount.units().div_ceil(Amount::SCALE)).unwrap_or(amount)
}

#[derive(Default)]
struct Reader {
    errors: Vec<KubeRayError>,
}

impl Reader {
    fn shape(&mut self, at: &Range<usize>, detail: impl Into<String>) {
        self.errors.push(KubeRayError::Shape {
            detail: detail.into(),
            span: span(at),
        });
    }

    /// The one RayCluster of the documents.
    fn cluster(&mut self, documents: &[Node]) -> Option<RayClusterSpec> {
        let mut found: Vec<(&Node, &Node)> = Vec::new();
        for document in documents {
            let items: Vec<&Node> = match (kind(document), document.get("items")) {
                (
                    Some("List"),
                    Some(Node {
                        value: Value::Seq(items),
                        ..
                    }),
                ) => items.iter().collect(),
                _ => vec![document],
            };
            for item in items {
                let spec = match kind(item) {
                    Some("RayCluster") => item.get("spec"),
                    Some("RayJob") => item.get("spec").and_then(|s| s.get("rayClusterSpec")),
                    Some("RayService") => item.get("spec").and_then(|s| s.get("rayClusterConfig")),
                    _ => continue,
                };
                match spec {
                    Some(spec) => found.push((item, spec)),
                    None => self.shape(&item.span, "no cluster spec (`spec`, `spec.rayClusterSpec` or `spec.rayClusterConfig`)"),
                }
            }
        }
        let whole = documents.first().map_or(0..0, |d| d.span.clone());
        let (item, spec) = match found.as_slice() {
            [] => {
                if self.errors.is_empty() {
                    self.shape(
                        &whole,
                        "no document of `kind: RayCluster` (or RayJob, RayService)",
                    );
                }
                return None;
            }
            [one] => *one,
            [_, second, ..] => {
                let detail = format!("{} RayClusters in one file; give one", found.len());
                self.shape(&second.0.span, detail);
                return None;
            }
        };
        let name = item
            .get("metadata")
            .and_then(|m| m.get("name"))
            .and_then(Node::text)
            .unwrap_or("raycluster")
            .to_owned();
        let mut groups = Vec::new();
        match spec.get("headGroupSpec") {
            Some(head) if matches!(head.value, Value::Map(_)) => {
                groups.extend(self.group(head, "headgroup".to_owned(), true));
            }
            Some(other) => self.shape(
                &other.span,
                format!("`headGroupSpec` is {}, not a mapping", other.kind()),
            ),
            None => self.shape(&spec.span, "no `headGroupSpec`"),
        }
        let mut workers_span = spec.span.clone();
        match spec.get("workerGroupSpecs") {
            None => {}
            Some(node) if node.is_null() => {}
            Some(Node {
                value: Value::Seq(items),
                span: at,
            }) => {
                workers_span = at.clone();
                let mut first_use: BTreeMap<&str, Range<usize>> = BTreeMap::new();
                for item in items {
                    let Some(name_node) = item.get("groupName") else {
                        self.shape(&item.span, "a worker group without `groupName`");
                        continue;
                    };
                    let Some(group_name) = name_node.text() else {
                        self.shape(&name_node.span, "`groupName` is not a string");
                        continue;
                    };
                    if let Some(first) = first_use.get(group_name) {
                        self.errors.push(KubeRayError::DuplicateGroup {
                            group: group_name.to_owned(),
                            span: span(&name_node.span),
                            first: span(first),
                        });
                        continue;
                    }
                    first_use.insert(group_name, name_node.span.clone());
                    groups.extend(self.group(item, group_name.to_owned(), false));
                }
            }
            Some(other) => self.shape(
                &other.span,
                format!("`workerGroupSpecs` is {}, not a list", other.kind()),
            ),
        }
        Some(RayClusterSpec {
            name,
            groups,
            workers_span,
        })
    }

    fn group(&mut self, spec: &Node, name: String, head: bool) -> Option<RayGroup> {
        let replicas = if head {
            ReplicaCounts {
                replicas: Some(1),
                hosts: 1,
                ..ReplicaCounts::default()
            }
        } else {
            ReplicaCounts {
                replicas: self.count(spec, "replicas"),
                min: self.count(spec, "minReplicas"),
                max: self.count(spec, "maxReplicas"),
                hosts: self.count(spec, "numOfHosts").unwrap_or(1),
                suspended: spec.get("suspend").and_then(Node::text) == Some("true"),
            }
        };
        let params = self.start_params(spec, &name);
        let container = self.container(spec)?;
        let limits = self.quantities(container, "limits", &name);
        let requests = self.quantities(container, "requests", &name);

        let mut resources = Resources::new();
        let cpus = params
            .num_cpus
            .or_else(|| lookup(&limits, "cpu").map(ceil_whole))
            .or_else(|| lookup(&requests, "cpu").map(ceil_whole));
        match cpus {
            Some(cpus) => resources.set(names::CPU, cpus),
            None => self.errors.push(KubeRayError::UnknownCpus {
                group: name.clone(),
                span: span(&container.span),
            }),
        }
        let gpus = params.num_gpus.or_else(|| {
            limits
                .iter()
                .find(|(key, amount)| is_gpu_key(key) && !amount.is_zero())
                .map(|(_, amount)| ceil_whole(*amount))
        });
        if let Some(gpus) = gpus {
            resources.set(names::GPU, gpus);
        }
        let mut custom = params.resources;
        let named_accelerator = CUSTOM_ACCELERATORS
            .iter()
            .any(|(_, ray)| custom.contains_key(*ray));
        if !named_accelerator
            && let Some((ray, amount)) = limits.iter().find_map(|(key, amount)| {
                let ray = CUSTOM_ACCELERATORS.iter().find(|(k, _)| k == key)?.1;
                (!amount.is_zero()).then_some((ray, *amount))
            })
        {
            custom.insert(ray.to_owned(), amount);
        }
        if !custom.contains_key(names::NPU) {
            let chips = limits
                .iter()
                .filter(|(key, _)| is_whole_ascend(key))
                .fold(Amount::ZERO, |sum, (_, amount)| sum.saturating_add(*amount));
            if !chips.is_zero() {
                custom.insert(names::NPU.to_owned(), chips);
            }
        }
        for (resource, amount) in custom {
            if !names::is_ray_internal(&resource) {
                resources.set(resource, amount);
            }
        }
        Some(RayGroup {
            name,
            head,
            replicas,
            resources,
            span: spec.span.clone(),
        })
    }

    /// A whole, non-negative count at `key` of the group.
    fn count(&mut self, spec: &Node, key: &str) -> Option<u32> {
        let node = spec.get(key).filter(|n| !n.is_null())?;
        match node.text().and_then(|t| t.parse::<u32>().ok()) {
            Some(n) => Some(n),
            None => {
                self.shape(
                    &node.span,
                    format!("`{key}` is not a whole number from 0 to 4294967295"),
                );
                None
            }
        }
    }

    fn start_params(&mut self, spec: &Node, group: &str) -> StartParams {
        let mut out = StartParams::default();
        let Some(params) = spec.get("rayStartParams").filter(|n| !n.is_null()) else {
            return out;
        };
        let Value::Map(members) = &params.value else {
            self.shape(
                &params.span,
                format!("`rayStartParams` is {}, not a mapping", params.kind()),
            );
            return out;
        };
        let bad = |reader: &mut Reader, param: &str, node: &Node, problem: &str| {
            reader.errors.push(KubeRayError::BadStartParam {
                group: group.to_owned(),
                param: param.to_owned(),
                value: node.text().unwrap_or_default().to_owned(),
                problem: problem.to_owned(),
                span: span(&node.span),
            });
        };
        for (param, node) in members.iter().rev() {
            let done = match param.as_str() {
                "num-cpus" => out.num_cpus.is_some(),
                "num-gpus" => out.num_gpus.is_some(),
                "resources" => out.resources_seen,
                _ => continue,
            };
            if done {
                continue; // a later duplicate wins
            }
            let Some(text) = node.text() else {
                bad(self, param, node, "is not a string");
                continue;
            };
            match param.as_str() {
                "num-cpus" | "num-gpus" => {
                    match text.trim().parse::<u64>().ok().and_then(Amount::from_whole) {
                        Some(amount) if param == "num-cpus" => out.num_cpus = Some(amount),
                        Some(amount) => out.num_gpus = Some(amount),
                        None => bad(
                            self,
                            param,
                            node,
                            "is not a whole number (`ray start` takes an integer)",
                        ),
                    }
                }
                _ => {
                    out.resources_seen = true;
                    match custom_resources(text) {
                        Ok(resources) => out.resources = resources,
                        Err(problem) => bad(self, param, node, &problem),
                    }
                }
            }
        }
        out
    }

    /// The pod template's first container (KubeRay's Ray container).
    fn container<'d>(&mut self, spec: &'d Node) -> Option<&'d Node> {
        let Some(template) = spec.get("template") else {
            self.shape(&spec.span, "a group without a pod `template`");
            return None;
        };
        let containers = template.get("spec").and_then(|s| s.get("containers"));
        match containers {
            Some(Node {
                value: Value::Seq(items),
                ..
            }) if !items.is_empty() => Some(&items[0]),
            Some(other) => {
                self.shape(
                    &other.span,
                    "`template.spec.containers` is not a list of containers",
                );
                None
            }
            None => {
                self.shape(&template.span, "a pod template without `spec.containers`");
                None
            }
        }
    }

    /// The quantities KubeRay reads of `resources.<which>`, by key, in sorted key order.
    fn quantities(&mut self, container: &Node, which: &str, group: &str) -> Vec<(String, Amount)> {
        let Some(list) = container
            .get("resources")
            .and_then(|r| r.get(which))
            .filter(|n| !n.is_null())
        else {
            return Vec::new();
        };
        let Value::Map(members) = &list.value else {
            self.shape(
                &list.span,
                format!("`resources.{which}` is {}, not a mapping", list.kind()),
            );
            return Vec::new();
        };
        let mut out: BTreeMap<String, Amount> = BTreeMap::new();
        for (key, node) in members {
            let read = key == "cpu"
                || is_gpu_key(key)
                || is_whole_ascend(key)
                || CUSTOM_ACCELERATORS.iter().any(|(k, _)| k == key);
            if !read {
                continue;
            }
            let text = node.text().unwrap_or_default();
            match parse_quantity(text.trim()) {
                Ok(amount) => {
                    out.insert(key.clone(), amount);
                }
                Err(reason) => self.errors.push(KubeRayError::BadQuantity {
                    group: group.to_owned(),
                    key: key.clone(),
                    value: text.to_owned(),
                    reason,
                    span: span(&node.span),
                }),
            }
        }
        out.into_iter().collect()
    }
}

fn kind(node: &Node) -> Option<&str> {
    node.get("kind").and_then(Node::text)
}

fn lookup(list: &[(String, Amount)], key: &str) -> Option<Amount> {
    list.iter()
        .find(|(k, amount)| k == key && !amount.is_zero())
        .map(|(_, amount)| *amount)
}

/// What `rayStartParams` says about resources.
#[derive(Default)]
struct StartParams {
    num_cpus: Option<Amount>,
    num_gpus: Option<Amount>,
    resources: BTreeMap<String, Amount>,
    resources_seen: bool,
}

/// `rayStartParams.resources`: a JSON object of numbers, without `CPU`/`GPU` (Ray refuses
/// those there). KubeRay puts the value into a `bash -c` command line as written, so one
/// outer layer of shell quotes is removed as bash would: `'{"a": 1}'` literally,
/// `"{\"a\": 1}"` with its backslash escapes (the form of KubeRay's samples).
fn custom_resources(text: &str) -> Result<BTreeMap<String, Amount>, String> {
    let trimmed = text.trim();
    let unquoted = if let Some(inner) = trimmed
        .strip_prefix('\'')
        .and_then(|t| t.strip_suffix('\''))
    {
        inner.to_owned()
    } else if let Some(inner) = trimmed.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        let mut out = String::with_capacity(inner.len());
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            match (c, chars.clone().next()) {
                ('\\', Some(next @ ('"' | '\\' | '$' | '`'))) => {
                    out.push(next);
                    chars.next();
                }
                _ => out.push(c),
            }
        }
        out
    } else {
        trimmed.to_owned()
    };
    let map: BTreeMap<String, f64> = serde_json::from_str(&unquoted)
        .map_err(|e| format!("is not a JSON object of numbers ({e})"))?;
    let mut out = BTreeMap::new();
    for (name, value) in map {
        if name == names::CPU || name == names::GPU {
            return Err(format!(
                "names `{name}`, which `ray start` takes only from --num-cpus/--num-gpus"
            ));
        }
        let amount = Amount::from_f64_rounded(value)
            .map_err(|e| format!("gives `{name}` = {value}: {e}"))?;
        out.insert(name, amount);
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
