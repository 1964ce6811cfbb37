//! The slots and the cluster read once into dense vectors, for the placement check and Ray's
//! simulation alike (the check runs both on one input, and each used to read it again).
//!
//! Only resources that some slot demands matter, so every vector has one entry per
//! demanded resource, in name order. Slots with equal demands form *types*; alive nodes
//! with equal available vectors (unreduced: Ray's simulation needs the real amounts) form
//! *shapes*. Both keep their members as runs of consecutive indices ([`IndexRuns`]): one
//! read of every slot and every alive node, and after it a cost per run.

use std::collections::HashMap;

use super::problem::{SlotType, VecMap, demanded_names, fill_vector};
use super::runs::{IndexRuns, Run};
use crate::model::{Cluster, NodeSlot, PoolId, ResourceName, Resources};

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

/// Alive nodes with equal available vectors (over the demanded resources).
#[derive(Clone, Debug)]
pub(crate) struct Shape {
    /// What each of them has free.
    pub cap: Vec<u64>,
    /// The nodes (indices into `cluster.nodes`).
    pub nodes: IndexRuns,
}

/// The input in dense form.
#[derive(Clone, Debug)]
pub(crate) struct Instance {
    /// The demanded resources, sorted by name.
    pub names: Vec<ResourceName>,
    /// Slot types, in order of first appearance.
    pub types: Vec<SlotType>,
    /// Every slot, in order, as runs of one type and one pool.
    pub slot_runs: Vec<SlotRun>,
    /// Shapes of the alive nodes, in order of first appearance (all of them, also those
    /// that can host nothing).
    pub shapes: Vec<Shape>,
    /// The distinct idle totals of the alive nodes; `None` when some alive node states none.
    pub totals: Option<Vec<Vec<u64>>>,
}

/// Slots interned by demand: the demanded names, each distinct demand as a vector with
/// its slots, and the slots as runs of one type and one pool. Touches every slot's demand
/// once (comparing it with the previous slot's first, as runs of equal slots are the rule).
fn intern_slots(slots: &[NodeSlot]) -> (Vec<ResourceName>, Vec<SlotType>, Vec<SlotRun>) {
    let mut index: HashMap<&Resources, usize> = HashMap::new();
    let mut reps: Vec<&Resources> = Vec::new();
    let mut members: Vec<IndexRuns> = Vec::new();
    let mut runs: Vec<SlotRun> = Vec::new();
    let mut last: Option<usize> = None;
    for (i, slot) in slots.iter().enumerate() {
        let t = match last {
            Some(t) if *reps[t] == slot.demand => t,
            _ => *index.entry(&slot.demand).or_insert_with(|| {
                reps.push(&slot.demand);
                members.push(IndexRuns::default());
                reps.len() - 1
            }),
        };
        last = Some(t);
        members[t].push(i);
        match runs.last_mut() {
            Some(run) if run.ty == t && run.pool == slot.pool => run.slots.end = i + 1,
            _ => runs.push(SlotRun {
                slots: Run {
                    start: i,
                    end: i + 1,
                },
                ty: t,
                pool: slot.pool,
            }),
        }
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

impl Instance {
    /// Reads every slot and every alive node once. A node that shares its resource list
    /// with the alive node read before it (see `Resources::shares_with`) is not read again.
    pub fn new(slots: &[NodeSlot], cluster: &Cluster) -> Instance {
        let (names, types, slot_runs) = intern_slots(slots);
        let mut buf = vec![0u64; names.len()];
        let mut index: VecMap<usize> = VecMap::default();
        let mut shapes: Vec<Shape> = Vec::new();
        let mut totals: Option<VecMap<()>> = Some(VecMap::default());
        let mut previous: Option<(&Resources, usize)> = None;
        let mut previous_total: Option<&Resources> = None;
        for (i, node) in cluster.nodes.iter().enumerate() {
            if !node.alive {
                continue;
            }
            let s = match previous {
                Some((available, s)) if available.shares_with(&node.available) => s,
                _ => {
                    fill_vector(&node.available, &names, &mut buf);
                    match index.get(buf.as_slice()) {
                        Some(&s) => s,
                        None => {
                            index.insert(buf.clone(), shapes.len());
                            shapes.push(Shape {
                                cap: buf.clone(),
                                nodes: IndexRuns::default(),
                            });
                            shapes.len() - 1
                        }
                    }
                }
            };
            shapes[s].nodes.push(i);
            previous = Some((&node.available, s));
            match (&mut totals, &node.total) {
                (Some(_), Some(total)) if previous_total.is_some_and(|p| p.shares_with(total)) => {}
                (Some(seen), Some(total)) => {
                    fill_vector(total, &names, &mut buf);
                    if !seen.contains_key(buf.as_slice()) {
                        seen.insert(buf.clone(), ());
                    }
                    previous_total = Some(total);
                }
                _ => totals = None,
            }
        }
        Instance {
            names,
            types,
            slot_runs,
            shapes,
            totals: totals.map(|seen| seen.into_keys().collect()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Amount, Node};

    fn res(gpu: u64, cpu: u64) -> Resources {
        Resources::new()
            .with("GPU", Amount::from_units(gpu * 10_000))
            .with("CPU", Amount::from_units(cpu * 10_000))
    }

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
        assert_eq!(instance.shapes.len(), 2);
        assert_eq!(
            instance.shapes[0].nodes.iter().collect::<Vec<_>>(),
            [0, 1, 3]
        );
        assert_eq!(instance.shapes[0].cap, [960_000, 80_000]);
        assert_eq!(instance.shapes[1].nodes.iter().collect::<Vec<_>>(), [4]);
        // Node a states no total.
        assert_eq!(instance.totals, None);
    }
}
