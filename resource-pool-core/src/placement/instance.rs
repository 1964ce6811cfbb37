//! The slots and the cluster read once into dense vectors, for the placement check and Ray's
//! simulation alike (the check runs both on one input, and each used to read it again).
//!
//! Only resources that some slot demands matter, so every vector has one entry per
//! demanded resource, in name order. Slots with equal demands form *types*; alive nodes
//! with equal available vectors (unreduced: Ray's simulation needs the real amounts) form
//! *shapes*. Both keep their members as runs of consecutive indices: one read of every
//! slot and every alive node, and after it a cost per run.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::problem::{
    FxBuild, SlotType, VecIndex, VecMap, demanded_names, fill_vector, runs_by_group,
};
use super::runs::{IndexRuns, Run};
use crate::model::{Cluster, Node, NodeSlot, PoolId, ResourceName, Resources};

/// Consecutive slots of one type and one pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SlotRun {
    /// The slots (indices into the input).
    pub slots: Run,
    /// Their type (index into [`Instance::types`]).
    pub ty: usize,
    /// Their pool.
    pub pool: PoolId,
}

/// The input in dense form.
#[derive(Clone, Debug)]
pub(crate) struct Instance {
    /// The demanded resources, sorted by name.
    pub names: Vec<ResourceName>,
    /// Slot types, in order of first appearance.
    pub types: Vec<SlotType>,
    /// Every slot, in order, as runs of one type and one pool (for Ray's simulation: empty
    /// when read [`Instance::for_placement`]).
    pub slot_runs: Vec<SlotRun>,
    /// Shapes of the alive nodes (alive nodes with equal free vectors over the demanded
    /// resources), in order of first appearance, all of them (also those that can host
    /// nothing): what each of their nodes has free, `names.len()` words per shape, in one
    /// list ...
    shape_caps: Vec<u64>,
    /// ... and how many nodes each has.
    pub shape_counts: Vec<usize>,
    /// Every alive node, in order, as runs of one shape: `(nodes, shape)`. One list for
    /// all shapes, not one per shape: clusters of many small shapes are the rule too.
    /// Shared with the placement check's [`Problem`](super::problem::Problem).
    pub node_runs: Arc<Vec<(Run, usize)>>,
    /// The distinct idle totals of the alive nodes; `None` when some alive node states
    /// none (or when not read: [`Instance::for_placement`]).
    pub totals: Option<Vec<Vec<u64>>>,
    /// The words of a vector: `names.len()` as read.
    dims: usize,
}

/// Slots interned by demand: the demanded names, each distinct demand as a vector with
/// its slots, and the slots as runs of one type and one pool. Slots of one pool that share
/// their demand list (see `Resources::shares_with`) are taken as a run, by pointer; the
/// first of each run is compared with the previous run's demand (runs of equal slots are
/// the rule), and hashed only when it differs.
fn intern_slots(
    slots: &[NodeSlot],
    with_runs: bool,
) -> (Vec<ResourceName>, Vec<SlotType>, Vec<SlotRun>) {
    let mut index: HashMap<&Resources, usize> = HashMap::new();
    let mut reps: Vec<&Resources> = Vec::new();
    let mut members: Vec<IndexRuns> = Vec::new();
    let mut runs: Vec<SlotRun> = Vec::new();
    let mut last: Option<usize> = None;
    let mut start = 0;
    while let Some(slot) = slots.get(start) {
        let end = start
            + 1
            + slots[start + 1..]
                .iter()
                .take_while(|s| s.pool == slot.pool && s.demand.shares_with(&slot.demand))
                .count();
        let t = match last {
            Some(t) if *reps[t] == slot.demand => t,
            _ => *index.entry(&slot.demand).or_insert_with(|| {
                reps.push(&slot.demand);
                members.push(IndexRuns::default());
                reps.len() - 1
            }),
        };
        last = Some(t);
        let run = Run { start, end };
        members[t].push_run(run);
        match runs.last_mut() {
            _ if !with_runs => {}
            Some(last) if last.ty == t && last.pool == slot.pool => last.slots.end = end,
            _ => runs.push(SlotRun {
                slots: run,
                ty: t,
                pool: slot.pool,
            }),
        }
        start = end;
    }
    let names = demanded_names(reps.iter().copied());
    let types = reps
        .iter()
        .zip(members)
        .map(|(r, slots)| {
            let mut demand = vec![0; names.len()];
            fill_vector(r, &names, &mut demand);
            SlotType { demand, slots }
        })
        .collect();
    (names, types, runs)
}

/// Clusters above this many nodes get room for a run per node up front.
const NODES_RESERVED: usize = 4096;

/// Whether `node` is alive and shares both its lists with `like` (alive too): then it is
/// read as `like` was.
fn shares_lists(node: &Node, like: &Node) -> bool {
    node.alive
        && node.available.shares_with(&like.available)
        && match (&node.total, &like.total) {
            (Some(a), Some(b)) => a.shares_with(b),
            (None, None) => true,
            _ => false,
        }
}

impl Instance {
    /// Reads every slot and every alive node once. Alive nodes that share their lists with
    /// the one before them (see `Resources::shares_with`) are taken as a run, by pointer;
    /// a list read before (by its `Resources::list_id`) is not read again either.
    pub fn new(slots: &[NodeSlot], cluster: &Cluster) -> Instance {
        Instance::read_with(slots, cluster, true, |_, _| {})
    }

    /// [`Instance::new`] without what only Ray's simulation reads (the nodes' totals and
    /// the slots' runs): for the placement check alone.
    pub fn for_placement(slots: &[NodeSlot], cluster: &Cluster) -> Instance {
        Instance::read_with(slots, cluster, false, |_, _| {})
    }

    /// [`Instance::new`], telling `on_run` of each run of alive nodes that share both
    /// lists (its first node and its length), in order: for a caller that needs more of
    /// the nodes than the instance keeps, in the same pass.
    pub fn read<'c>(
        slots: &[NodeSlot],
        cluster: &'c Cluster,
        on_run: impl FnMut(&'c Node, usize),
    ) -> Instance {
        Instance::read_with(slots, cluster, true, on_run)
    }

    fn read_with<'c>(
        slots: &[NodeSlot],
        cluster: &'c Cluster,
        for_ray: bool,
        mut on_run: impl FnMut(&'c Node, usize),
    ) -> Instance {
        let (names, types, slot_runs) = intern_slots(slots, for_ray);
        let mut buf = vec![0u64; names.len()];
        let mut index = VecIndex::default();
        let dims = names.len();
        let mut shape_caps: Vec<u64> = Vec::new();
        let mut shape_counts: Vec<usize> = Vec::new();
        // On large clusters, room for a run per node from the start (address space only,
        // as long as runs are long), so that the list never grows by copying.
        let mut node_runs: Vec<(Run, usize)> = Vec::new();
        if cluster.nodes.len() > NODES_RESERVED {
            node_runs.reserve_exact(cluster.nodes.len());
        }
        // The shape of each free list read, and each total list read, by list.
        let mut shape_of: HashMap<usize, usize, FxBuild> = HashMap::default();
        let mut last_list: Option<(usize, usize)> = None;
        let mut totals_read: HashSet<usize, FxBuild> = HashSet::default();
        let mut totals: Option<VecMap<()>> = for_ray.then(VecMap::default);
        let nodes = &cluster.nodes;
        let mut start = 0;
        while let Some(node) = nodes.get(start) {
            if !node.alive {
                start += 1;
                continue;
            }
            let end = start
                + 1
                + nodes[start + 1..]
                    .iter()
                    .take_while(|n| shares_lists(n, node))
                    .count();
            let mut read_shape = |available: &Resources| {
                fill_vector(available, &names, &mut buf);
                match index.find(&buf, |s| &shape_caps[s * dims..(s + 1) * dims]) {
                    Ok(s) => s,
                    Err(hash) => {
                        shape_caps.extend_from_slice(&buf);
                        shape_counts.push(0);
                        index.add(hash)
                    }
                }
            };
            let list = node.available.list_id();
            let s = match last_list {
                // The run before read the same free list.
                Some((id, s)) if id == list => s,
                None => read_shape(&node.available),
                // Lists are remembered once there are two (a cluster of one is the rule).
                Some((id, last)) => {
                    if shape_of.is_empty() {
                        shape_of.insert(id, last);
                    }
                    *shape_of
                        .entry(list)
                        .or_insert_with(|| read_shape(&node.available))
                }
            };
            last_list = Some((list, s));
            shape_counts[s] += end - start;
            on_run(node, end - start);
            match node_runs.last_mut() {
                Some((run, last)) if *last == s && run.end == start => run.end = end,
                _ => node_runs.push((Run { start, end }, s)),
            }
            match (&mut totals, &node.total) {
                (None, _) => {}
                (Some(seen), Some(total)) => {
                    if totals_read.insert(total.list_id()) {
                        fill_vector(total, &names, &mut buf);
                        if !seen.contains_key(buf.as_slice()) {
                            seen.insert(buf.clone(), ());
                        }
                    }
                }
                (Some(_), None) => totals = None,
            }
            start = end;
        }
        Instance {
            names,
            types,
            slot_runs,
            shape_caps,
            shape_counts,
            node_runs: Arc::new(node_runs),
            totals: totals.map(|seen| seen.into_keys().collect()),
            dims,
        }
    }

    /// The nodes of each shape, as runs: `runs[starts[s]..starts[s + 1]]` for shape `s`,
    /// ascending (a counting sort of [`Instance::node_runs`]).
    pub fn runs_by_shape(&self) -> (Vec<Run>, Vec<usize>) {
        runs_by_group(self.node_runs.iter().copied(), self.shape_counts.len())
    }

    /// What each node of shape `s` has free.
    pub fn shape_cap(&self, s: usize) -> &[u64] {
        &self.shape_caps[s * self.dims..(s + 1) * self.dims]
    }

    /// Every shape: what each of its nodes has free, and how many nodes it has.
    pub fn shapes(&self) -> impl Iterator<Item = (&[u64], usize)> + '_ {
        (0..self.shape_counts.len()).map(|s| (self.shape_cap(s), self.shape_counts[s]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::res;

    fn slot(pool: usize, i: usize, gpu: u64) -> NodeSlot {
        NodeSlot {
            pool,
            slot: i,
            bundles: gpu as u32,
            demand: res(gpu, 3 * gpu),
        }
    }

    #[test]
    fn slots_and_nodes_come_in_runs() {
        let slots = [slot(0, 0, 8), slot(0, 1, 8), slot(1, 0, 8), slot(1, 1, 4)];
        let dead = Node {
            alive: false,
            ..Node::new("d", res(8, 96))
        };
        let cluster = Cluster::new(vec![
            Node::new("a", res(8, 96)),
            Node::new("b", res(8, 96)).with_total(res(8, 96)),
            dead,
            Node::new("c", res(8, 96)),
            Node::new("e", res(4, 96)),
        ]);
        let instance = Instance::new(&slots, &cluster);
        assert_eq!(instance.names, ["CPU", "GPU"]);
        assert_eq!(instance.types.len(), 2);
        let runs: Vec<(usize, usize, usize, usize)> = instance
            .slot_runs
            .iter()
            .map(|r| (r.slots.start, r.slots.end, r.ty, r.pool))
            .collect();
        assert_eq!(runs, [(0, 2, 0, 0), (2, 3, 0, 1), (3, 4, 1, 1)]);
        assert_eq!(instance.shape_counts, [3, 1]);
        assert_eq!(instance.shape_cap(0), [960_000, 80_000]);
        let (runs, starts) = instance.runs_by_shape();
        let nodes = |s: usize| -> Vec<usize> {
            runs[starts[s]..starts[s + 1]]
                .iter()
                .flat_map(|r| r.start..r.end)
                .collect()
        };
        assert_eq!(nodes(0), [0, 1, 3]);
        assert_eq!(nodes(1), [4]);
        // Node a states no total.
        assert_eq!(instance.totals, None);
    }
}
