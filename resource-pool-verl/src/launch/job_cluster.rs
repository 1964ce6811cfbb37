//! The cluster a pasted launch line's `ray job submit` sends the job to, when no cluster
//! source is given: which dashboard to read, whether the environment's `RAY_ADDRESS` may be
//! read instead, and the note that says where the cluster came from or why the line's
//! address is not read.

use super::{AddressVia, AmbientAddresses, Launch, SubmitTarget, is_dashboard_url};

/// What the launch line's `ray job submit` says of the cluster to check, when no source of
/// ours names one.
pub struct LaunchCluster {
    /// The dashboard the job goes to, when it is named by its http(s) URL: the cluster read.
    pub dashboard: Option<String>,
    /// Whether the environment's `RAY_ADDRESS` may be read as the cluster (`--ray`'s
    /// default): only when the job goes there too, or the line says nothing.
    pub reads_ray_address: bool,
    /// What is said of it: where the cluster came from, or why the line's address is not
    /// read.
    pub note: Option<LaunchAddress>,
}

impl LaunchCluster {
    /// The note as text (for the Python layer's no-cluster error).
    pub fn note_text(&self) -> Option<String> {
        self.note.as_ref().map(ToString::to_string)
    }
}

/// The cluster the launch line's `ray job submit` sends the job to (a `LaunchCluster`;
/// `ambient`: the environment's variables, which Ray lets override `--address`), for front
/// ends that pick their cluster before loading verl's settings.
pub fn launch_cluster(launch: &Launch, ambient: &AmbientAddresses) -> LaunchCluster {
    launch_address(launch, ambient, 0)
}

/// [`launch_cluster`], with the note's spans starting at `base` (where the line starts in
/// the source).
pub fn launch_address(launch: &Launch, ambient: &AmbientAddresses, base: usize) -> LaunchCluster {
    let span = |s: &std::ops::Range<usize>| miette::SourceSpan::from(base + s.start..base + s.end);
    let found = |dashboard: Option<&str>, reads_ray_address, note| LaunchCluster {
        dashboard: dashboard.map(str::to_owned),
        reads_ray_address,
        note: Some(note),
    };
    // A named address: read when it is a dashboard's URL, said otherwise.
    let named = |address: &str, via, from, span| {
        if is_dashboard_url(address) {
            let note = LaunchAddress::Used {
                url: address.to_owned(),
                via,
                from,
                span,
            };
            found(Some(address), false, note)
        } else {
            let note = LaunchAddress::NotDashboard {
                address: address.to_owned(),
                via,
                from,
                span,
            };
            found(None, false, note)
        }
    };
    match launch.submit_target(ambient) {
        SubmitTarget::Unnamed => LaunchCluster {
            dashboard: None,
            reads_ray_address: true,
            note: None,
        },
        SubmitTarget::Cleared => found(None, false, LaunchAddress::Cleared),
        SubmitTarget::Named { address, via, .. } => {
            named(&address.value, via, Whose::Line, Some(span(&address.span)))
        }
        SubmitTarget::Environment { address, via, .. } => {
            named(address, via, Whose::Environment, None)
        }
        SubmitTarget::Overridden {
            address,
            via,
            by,
            used,
            dashboard,
            also,
        } => {
            let unset = also.map_or(by.to_string(), |also| format!("{by} and {also}"));
            let to = if is_dashboard_url(&address.value) {
                format!("to send the job (and this check) to {}", address.value)
            } else {
                format!(
                    "to send the job to {}, and pass its dashboard's URL with --ray http://HEAD:8265 (ray= in Python) to check that cluster",
                    address.value
                )
            };
            let note = LaunchAddress::Overridden {
                address: address.value.clone(),
                via,
                by,
                help: format!(
                    "unset {unset} where the line runs {to}; or pass --ray URL to check another cluster"
                ),
                span: span(&address.span),
            };
            // RAY_ADDRESS overriding: read as `--ray`'s default, as it always is. A
            // RAY_API_SERVER_ADDRESS: read here, and RAY_ADDRESS is not the job's.
            match by {
                AddressVia::Env => found(None, true, note),
                _ => found(dashboard.then_some(used), false, note),
            }
        }
    }
}

/// Whose variable or flag names the cluster.
#[derive(Clone, Copy, Debug, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Whose {
    /// The launch line's.
    Line,
    /// The environment's, where the line would run.
    Environment,
}

impl std::fmt::Display for Whose {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Whose::Line => "the launch line's",
            Whose::Environment => "this environment's",
        })
    }
}

/// What the launch line's `ray job submit` says of its cluster, when no source of ours
/// names one.
#[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[serde(untagged)]
pub enum LaunchAddress {
    /// The cluster checked is the dashboard the line sends the job to.
    #[error("the cluster checked is {url}, the dashboard {from} {via} names")]
    #[diagnostic(
        severity(Advice),
        code(resource_pool::verl::launch_cluster),
        help(
            "to check another cluster, pass --cluster FILE or --ray URL (cluster= or ray= in Python)"
        )
    )]
    Used {
        /// The dashboard's URL.
        url: String,
        /// `--address`, `RAY_ADDRESS` or `RAY_API_SERVER_ADDRESS`.
        via: AddressVia,
        /// `line` or `environment`.
        from: Whose,
        /// Where, when on the line.
        #[label("the job's cluster")]
        #[serde(skip)]
        span: Option<miette::SourceSpan>,
    },
    /// The job's address is a Ray Client (`ray://`) or GCS (`host:port`, `auto`) address,
    /// which Ray resolves through the cluster itself.
    #[error(
        "{from} {via} `{address}` is not a dashboard URL: a live cluster is read from its dashboard's http(s) URL"
    )]
    #[diagnostic(
        severity(Advice),
        code(resource_pool::verl::launch_address_not_dashboard),
        help(
            "pass the dashboard's URL with --ray http://HEAD:8265 (ray= in Python); Ray's dashboard listens on port 8265 of the head node unless started with --dashboard-port"
        )
    )]
    NotDashboard {
        /// The address as written.
        address: String,
        /// `--address`, `RAY_ADDRESS` or `RAY_API_SERVER_ADDRESS`.
        via: AddressVia,
        /// `line` or `environment`.
        from: Whose,
        /// Where, when on the line.
        #[label("not a dashboard URL")]
        #[serde(skip)]
        span: Option<miette::SourceSpan>,
    },
    /// A variable of the environment overrides the line's address, as it does for
    /// `ray job submit`.
    #[error(
        "the launch line's {via} `{address}` is not used: {by} of this environment overrides it, as it does for `ray job submit`"
    )]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::launch_address_overridden)
    )]
    Overridden {
        /// The line's address not used.
        address: String,
        /// `--address`, or `RAY_ADDRESS` (overridden by `RAY_API_SERVER_ADDRESS`).
        via: AddressVia,
        /// The variable that overrides it.
        by: AddressVia,
        /// What to do: depends on whether the address is a dashboard's URL.
        #[help]
        #[serde(skip)]
        help: String,
        /// Where.
        #[label("overridden by {by}")]
        #[serde(skip)]
        span: miette::SourceSpan,
    },
    /// The line removes `RAY_ADDRESS` and names no address: the environment's is not the
    /// job's cluster.
    #[error(
        "the launch line removes (or empties) RAY_ADDRESS and names no address: the job goes to the cluster Ray finds where the line runs, so this environment's RAY_ADDRESS is not read"
    )]
    #[diagnostic(
        severity(Advice),
        code(resource_pool::verl::launch_address_cleared),
        help(
            "pass the job's cluster with --ray http://HEAD:8265 or --cluster FILE (ray= or cluster= in Python)"
        )
    )]
    Cleared,
}
