//! What the cluster says about a config's node-slots before any placement: fewer alive
//! nodes than the slots need, the other accelerator than the one asked for, a resource no
//! alive node declares. Cheap, and said even when the exact check cannot decide.

use super::wording::{ClusterWording, LayoutWording};
use crate::model::{Cluster, Node, NodeSlot, Resources, names};
use crate::words::{count, verb};

/// A finding of the cluster against the node-slots (warnings: the placement check gives
/// the verdict).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[serde(untagged)]
pub enum ClusterFinding {
    /// The config's node-slots need more nodes than are alive.
    #[error(
        "the config needs at least {}, but {}{}",
        count(*.needed, "node"),
        alive_text(*.alive),
        dead_suffix(*.dead)
    )]
    #[diagnostic(
        code(resource_pool::inventory::too_few_nodes),
        severity(Warning),
        help(
            "{}",
            .listed_by.too_few_nodes(&.written.fewer_nodes())
        )
    )]
    TooFewAliveNodes {
        /// Alive nodes.
        alive: usize,
        /// A lower bound of the nodes the node-slots need.
        needed: usize,
        /// Dead nodes listed by the source.
        dead: usize,
        /// The source that listed the nodes, for the help's words (not data: the help
        /// carries it).
        #[serde(skip)]
        listed_by: ClusterWording,
        /// Where the layout was written, for the help's words (not data).
        #[serde(skip)]
        written: LayoutWording,
    },
    /// The config asks for one accelerator, and the cluster has only the other.
    #[error(
        "{} {} for {wanted}, but the alive nodes have {found} and no {wanted}",
        count(*.slots, "node-slot"),
        verb(*.slots, "asks", "ask")
    )]
    #[diagnostic(
        code(resource_pool::inventory::accelerator_mismatch),
        severity(Warning),
        help("{}", .written.accelerator_mismatch(.wanted, .found))
    )]
    AcceleratorMismatch {
        /// What the node-slots ask for (`GPU`).
        wanted: String,
        /// What the cluster has (`NPU`).
        found: String,
        /// How many node-slots ask for `wanted`.
        slots: usize,
        /// Where the layout was written, for the help's words (not data: the help
        /// carries it).
        #[serde(skip)]
        written: LayoutWording,
    },
    /// The config asks for a resource (an accelerator type, a custom resource) that no
    /// alive node declares.
    #[error(
        "{} {} for `{resource}`, which no alive node declares",
        count(*.slots, "node-slot"),
        verb(*.slots, "asks", "ask")
    )]
    #[diagnostic(
        code(resource_pool::inventory::missing_resource),
        severity(Warning),
        help("{}", missing_resource_help(.resource))
    )]
    MissingResource {
        /// The resource name.
        resource: String,
        /// How many node-slots ask for it.
        slots: usize,
    },
}

/// How to declare a resource no alive node declares. Ray's built-in `GPU` and `CPU` are
/// counts of the node (`ray start` refuses them in `--resources`: "Use the --num-gpus
/// argument"), so no spelling is at fault; an accelerator type or a custom resource is
/// declared by name, and a fake `--num-gpus` count would not declare it.
pub(super) fn missing_resource_help(resource: &str) -> String {
    match resource {
        names::GPU | names::CPU => {
            let flag = resource.to_lowercase();
            format!(
                "`{resource}` is Ray's own count of a node: start the nodes with `ray start --num-{flag}s N` (Ray refuses `{resource}` in `--resources`), or on machines whose {resource}s Ray detects"
            )
        }
        _ => format!(
            "check the spelling against `ray status`; declare it with `ray start --resources='{{\"{resource}\": N}}'` (fake `--num-gpus` declares no accelerator type)"
        ),
    }
}

/// `none is alive`, `only 1 is alive`, `only 2 are alive`.
fn alive_text(alive: usize) -> String {
    match alive {
        0 => "none is alive".to_owned(),
        n => format!("only {n} {} alive", verb(n, "is", "are")),
    }
}

/// ` (1 node is dead)`, ` (2 nodes are dead)`, or nothing.
fn dead_suffix(dead: usize) -> String {
    match dead {
        0 => String::new(),
        n => format!(" ({} {} dead)", count(n, "node"), verb(n, "is", "are")),
    }
}

/// The findings that need the config as well as the cluster: fewer alive nodes than the
/// node-slots need, `GPU` asked where the cluster has only `NPU` (or the reverse), and
/// resources asked for that no alive node declares. Dead nodes are in the cluster (the
/// inventories' contract): the messages count them.
pub fn check_against_slots(cluster: &Cluster, slots: &[NodeSlot]) -> Vec<ClusterFinding> {
    findings_of(
        &held_runs(cluster),
        cluster.nodes.len(),
        &runs(slots.iter().map(|s| &s.demand)),
        ClusterWording::default(),
        LayoutWording::default(),
    )
}

/// [`check_against_slots`] over what the alive nodes hold and what the slots ask, each a
/// list of resource lists with how many nodes or slots have each (in any grouping: runs,
/// or one entry per distinct list), and the number of nodes listed (alive or dead). The
/// check reads them in its own pass over the input.
pub(super) fn findings_of(
    held: &[(&Resources, usize)],
    listed: usize,
    demands: &[(&Resources, usize)],
    listed_by: ClusterWording,
    written: LayoutWording,
) -> Vec<ClusterFinding> {
    let mut notes = Vec::new();
    let alive: usize = held.iter().map(|(_, n)| n).sum();
    let dead = listed.saturating_sub(alive);
    let declares = |name: &str| held.iter().any(|(r, _)| !r.get(name).is_zero());
    let asking = |name: &str| {
        demands
            .iter()
            .filter(|(d, _)| !d.get(name).is_zero())
            .map(|(_, n)| n)
            .sum::<usize>()
    };

    let needed = nodes_needed_of(held, demands, !demands.is_empty());
    if needed > alive {
        notes.push(ClusterFinding::TooFewAliveNodes {
            alive,
            needed,
            dead,
            listed_by,
            written,
        });
    }

    let pairs = [(names::GPU, names::NPU), (names::NPU, names::GPU)];
    let mut mismatched = Vec::new();
    for (wanted, other) in pairs {
        let asking = asking(wanted);
        if asking > 0 && !declares(wanted) && declares(other) {
            mismatched.push(wanted);
            notes.push(ClusterFinding::AcceleratorMismatch {
                wanted: wanted.to_owned(),
                found: other.to_owned(),
                slots: asking,
                written,
            });
        }
    }

    for resource in names_of(demands) {
        if mismatched.contains(&resource) || names::is_ray_internal(resource) {
            continue;
        }
        if !declares(resource) {
            notes.push(ClusterFinding::MissingResource {
                resource: resource.to_owned(),
                slots: asking(resource),
            });
        }
    }
    notes
}

/// A lower bound of the number of nodes the node-slots need: the most slots of which no
/// two can share a node, because for some resource the two ask for more together than the
/// largest alive node holds (two 8-GPU slots, or an 8 and a 4, on 8-GPU nodes). Every node
/// holds at most the largest alive node's amount of each resource, and one that joins is
/// assumed no larger, so such slots need a node each.
///
/// Why not the summed demand over the largest node's amount: a total that the alive nodes
/// lack is the placement check's `resource_runs_out`, which names the resource; turned
/// into a count of nodes it blamed missing nodes for what may be a shortage of CPUs on
/// nodes that each hold every slot (six 3-CPU slots on one 16-CPU node "needed 2 nodes").
///
/// Only slots that the largest node could hold count: a slot that asks for more of a
/// resource than any alive node has (24 CPUs of 16-CPU nodes) fits no node however many
/// join, and the placement check says so; counting it would blame missing nodes for what
/// is a per-node shortfall (one such slot would "need 2 nodes").
pub fn nodes_needed(cluster: &Cluster, slots: &[NodeSlot]) -> usize {
    nodes_needed_of(
        &held_runs(cluster),
        &runs(slots.iter().map(|s| &s.demand)),
        !slots.is_empty(),
    )
}

/// [`nodes_needed`] over runs ([`runs`]) of what the alive nodes hold and the slots ask.
fn nodes_needed_of(
    held: &[(&Resources, usize)],
    demands: &[(&Resources, usize)],
    any_slot: bool,
) -> usize {
    let names = names_of(demands);
    let largest = |name: &str| {
        held.iter()
            .map(|(r, _)| r.get(name).units())
            .max()
            .unwrap_or(0)
    };
    let largest: Vec<(&str, u64)> = names.iter().map(|&n| (n, largest(n))).collect();
    // A resource no node holds is the missing-resource note's, not a bound's.
    let fits_largest = |d: &Resources| {
        largest
            .iter()
            .all(|&(name, most)| most == 0 || d.get(name).units() <= most)
    };
    let demands: Vec<(&Resources, usize)> = demands
        .iter()
        .copied()
        .filter(|(d, _)| fits_largest(d))
        .collect();
    let mut needed = usize::from(any_slot);
    for &(name, largest) in &largest {
        if largest == 0 {
            continue;
        }
        let mut asks: Vec<(u64, usize)> = demands
            .iter()
            .map(|(d, n)| (d.get(name).units(), *n))
            .collect();
        needed = needed.max(apart(&mut asks, largest));
    }
    needed
}

/// The most of `asks` (amounts of one resource, each with how many slots ask it) of which
/// every two together exceed `largest`, so that no node holds two of them.
///
/// "Together exceed" is a threshold on the sum, so the largest such set is the largest
/// asks: `k` of them qualify exactly when the two smallest of the `k` largest do, and that
/// pair's sum only falls as `k` grows. Counted per run of equal asks, so 100,000 equal
/// slots take one step.
fn apart(asks: &mut [(u64, usize)], largest: u64) -> usize {
    asks.sort_unstable_by_key(|&(d, _)| std::cmp::Reverse(d));
    let exceeds = |a: u64, b: u64| u128::from(a) + u128::from(b) > u128::from(largest);
    let mut taken = 0usize;
    let mut previous: Option<u64> = None;
    for &(ask, n) in asks.iter().filter(|&&(_, n)| n > 0) {
        // The first of this run pairs with the smallest ask taken so far (none: it is
        // the first slot, which needs a node of its own anyway).
        if previous.is_some_and(|p| !exceeds(p, ask)) {
            break;
        }
        taken = taken.saturating_add(1);
        if !exceeds(ask, ask) {
            break;
        }
        taken = taken.saturating_add(n - 1);
        previous = Some(ask);
    }
    taken
}

/// Consecutive resource lists that are one shared list (see [`Resources::shares_with`]),
/// each once with how many times it came: nodes of one shape and slots of one size share
/// their lists, so a cluster of 100,000 equal nodes is a run or a few.
fn runs<'a>(lists: impl Iterator<Item = &'a Resources>) -> Vec<(&'a Resources, usize)> {
    let mut runs: Vec<(&Resources, usize)> = Vec::new();
    for list in lists {
        add_to_runs(&mut runs, list, 1);
    }
    runs
}

/// Adds `count` more of `list` to `runs`: to the last run when it is the same shared list.
pub(super) fn add_to_runs<'a>(
    runs: &mut Vec<(&'a Resources, usize)>,
    list: &'a Resources,
    count: usize,
) {
    match runs.last_mut() {
        Some((last, n)) if last.shares_with(list) => *n += count,
        _ => runs.push((list, count)),
    }
}

/// What an alive node holds: its idle total where known, else what is free.
pub(super) fn held_by(node: &Node) -> &Resources {
    node.total.as_ref().unwrap_or(&node.available)
}

/// The runs of what the alive nodes hold ([`held_by`]).
fn held_runs(cluster: &Cluster) -> Vec<(&Resources, usize)> {
    runs(cluster.alive().map(held_by))
}

/// The names in any of the lists, sorted, each once.
fn names_of<'a>(lists: &[(&'a Resources, usize)]) -> Vec<&'a str> {
    let mut names: Vec<&str> = lists
        .iter()
        .flat_map(|(r, _)| r.iter().map(|(name, _)| name))
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

#[cfg(test)]
mod tests {
    use miette::Diagnostic;

    use super::*;
    use crate::model::{
        Accelerator, Amount, PoolSpec, ResourcePool, ResourcePoolManager, Resources, RoleName,
    };

    fn whole(n: u64) -> Amount {
        Amount::from_whole(n).unwrap_or_default()
    }

    fn node(id: &str, gpu_name: &str, gpus: u64, cpus: u64) -> Node {
        let total = Resources::new()
            .with(gpu_name, whole(gpus))
            .with("CPU", whole(cpus));
        Node::new(id, total.clone()).with_total(total)
    }

    fn slots(spec: PoolSpec) -> Vec<NodeSlot> {
        ResourcePoolManager::<RoleName>::new(vec![ResourcePool::new("p", spec)], [])
            .map(|m| m.node_slots())
            .unwrap_or_default()
    }

    proptest::proptest! {
        /// Nodes of one shape and slots of one size share their resource lists, and the
        /// cluster findings (and Ray's simulation) read a shared list once per run of it:
        /// the answers are those of the same cluster with every list its own.
        #[test]
        fn shared_lists_answer_as_unshared_ones(
            nodes in proptest::collection::vec((0..4usize, proptest::bool::weighted(0.9), proptest::bool::ANY), 1..10),
            pools in proptest::collection::vec(
                (proptest::collection::vec(proptest::sample::select(vec![1u32, 4, 8]), 1..5), proptest::bool::weighted(0.2), 1..3u32),
                1..3,
            ),
        ) {
            let shape = |s: usize| match s {
                0 => Resources::new().with("GPU", whole(8)).with("CPU", whole(32)),
                1 => Resources::new().with("GPU", whole(4)).with("CPU", whole(96)),
                2 => Resources::new().with("NPU", whole(8)).with("CPU", whole(32)),
                _ => Resources::new().with("GPU", whole(8)).with("CPU", whole(4)).with("x", whole(1)),
            };
            let palette: Vec<Resources> = (0..4).map(shape).collect();
            let build = |shared: bool| {
                let nodes = nodes.iter().enumerate().map(|(i, &(s, alive, with_total))| {
                    let list = if shared { palette[s].clone() } else { shape(s) };
                    let mut node = Node::new(format!("n{i}"), list.clone());
                    if with_total {
                        node = node.with_total(if shared { list } else { shape(s) });
                    }
                    node.alive = alive;
                    node
                });
                // Not `Cluster::new`, which shares equal lists.
                Cluster { nodes: nodes.collect() }
            };
            let (shared, unshared) = (build(true), build(false));
            let specs: Vec<ResourcePool> = pools.iter().enumerate().map(|(i, (sizes, npu, colocate))| {
                let mut spec = PoolSpec::with_slots(sizes.clone());
                if *npu {
                    spec.accelerator = Accelerator::Npu;
                }
                spec.max_colocate_count = *colocate;
                ResourcePool::new(format!("p{i}"), spec)
            }).collect();
            let slots = ResourcePoolManager::<RoleName>::new(specs, [])
                .map(|m| m.node_slots())
                .unwrap_or_default();
            let own_lists: Vec<NodeSlot> = slots.iter().map(|s| NodeSlot {
                demand: s.demand.entries().map(|(n, a)| (n.clone(), a)).collect(),
                ..s.clone()
            }).collect();
            proptest::prop_assert_eq!(
                check_against_slots(&shared, &slots),
                check_against_slots(&unshared, &own_lists)
            );
            proptest::prop_assert_eq!(nodes_needed(&shared, &slots), nodes_needed(&unshared, &own_lists));
            let options = crate::ray_sim::RaySimOptions::default();
            proptest::prop_assert_eq!(
                crate::ray_sim::simulate(&slots, &shared, &options),
                crate::ray_sim::simulate(&own_lists, &unshared, &options)
            );
        }
    }

    #[test]
    fn too_few_nodes_is_reported() {
        let mut down = node("b", "GPU", 8, 32);
        down.alive = false;
        let cluster = Cluster::new(vec![node("a", "GPU", 8, 32), down]);
        let notes = check_against_slots(&cluster, &slots(PoolSpec::with_slots([8, 8])));
        assert_eq!(
            notes,
            [ClusterFinding::TooFewAliveNodes {
                alive: 1,
                needed: 2,
                dead: 1,
                listed_by: ClusterWording::default(),
                written: LayoutWording::default(),
            }]
        );
        assert!(notes[0].to_string().contains("1 node is dead"));
        assert_eq!(
            notes[0].code().map(|c| c.to_string()).unwrap_or_default(),
            "resource_pool::inventory::too_few_nodes"
        );
        // Two 4s fit one 8-GPU node.
        assert!(check_against_slots(&cluster, &slots(PoolSpec::with_slots([4, 4]))).is_empty());
    }

    /// One 8-GPU slot of verl (24 CPUs: 3 per bundle) on one 8-GPU/16-CPU node: the slot
    /// fits no node for its CPUs, which no number of such nodes changes; no node is
    /// missing. Two 16-NPU slots on 8-NPU nodes likewise.
    #[test]
    fn a_slot_larger_than_every_node_blames_no_missing_node() {
        let one = Cluster::new(vec![node("a", "GPU", 8, 16)]);
        let verl = slots(PoolSpec::with_slots([8]));
        assert_eq!(verl[0].demand.get("CPU"), whole(24));
        assert_eq!(nodes_needed(&one, &verl), 1);
        assert!(check_against_slots(&one, &verl).is_empty());
        let npus = Cluster::new(vec![node("a", "NPU", 8, 96), node("b", "NPU", 8, 96)]);
        let big = PoolSpec {
            accelerator: Accelerator::Npu,
            ..PoolSpec::with_slots([16, 16])
        };
        assert!(check_against_slots(&npus, &slots(big)).is_empty());
        // Slots that fit a node still count: two 8s and an oversized 24 on one 8-GPU node.
        let roomy = Cluster::new(vec![node("a", "GPU", 8, 64)]);
        let three = slots(PoolSpec::with_slots([8, 8, 24]));
        assert_eq!(nodes_needed(&roomy, &three), 2);
        assert!(matches!(
            check_against_slots(&roomy, &three)[..],
            [ClusterFinding::TooFewAliveNodes { needed: 2, .. }]
        ));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]

        /// The bound is sound: whenever the node-slots place on the alive nodes, it asks
        /// for no more nodes than are alive (so a layout that places never warns).
        #[test]
        fn the_bound_never_exceeds_a_placement((slots, cluster) in crate::test_support::runs_case()) {
            let report = crate::placement::check_placement(
                &slots,
                &cluster,
                &crate::placement::PlacementOptions::default(),
            );
            if report.feasible() == Some(true) {
                proptest::prop_assert!(nodes_needed(&cluster, &slots) <= cluster.alive().count());
            }
        }
    }

    /// Six one-GPU slots of verl (3 CPUs each: 18) on one 8-GPU/16-CPU node: each slot
    /// fits the node, and any two share it; what runs out is CPUs, which the placement
    /// check names. No count of nodes follows from a total (QA: "needs at least 2 nodes"
    /// right after `trainer.nnodes=6`). Three 4-GPU slots on one 8-GPU node likewise.
    #[test]
    fn a_resource_total_is_no_count_of_nodes() {
        let one = Cluster::new(vec![node("a", "GPU", 8, 16)]);
        let six = slots(PoolSpec::with_slots([1; 6]));
        assert_eq!(nodes_needed(&one, &six), 1);
        assert!(check_against_slots(&one, &six).is_empty());
        let wide = Cluster::new(vec![node("a", "GPU", 8, 96)]);
        let threes = slots(PoolSpec::with_slots([4, 4, 4]));
        assert_eq!(nodes_needed(&wide, &threes), 1);
        assert!(check_against_slots(&wide, &threes).is_empty());
    }

    /// Slots that cannot share a node pairwise need a node each, half a node or not: an
    /// 8 and a 4 on 8-GPU nodes (12 > 8), and the largest asks of mixed sizes.
    #[test]
    fn slots_no_two_of_which_share_a_node_need_a_node_each() {
        let one = Cluster::new(vec![node("a", "GPU", 8, 96)]);
        assert_eq!(nodes_needed(&one, &slots(PoolSpec::with_slots([8, 4]))), 2);
        // 8, 8 and 4 pairwise exceed 8; the second 4 shares with the first.
        assert_eq!(
            nodes_needed(&one, &slots(PoolSpec::with_slots([4, 8, 4, 8]))),
            3
        );
        // 6, 5 and 5 pairwise exceed 8 (5 + 5 = 10); 3 shares with 5.
        assert_eq!(
            nodes_needed(&one, &slots(PoolSpec::with_slots([5, 3, 6, 5]))),
            3
        );
        // Nothing apart: 4 + 4 fits.
        assert_eq!(
            nodes_needed(&one, &slots(PoolSpec::with_slots([4, 4, 2]))),
            1
        );
        assert!(nodes_needed(&one, &[]) == 0);
        // CPUs can keep slots apart too: 40 + 40 CPUs on 64-CPU nodes.
        let cpus = Cluster::new(vec![node("a", "GPU", 8, 64), node("b", "GPU", 8, 64)]);
        let colocate = PoolSpec {
            max_colocate_count: 20,
            ..PoolSpec::with_slots([2, 2, 2])
        };
        assert_eq!(nodes_needed(&cpus, &slots(colocate)), 3);
        assert!(matches!(
            check_against_slots(
                &cpus,
                &slots(PoolSpec {
                    max_colocate_count: 20,
                    ..PoolSpec::with_slots([2, 2, 2])
                })
            )[..],
            [ClusterFinding::TooFewAliveNodes {
                needed: 3,
                alive: 2,
                ..
            }]
        ));
    }

    #[test]
    fn npu_against_gpu_is_reported() {
        let cluster = Cluster::new(vec![node("a", "NPU", 8, 32)]);
        let notes = check_against_slots(&cluster, &slots(PoolSpec::with_slots([8])));
        assert_eq!(
            notes,
            [ClusterFinding::AcceleratorMismatch {
                wanted: "GPU".into(),
                found: "NPU".into(),
                slots: 1,
                written: LayoutWording::default(),
            }]
        );
        let npu = PoolSpec {
            accelerator: Accelerator::Npu,
            ..PoolSpec::with_slots([8])
        };
        assert!(check_against_slots(&cluster, &slots(npu)).is_empty());
    }

    /// Ray's built-in `GPU` and `CPU` are declared with `--num-gpus`/`--num-cpus` (`ray
    /// start` refuses them in `--resources`); other names keep the spelling advice.
    #[test]
    fn a_built_in_resource_is_declared_with_its_count_flag() {
        let help = |resource: &str| {
            ClusterFinding::MissingResource {
                resource: resource.into(),
                slots: 2,
            }
            .help()
            .map(|h| h.to_string())
            .unwrap_or_default()
        };
        for (resource, flag) in [("GPU", "--num-gpus N"), ("CPU", "--num-cpus N")] {
            let help = help(resource);
            assert!(help.contains(&format!("`ray start {flag}`")), "{help}");
            assert!(!help.contains("--resources='"), "{help}");
            assert!(!help.contains("spelling"), "{help}");
            assert!(!help.contains("accelerator type"), "{help}");
        }
        let custom = help("accelerator_type:H100");
        assert!(custom.contains("check the spelling"), "{custom}");
        assert!(
            custom.contains(r#"--resources='{"accelerator_type:H100": N}'"#),
            "{custom}"
        );
        // A CPU-only cluster asked for GPUs: the finding is the built-in one.
        let cpu_only = Cluster::new(vec![node("a", "CPU", 0, 96)]);
        let notes = check_against_slots(&cpu_only, &slots(PoolSpec::with_slots([8])));
        assert!(
            notes
                .iter()
                .any(|n| matches!(n, ClusterFinding::MissingResource { resource, .. } if resource == "GPU")),
            "{notes:?}"
        );
    }

    #[test]
    fn missing_accelerator_type_is_reported() {
        let cluster = Cluster::new(vec![node("a", "GPU", 8, 32)]);
        let spec = PoolSpec {
            accelerator_type: Some("accelerator_type:H100".into()),
            ..PoolSpec::with_slots([8])
        };
        let notes = check_against_slots(&cluster, &slots(spec));
        assert_eq!(
            notes,
            [ClusterFinding::MissingResource {
                resource: "accelerator_type:H100".into(),
                slots: 1
            }]
        );
    }
}
