//! Reading a RayCluster's groups: the pod template's Ray container and `rayStartParams`,
//! turned into what Ray will declare (the rules are listed on the parent module).

use std::collections::BTreeMap;
use std::ops::Range;

use super::go_resolve::{Resolved, resolve};
use super::tree::{Node, Value};
use super::{KubeRayError, RayClusterSpec, RayGroup, ReplicaCounts, span};
use crate::kubectl::{is_whole_ascend, parse_quantity};
use resource_pool_core::model::{Amount, Resources, names};

mod start_params;

#[cfg(test)]
pub(super) use self::start_params::custom_resources;

/// A manifest item of a known kind without the cluster spec of its kind.
const NO_CLUSTER_SPEC: &str =
    "no cluster spec (`spec`, `spec.rayClusterSpec` or `spec.rayClusterConfig`)";

/// The Ray resource of a custom accelerator KubeRay passes through `--resources`.
const CUSTOM_ACCELERATORS: [(&str, &str); 2] = [
    ("aws.amazon.com/neuroncore", "neuron_cores"),
    ("google.com/tpu", "TPU"),
];

/// KubeRay's GPU keys: ending in `gpu`, or an NVIDIA MIG slice `nvidia.com/mig-<N>g.<M>gb`.
pub(super) fn is_gpu_key(key: &str) -> bool {
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
pub(super) struct Reader {
    pub(super) errors: Vec<KubeRayError>,
}

impl Reader {
    fn shape(&mut self, at: &Range<usize>, detail: impl Into<String>) {
        self.errors.push(KubeRayError::Shape {
            detail: detail.into(),
            span: span(at),
        });
    }

    /// The mapping at `node` and its members (absent or null: `None`); anything else is a
    /// `shape` error that names it `what`.
    fn mapping<'n>(
        &mut self,
        node: Option<&'n Node>,
        what: &str,
    ) -> Option<(&'n Node, &'n [(String, Node)])> {
        let node = node.filter(|n| !n.is_null())?;
        match &node.value {
            Value::Map(members) => Some((node, members)),
            _ => {
                self.shape(
                    &node.span,
                    format!("`{what}` is {}, not a mapping", node.kind()),
                );
                None
            }
        }
    }

    /// The one RayCluster of the documents.
    pub(super) fn cluster(&mut self, documents: &[Node]) -> Option<RayClusterSpec> {
        let found = self.cluster_specs(documents);
        let (item, spec) = self.the_one_cluster(documents, &found)?;
        let name = item
            .get("metadata")
            .and_then(|m| m.get("name"))
            .and_then(Node::text)
            .unwrap_or("raycluster")
            .to_owned();
        let mut groups = Vec::new();
        self.head_group(spec, &mut groups);
        let workers_span = self.worker_groups(spec, &mut groups);
        Some(RayClusterSpec {
            name,
            groups,
            workers_span,
        })
    }

    /// Every item of a cluster kind (RayCluster, RayJob, RayService; in a `List` too),
    /// with its cluster spec; an item of such a kind without one is a `shape` error.
    fn cluster_specs<'n>(&mut self, documents: &'n [Node]) -> Vec<(&'n Node, &'n Node)> {
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
                    None => self.shape(&item.span, NO_CLUSTER_SPEC),
                }
            }
        }
        found
    }

    /// The only cluster `found`; none (reported, unless an item was already) or several
    /// (reported at the second, naming them all) is a `shape` error.
    fn the_one_cluster<'n>(
        &mut self,
        documents: &[Node],
        found: &[(&'n Node, &'n Node)],
    ) -> Option<(&'n Node, &'n Node)> {
        match found {
            [] => {
                if self.errors.is_empty() {
                    let whole = documents.first().map_or(0..0, |d| d.span.clone());
                    self.shape(
                        &whole,
                        "no document of `kind: RayCluster` (or RayJob, RayService)",
                    );
                }
                None
            }
            [one] => Some(*one),
            [_, second, ..] => {
                let names: Vec<String> = found
                    .iter()
                    .map(|(item, _)| {
                        let name = item.get("metadata").and_then(|m| m.get("name"));
                        format!("`{}`", name.and_then(Node::text).unwrap_or("(unnamed)"))
                    })
                    .collect();
                let detail = format!(
                    "{} RayClusters in one file ({}); give one: `kubectl get raycluster NAME -o json`, or a file of its own",
                    found.len(),
                    names.join(", ")
                );
                self.shape(&second.0.span, detail);
                None
            }
        }
    }

    /// The head group of `spec`, into `groups`; missing or not a mapping is an error.
    fn head_group(&mut self, spec: &Node, groups: &mut Vec<RayGroup>) {
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
    }

    /// The worker groups of `spec`, into `groups`, each named once; returns the span of
    /// their list (of the spec, without one).
    fn worker_groups(&mut self, spec: &Node, groups: &mut Vec<RayGroup>) -> Range<usize> {
        let (items, list_span) = match spec.get("workerGroupSpecs") {
            None => return spec.span.clone(),
            Some(node) if node.is_null() => return spec.span.clone(),
            Some(Node {
                value: Value::Seq(items),
                span: at,
            }) => (items, at),
            Some(other) => {
                self.shape(
                    &other.span,
                    format!("`workerGroupSpecs` is {}, not a list", other.kind()),
                );
                return spec.span.clone();
            }
        };
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
        list_span.clone()
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
        let mut params = self.start_params(spec, &name);
        self.group_resources(spec, &name, &mut params);
        let labels = self.group_labels(spec, &name);
        let container = self.container(spec)?;
        let Quantities {
            read: limits,
            cpu_written: cpu_limit_written,
        } = self.quantities(container, "limits", &name);
        let Quantities {
            read: requests,
            cpu_written: cpu_request_written,
        } = self.quantities(container, "requests", &name);

        let mut resources = Resources::new();
        let cpus = params
            .num_cpus
            .or_else(|| lookup(&limits, "cpu").map(ceil_whole))
            .or_else(|| lookup(&requests, "cpu").map(ceil_whole));
        // A CPU count written but unreadable has its own error already.
        let cpus_written = params.num_cpus_written || cpu_limit_written || cpu_request_written;
        match cpus {
            Some(cpus) => resources.set(names::CPU, cpus),
            None if cpus_written => {}
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
            labels,
            span: spec.span.clone(),
        })
    }

    /// A whole, non-negative count at `key` of the group.
    fn count(&mut self, spec: &Node, key: &str) -> Option<u32> {
        let node = spec.get(key).filter(|n| !n.is_null())?;
        if let Value::Scalar { text, plain: false } = &node.value {
            self.shape(
                &node.span,
                format!(
                    "`{key}` is a string (\"{text}\"); the API server refuses it: write the number unquoted"
                ),
            );
            return None;
        }
        // As go-yaml types it (`010` is 8, `1_0` 10, `8.0` 8) and JSON writes it.
        let whole = match node.text().map(resolve) {
            Some(Resolved::Int(n)) => u32::try_from(n).ok(),
            Some(Resolved::Float(f))
                if f.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&f) =>
            {
                Some(f as u32)
            }
            _ => None,
        };
        match whole {
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
    fn quantities(&mut self, container: &Node, which: &str, group: &str) -> Quantities {
        let mut quantities = Quantities::default();
        let list = container.get("resources").and_then(|r| r.get(which));
        let Some((_, members)) = self.mapping(list, &format!("resources.{which}")) else {
            return quantities;
        };
        let mut out: BTreeMap<String, Amount> = BTreeMap::new();
        for (key, node) in members {
            // A null (`cpu:`, `cpu: ~`) is as if the key were absent, as Kubernetes reads it.
            if node.is_null() {
                continue;
            }
            quantities.cpu_written |= key == "cpu";
            let read = key == "cpu"
                || is_gpu_key(key)
                || is_whole_ascend(key)
                || CUSTOM_ACCELERATORS.iter().any(|(k, _)| k == key);
            if !read {
                continue;
            }
            let text = node.text().unwrap_or_default();
            match parse_quantity(json_number(node).as_deref().unwrap_or(text.trim())) {
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
        quantities.read = out.into_iter().collect();
        quantities
    }
}

/// What a container's `resources.limits` or `resources.requests` gives.
#[derive(Default)]
struct Quantities {
    /// The quantities KubeRay reads, by key, in sorted key order.
    read: Vec<(String, Amount)>,
    /// Whether a CPU quantity is written (readable or not: an unreadable one has its own
    /// error, so it is not also "no CPU count").
    cpu_written: bool,
}

/// A plain scalar go-yaml types as a number, written as the number JSON hands Kubernetes
/// (`010` is `8`, `0x10` `16`, `1_000` `1000`, `.5` `0.5`); `None` for any other node.
fn json_number(node: &Node) -> Option<String> {
    let Value::Scalar { text, plain: true } = &node.value else {
        return None;
    };
    match resolve(text) {
        Resolved::Int(n) => Some(n.to_string()),
        Resolved::Float(f) if f.is_finite() => Some(f.to_string()),
        _ => None,
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
