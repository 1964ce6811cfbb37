//! proptest strategies of clusters: homogeneous or of several node shapes, with dead nodes
//! and busy resources, GPU or NPU. They shrink toward fewer nodes, smaller nodes (the
//! smallest accelerator and CPU counts of a shape, the smaller of the shapes), fewer dead
//! nodes and nothing busy ([`super::shrink`]), so that a failing property ends at a minimal
//! cluster.

use std::fmt;
use std::ops::{Deref, RangeInclusive};

use proptest::collection::SizeRange;
use proptest::prelude::*;
use proptest::strategy::{NewTree, Union, ValueTree};
use proptest::test_runner::{Reason, TestRunner};

use super::shrink::{ClusterTree, Draws, NodeDraw};

use crate::inventory::cluster_file::cluster_to_toml;
use crate::{Accelerator, Amount, Cluster, Node, Resources};

/// A count per node: one value (`8`) or a range (`4..=8`) that shrinks toward its start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerNode(RangeInclusive<u32>);

impl From<u32> for PerNode {
    fn from(count: u32) -> PerNode {
        PerNode(count..=count)
    }
}

impl From<RangeInclusive<u32>> for PerNode {
    fn from(counts: RangeInclusive<u32>) -> PerNode {
        PerNode(counts)
    }
}

/// One kind of node: its accelerators (GPU or NPU), its CPUs, and any custom resources.
///
/// ```
/// use resource_pool::testing::NodeShape;
///
/// let h100 = NodeShape::gpu(8, 96).with_resource("accelerator_type:H100", 1);
/// let ascend = NodeShape::npu(4..=16, 192);
/// # let _ = (h100, ascend);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeShape {
    accelerator: Accelerator,
    accelerators: RangeInclusive<u32>,
    cpus: RangeInclusive<u32>,
    resources: Vec<(String, u32)>,
}

impl NodeShape {
    /// A node of `accelerators` GPUs and `cpus` CPUs.
    pub fn gpu(accelerators: impl Into<PerNode>, cpus: impl Into<PerNode>) -> NodeShape {
        NodeShape::new(Accelerator::Gpu, accelerators.into(), cpus.into())
    }

    /// A node of `accelerators` NPUs (Ascend) and `cpus` CPUs.
    pub fn npu(accelerators: impl Into<PerNode>, cpus: impl Into<PerNode>) -> NodeShape {
        NodeShape::new(Accelerator::Npu, accelerators.into(), cpus.into())
    }

    fn new(accelerator: Accelerator, accelerators: PerNode, cpus: PerNode) -> NodeShape {
        NodeShape {
            accelerator,
            accelerators: accelerators.0,
            cpus: cpus.0,
            resources: Vec::new(),
        }
    }

    /// The shape with a custom Ray resource too, such as `accelerator_type:H100`.
    #[must_use]
    pub fn with_resource(mut self, name: impl Into<String>, amount: u32) -> NodeShape {
        self.resources.push((name.into(), amount));
        self
    }

    /// Smaller shapes first, so that shrinking moves toward them.
    fn size(&self) -> (u32, u32) {
        (*self.accelerators.start(), *self.cpus.start())
    }
}

/// A cluster the strategies generated: a [`Cluster`] (it derefs to one) whose `Debug` is
/// its cluster file, so that proptest's "minimal failing input" can be committed as a
/// cluster file and checked with `resource-pool check --cluster`.
#[derive(Clone, PartialEq)]
pub struct TestCluster(pub Cluster);

impl Deref for TestCluster {
    type Target = Cluster;

    fn deref(&self) -> &Cluster {
        &self.0
    }
}

impl From<TestCluster> for Cluster {
    fn from(cluster: TestCluster) -> Cluster {
        cluster.0
    }
}

impl fmt::Debug for TestCluster {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let alive = self.0.alive().count();
        writeln!(
            f,
            "{} nodes, {alive} alive; as a cluster file:",
            self.0.nodes.len()
        )?;
        f.write_str(&cluster_to_toml(&self.0))
    }
}

/// Clusters of `nodes` nodes (`2..=16`, or `4`), all of one shape drawn once per cluster.
///
/// ```
/// use proptest::prelude::*;
/// use resource_pool::testing::{NodeShape, homogeneous};
///
/// proptest! {
///     // In a test file, `#[test]` goes here.
///     fn two_to_sixteen_eight_gpu_nodes(
///         cluster in homogeneous(2..=16, NodeShape::gpu(8, 96)).with_dead_nodes(0..=1)
///     ) {
///         prop_assert!((2..=16).contains(&cluster.nodes.len()));
///         prop_assert!(cluster.alive().count() >= cluster.nodes.len() - 1);
///     }
/// }
/// # two_to_sixteen_eight_gpu_nodes();
/// ```
pub fn homogeneous(nodes: impl Into<SizeRange>, shape: NodeShape) -> ClusterStrategy {
    ClusterStrategy::new(nodes.into(), vec![(1, shape)], true)
}

/// Clusters of `nodes` nodes, each of one of `shapes`, drawn by weight (`(3, big)` is drawn
/// three times as often as `(1, small)`). Shrinking moves nodes toward the smallest shape.
///
/// ```
/// use proptest::prelude::*;
/// use resource_pool::testing::{NodeShape, heterogeneous};
///
/// let fleet = heterogeneous(1..=8, [(3, NodeShape::gpu(8, 96)), (1, NodeShape::gpu(4, 32))]);
/// proptest!(|(cluster in fleet)| {
///     for node in cluster.alive() {
///         prop_assert!([4.0, 8.0].contains(&node.available.get("GPU").as_f64()));
///     }
/// });
/// ```
///
/// # Panics
///
/// When `shapes` is empty, or a weight is 0.
pub fn heterogeneous(
    nodes: impl Into<SizeRange>,
    shapes: impl IntoIterator<Item = (u32, NodeShape)>,
) -> ClusterStrategy {
    let mut shapes: Vec<(u32, NodeShape)> = shapes.into_iter().collect();
    assert!(
        !shapes.is_empty(),
        "heterogeneous clusters need a node shape"
    );
    assert!(
        shapes.iter().all(|(weight, _)| *weight > 0),
        "a shape's weight is at least 1"
    );
    shapes.sort_by_key(|(_, shape)| shape.size());
    ClusterStrategy::new(nodes.into(), shapes, false)
}

/// The strategy of [`homogeneous`] and [`heterogeneous`] clusters. Its values are
/// [`TestCluster`]s; they shrink greedily (see the module `shrink`): a failing property
/// ends at a cluster from which no node can be removed, revived, freed or made smaller
/// without the property passing.
#[derive(Clone, Debug)]
#[must_use = "a strategy generates nothing until proptest runs it"]
pub struct ClusterStrategy {
    spec: ClusterSpec,
    nodes: SizeRange,
    dead: SizeRange,
    weights: Vec<u32>,
}

/// What the clusters are made of, as the shrinker needs it.
#[derive(Clone, Debug)]
pub(super) struct ClusterSpec {
    /// Smallest first.
    shapes: Vec<NodeShape>,
    pub(super) homogeneous: bool,
    pub(super) min_nodes: usize,
    pub(super) min_dead: usize,
    busy_percent: u8,
}

impl ClusterStrategy {
    fn new(nodes: SizeRange, shapes: Vec<(u32, NodeShape)>, homogeneous: bool) -> ClusterStrategy {
        ClusterStrategy {
            spec: ClusterSpec {
                shapes: shapes.iter().map(|(_, shape)| shape.clone()).collect(),
                homogeneous,
                min_nodes: nodes.start(),
                min_dead: 0,
                busy_percent: 0,
            },
            nodes,
            dead: SizeRange::from(0..=0),
            weights: shapes.iter().map(|(weight, _)| *weight).collect(),
        }
    }

    /// Up to this many of the nodes (`0..=1`) are dead: listed, `alive = false`, as Slurm,
    /// kubectl and Ray's dashboard list a node that left. Shrinks toward the fewest.
    ///
    /// # Panics
    ///
    /// When the dead range is not within the node range (`homogeneous(1..=2, ..)` with
    /// `with_dead_nodes(3..=5)`): a cluster cannot have more dead nodes than nodes, and
    /// would otherwise silently have none alive.
    pub fn with_dead_nodes(mut self, dead: impl Into<SizeRange>) -> ClusterStrategy {
        let dead = dead.into();
        let (dead_low, dead_high) = dead.start_end_incl();
        let (low, high) = self.nodes.start_end_incl();
        assert!(
            dead_low <= low && dead_high <= high,
            "`with_dead_nodes({dead_low}..={dead_high})` asks for more dead nodes than the \
             clusters of {low}..={high} nodes have: keep the dead range within the node range"
        );
        self.dead = dead;
        self.spec.min_dead = self.dead.start();
        self
    }

    /// Up to `max_share` (0 to 1) of each node's accelerators and CPUs are held by
    /// something else (another job's placement groups): each node states its idle total
    /// and has less available. Shrinks toward nothing held.
    ///
    /// # Panics
    ///
    /// When `max_share` is not between 0 and 1.
    pub fn with_busy(mut self, max_share: f64) -> ClusterStrategy {
        assert!(
            (0.0..=1.0).contains(&max_share),
            "a share is between 0 and 1, not {max_share}"
        );
        self.spec.busy_percent = (max_share * 100.0).round() as u8;
        self
    }

    /// A cluster drawn at random.
    fn draw(&self, runner: &mut TestRunner) -> Result<Draws, Reason> {
        let mut draw = |strategy: BoxedStrategy<u32>| -> Result<u32, Reason> {
            Ok(strategy.new_tree(runner)?.current())
        };
        let (low, high) = self.nodes.start_end_incl();
        let count = draw(((low as u32)..=(high as u32)).boxed())? as usize;
        let weighted = Union::new_weighted(
            self.weights
                .iter()
                .enumerate()
                .map(|(index, &weight)| (weight, Just(index as u32).boxed()))
                .collect(),
        )
        .boxed();
        let mut nodes = Vec::with_capacity(count);
        for _ in 0..count {
            let node = match nodes.first() {
                // One shape, drawn once, for every node of a homogeneous cluster.
                Some(&first) if self.spec.homogeneous => NodeDraw { busy: 0, ..first },
                _ => {
                    let shape = draw(weighted.clone())? as usize;
                    let drawn = &self.spec.shapes[shape];
                    NodeDraw {
                        shape,
                        accelerators: draw(drawn.accelerators.clone().boxed())?,
                        cpus: draw(drawn.cpus.clone().boxed())?,
                        busy: 0,
                    }
                }
            };
            let busy = draw((0..=u32::from(self.spec.busy_percent)).boxed())?;
            nodes.push(NodeDraw {
                busy: busy as u8,
                ..node
            });
        }
        let (low, high) = self.dead.start_end_incl();
        let dead_count = draw(((low as u32)..=(high as u32)).boxed())?;
        let dead = (0..dead_count)
            .map(|_| draw(any::<u32>().boxed()))
            .collect::<Result<_, _>>()?;
        Ok(Draws { nodes, dead })
    }
}

impl Strategy for ClusterStrategy {
    type Tree = ClusterTree;
    type Value = TestCluster;

    fn new_tree(&self, runner: &mut TestRunner) -> NewTree<Self> {
        Ok(ClusterTree::new(self.spec.clone(), self.draw(runner)?))
    }
}

impl ClusterSpec {
    /// The smallest node of a shape: its least accelerators and CPUs.
    pub(super) fn smallest(&self, shape: usize) -> (u32, u32) {
        self.shapes[shape].size()
    }

    /// The cluster of what was drawn: `node-0`, `node-1`, ... each stating its total and
    /// what is available once the busy share is held; dead nodes as drawn.
    pub(super) fn build(&self, draws: &Draws) -> TestCluster {
        let mut nodes: Vec<Node> = draws
            .nodes
            .iter()
            .enumerate()
            .map(|(i, draw)| {
                let shape = &self.shapes[draw.shape];
                let held = |n: u32| (u64::from(n) * u64::from(draw.busy) / 100) as u32;
                let resources = |accelerators: u32, cpus: u32| {
                    let mut resources = Resources::new()
                        .with(shape.accelerator.resource_name(), whole(accelerators))
                        .with("CPU", whole(cpus));
                    for (name, amount) in &shape.resources {
                        resources.set(name.clone(), whole(*amount));
                    }
                    resources
                };
                let total = resources(draw.accelerators, draw.cpus);
                let available = resources(
                    draw.accelerators - held(draw.accelerators),
                    draw.cpus - held(draw.cpus),
                );
                Node {
                    total: Some(total),
                    ..Node::new(format!("node-{i}"), available)
                }
            })
            .collect();
        let mut alive: Vec<usize> = (0..nodes.len()).collect();
        for &pick in &draws.dead {
            if alive.is_empty() {
                break;
            }
            let position = alive.remove(pick as usize % alive.len());
            nodes[position].alive = false;
        }
        TestCluster(Cluster::new(nodes))
    }
}

fn whole(n: u32) -> Amount {
    Amount::from_whole(u64::from(n)).unwrap_or_else(|_| unreachable!("a u32 is a whole amount"))
}

#[cfg(test)]
mod tests;
