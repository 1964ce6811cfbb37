//! A cluster file as an inventory source.

use std::path::PathBuf;

use super::cluster_file::{ClusterDiagnostic, ClusterLimits, load_cluster};
use super::{Inventory, InventoryError, InventorySource};
use resource_pool_core::source::{ReadLimits, SourceFile};

/// Reads a cluster file (see [`super::cluster_file`]), TOML or JSON, each time it is
/// loaded: its nodes as written, `alive = false` ones included (the file says so itself,
/// so there is no dead-node note), and no other note.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileSource {
    /// The file.
    pub path: PathBuf,
    /// How large a file is read.
    pub read_limits: ReadLimits,
    /// How many nodes it may list.
    pub cluster_limits: ClusterLimits,
}

impl FileSource {
    /// A source for this file, with the default limits.
    pub fn new(path: impl Into<PathBuf>) -> FileSource {
        FileSource {
            path: path.into(),
            read_limits: ReadLimits::default(),
            cluster_limits: ClusterLimits::default(),
        }
    }
}

/// Every error of a cluster file that does not load, with the file to show them in.
#[derive(Clone, Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[error("`{}` is not a valid cluster file", .source_file.name())]
#[diagnostic(
    code(resource_pool::cluster::invalid),
    help("fix the problems listed below")
)]
pub struct ClusterErrors {
    /// The file.
    #[source_code]
    #[serde(skip)]
    pub source_file: SourceFile,
    /// Every problem.
    #[related]
    pub diagnostics: Vec<ClusterDiagnostic>,
}

impl InventorySource for FileSource {
    fn name(&self) -> String {
        format!("cluster file {}", self.path.display())
    }

    fn load(&self) -> Result<Inventory, InventoryError> {
        let source =
            SourceFile::read(&self.path, self.read_limits).map_err(InventoryError::source)?;
        let loaded = load_cluster(&source, &self.cluster_limits);
        match loaded.cluster {
            Some(cluster) => Ok(Inventory {
                cluster,
                notes: Vec::new(),
            }),
            None => Err(InventoryError::source(ClusterErrors {
                source_file: source,
                diagnostics: loaded.diagnostics,
            })),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example_clusters_load_and_bad_paths_fail() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../examples/clusters/three_nodes.toml"
        );
        let inventory = FileSource::new(path).load().unwrap();
        assert_eq!(inventory.cluster.nodes.len(), 3);
        let missing = FileSource::new("/nonexistent/cluster.toml")
            .load()
            .unwrap_err();
        let code = missing.as_diagnostic().code().map(|c| c.to_string());
        assert_eq!(code.as_deref(), Some("resource_pool::file::unreadable"));
    }
}
