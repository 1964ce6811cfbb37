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
use resource_pool::report::{CheckRun, Finding, VerlLoad, VerlRun, verl_config_path};
use resource_pool::source::{ReadLimits, SourceFile};
use resource_pool::verl::VerlOptions;
use resource_pool::verl::launch::job_cluster::launch_address;
use resource_pool::verl::launch::{AmbientAddresses, is_dashboard_url, parse_launch};
use resource_pool::verl::version::rules_for;
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
#[pyo3(signature = (path, text, overrides, cluster, ray, timeout, verl_version, from_launch=false, ray_address=None, no_cluster=None, api_server_address=None))]
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
) -> PyResult<Report> {
    // As `--verl-version`: a version the key set cannot judge is refused before any work;
    // one it judges as another release (a build from source, a newer release) says so.
    let (rules, approximated) = match rules_for(verl_version.as_deref()) {
        Ok(rules) => rules,
        Err(unknown) => return Err(errors::argument(py, &format!("verl_version: {unknown}"))),
    };
    let launch = parse_launch(&overrides);
    let ambient = AmbientAddresses {
        ray_address,
        api_server_address,
    };
    let (cluster, ray) = match from_launch.then(|| launch_address(&launch, &ambient, 0)) {
        Some(found) => match found.dashboard {
            Some(url) => (None, Some(url)),
            None if cluster.is_some() || ray.is_some() => (cluster, ray),
            // The Python layer leaves RAY_ADDRESS to this side: read only when it is the
            // job's cluster, as the command reads it.
            None => match ambient.ray_address.as_deref() {
                Some(url) if found.reads_ray_address && is_dashboard_url(url) => {
                    (None, Some(url.to_owned()))
                }
                // Nothing anywhere: the Python layer's error, with what the line said of its
                // cluster.
                _ => {
                    let mut message = no_cluster.unwrap_or_else(|| NO_CLUSTER.to_owned());
                    if let Some(note) = found.note_text() {
                        message = format!("{message} ({note})");
                    }
                    return Err(errors::plain(py, "ClusterError", &message));
                }
            },
        },
        None => (cluster, ray),
    };
    let source = cluster_source(py, cluster, ray, timeout)?;
    let run = interrupt::run(
        py,
        move || -> Result<(VerlRun, Option<String>), ClusterFailure> {
            let mut options = VerlOptions {
                verl_version: (!rules.assumed).then(|| rules.release.version.to_owned()),
                ..VerlOptions::new(ConfigLimits::DEFAULT_MAX_SLOTS)
            };
            // A config passed as a dict, else as the command: the YAML given, else the user's
            // config the launch line names.
            let yaml = match text {
                Some(text) => Some(SourceFile::new(VERL_CONFIG_NAME, text)),
                None => match verl_config_path(path, &launch, &mut options) {
                    Some(path) => Some(
                        SourceFile::read(&path, ReadLimits::default())
                            .map_err(ClusterFailure::Read)?,
                    ),
                    None => None,
                },
            };
            let mut settings = VerlLoad::new(yaml.as_ref(), &launch, &options);
            settings.note_release(approximated);
            let before = settings.findings.len();
            if from_launch {
                // Where the cluster came from, or why the line's address was not read.
                settings.launch_cluster(&launch, &ambient);
            }
            // A cluster that cannot be read: the error says where it came from (the launch
            // line's --address, and how to check another), as the command prints it.
            let input = source
                .read()
                .map_err(|failure| failure.after(settings.findings.split_off(before)))?;
            settings.findings.extend(input.notes);
            let run = settings.check(
                input.cluster,
                &input.inventory_notes,
                &CheckOptions {
                    listed_by: input.listed_by.map(SourceKind::wording).unwrap_or_default(),
                    // Every cluster input comes from a reader, which refuses a repeated or empty id.
                    node_ids_checked: true,
                    ..CheckOptions::default()
                },
                rules,
            );
            Ok((run, input.ray_version))
        },
    )?;
    let (run, ray_version) = run.map_err(|failure| failure.into_py(py))?;
    let ok = run.passes();
    let mut json = run.json();
    ClusterInput::add_ray_version(ray_version, &mut json);
    // verl's layout is always there, `None` when verl would stop before building it (the
    // command's JSON leaves the keys out then).
    if let Some(object) = json.as_object_mut() {
        for key in ["pools", "mapping"] {
            object.entry(key).or_insert(serde_json::Value::Null);
        }
    }
    let heading = run.heading();
    let run = run.run;
    Ok(Report::new(
        heading,
        run.launch,
        run.findings,
        run.report,
        run.suggestions,
        run.cluster,
        ok,
        json,
        None,
    ))
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
    m.add_class::<Report>()?;
    m.add_class::<LintReport>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
