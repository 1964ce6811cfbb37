//! Plans: what the searches produce (moves over classes of equal capacity), and their
//! replay onto real node indices.

use super::problem::{Problem, VecIndex, split_groups};
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

/// The nodes that have one capacity left during a replay, as a stack: the nodes moved in
/// on top (the last move's first), then the class's own nodes from the lowest.
#[derive(Default)]
struct Stack<'a> {
    /// The class's own nodes, ascending; those before `own_at` are gone. A part of one
    /// list for all classes ([`Problem::runs_by_class`]).
    own: &'a mut [Run],
    own_at: usize,
    /// Nodes moved in, the top last; each run is taken from its start.
    moved_in: Vec<Run>,
}

impl Stack<'_> {
    /// Takes `n` nodes from the top, appending them in order to `out`; `None` when it has
    /// fewer.
    fn take(&mut self, mut n: usize, out: &mut Vec<Run>) -> Option<()> {
        while n > 0 {
            let top = match self.moved_in.last_mut() {
                Some(top) => top,
                None => self.own.get_mut(self.own_at)?,
            };
            let k = top.len().min(n);
            push_run(
                out,
                Run {
                    start: top.start,
                    end: top.start + k,
                },
            );
            top.start += k;
            n -= k;
            if top.start == top.end && self.moved_in.pop().is_none() {
                self.own_at += 1;
            }
        }
        Some(())
    }

    /// Puts `moved` (taken in that order) on top, its first node topmost.
    fn put(&mut self, moved: &[Run]) {
        for &run in moved.iter().rev() {
            // Merged with the top when it ends where the top starts (taken in order).
            match self.moved_in.last_mut() {
                Some(top) if run.end == top.start => top.start = run.start,
                _ => self.moved_in.push(run),
            }
        }
    }
}

/// Turns a plan into the node of every slot, by replaying it on the real nodes. `None` when
/// the plan does not match the problem (a bug; the caller validates anyway).
///
/// Each capacity holds a stack of its nodes, lowest index on top at first; a move takes
/// nodes from the top of its capacity's stack and puts them, in the same order, on top of
/// the stack of the capacity they are left with, when a move takes from that capacity (a
/// node left with any other is never taken again: most moves of an exact search close
/// their nodes). The stacks hold runs of consecutive nodes, so a move costs its runs, plus
/// one write per slot it places.
pub(crate) fn replay(problem: &Problem, moves: &[Move], n_slots: usize) -> Option<Vec<usize>> {
    let (mut own, starts) = problem.runs_by_class();
    // A stack per capacity taken from: the classes' (distinct, with their own nodes), then
    // the others moves take from.
    let mut caps: Vec<&[u64]> = Vec::with_capacity(problem.classes.len());
    let mut index = VecIndex::default();
    for class in &problem.classes {
        index.add(VecIndex::hash(&class.cap));
        caps.push(&class.cap);
    }
    for mv in moves {
        if let Err(hash) = index.find(&mv.from, |i| caps[i]) {
            caps.push(&mv.from);
            index.add(hash);
        }
    }
    let mut stacks: Vec<Stack<'_>> = Vec::with_capacity(caps.len());
    stacks.extend(
        split_groups(&mut own, &starts)
            .into_iter()
            .map(|own| Stack {
                own,
                ..Stack::default()
            }),
    );
    stacks.resize_with(caps.len(), Stack::default);
    let mut next_slot: Vec<(usize, usize)> = vec![(0, 0); problem.types.len()];
    let mut out = vec![usize::MAX; n_slots];
    let mut moved: Vec<Run> = Vec::new();
    let mut to: Vec<u64> = Vec::new();
    for mv in moves {
        let ty = problem.types.get(mv.ty)?;
        to.clear();
        for (&c, d) in mv.from.iter().zip(&ty.demand) {
            to.push(c.checked_sub(d.checked_mul(mv.per_node)?)?);
        }
        let source = index.find(&mv.from, |i| caps[i]).ok()?;
        moved.clear();
        stacks[source].take(usize::try_from(mv.nodes).ok()?, &mut moved)?;
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
        if let Ok(target) = index.find(&to, |i| caps[i]) {
            stacks[target].put(&moved);
        }
    }
    if out.contains(&usize::MAX) {
        return None;
    }
    Some(out)
}
