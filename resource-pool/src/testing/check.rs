//! The whole check of a layout on a cluster, as an assertion: what `resource-pool check`
//! computes ([`CheckRun`]), and on failure what it prints.

use std::fmt;
use std::path::Path;
use std::time::Duration;

use crate::check::CheckOptions;
use crate::inventory::cluster_file::{self, ClusterLimits};
use crate::placement::PlacementOptions;
use crate::report::{CheckRun, Finding, render_human};
use crate::source::{ReadLimits, SourceFile};
use crate::{Cluster, ResourcePoolManager, RoleKey};

/// A layout that does not place (or that Ray would not place in verl's order) on a
/// cluster. Its `Display` is what `resource-pool check` prints for people, without colour:
/// the diagnostics, the plan and the summary line. (proptest prints the cluster itself, as
/// a cluster file: see [`TestCluster`](super::TestCluster).)
pub struct LayoutFailure {
    /// The check, as the CLI computes it.
    pub run: Box<CheckRun>,
}

impl LayoutFailure {
    /// What the CLI prints: diagnostics, plan, summary.
    pub fn rendered(&self) -> String {
        self.run.human(false).to_string()
    }
}

impl fmt::Display for LayoutFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "the layout does not place on this cluster:")?;
        write!(f, "{}", self.rendered())
    }
}

impl fmt::Debug for LayoutFailure {
    /// The same as `Display`, so that `unwrap()` and `#[test] -> Result` show the report.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Inside `proptest!`, `places(&manager, &cluster)?` fails the case with the report
/// (proptest turns any error into a failure with its `Display`), and proptest shrinks the
/// cluster.
impl std::error::Error for LayoutFailure {}

/// The options of the check in tests: the CLI's, with the search bounded by steps only
/// (the CLI also stops after a second of wall-clock time), so that the same cluster always
/// gets the same answer on a loaded CI machine.
pub fn test_options() -> CheckOptions {
    CheckOptions {
        placement: PlacementOptions {
            budget: Duration::from_secs(24 * 60 * 60),
            ..PlacementOptions::default()
        },
        ..CheckOptions::default()
    }
}

/// Runs the whole check of `manager` on `cluster` (the placement, Ray's scheduler in
/// verl's order, the cluster against the node-slots): `Ok` with the run when it passes, as
/// `resource-pool check` exits 0, `Err` with what the CLI prints when it does not.
///
/// ```
/// use resource_pool::testing::{NodeShape, homogeneous, places};
/// use resource_pool::verl;
///
/// let manager = verl::default_layout(8, 2, None).unwrap();
/// proptest::proptest!(|(cluster in homogeneous(2..=4, NodeShape::gpu(8, 32..=96)))| {
///     places(&manager, &cluster)?;
/// });
/// ```
///
/// # Errors
///
/// A [`LayoutFailure`] when the check does not pass.
pub fn places<R: RoleKey>(
    manager: &ResourcePoolManager<R>,
    cluster: &Cluster,
) -> Result<CheckRun, LayoutFailure> {
    places_with(manager, cluster, &test_options())
}

/// [`places`] with the check's options.
///
/// # Errors
///
/// A [`LayoutFailure`] when the check does not pass.
pub fn places_with<R: RoleKey>(
    manager: &ResourcePoolManager<R>,
    cluster: &Cluster,
    options: &CheckOptions,
) -> Result<CheckRun, LayoutFailure> {
    let run = CheckRun::check_manager(manager, cluster.clone(), options);
    if run.passes() {
        Ok(run)
    } else {
        Err(LayoutFailure { run: Box::new(run) })
    }
}

/// [`places`] for a plain `#[test]`: panics with what the CLI prints when the check does
/// not pass.
///
/// ```should_panic
/// use resource_pool::testing::{assert_places, NodeShape};
/// use resource_pool::verl;
///
/// // verl's default layout on two nodes needs two eight-GPU nodes; one is not enough.
/// let manager = verl::default_layout(8, 2, None).unwrap();
/// let one_node = resource_pool::Cluster::new(vec![resource_pool::Node::new(
///     "node-0",
///     resource_pool::Resources::new()
///         .with("GPU", resource_pool::Amount::from_whole(8).unwrap())
///         .with("CPU", resource_pool::Amount::from_whole(96).unwrap()),
/// )]);
/// assert_places(&manager, &one_node);
/// ```
///
/// # Panics
///
/// When the check does not pass, with the report.
#[track_caller]
pub fn assert_places<R: RoleKey>(manager: &ResourcePoolManager<R>, cluster: &Cluster) {
    if let Err(failure) = places(manager, cluster) {
        panic!("{failure}");
    }
}

/// A cluster file committed in the repository (a snapshot of the fleet, from
/// `resource-pool inventory --write-cluster` or written by hand), for a plain `#[test]`.
/// A relative path is taken from the crate's root, as `cargo test` runs tests there.
///
/// ```
/// use resource_pool::testing::{assert_places, load_cluster};
/// use resource_pool::verl;
///
/// let fleet = load_cluster(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/clusters/three_nodes.toml"));
/// assert_eq!(fleet.nodes.len(), 3);
/// assert_places(&verl::default_layout(4, 1, None).unwrap(), &fleet);
/// ```
///
/// # Panics
///
/// When the file cannot be read or is not a valid cluster file, with the diagnostics as
/// the CLI prints them.
#[track_caller]
pub fn load_cluster(path: impl AsRef<Path>) -> Cluster {
    let path = path.as_ref();
    // As the CLI's `--cluster FILE` reads it, with its findings shown the same way.
    let source = match SourceFile::read(path, ReadLimits::default()) {
        Ok(source) => source,
        Err(err) => fail(path, &[Finding::unreadable(err)]),
    };
    let loaded = cluster_file::load_cluster(&source, &ClusterLimits::default());
    match loaded.cluster {
        Some(cluster) => cluster,
        None => {
            let findings: Vec<Finding> = loaded
                .diagnostics
                .into_iter()
                .map(|d| Finding::in_file(d, &source))
                .collect();
            fail(path, &findings)
        }
    }
}

#[track_caller]
fn fail(path: &Path, findings: &[Finding]) -> ! {
    let shown = render_human(findings, false);
    panic!("cannot use the cluster file {}:\n{shown}", path.display())
}
