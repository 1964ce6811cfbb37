//! Reading cluster files: the nodes a layout is checked against, in TOML or JSON.
//!
//! ```toml
//! [[nodes]]
//! id = "node-a"
//! address = "10.0.0.1"               # optional
//! available = { GPU = 8, CPU = 96 }
//! total = { GPU = 8, CPU = 96 }      # optional: tells "busy now" from "never"
//! alive = true                       # optional, default true
//! labels = { zone = "a" }            # optional
//! ```
//!
//! The same in JSON: `{"nodes": [{"id": "node-a", "available": {"GPU": 8, "CPU": 96}}]}`
//! ([`ClusterFormat::of`] tells them apart by extension, else by content).
//!
//! Cluster files are long lists of small tables (100,000 nodes make 6 MB), so neither
//! reader builds the file's tree: the TOML reader walks the events of toml's own parser
//! (`toml_parser`, see `toml_reader`), the JSON reader scans the bytes itself, and each
//! hands one node entry at a time to the node reader, which keeps the node (its resources
//! shared with every equal node's) and its id's span. Every problem of the file is
//! reported at once, each on its span: syntax errors alone (what a broken file holds is a
//! guess), else unknown keys, wrong types, bad amounts, missing keys, ids used twice and
//! more available than in total.

mod byte_search;
mod diagnostics;
mod document;
pub(crate) mod duplicate_ids;
mod hash_index;
mod json_reader;
mod node_entry;
mod nodes;
mod plain_entry;
mod toml_reader;
#[cfg(any(test, feature = "fuzzing"))]
#[doc(hidden)]
pub mod tree_reader;
mod write;

#[cfg(test)]
mod json_tests;
#[cfg(test)]
mod tests;

pub use diagnostics::ClusterDiagnostic;
pub use document::ClusterFormat;
pub use write::{cluster_to_json, cluster_to_toml};

use resource_pool_core::model::Cluster;
use resource_pool_core::source::{SourceFile, Span};

/// How deep arrays and inline tables nest in a cluster TOML file (the `toml` crate's
/// limit): deeper is `resource_pool::toml::syntax`. No cluster nests past 2
/// (`available = { GPU = 8 }`); writers of cluster TOML (the Python module's dicts) refuse
/// deeper values before they write them.
pub const TOML_NESTING_LIMIT: u32 = 80;

/// Limits on cluster files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClusterLimits {
    /// The most nodes a file may list.
    pub max_nodes: usize,
}

impl ClusterLimits {
    /// One million nodes.
    pub const DEFAULT_MAX_NODES: usize = 1_000_000;
}

impl Default for ClusterLimits {
    fn default() -> ClusterLimits {
        ClusterLimits {
            max_nodes: ClusterLimits::DEFAULT_MAX_NODES,
        }
    }
}

/// Where a node stands in its file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeSpans {
    /// The `id` value (the whole entry when it has none).
    pub id: Span,
}

/// A cluster file read: the cluster when it is valid, and every problem.
#[derive(Clone, Debug)]
pub struct LoadedCluster {
    /// The file.
    pub source: SourceFile,
    /// The cluster; `None` when there is an error.
    pub cluster: Option<Cluster>,
    /// Where each node stands, parallel to `cluster.nodes`.
    pub spans: Vec<NodeSpans>,
    /// Every problem.
    pub diagnostics: Vec<ClusterDiagnostic>,
}

impl LoadedCluster {
    /// Whether the file has an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(ClusterDiagnostic::is_error)
    }
}

/// Reads a cluster file in the format [`ClusterFormat::of`] its name and text, collecting
/// every problem.
pub fn load_cluster(source: &SourceFile, limits: &ClusterLimits) -> LoadedCluster {
    let format = ClusterFormat::of(source.name(), source.base_text());
    load_cluster_as(source, format, limits)
}

/// Reads cluster JSON without the JSON reader's fast path for plain node entries: the
/// reading the fast path must agree with (the tests and the fuzz target compare them).
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn load_json_general(source: &SourceFile, limits: &ClusterLimits) -> LoadedCluster {
    json_reader::read_json_with(source, limits, false)
}

/// Reads a cluster file in the given format, collecting every problem.
pub fn load_cluster_as(
    source: &SourceFile,
    format: ClusterFormat,
    limits: &ClusterLimits,
) -> LoadedCluster {
    match format {
        ClusterFormat::Toml => toml_reader::read_toml(source, limits),
        ClusterFormat::Json => json_reader::read_json(source, limits),
    }
}
