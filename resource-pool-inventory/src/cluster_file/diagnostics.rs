//! The problems of a cluster file, TOML or JSON.

use miette::SourceSpan;
use serde::Serialize;

use resource_pool_core::toml_support::walk::StructureError;

/// A problem of a cluster file.
///
/// Structure problems (unknown keys, wrong types, bad numbers, missing keys) carry the
/// same codes in TOML and JSON files: a code names the problem, not the file format.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum ClusterDiagnostic {
    /// Syntax, unknown keys, wrong types and bad numbers.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Structure(#[from] StructureError),

    /// The file is not valid JSON (or repeats a key in one object).
    #[error("invalid JSON: {message}")]
    #[diagnostic(code(resource_pool::json::syntax), help("fix the JSON syntax here"))]
    JsonSyntax {
        /// What is wrong.
        message: String,
        /// Where.
        #[label("here")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// A JSON object lacks a key it must have (what [`StructureError::MissingKey`] is
    /// in TOML, with the help written in JSON).
    #[error("{table} has no `{key}`")]
    #[diagnostic(
        code(resource_pool::toml::missing_key),
        help("add `\"{key}\": {example}`")
    )]
    MissingMember {
        /// The key of the node table.
        key: &'static str,
        /// The object, in words.
        table: String,
        /// An example value, as JSON.
        example: String,
        /// The object.
        #[label("needs `{key}`")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// The file lists no node.
    #[error("the cluster has no nodes")]
    #[diagnostic(
        code(resource_pool::cluster::no_nodes),
        help("list nodes as [[nodes]] entries with `id` and `available`")
    )]
    NoNodes {
        /// The start of the file or the `nodes` key.
        #[label("no [[nodes]]")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// A node's id is empty: findings and plans name nodes by it.
    #[error("a node's id is empty")]
    #[diagnostic(
        code(resource_pool::cluster::empty_node_id),
        help("give every node its own, non-empty id")
    )]
    EmptyId {
        /// The empty id.
        #[label("empty id")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// Two nodes share an id.
    #[error("node id `{id}` is used twice")]
    #[diagnostic(
        code(resource_pool::cluster::duplicate_node),
        help("give every node its own id")
    )]
    DuplicateNode {
        /// The node's id, as the file gives it.
        id: String,
        /// The second use.
        #[label("used again here")]
        #[serde(skip)]
        span: SourceSpan,
        /// The first use.
        #[label("first used here")]
        #[serde(skip)]
        first: SourceSpan,
    },

    /// More nodes than the limit.
    #[error("the cluster lists {count} nodes, more than the limit of {limit}")]
    #[diagnostic(
        code(resource_pool::cluster::too_many_nodes),
        help("raise the limit with --max-nodes")
    )]
    TooManyNodes {
        /// The nodes listed.
        count: usize,
        /// The limit that was passed (a `--max-*` setting or its default).
        limit: usize,
        /// The `nodes` key.
        #[label("too many nodes")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// A node has more of a resource available than in total.
    #[error("node `{node}` has more `{resource}` available ({available}) than in total ({total})")]
    #[diagnostic(
        code(resource_pool::cluster::available_over_total),
        severity(Warning),
        help("`available` is what is free now, `total` what the node has; check both")
    )]
    AvailableOverTotal {
        /// The node's name, as its source lists it.
        node: String,
        /// The resource's name, as Ray spells it.
        resource: String,
        /// Free now.
        available: String,
        /// In total.
        total: String,
        /// The available amount.
        #[label("more than the total")]
        #[serde(skip)]
        span: SourceSpan,
    },
}

impl ClusterDiagnostic {
    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        use miette::Diagnostic;
        matches!(self.severity(), None | Some(miette::Severity::Error))
    }

    /// Whether this is a syntax error (TOML or JSON): then it is reported alone, since
    /// what a broken file holds is a guess.
    pub fn is_syntax(&self) -> bool {
        matches!(
            self,
            ClusterDiagnostic::Structure(
                StructureError::Syntax { .. } | StructureError::DuplicateKey { .. }
            ) | ClusterDiagnostic::JsonSyntax { .. }
        )
    }
}
