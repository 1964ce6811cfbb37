//! Plans: what the searches produce (moves over classes of equal capacity), and their
//! replay onto real node indices.

use super::problem::{Problem, VecMap};
use super::runs::{Run, push_run};

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
///
/// Each capacity holds a stack of its nodes, lowest index on top at first; a move takes
/// nodes from the top of its capacity's stack and puts them, in the same order, on top of
/// the stack of the capacity they are left with. The stacks hold runs of consecutive
/// nodes, so a move costs its runs, plus one write per slot it places.
pub(crate) fn replay(problem: &Problem, moves: &[Move], n_slots: usize) -> Option<Vec<usize>> {
    // A stack of runs, the top last; each run is taken from its start.
    let mut stacks: VecMap<Vec<Run>> = VecMap::default();
    let (runs, starts) = problem.runs_by_class();
    for (c, class) in problem.classes.iter().enumerate() {
        let stack = stacks.entry(class.cap.clone()).or_default();
        stack.extend(runs[starts[c]..starts[c + 1]].iter().rev());
    }
    let mut next_slot: Vec<(usize, usize)> = vec![(0, 0); problem.types.len()];
    let mut out = vec![usize::MAX; n_slots];
    let mut moved: Vec<Run> = Vec::new();
    for mv in moves {
        let ty = problem.types.get(mv.ty)?;
        let mut to = mv.from.clone();
        for (c, d) in to.iter_mut().zip(&ty.demand) {
            *c = c.checked_sub(d.checked_mul(mv.per_node)?)?;
        }
        let source = stacks.get_mut(&mv.from)?;
        let mut take = usize::try_from(mv.nodes).ok()?;
        moved.clear();
        while take > 0 {
            let top = source.last_mut()?;
            let n = top.len().min(take);
            push_run(
                &mut moved,
                Run {
                    start: top.start,
                    end: top.start + n,
                },
            );
            top.start += n;
            if top.start == top.end {
                source.pop();
            }
            take -= n;
        }
        let (run_at, offset) = &mut next_slot[mv.ty];
        for node in moved.iter().flat_map(|r| r.start..r.end) {
            for _ in 0..mv.per_node {
                let run = ty.slots.runs().get(*run_at)?;
                *out.get_mut(run.start + *offset)? = node;
                *offset += 1;
                if *offset == run.len() {
                    *run_at += 1;
                    *offset = 0;
                }
            }
        }
        let target = stacks.entry(to).or_default();
        for &run in moved.iter().rev() {
            // Merged with the top when it ends where the top starts (taken in order).
            match target.last_mut() {
                Some(top) if run.end == top.start => top.start = run.start,
                _ => target.push(run),
            }
        }
    }
    if out.contains(&usize::MAX) {
        return None;
    }
    Some(out)
}
