//! Plans: what the searches produce (moves over classes of equal capacity), and their
//! replay onto real node indices.

use super::problem::{Problem, VecMap};

/// One step of a plan: `per_node` slots of type `ty` on each of `nodes` nodes whose
/// remaining capacity was `from`.
#[derive(Clone, Debug)]
pub(crate) struct Move {
    pub ty: usize,
    pub from: Vec<u64>,
    pub per_node: u64,
    pub nodes: u64,
}

/// Turns a plan into the node of every slot, by replaying it on the real nodes. `None` when
/// the plan does not match the problem (a bug; the caller validates anyway).
pub(crate) fn replay(problem: &Problem, moves: &[Move], n_slots: usize) -> Option<Vec<usize>> {
    let mut buckets: VecMap<Vec<usize>> = VecMap::default();
    for class in &problem.classes {
        let mut nodes = class.nodes.clone();
        nodes.reverse();
        buckets.entry(class.cap.clone()).or_default().extend(nodes);
    }
    let mut next_slot: Vec<usize> = vec![0; problem.types.len()];
    let mut out = vec![usize::MAX; n_slots];
    let mut moved: Vec<usize> = Vec::new();
    for mv in moves {
        let ty = problem.types.get(mv.ty)?;
        let mut to = mv.from.clone();
        for (c, d) in to.iter_mut().zip(&ty.demand) {
            *c = c.checked_sub(d.checked_mul(mv.per_node)?)?;
        }
        let source = buckets.get_mut(&mv.from)?;
        let take = usize::try_from(mv.nodes).ok()?;
        let keep = source.len().checked_sub(take)?;
        moved.clear();
        moved.extend(source.drain(keep..).rev());
        for &node in &moved {
            for _ in 0..mv.per_node {
                let slot = *ty.slots.get(next_slot[mv.ty])?;
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
