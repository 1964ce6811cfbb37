//! The cluster a check runs against: a cluster file, a dict written as one, or a live Ray
//! dashboard, read through the facade's readers as the CLI reads them. This runs without
//! the GIL (plain Rust values in, plain values out); [`ClusterFailure::into_py`] makes the
//! Python error afterwards.

use std::path::PathBuf;
use std::time::Duration;

use pyo3::prelude::*;
use resource_pool::Cluster;
use resource_pool::inventory::cluster_file::{ClusterLimits, load_cluster};
use resource_pool::inventory::{InventoryNote, SourceKind};
use resource_pool::ray_http::{RaySource, TimeoutSetting};
use resource_pool::report::Finding;
use resource_pool::source::{ReadError, ReadLimits, SourceFile};

use crate::errors;

/// The name reports give a cluster passed as a dict (its TOML has no file).
pub const CLUSTER_DICT_NAME: &str = "<cluster>";

/// Where the cluster comes from.
pub enum ClusterSource {
    /// A cluster file.
    File(PathBuf),
    /// A dict, already written as cluster TOML.
    Toml(String),
    /// A live Ray cluster's dashboard.
    Ray {
        /// `http://HEAD:8265`.
        url: String,
        /// The budget of the whole read.
        timeout: Duration,
    },
}

/// A cluster read, with what its source noticed, as `CheckRun::check` takes them.
pub struct ClusterInput {
    /// The nodes, dead ones included with `alive = false` (the `Inventory` contract).
    pub cluster: Cluster,
    /// The file's warnings and the source's notes (dead nodes, held groups), in the
    /// CLI's order.
    pub notes: Vec<Finding>,
    /// The source's notes as they are (the placement groups that hold resources name the
    /// holders of a suggested idle layout).
    pub inventory_notes: Vec<InventoryNote>,
    /// What a live dashboard said its Ray version is (`ray_version` of the JSON result).
    pub ray_version: Option<String>,
    /// The kind of source that listed the nodes (a dashboard: Ray), for the remedies'
    /// words.
    pub listed_by: Option<SourceKind>,
}

impl ClusterInput {
    /// Adds `ray_version` to a JSON result when the dashboard said it, as the CLI does.
    pub fn add_ray_version(version: Option<String>, json: &mut serde_json::Value) {
        if let (Some(object), Some(version)) = (json.as_object_mut(), version) {
            object.insert("ray_version".to_owned(), version.into());
        }
    }
}

/// Why there is no cluster to check against (the CLI's exit status 2).
pub enum ClusterFailure {
    /// The file cannot be read: `OSError`.
    Read(ReadError),
    /// The file or dict is not a valid cluster: `rp.ClusterError`.
    Invalid(Vec<Finding>),
    /// The dashboard did not answer (down, wrong address, too slow):
    /// `rp.ClusterUnreachable`. The error last, after the notes of [`Self::after`].
    Unreachable(Vec<Finding>),
    /// The dashboard answered but cannot be used (a bad URL, a refused token, an answer
    /// we cannot read): `rp.ClusterError`.
    Refused(Vec<Finding>),
}

/// The codes of `ray_http`'s errors for a dashboard that does not answer.
const UNREACHABLE_CODES: [&str; 3] = [
    "resource_pool::ray::unreachable",
    "resource_pool::ray::timeout",
    "resource_pool::ray::transport",
];

impl ClusterSource {
    /// Reads the cluster (blocking: files and HTTP).
    pub fn read(&self) -> Result<ClusterInput, ClusterFailure> {
        match self {
            ClusterSource::File(path) => {
                let source =
                    SourceFile::read(path, ReadLimits::default()).map_err(ClusterFailure::Read)?;
                from_toml(&source)
            }
            ClusterSource::Toml(text) => {
                from_toml(&SourceFile::new(CLUSTER_DICT_NAME, text.as_str()))
            }
            ClusterSource::Ray { url, timeout } => {
                let source = RaySource::from_env(url)
                    .map_err(|e| ClusterFailure::Refused(vec![Finding::bare(e)]))?
                    .with_timeout(*timeout)
                    .with_timeout_setting(TimeoutSetting::PythonArgument);
                let read = source.load_with_version().map_err(|error| {
                    let finding = Finding::bare(error);
                    if UNREACHABLE_CODES.contains(&finding.code().as_str()) {
                        ClusterFailure::Unreachable(vec![finding])
                    } else {
                        ClusterFailure::Refused(vec![finding])
                    }
                })?;
                // As the CLI orders them: a Ray version outside the verified range first,
                // then what the inventory noticed.
                let mut notes: Vec<Finding> =
                    read.unverified.into_iter().map(Finding::bare).collect();
                notes.extend(read.inventory.notes.iter().cloned().map(Finding::bare));
                Ok(ClusterInput {
                    cluster: read.inventory.cluster,
                    notes,
                    inventory_notes: read.inventory.notes,
                    ray_version: read.version.map(|v| v.ray_version),
                    listed_by: Some(SourceKind::Ray),
                })
            }
        }
    }
}

/// A cluster file's text, read by the core's reader.
fn from_toml(source: &SourceFile) -> Result<ClusterInput, ClusterFailure> {
    let loaded = load_cluster(source, &ClusterLimits::default());
    let findings: Vec<Finding> = loaded
        .diagnostics
        .into_iter()
        .map(|d| Finding::in_file(d, source))
        .collect();
    match loaded.cluster {
        Some(cluster) => Ok(ClusterInput {
            cluster,
            notes: findings,
            inventory_notes: Vec::new(),
            ray_version: None,
            listed_by: None,
        }),
        None => Err(ClusterFailure::Invalid(findings)),
    }
}

impl ClusterFailure {
    /// The failure with `notes` before its diagnostics: where the cluster came from (the
    /// launch line's `--address`), as the command prints them before the error. A file
    /// that cannot be read (an `OSError`, no diagnostics) is never the line's.
    pub fn after(self, mut notes: Vec<Finding>) -> ClusterFailure {
        match self {
            ClusterFailure::Read(error) => ClusterFailure::Read(error),
            ClusterFailure::Invalid(findings) => {
                notes.extend(findings);
                ClusterFailure::Invalid(notes)
            }
            ClusterFailure::Unreachable(findings) => {
                notes.extend(findings);
                ClusterFailure::Unreachable(notes)
            }
            ClusterFailure::Refused(findings) => {
                notes.extend(findings);
                ClusterFailure::Refused(notes)
            }
        }
    }

    /// The Python exception.
    pub fn into_py(self, py: Python<'_>) -> PyErr {
        match self {
            ClusterFailure::Read(error) => errors::os_error(&error),
            ClusterFailure::Invalid(findings) | ClusterFailure::Refused(findings) => {
                errors::with_findings(py, "ClusterError", &findings)
            }
            ClusterFailure::Unreachable(findings) => {
                errors::with_findings(py, "ClusterUnreachable", &findings)
            }
        }
    }
}
