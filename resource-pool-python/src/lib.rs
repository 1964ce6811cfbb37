//! `resource_pool._native`: the Python module's native half (PyO3, abi3). The pure-Python
//! package `resource_pool` (`python/resource_pool/`) wraps it: it finds the dashboard of
//! the Ray cluster the process is connected to, and defines the exceptions.
//!
//! Every check runs the facade's own computation ([`CheckRun`], the verl command's
//! [`VerlLoad`]) on inputs read by the core's readers, so Python and the
//! `resource-pool` command cannot disagree. It runs on a thread of its own, without the GIL,
//! while the caller's thread waits for it and lets Ctrl-C interrupt the wait (`interrupt.rs`).

#![forbid(unsafe_code)]

mod cluster;
mod errors;
mod interrupt;
mod report;
mod to_python;
mod to_toml;
mod words;

use std::path::PathBuf;
use std::time::Duration;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use resource_pool::check::CheckOptions;
use resource_pool::check::wording::WordedAs;
use resource_pool::inventory::SourceKind;
use resource_pool::lint::{ConfigLimits, LintOptions, RoleSet};
use resource_pool::load::load_config_with;
use resource_pool::report::guard::{
    GuardKind, GuardVerdict, PlannedGroup, guard_launch, guard_pool,
};
use resource_pool::report::installed::ProbeError;
use resource_pool::report::{CheckRun, Finding, VerlLoad, VerlRun, verl_config_path};
use resource_pool::source::{ReadLimits, SourceFile};
use resource_pool::verl::VerlOptions;
use resource_pool::verl::installed::{BuiltPool, BuiltRole};
use resource_pool::verl::launch::Launch;
use resource_pool::verl::launch::job_cluster::launch_address;
use resource_pool::verl::launch::{AmbientAddresses, is_dashboard_url, parse_launch};
use resource_pool::verl::releases::ReleaseRules;
use resource_pool::verl::version::ReleaseRead;
use resource_pool::verl::version::{rules_for, rules_for_launch};
use words::PythonWords;

use cluster::{ClusterFailure, ClusterInput, ClusterSource};
use report::{LintReport, Report};

/// Neither `cluster=` nor `ray=`, and no Ray to find.
const NO_CLUSTER: &str = "no cluster to check against: pass cluster= (a cluster file or dict) or ray= (the dashboard's http URL), call it after ray.init(), or set RAY_ADDRESS to the dashboard's http URL";

/// The name reports give the config written from `check`'s arguments.
const CHECK_CONFIG_NAME: &str = "<rp.check>";
/// The name reports give verl's config passed as a dict (the core knows it by this name,
/// to call it "the config", not "the YAML").
const VERL_CONFIG_NAME: &str = resource_pool::verl::CONFIG_DATA_NAME;
/// The name reports give a config passed to `lint` as text.
const LINT_TEXT_NAME: &str = "<rp.lint>";

/// The cluster argument and the dashboard URL as one source.
fn cluster_source(
    py: Python<'_>,
    cluster: Option<&Bound<'_, PyAny>>,
    ray: Option<String>,
    timeout: f64,
) -> PyResult<ClusterSource> {
    match (cluster, ray) {
        (Some(_), Some(_)) => Err(errors::argument(py, "give cluster= or ray=, not both")),
        // As the Python layer says it when it finds nothing (only a direct call of the
        // native function gets here).
        (None, None) => Err(errors::plain(py, "ClusterError", NO_CLUSTER)),
        (None, Some(url)) => {
            if !(timeout.is_finite() && timeout > 0.0) {
                return Err(errors::argument(
                    py,
                    &format!("timeout: expected a positive number of seconds, got {timeout}"),
                ));
            }
            Ok(ClusterSource::Ray {
                url,
                timeout: Duration::from_secs_f64(timeout.min(86_400.0)),
            })
        }
        (Some(cluster), None) => {
            if let Ok(dict) = cluster.cast::<PyDict>() {
                return to_toml::cluster_toml(dict).map(ClusterSource::Toml);
            }
            cluster.extract::<PathBuf>().map(ClusterSource::File).map_err(|_| {
                PyTypeError::new_err(format!(
                    "cluster: expected a path to a cluster file or a dict ({{'nodes': [...]}}), got {}",
                    cluster.get_type().name().map_or_else(|_| "object".to_owned(), |n| n.to_string())
                ))
            })
        }
    }
}

/// `resource_pool.check`: verl's `ResourcePoolManager` arguments, checked on a cluster.
#[pyfunction]
#[pyo3(signature = (resource_pool_spec, mapping, max_colocate_count, accelerator, cluster, ray, timeout, verl_version))]
// One parameter per argument of the Python function (verl's names), as PyO3 reads them.
#[allow(clippy::too_many_arguments)]
fn check(
    py: Python<'_>,
    resource_pool_spec: &Bound<'_, PyAny>,
    mapping: &Bound<'_, PyAny>,
    max_colocate_count: &Bound<'_, PyAny>,
    accelerator: &Bound<'_, PyAny>,
    cluster: Option<&Bound<'_, PyAny>>,
    ray: Option<String>,
    timeout: f64,
    verl_version: Option<String>,
) -> PyResult<Report> {
    let (rules, approximated) = rules_for(verl_version.as_deref())
        .map_err(|unknown| errors::argument(py, &unknown.to_string()))?;
    let config =
        to_toml::config_toml(resource_pool_spec, mapping, max_colocate_count, accelerator)?;
    let source = cluster_source(py, cluster, ray, timeout)?;
    let text = config.clone();
    let run = interrupt::run(
        py,
        move || -> Result<(CheckRun, Option<String>), ClusterFailure> {
            let input = source.read()?;
            let file = SourceFile::new(CHECK_CONFIG_NAME, text);
            let verl_roles = LintOptions {
                roles: resource_pool::verl::role_set(),
                ..LintOptions::default()
            };
            let loaded = match load_config_with(&file, &[], &verl_roles) {
                Ok(loaded) => loaded,
                // Only overrides make a load fail, and there are none.
                Err(failure) => {
                    let findings = failure
                        .errors
                        .into_iter()
                        .map(|e| Finding::in_file(e, &failure.source))
                        .collect();
                    return Err(ClusterFailure::Invalid(findings));
                }
            };
            // The config is generated from the arguments: the advice names
            // resource_pool_spec (its keys' order, the whole new dict), not the TOML's
            // tables and `--set` values. Only the wording changes: the JSON is the same as
            // `resource-pool check` gives for `Report.config`.
            let mut notes = input.notes;
            notes.splice(0..0, approximated.map(Finding::bare));
            let mut run = CheckRun::check_for_verl(
                &loaded,
                PythonWords::wording(),
                input.cluster,
                notes,
                &CheckOptions {
                    listed_by: input.listed_by.map(SourceKind::wording).unwrap_or_default(),
                    // Every cluster input comes from a reader, which refuses a repeated or empty id.
                    node_ids_checked: true,
                    ..CheckOptions::default()
                },
                rules,
            );
            run.name_holders(
                &input.inventory_notes,
                &WordedAs(&loaded, PythonWords::wording()),
            );
            Ok((run, input.ray_version))
        },
    )?;
    let (run, ray_version) = run.map_err(|failure| failure.into_py(py))?;
    let ok = run.passes();
    let mut json = run.json();
    ClusterInput::add_ray_version(ray_version, &mut json);
    Ok(Report::new(
        String::new(),
        run.launch,
        run.findings,
        run.report,
        run.suggestions,
        run.cluster,
        ok,
        json,
        Some(config),
    ))
}

/// `resource_pool.lint`: a config file, or config text, linted as `resource-pool lint`
/// lints it.
#[pyfunction]
#[pyo3(signature = (path, text, overrides, any_roles))]
fn lint(
    py: Python<'_>,
    path: Option<PathBuf>,
    text: Option<String>,
    overrides: Vec<String>,
    any_roles: bool,
) -> PyResult<LintReport> {
    let name = match (&path, &text) {
        (Some(path), _) => path.display().to_string(),
        (None, _) => LINT_TEXT_NAME.to_owned(),
    };
    let options = LintOptions {
        roles: if any_roles {
            RoleSet::Any
        } else {
            resource_pool::verl::role_set()
        },
        ..LintOptions::default()
    };
    let findings = interrupt::run(
        py,
        move || -> Result<Result<Vec<Finding>, Vec<Finding>>, _> {
            let source = match (path, text) {
                (Some(path), _) => SourceFile::read(&path, ReadLimits::default())?,
                (None, text) => SourceFile::new(LINT_TEXT_NAME, text.unwrap_or_default()),
            };
            Ok(match load_config_with(&source, &overrides, &options) {
                Ok(loaded) => Ok(loaded
                    .diagnostics
                    .into_iter()
                    .map(|d| Finding::in_file(d, &loaded.source))
                    .collect()),
                Err(failure) => Err(failure
                    .errors
                    .into_iter()
                    .map(|e| Finding::in_file(e, &failure.source))
                    .collect()),
            })
        },
    )?;
    match findings.map_err(|e| errors::os_error(&e))? {
        Ok(findings) => LintReport::new(py, name, findings),
        Err(findings) => Err(errors::with_findings(py, "ConfigError", &findings)),
    }
}

/// `resource_pool.verl.check`: verl's settings (a YAML file, or text such as the JSON of
/// a resolved config) and overrides, checked as `resource-pool verl` checks them.
///
/// `from_launch` when the caller gave neither `cluster=` nor `ray=`: then the dashboard the
/// launch line's `ray job submit` sends the job to (`ray_address`, `api_server_address`: the
/// environment's `RAY_ADDRESS` and `RAY_API_SERVER_ADDRESS`, which Ray lets override
/// `--address`) comes before `cluster`/`ray` (what the Python layer found: the connected Ray,
/// `RESOURCE_POOL_CLUSTER`), then `RAY_ADDRESS` when it is the job's cluster; `no_cluster` is
/// the Python layer's error for finding nothing.
#[pyfunction]
#[pyo3(signature = (path, text, overrides, cluster, ray, timeout, verl_version, from_launch=false, ray_address=None, no_cluster=None, api_server_address=None, python=None, probe_script=None))]
// One parameter per argument of the Python function, as PyO3 reads them.
#[allow(clippy::too_many_arguments)]
fn verl_check(
    py: Python<'_>,
    path: Option<PathBuf>,
    text: Option<String>,
    overrides: Vec<String>,
    cluster: Option<&Bound<'_, PyAny>>,
    ray: Option<String>,
    timeout: f64,
    verl_version: Option<String>,
    from_launch: bool,
    ray_address: Option<String>,
    no_cluster: Option<String>,
    api_server_address: Option<String>,
    python: Option<PathBuf>,
    probe_script: Option<String>,
) -> PyResult<Report> {
    // As `--verl-version`: a version the key set cannot judge is refused before any work;
    // one it judges as another release (a build from source, a newer release) says so.
    let (rules, approximated, older) = match rules_for_launch(verl_version.as_deref()) {
        Ok(rules) => rules,
        Err(unknown) => return Err(errors::argument(py, &format!("verl_version: {unknown}"))),
    };
    let launch = parse_launch(&overrides);
    let ambient = AmbientAddresses {
        ray_address,
        api_server_address,
    };
    let (cluster, ray) = match from_launch {
        true => job_cluster(py, &launch, &ambient, cluster, ray, no_cluster)?,
        false => (cluster, ray),
    };
    let source = cluster_source(py, cluster, ray, timeout)?;
    let inputs = VerlInputs {
        path,
        text,
        older,
        launch,
        ambient,
        from_launch,
        installed: python.zip(probe_script),
    };
    let run = interrupt::run(py, move || inputs.run(source, rules, approximated))?;
    let (run, ray_version) = match run.map_err(|failure| failure.into_py(py))? {
        Ok(done) => done,
        Err(error) => return Err(errors::plain(py, "ArgumentError", &error.to_string())),
    };
    Ok(verl_report(run, ray_version))
}

/// The cluster of a launch line's `ray job submit` (its dashboard), before what the Python
/// layer found (`cluster`, `ray`); then `RAY_ADDRESS` when it is the job's cluster; else
/// the Python layer's error (`no_cluster`) with what the line said of its cluster.
fn job_cluster<'a, 'py>(
    py: Python<'py>,
    launch: &Launch,
    ambient: &AmbientAddresses,
    cluster: Option<&'a Bound<'py, PyAny>>,
    ray: Option<String>,
    no_cluster: Option<String>,
) -> PyResult<(Option<&'a Bound<'py, PyAny>>, Option<String>)> {
    let found = launch_address(launch, ambient, 0);
    match found.dashboard {
        Some(url) => Ok((None, Some(url))),
        None if cluster.is_some() || ray.is_some() => Ok((cluster, ray)),
        // The Python layer leaves RAY_ADDRESS to this side: read only when it is the job's
        // cluster, as the command reads it.
        None => match ambient.ray_address.as_deref() {
            Some(url) if found.reads_ray_address && is_dashboard_url(url) => {
                Ok((None, Some(url.to_owned())))
            }
            _ => {
                let mut message = no_cluster.unwrap_or_else(|| NO_CLUSTER.to_owned());
                if let Some(note) = found.note_text() {
                    message = format!("{message} ({note})");
                }
                Err(errors::plain(py, "ClusterError", &message))
            }
        },
    }
}

/// What `rp.verl.check` reads besides the cluster.
struct VerlInputs {
    path: Option<PathBuf>,
    text: Option<String>,
    /// A `verl_version` older than every release known: the launch is not judged.
    older: Option<String>,
    launch: Launch,
    ambient: AmbientAddresses,
    from_launch: bool,
    /// The Python whose verl builds the pools, and the probe's text.
    installed: Option<(PathBuf, String)>,
}

/// A verl run and the Ray version of its cluster, or why the installed verl gave no answer.
type VerlOutcome = Result<(VerlRun, Option<String>), ProbeError>;

impl VerlInputs {
    /// The command's computation, without the GIL: the settings, the installed verl's pools
    /// where a Python is given, the cluster, the check.
    fn run(
        self,
        source: ClusterSource,
        rules: ReleaseRules,
        approximated: Option<ReleaseRead>,
    ) -> Result<VerlOutcome, ClusterFailure> {
        let mut options = VerlOptions {
            verl_version: (!rules.assumed).then(|| rules.release.version.to_owned()),
            older_release: self.older,
            ..VerlOptions::new(ConfigLimits::DEFAULT_MAX_SLOTS)
        };
        // A config passed as a dict, else as the command: the YAML given, else the user's
        // config the launch line names.
        let yaml = match self.text {
            Some(text) => Some(SourceFile::new(VERL_CONFIG_NAME, text)),
            None => match verl_config_path(self.path, &self.launch, &mut options) {
                Some(path) => Some(
                    SourceFile::read(&path, ReadLimits::default()).map_err(ClusterFailure::Read)?,
                ),
                None => None,
            },
        };
        let launch = &self.launch;
        let mut settings = VerlLoad::new(yaml.as_ref(), launch, &options);
        settings.note_release(approximated);
        let rules = match &self.installed {
            Some((python, script)) => match settings.probe_installed(python, script, launch) {
                Ok(rules) => rules,
                Err(error) => return Ok(Err(error)),
            },
            None => rules,
        };
        let before = settings.findings.len();
        if self.from_launch {
            // Where the cluster came from, or why the line's address was not read.
            settings.launch_cluster(launch, &self.ambient);
        }
        // A cluster that cannot be read: the error says where it came from (the launch
        // line's --address, and how to check another), as the command prints it.
        let input = source
            .read()
            .map_err(|failure| failure.after(settings.findings.split_off(before)))?;
        settings.findings.extend(input.notes);
        let options = CheckOptions {
            listed_by: input.listed_by.map(SourceKind::wording).unwrap_or_default(),
            // Every cluster input comes from a reader, which refuses a repeated or empty id.
            node_ids_checked: true,
            ..CheckOptions::default()
        };
        let run = settings.check(input.cluster, &input.inventory_notes, &options, rules);
        Ok(Ok((run, input.ray_version)))
    }
}

/// The report of a verl run: verl's layout always in `as_dict()`, `None` when verl would
/// stop before building it (the command's JSON leaves the keys out then).
fn verl_report(run: VerlRun, ray_version: Option<String>) -> Report {
    let ok = run.passes();
    let mut json = run.json();
    ClusterInput::add_ray_version(ray_version, &mut json);
    if let Some(object) = json.as_object_mut() {
        for key in ["pools", "mapping"] {
            object.entry(key).or_insert(serde_json::Value::Null);
        }
    }
    let heading = run.heading();
    let run = run.run;
    Report::new(
        heading,
        run.launch,
        run.findings,
        run.report,
        run.suggestions,
        run.cluster,
        ok,
        json,
        None,
    )
}

/// The guard's verdict as Python reads it: `("go" | "note" | "stop", text)`.
fn verdict_tuple(verdict: GuardVerdict) -> (&'static str, String) {
    let kind = match verdict.kind {
        GuardKind::Go => "go",
        GuardKind::Note => "note",
        GuardKind::Stop => "stop",
    };
    (kind, verdict.text)
}

/// A cluster in the cluster file's JSON form (`{"nodes": [...]}`), as the guard reads Ray.
fn cluster_json(py: Python<'_>, text: &str) -> PyResult<resource_pool::model::Cluster> {
    use resource_pool::inventory::cluster_file::{ClusterLimits, load_cluster};
    let source = SourceFile::new("<ray>.json", text);
    let loaded = load_cluster(&source, &ClusterLimits::default());
    loaded.cluster.ok_or_else(|| {
        let problems: Vec<String> = loaded.diagnostics.iter().map(|d| d.to_string()).collect();
        errors::plain(
            py,
            "ArgumentError",
            &format!("cluster: {}", problems.join("; ")),
        )
    })
}

/// The guard's check of verl's pools as it creates them (`resource_pool.guard`): the
/// release, the spec and mapping as JSON, the manager's `max_colocate_count`, the cluster
/// (cluster-file JSON) and whether it holds what other jobs hold.
#[pyfunction]
fn guard_launch_check(
    py: Python<'_>,
    version: String,
    pools_json: String,
    roles_json: String,
    max_colocate_count: Option<u32>,
    cluster: String,
    capacity_known: bool,
) -> PyResult<(&'static str, String)> {
    let pools: Vec<BuiltPool> = serde_json::from_str(&pools_json)
        .map_err(|e| errors::plain(py, "ArgumentError", &format!("pools: {e}")))?;
    let roles: Vec<BuiltRole> = serde_json::from_str(&roles_json)
        .map_err(|e| errors::plain(py, "ArgumentError", &format!("roles: {e}")))?;
    let cluster = cluster_json(py, &cluster)?;
    let verdict = py.detach(move || {
        guard_launch(
            &version,
            pools,
            roles,
            max_colocate_count,
            cluster,
            capacity_known,
        )
    });
    Ok(verdict_tuple(verdict))
}

/// The guard's check of one pool's placement groups before verl creates them: the groups
/// as JSON (`[{"bundles": [...], "strategy": ...}]`), what is free now and, when Ray can
/// say, what this job could have (cluster-file JSON).
#[pyfunction]
#[pyo3(signature = (pool, groups_json, free, capacity=None))]
fn guard_pool_check(
    py: Python<'_>,
    pool: String,
    groups_json: String,
    free: String,
    capacity: Option<String>,
) -> PyResult<(&'static str, String)> {
    let groups: Vec<PlannedGroup> = serde_json::from_str(&groups_json)
        .map_err(|e| errors::plain(py, "ArgumentError", &format!("groups: {e}")))?;
    let free = cluster_json(py, &free)?;
    let capacity = capacity.map(|c| cluster_json(py, &c)).transpose()?;
    let verdict = py.detach(move || guard_pool(&pool, &groups, &free, capacity.as_ref()));
    Ok(verdict_tuple(verdict))
}

/// The `resource-pool` command: runs the CLI's code on `args` (the program's name first)
/// and returns its exit status.
#[pyfunction]
fn run_cli(py: Python<'_>, args: Vec<std::ffi::OsString>) -> u8 {
    py.detach(move || resource_pool_cli::run_from(args))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(lint, m)?)?;
    m.add_function(wrap_pyfunction!(verl_check, m)?)?;
    m.add_function(wrap_pyfunction!(run_cli, m)?)?;
    m.add_function(wrap_pyfunction!(guard_launch_check, m)?)?;
    m.add_function(wrap_pyfunction!(guard_pool_check, m)?)?;
    m.add_class::<Report>()?;
    m.add_class::<LintReport>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
