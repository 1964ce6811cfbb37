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
//! - A group's `resources` field (KubeRay 1.5 on, `updateRayStartParamsResources`) is
//!   written over `rayStartParams`: `cpu` (any case) is `num-cpus`, a GPU key `num-gpus`
//!   (quantities, rounded up), `memory` is Ray's, any other name a custom resource, the
//!   lot replacing `rayStartParams.resources`; beside resource flags in `rayStartParams`
//!   KubeRay refuses it. Its `labels` field becomes the nodes' labels.
//! - `memory` and `object_store_memory` are Ray-internal and left out, as the other Ray
//!   sources do; Ray's `accelerator_type:…` resources come from what Ray detects on the
//!   GPU and are not predicted.
//! - Replicas: the head group is one node. A worker group has `clamp(replicas, minReplicas,
//!   maxReplicas) × numOfHosts` nodes (`maxReplicas` when `minReplicas > maxReplicas`,
//!   for `--replicas min` too, with a warning; 0 when `suspend: true`), or with
//!   [`Replicas::Min`]/[`Replicas::Max`] its minimum or maximum; defaults are KubeRay's CRD
//!   defaults (`replicas` 0, `minReplicas` 0, `maxReplicas` unbounded, which
//!   `--replicas max` refuses). Counts and `rayStartParams` values are typed as the API
//!   server types them: a count written as a string, or a parameter as a number, is an
//!   error (`kubectl apply` refuses both).
//!
//! Every node is idle (available = total): nothing runs on a cluster that does not exist
//! yet. Errors carry byte spans into the manifest (YAML or JSON, both read by
//! `kuberay::tree`), every problem of the file at once.

mod error;
mod go_resolve;
#[cfg(test)]
mod go_yaml_fixture;
#[cfg(test)]
mod merge_diff_tests;
mod read;
#[cfg(test)]
mod tag_diff_tests;
mod tree;

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;

use serde::Serialize;

pub use self::error::KubeRayError;
use self::read::Reader;
use super::{Inventory, InventoryNote};
use resource_pool_core::model::{Cluster, Resources, names};

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
    /// The default bound on nodes: the one of cluster files.
    pub const DEFAULT_MAX_NODES: u64 = crate::cluster_file::ClusterLimits::DEFAULT_MAX_NODES as u64;
}

impl Default for KubeRayOptions {
    fn default() -> KubeRayOptions {
        KubeRayOptions {
            replicas: Replicas::Current,
            max_nodes: KubeRayOptions::DEFAULT_MAX_NODES,
        }
    }
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
            // KubeRay clamps to maxReplicas: with min above it, the least it runs is max.
            Replicas::Min => min.min(max),
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
    /// The group's `labels` field (KubeRay 1.5 and later): Ray labels of each of its nodes.
    pub labels: BTreeMap<String, String>,
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
            let mut labels = group.labels.clone();
            labels.insert("ray.io/node-type".to_owned(), kind.to_owned());
            labels.insert("ray.io/group".to_owned(), group.name.clone());
            for i in 0..count {
                let id = if group.head {
                    format!("{}-head", self.name)
                } else {
                    format!("{}-{}-{i}", self.name, group.name)
                };
                let mut node = resource_pool_core::model::Node::new(id, group.resources.clone())
                    .with_total(group.resources.clone());
                node.labels = labels.clone();
                node.head = group.head;
                nodes.push(node);
            }
        }
        let cluster = Cluster::new(nodes);
        let mut notes: Vec<InventoryNote> = self
            .groups
            .iter()
            .filter_map(|group| match group.replicas {
                // A suspended group runs nothing, whatever its bounds.
                ReplicaCounts {
                    min: Some(min),
                    max: Some(max),
                    suspended: false,
                    ..
                } if min > max => Some(InventoryNote::MinAboveMaxReplicas {
                    group: group.name.clone(),
                    min,
                    max,
                }),
                _ => None,
            })
            .collect();
        let any_accelerator = cluster.alive().any(|n| {
            !n.available.get(names::GPU).is_zero() || !n.available.get(names::NPU).is_zero()
        });
        if !any_accelerator {
            notes.push(InventoryNote::NoAccelerators {
                listed_by: crate::SourceKind::KubeRay,
            });
        }
        Ok(Inventory { cluster, notes })
    }
}
fn span(range: &Range<usize>) -> miette::SourceSpan {
    (range.start, range.len()).into()
}

#[cfg(test)]
mod tests;
