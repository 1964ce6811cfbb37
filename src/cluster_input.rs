//! Where `check` and `inventory` get the cluster: a cluster file, a live Ray cluster,
//! Slurm's node list or this machine.

use std::path::PathBuf;
use std::time::Duration;

use resource_pool::Cluster;
use resource_pool::inventory::cluster_file::load_cluster;
use resource_pool::inventory::kubectl::{
    kubectl_inventory, parse_kubectl_nodes, parse_kubectl_pods,
};
use resource_pool::inventory::kuberay::{KubeRayOptions, Replicas, kuberay_inventory};
use resource_pool::inventory::slurm::parse_slurm_nodes;
use resource_pool::inventory::{InventoryNote, SourceKind};
use resource_pool::local_machine::{LocalMachine, LocalMachineError};
use resource_pool::ray_http::{RaySource, TimeoutSetting, TrustRoots, token_from_env};
use resource_pool::source::SourceFile;
use resource_pool::verl::launch::is_dashboard_url;

use super::Context;
use resource_pool::report::Finding;
use resource_pool::source::STDIN_NAME;

/// The variable that names a cluster file when no cluster source is given (before
/// `RAY_ADDRESS`).
pub const CLUSTER_VARIABLE: &str = "RESOURCE_POOL_CLUSTER";

/// The variable `--ca-cert` defaults to.
const CA_CERT_VARIABLE: &str = resource_pool::ray_http::CA_CERT_ENV_VAR;

/// The cluster options shared by `check` and `inventory`.
#[derive(Clone, Debug, clap::Args)]
pub struct ClusterArgs {
    /// A cluster file, TOML or JSON (by its extension; `-` reads stdin, either format);
    /// default: the file `RESOURCE_POOL_CLUSTER` names, when no other source is given.
    #[arg(long, value_name = "CLUSTER.toml|json|-", conflicts_with = "ray")]
    pub cluster: Option<PathBuf>,
    /// A live Ray cluster's dashboard (`http://HEAD:8265`, or `https://...` behind TLS);
    /// default: `RAY_ADDRESS` when it is an http(s) URL. A token for dashboards that need one comes from
    /// `RESOURCE_POOL_RAY_TOKEN` or `RAY_AUTH_TOKEN`, or a file named by
    /// `RESOURCE_POOL_RAY_TOKEN_FILE` or `RAY_AUTH_TOKEN_PATH`; it is never printed.
    #[arg(long, value_name = "URL")]
    pub ray: Option<String>,
    /// Not `--ray`'s default: the environment's `RAY_ADDRESS` is not the cluster to read
    /// (a pasted launch line sends its job elsewhere). Set by front ends, not a flag.
    #[arg(skip)]
    pub ray_address_unused: bool,
    /// The JSON of `scontrol show node --json` (a file, or `-` for stdin).
    #[arg(long, value_name = "FILE|-", conflicts_with_all = ["cluster", "ray"])]
    pub slurm: Option<PathBuf>,
    /// This machine as a one-node cluster: GPUs from NVML (else `nvidia-smi`), NPUs from
    /// `npu-smi`, the CPU count and `/proc/meminfo`.
    #[arg(long, conflicts_with_all = ["cluster", "ray", "slurm"])]
    pub local: bool,
    /// The JSON of `kubectl get nodes -o json` (a file, or `-` for stdin).
    #[arg(long, value_name = "FILE|-", conflicts_with_all = ["cluster", "ray", "slurm", "local"])]
    pub kubectl: Option<PathBuf>,
    /// The JSON of `kubectl get pods -A -o json`: what running pods request is not free.
    // Not clap's `requires`: the usage error is ours (`pods_without_kubectl`), so that it
    // is a diagnostic like the others, in JSON too.
    #[arg(long, value_name = "FILE|-")]
    pub kubectl_pods: Option<PathBuf>,
    /// A KubeRay `RayCluster` before it exists: its YAML manifest, or `kubectl get
    /// raycluster NAME -o json` (a file, or `-` for stdin); each group's replicas become
    /// nodes with what Ray will declare on them.
    #[arg(long, value_name = "FILE|-", conflicts_with_all = ["cluster", "ray", "slurm", "local", "kubectl"])]
    pub kuberay: Option<PathBuf>,
    /// Which replica count of each KubeRay worker group becomes nodes: `current`
    /// (`replicas` as KubeRay clamps it; the default), `min` (`minReplicas`) or `max`
    /// (`maxReplicas`).
    // Not clap's `requires`, as for `--kubectl-pods` (`replicas_without_kuberay`).
    #[arg(long, value_name = "WHICH", value_parser = ["current", "min", "max"])]
    pub replicas: Option<String>,
    /// The certificate authority (PEM) of an https dashboard's certificate, in place of the
    /// system's trust store.
    #[arg(long, value_name = "FILE", env = CA_CERT_VARIABLE)]
    pub ca_cert: Option<PathBuf>,
    /// The budget of the whole read of a live cluster, in milliseconds.
    #[arg(long, default_value_t = 10_000, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
    pub ray_timeout_ms: u64,
    /// The largest response body read from the dashboard, in bytes.
    #[arg(long, default_value_t = RaySource::DEFAULT_MAX_BODY_BYTES, value_name = "BYTES")]
    pub ray_max_body: u64,
}

/// A cluster read, what its source noticed, and the file it came from (for spans).
pub struct ClusterInput {
    /// The nodes, dead ones included with `alive = false` (the `Inventory` contract).
    pub cluster: Cluster,
    /// What the source noticed (dead nodes, held groups, ...).
    pub notes: Vec<InventoryNote>,
    /// Problems of the cluster file (warnings only: errors make the cluster unreadable).
    pub findings: Vec<Finding>,
    /// The Ray version of a live cluster's dashboard, when it said.
    pub ray_version: Option<String>,
    /// The kind of source that listed the nodes (`None` for a cluster file or this
    /// machine): the check words its remedies for it.
    pub listed_by: Option<SourceKind>,
}

/// Adds `ray_version` to a JSON result when the cluster came from a live Ray dashboard
/// that said its version (the key is absent for other sources).
pub fn with_ray_version(value: &mut serde_json::Value, ray_version: Option<&str>) {
    if let (Some(object), Some(version)) = (value.as_object_mut(), ray_version) {
        object.insert("ray_version".to_owned(), version.into());
    }
}

/// Whether a path names stdin (`-`), as every file option of the CLI reads it.
pub fn is_stdin(path: &std::path::Path) -> bool {
    path.as_os_str() == "-"
}

impl ClusterArgs {
    /// Whether a cluster source of ours is given, as [`read_cluster`] takes them: a source
    /// flag, or a file named by `RESOURCE_POOL_CLUSTER` (`RAY_ADDRESS` is only the default
    /// of `--ray`, after other defaults such as a pasted launch line's dashboard).
    pub fn names_a_source(&self) -> bool {
        self.cluster.is_some()
            || self.ray.is_some()
            || self.slurm.is_some()
            || self.local
            || self.kubectl.is_some()
            || self.kuberay.is_some()
            || std::env::var_os(CLUSTER_VARIABLE).is_some_and(|p| !p.is_empty())
    }

    /// Whether the cluster is a file named by `--cluster` (not stdin, not a live cluster,
    /// not a command run): reading it has no effect outside this process.
    pub fn is_a_named_file(&self) -> bool {
        self.cluster.as_deref().is_some_and(|path| !is_stdin(path))
    }
}

/// Reads the cluster, or says why not (exit 2).
pub fn read_cluster(args: &ClusterArgs, context: &Context) -> Result<ClusterInput, Vec<Finding>> {
    // `--replicas` without `--kuberay`, `--kubectl-pods` without `--kubectl`: read by no
    // one, they would be silently left out (the pods' requests counted as free).
    if args.replicas.is_some() && args.kuberay.is_none() {
        return Err(vec![Finding::bare(ReplicasWithoutKubeRay)]);
    }
    if args.kubectl_pods.is_some() && args.kubectl.is_none() {
        return Err(vec![Finding::bare(PodsWithoutKubectl)]);
    }
    if let Some(path) = &args.cluster {
        return from_path(path, context);
    }
    if let Some(path) = &args.slurm {
        return from_slurm(path, context);
    }
    if args.local {
        return from_local_machine();
    }
    if let Some(path) = &args.kubectl {
        return from_kubectl(path, args.kubectl_pods.as_deref(), context);
    }
    if let Some(path) = &args.kuberay {
        return from_kuberay(path, args.replicas.as_deref(), context);
    }
    if args.ray.is_none()
        && let Some(path) = std::env::var_os(CLUSTER_VARIABLE).filter(|p| !p.is_empty())
    {
        // Said where the path came from when it fails: the variable may be long forgotten.
        return from_path(std::path::Path::new(&path), context).map_err(|mut findings| {
            findings.push(Finding::bare(NamedByClusterVariable {
                path: path.to_string_lossy().into_owned(),
            }));
            findings
        });
    }
    let url = match &args.ray {
        Some(url) => url.clone(),
        None if args.ray_address_unused => return Err(vec![Finding::bare(NoCluster)]),
        None => match std::env::var("RAY_ADDRESS") {
            Ok(address) if is_dashboard_url(&address) => address,
            // Ray's own forms (`auto`, a GCS `HOST:6379`, `ray://`) name no dashboard: said
            // as such, not as a missing setting the user did make.
            Ok(address) if !address.trim().is_empty() => {
                return Err(vec![Finding::bare(RayAddressNotDashboard { address })]);
            }
            _ => return Err(vec![Finding::bare(NoCluster)]),
        },
    };
    let bare = |e| vec![Finding::bare(e)];
    let trust = match &args.ca_cert {
        Some(path) => TrustRoots::from_pem_file(path).map_err(bare)?,
        None => TrustRoots::System,
    };
    let source = RaySource::new(&url)
        .map_err(bare)?
        .with_token(token_from_env().map_err(bare)?)
        .with_trust_roots(trust)
        .with_timeout(Duration::from_millis(args.ray_timeout_ms))
        .with_timeout_setting(TimeoutSetting::Flag)
        .with_max_body_bytes(args.ray_max_body);
    let read = source
        .load_with_version()
        .map_err(|e| vec![Finding::bare(e)])?;
    Ok(ClusterInput {
        cluster: read.inventory.cluster,
        notes: read.inventory.notes,
        findings: read.unverified.into_iter().map(Finding::bare).collect(),
        ray_version: read.version.map(|v| v.ray_version),
        listed_by: Some(SourceKind::Ray),
    })
}

fn from_kuberay(
    path: &std::path::Path,
    replicas: Option<&str>,
    context: &Context,
) -> Result<ClusterInput, Vec<Finding>> {
    let source = read_file_or_stdin(path, context)?;
    let replicas = Replicas::ALL
        .iter()
        .find(|(name, _)| Some(*name) == replicas)
        .map_or(Replicas::Current, |(_, r)| *r);
    let options = KubeRayOptions {
        replicas,
        max_nodes: context.cluster_limits.max_nodes as u64,
    };
    let inventory = kuberay_inventory(source.text(), &options).map_err(|e| in_file(e, &source))?;
    Ok(from_inventory(inventory, Some(SourceKind::KubeRay)))
}

fn read_file_or_stdin(
    path: &std::path::Path,
    context: &Context,
) -> Result<SourceFile, Vec<Finding>> {
    if is_stdin(path) {
        use std::io::Read;
        let mut bytes = Vec::new();
        let limit = context.read_limits.max_file_bytes;
        std::io::stdin()
            .take(limit.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| vec![Finding::unreadable(StdinError(e.to_string()))])?;
        if bytes.len() as u64 > limit {
            return Err(vec![Finding::unreadable(StdinError(format!(
                "stdin is larger than {limit} bytes"
            )))]);
        }
        return SourceFile::from_bytes(STDIN_NAME, bytes).map_err(|e| vec![Finding::unreadable(e)]);
    }
    SourceFile::read(path, context.read_limits).map_err(|e| vec![Finding::unreadable(e)])
}

fn from_slurm(path: &std::path::Path, context: &Context) -> Result<ClusterInput, Vec<Finding>> {
    let source = read_file_or_stdin(path, context)?;
    let inventory = parse_slurm_nodes(source.text()).map_err(|e| in_file(e, &source))?;
    Ok(from_inventory(inventory, Some(SourceKind::Slurm)))
}

/// A parsed file's errors, each labelled in that file.
fn in_file<E: resource_pool::report::Reportable>(
    errors: Vec<E>,
    source: &SourceFile,
) -> Vec<Finding> {
    errors
        .into_iter()
        .map(|e| Finding::in_file(e, source))
        .collect()
}

/// What an inventory source read.
fn from_inventory(
    inventory: resource_pool::inventory::Inventory,
    listed_by: Option<SourceKind>,
) -> ClusterInput {
    ClusterInput {
        cluster: inventory.cluster,
        notes: inventory.notes,
        findings: Vec::new(),
        ray_version: None,
        listed_by,
    }
}

fn from_kubectl(
    nodes_path: &std::path::Path,
    pods_path: Option<&std::path::Path>,
    context: &Context,
) -> Result<ClusterInput, Vec<Finding>> {
    if pods_path.is_some_and(is_stdin) && is_stdin(nodes_path) {
        return Err(vec![Finding::unreadable(StdinError(
            "--kubectl and --kubectl-pods cannot both be `-`".to_owned(),
        ))]);
    }
    let nodes_source = read_file_or_stdin(nodes_path, context)?;
    let nodes = parse_kubectl_nodes(nodes_source.text()).map_err(|e| in_file(e, &nodes_source));
    let pods = match pods_path {
        None => Ok(Vec::new()),
        Some(path) => {
            let source = read_file_or_stdin(path, context)?;
            parse_kubectl_pods(source.text()).map_err(|e| in_file(e, &source))
        }
    };
    let (nodes, pods) = match (nodes, pods) {
        (Ok(nodes), Ok(pods)) => (nodes, pods),
        (nodes, pods) => {
            let mut findings = nodes.err().unwrap_or_default();
            findings.extend(pods.err().unwrap_or_default());
            return Err(findings);
        }
    };
    Ok(from_inventory(
        kubectl_inventory(nodes, &pods),
        Some(SourceKind::Kubectl),
    ))
}

fn from_local_machine() -> Result<ClusterInput, Vec<Finding>> {
    let inventory = LocalMachine::from_env().load().map_err(|errors| {
        errors
            .into_iter()
            .map(|e| match e {
                LocalMachineError::Tool(error) => Finding::bare(error),
                LocalMachineError::Output { error, output } => Finding::in_file(error, &output),
            })
            .collect::<Vec<_>>()
    })?;
    Ok(from_inventory(inventory, None))
}

/// Standard input could not be read.
#[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[error("cannot read stdin: {0}")]
#[diagnostic(
    code(resource_pool::cli::stdin),
    help("pipe the file in, or pass its path instead of `-`")
)]
pub struct StdinError(String);

/// Reads the cluster and moves what its source found (file warnings, notes) into
/// `findings`; `None` when it cannot be read, with `findings` saying why (exit 2).
pub fn read_cluster_noting(
    args: &ClusterArgs,
    context: &Context,
    findings: &mut Vec<Finding>,
) -> Option<ClusterInput> {
    match read_cluster(args, context) {
        Ok(mut input) => {
            findings.append(&mut input.findings);
            // The notes stay in `input` too: the suggestions name holders from them.
            findings.extend(input.notes.iter().cloned().map(Finding::bare));
            Some(input)
        }
        Err(mut errors) => {
            findings.append(&mut errors);
            None
        }
    }
}

/// Reads and loads a cluster file (`--cluster`, `RESOURCE_POOL_CLUSTER`), TOML or JSON.
fn from_path(path: &std::path::Path, context: &Context) -> Result<ClusterInput, Vec<Finding>> {
    let source = read_file_or_stdin(path, context)?;
    let loaded = load_cluster(&source, &context.cluster_limits);
    let findings = in_file(loaded.diagnostics, &source);
    match loaded.cluster {
        Some(cluster) => Ok(ClusterInput {
            cluster,
            notes: Vec::new(),
            findings,
            ray_version: None,
            listed_by: None,
        }),
        None => Err(findings),
    }
}

/// No cluster source: no flag, no `RESOURCE_POOL_CLUSTER`, no http `RAY_ADDRESS`.
#[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[error("no cluster to check against")]
#[diagnostic(
    code(resource_pool::cli::no_cluster),
    help(
        "pass --cluster CLUSTER.toml, --ray http://HEAD:8265, --slurm, --kubectl, --kuberay or --local; or set RESOURCE_POOL_CLUSTER to a cluster file, or RAY_ADDRESS to the dashboard's http URL"
    )
)]
pub struct NoCluster;

/// The cluster file that failed was named by `RESOURCE_POOL_CLUSTER`, not on the command
/// line.
#[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[error("the cluster file `{path}` is the one {CLUSTER_VARIABLE} names")]
#[diagnostic(
    code(resource_pool::cli::cluster_variable),
    severity(Advice),
    help(
        "fix the file, point {CLUSTER_VARIABLE} at another one, or unset it and pass a cluster source (--cluster, --ray, ...)"
    )
)]
pub struct NamedByClusterVariable {
    /// The variable's value.
    pub path: String,
}

/// No cluster source but a `RAY_ADDRESS` that is not a dashboard's http(s) URL.
#[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[error("no cluster to check against: RAY_ADDRESS is `{address}`, not the dashboard's http(s) URL")]
#[diagnostic(
    code(resource_pool::cli::ray_address_not_dashboard),
    help(
        "pass the dashboard's URL with --ray http://HEAD:8265 (8265 unless `ray start --dashboard-port` says otherwise), or put it in RAY_ADDRESS; `auto`, a GCS address (HOST:6379) or `ray://HOST:10001` are Ray's own and cannot be read over HTTP"
    )
)]
pub struct RayAddressNotDashboard {
    /// `RAY_ADDRESS` as set.
    pub address: String,
}

/// `--kubectl-pods` without `--kubectl`, where it would change nothing.
#[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[error("--kubectl-pods applies to `kubectl get nodes` only")]
#[diagnostic(
    code(resource_pool::cli::pods_without_kubectl),
    help("pass the nodes with --kubectl FILE, or drop --kubectl-pods")
)]
pub struct PodsWithoutKubectl;

/// `--replicas` without `--kuberay`, where it would change nothing.
#[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[error("--replicas applies to a KubeRay manifest only")]
#[diagnostic(
    code(resource_pool::cli::replicas_without_kuberay),
    help("pass the manifest with --kuberay FILE, or drop --replicas")
)]
pub struct ReplicasWithoutKubeRay;
