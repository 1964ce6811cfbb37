//! Why a RayCluster manifest does not make an inventory.

use std::fmt;

use serde::Serialize;

use crate::kubectl::QuantityError;

/// Why a manifest does not make an inventory. Spans point into the manifest.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
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
        /// The worker group, by its `groupName`.
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
        /// The worker group, by its `groupName`.
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
    /// A value of a group's `resources` field (KubeRay 1.5 and later) that is not a
    /// quantity KubeRay reads.
    #[error("group `{group}`: resources `{name}` = `{value}` {problem}")]
    #[diagnostic(
        code(resource_pool::kuberay::bad_group_resource),
        help(
            "the group's `resources` maps Ray resources to quantities written as strings (`GPU: \"8\"`, `cpu: \"16\"`, `my_resource: \"2\"`)"
        )
    )]
    BadGroupResource {
        /// The worker group, by its `groupName`.
        group: String,
        /// The resource (`GPU`).
        name: String,
        /// As written.
        value: String,
        /// What is wrong with it.
        problem: String,
        /// Where.
        #[label("{problem}")]
        #[serde(skip)]
        span: miette::SourceSpan,
    },
    /// A label of a group's `labels` field (KubeRay 1.5 and later) that KubeRay or the
    /// API server refuses.
    #[error("group `{group}`: label `{key}` = `{value}` {problem}")]
    #[diagnostic(
        code(resource_pool::kuberay::bad_label),
        help(
            "a label is `[prefix/]name: value`, the name and the value up to 63 letters, digits, `-`, `_` or `.` each, alphanumeric at both ends, the value a string (`\"1\"`); KubeRay does not make a cluster whose labels are not"
        )
    )]
    BadLabel {
        /// The worker group, by its `groupName`.
        group: String,
        /// The label's key.
        key: String,
        /// Its value, as written.
        value: String,
        /// What is wrong with it.
        problem: String,
        /// Where (its value: the reader keeps no key's place).
        #[label("{problem}")]
        #[serde(skip)]
        span: miette::SourceSpan,
    },
    /// A group's `resources` field together with resource flags in `rayStartParams`,
    /// which KubeRay refuses.
    #[error(
        "group `{group}` sets resources both in its `resources` field and in rayStartParams `{param}`: KubeRay refuses the RayCluster"
    )]
    #[diagnostic(
        code(resource_pool::kuberay::resources_twice),
        help(
            "keep one: the group's `resources` (KubeRay 1.5 and later), or rayStartParams `num-cpus`, `num-gpus`, `memory` and `resources`"
        )
    )]
    ResourcesTwice {
        /// The worker group, by its `groupName`.
        group: String,
        /// The first resource flag of `rayStartParams` found (`num-gpus`).
        param: String,
        /// The group's `resources`.
        #[label("the group's resources")]
        #[serde(skip)]
        span: miette::SourceSpan,
        /// The flag.
        #[label("and this flag")]
        #[serde(skip)]
        flag: miette::SourceSpan,
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
        /// The worker group, by its `groupName`.
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
        /// The worker group, by its `groupName`.
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
