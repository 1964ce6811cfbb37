//! The preprocessing and the replay as they were before the input was read into runs
//! ([`Instance`](super::Instance), [`IndexRuns`](super::IndexRuns)): node by node, a vector
//! of indices per class. The run-based ones are held to them by a property test.

use super::plan::Move;
use super::problem::{VecMap, fill_vector, fits, gcd_u64};
use super::*;
use crate::model::ResourceName;
use crate::test_support::{intern_slots_plainly, runs_case, tight_case};

/// A problem with its members as plain index vectors.
#[derive(Debug, PartialEq, Eq)]
struct Plain {
    names: Vec<ResourceName>,
    types: Vec<(Vec<u64>, Vec<usize>)>,
    classes: Vec<(Vec<u64>, Vec<usize>)>,
    need: Vec<u64>,
    free: Vec<u64>,
}

impl Plain {
    fn of(problem: &Problem) -> Plain {
        Plain {
            names: problem.names.clone(),
            types: problem
                .types
                .iter()
                .map(|t| (t.demand.clone(), t.slots.iter().collect()))
                .collect(),
            classes: {
                let (runs, starts) = problem.runs_by_class();
                problem
                    .classes
                    .iter()
                    .enumerate()
                    .map(|(c, class)| {
                        let nodes: Vec<usize> = runs[starts[c]..starts[c + 1]]
                            .iter()
                            .flat_map(|r| r.start..r.end)
                            .collect();
                        assert_eq!(class.count, nodes.len());
                        (class.cap.clone(), nodes)
                    })
                    .collect()
            },
            need: problem.need.clone(),
            free: problem.free.clone(),
        }
    }

    /// Interns, reduces and groups, reading every slot and every alive node.
    fn build(slots: &[NodeSlot], cluster: &Cluster) -> Plain {
        let (names, types) = intern_slots_plainly(slots);
        let dims = names.len();
        let mut buf = vec![0u64; dims];
        let mut need = vec![0u64; dims];
        let mut gcd = vec![0u64; dims];
        for (demand, members) in &types {
            for r in 0..dims {
                let n = members.len() as u64;
                need[r] = need[r].saturating_add(demand[r].saturating_mul(n));
                gcd[r] = gcd_u64(gcd[r], demand[r]);
            }
        }
        let mut free = vec![0u64; dims];
        let mut classes: Vec<(Vec<u64>, Vec<usize>)> = Vec::new();
        for (i, node) in cluster.nodes.iter().enumerate() {
            if !node.alive {
                continue;
            }
            fill_vector(&node.available, &names, &mut buf);
            for r in 0..dims {
                free[r] = free[r].saturating_add(buf[r]);
                let c = buf[r].min(need[r]);
                buf[r] = if gcd[r] > 1 { c - c % gcd[r] } else { c };
            }
            match classes.iter().position(|(cap, _)| *cap == buf) {
                Some(c) => classes[c].1.push(i),
                None => classes.push((buf.clone(), vec![i])),
            }
        }
        classes.retain(|(cap, _)| types.iter().any(|(d, _)| fits(d, cap)));
        Plain {
            names,
            types,
            classes,
            need,
            free,
        }
    }

    /// The replay as it was: a stack of node indices per capacity.
    fn replay(&self, moves: &[Move], n_slots: usize) -> Option<Vec<usize>> {
        let mut buckets: VecMap<Vec<usize>> = VecMap::default();
        for (cap, nodes) in &self.classes {
            let mut nodes = nodes.clone();
            nodes.reverse();
            buckets.entry(cap.clone()).or_default().extend(nodes);
        }
        let mut next_slot: Vec<usize> = vec![0; self.types.len()];
        let mut out = vec![usize::MAX; n_slots];
        let mut moved: Vec<usize> = Vec::new();
        for mv in moves {
            let (demand, members) = self.types.get(mv.ty)?;
            let mut to = mv.from.clone();
            for (c, d) in to.iter_mut().zip(demand) {
                *c = c.checked_sub(d.checked_mul(mv.per_node)?)?;
            }
            let source = buckets.get_mut(&mv.from)?;
            let take = usize::try_from(mv.nodes).ok()?;
            let keep = source.len().checked_sub(take)?;
            moved.clear();
            moved.extend(source.drain(keep..).rev());
            for &node in &moved {
                for _ in 0..mv.per_node {
                    let slot = *members.get(next_slot[mv.ty])?;
                    next_slot[mv.ty] += 1;
                    *out.get_mut(slot)? = node;
                }
            }
            buckets.entry(to).or_default().extend(moved.iter().rev());
        }
        if out.contains(&usize::MAX) {
            return None;
        }
        Some(out)
    }
}

/// What [`Instance::new`] reads, node by node and slot by slot: each slot's type and
/// pool, the alive nodes of each distinct free vector (in order of first appearance), and
/// the set of distinct totals (`None` when some alive node states none).
type PlainInstance = (
    Vec<(usize, usize)>,
    Vec<(Vec<u64>, Vec<usize>)>,
    Option<Vec<Vec<u64>>>,
);

fn plain_instance(slots: &[NodeSlot], cluster: &Cluster, names: &[ResourceName]) -> PlainInstance {
    let plain = Plain::build(slots, &Cluster::default());
    let mut of_slot = vec![(usize::MAX, 0); slots.len()];
    for (t, (_, members)) in plain.types.iter().enumerate() {
        for &i in members {
            of_slot[i] = (t, slots[i].pool);
        }
    }
    let mut buf = vec![0u64; names.len()];
    let mut shapes: Vec<(Vec<u64>, Vec<usize>)> = Vec::new();
    let mut totals: Option<Vec<Vec<u64>>> = Some(Vec::new());
    for (i, node) in cluster.nodes.iter().enumerate() {
        if !node.alive {
            continue;
        }
        fill_vector(&node.available, names, &mut buf);
        match shapes.iter().position(|(cap, _)| *cap == buf) {
            Some(s) => shapes[s].1.push(i),
            None => shapes.push((buf.clone(), vec![i])),
        }
        match (&mut totals, &node.total) {
            (Some(list), Some(total)) => {
                fill_vector(total, names, &mut buf);
                if !list.contains(&buf) {
                    list.push(buf.clone());
                }
            }
            _ => totals = None,
        }
    }
    if let Some(list) = &mut totals {
        list.sort();
    }
    (of_slot, shapes, totals)
}

fn instance_as_plain(instance: &Instance, n_slots: usize) -> PlainInstance {
    let mut of_slot = vec![(usize::MAX, 0); n_slots];
    for run in &instance.slot_runs {
        if let Some(part) = of_slot.get_mut(run.slots.start..run.slots.end) {
            part.fill((run.ty, run.pool));
        }
    }
    let (runs, starts) = instance.runs_by_shape();
    let shapes = instance
        .shapes()
        .enumerate()
        .map(|(s, (cap, count))| {
            let nodes: Vec<usize> = runs[starts[s]..starts[s + 1]]
                .iter()
                .flat_map(|r| r.start..r.end)
                .collect();
            // What the shape says of its nodes agrees with them.
            assert_eq!(count, nodes.len());
            (cap.to_vec(), nodes)
        })
        .collect();
    let mut totals = instance.totals.clone();
    if let Some(list) = &mut totals {
        list.sort();
    }
    (of_slot, shapes, totals)
}

/// Both builds agree, and so do both replays of every plan the check finds on them.
fn same_as_plain(
    slots: &[NodeSlot],
    cluster: &Cluster,
) -> Result<(), proptest::test_runner::TestCaseError> {
    let instance = Instance::new(slots, cluster);
    proptest::prop_assert_eq!(
        instance_as_plain(&instance, slots.len()),
        plain_instance(slots, cluster, &instance.names)
    );
    let problem = Problem::build(slots, cluster);
    let plain = Plain::build(slots, cluster);
    proptest::prop_assert_eq!(&Plain::of(&problem), &plain);
    // The check's way: one instance with what Ray's simulation reads too, shared.
    proptest::prop_assert_eq!(&Plain::of(&Problem::new(&instance)), &plain);
    let mut budget = budget::Budget::new(100_000, Duration::from_secs(600));
    if let Decision::Found(moves, _) = decide(&problem, slots.len(), &mut budget) {
        let replayed = plan::replay(&problem, &moves, slots.len());
        proptest::prop_assert!(replayed.is_some() || slots.is_empty());
        proptest::prop_assert_eq!(replayed, plain.replay(&moves, slots.len()));
    }
    // The largest part's greedy plans too (several per instance, other orders).
    let (_, complete) = largest_part(&problem, Duration::from_secs(600));
    if let Some(moves) = complete {
        proptest::prop_assert_eq!(
            plan::replay(&problem, &moves, slots.len()),
            plain.replay(&moves, slots.len())
        );
    }
    Ok(())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]

    /// Runs of nodes and slots (greedy plans that move many nodes at once).
    #[test]
    fn runs_build_and_replay_as_plain_vectors((slots, cluster) in runs_case()) {
        same_as_plain(&slots, &cluster)?;
    }

    /// Tight packings (plans of the exact searches, one node per move).
    #[test]
    fn tight_plans_replay_as_plain_vectors((slots, cluster) in tight_case()) {
        same_as_plain(&slots, &cluster)?;
    }
}
