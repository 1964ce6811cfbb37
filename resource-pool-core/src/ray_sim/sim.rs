//! The simulation proper: node classes with counts, Ray's score, every tie followed up to
//! the bounds, identical branch states explored once.
//!
//! Groups come in runs of one demand and one pool (verl's `[8] * 100_000`). While a run
//! places its groups on one class without a tie followed, each placement only moves one
//! node from that class to the class it leaves behind: when that class exists already,
//! the classes' vectors and their order do not change, so neither do the scores nor the
//! choice, and the run's next groups go to the same class until it runs out. They are
//! placed at once ([`place`]), as counts; the decisions are kept as runs too
//! ([`Decisions`]).

use std::collections::HashSet;
use std::time::Instant;

use super::fix::CapTable;
use super::*;
use crate::placement::{FxBuild, Instance, Run, fits};

/// The decision of a group that fits no node.
pub(super) const PENDING: u32 = u32::MAX;

/// The instance in dense form.
pub(super) struct Sim<'a> {
    pub(super) slots: &'a [NodeSlot],
    pub(super) cluster: &'a Cluster,
    /// The slots and alive nodes, read once (shared with the placement check).
    pub(super) instance: &'a Instance,
    /// Per slot type, whether no alive node's (known) total could ever hold it.
    pub(super) never: Vec<bool>,
    /// Classes of alive nodes that can host some slot.
    pub(super) init: Vec<(Vec<u64>, u64)>,
    pub(super) deadline: Instant,
}

/// The capacity chosen for each group of an order, as runs: `(capacity id, groups)`, the
/// id from the [`CapTable`] or [`PENDING`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Decisions(Vec<(u32, usize)>);

impl Decisions {
    /// `groups` more groups decided `id`.
    pub(super) fn push(&mut self, id: u32, groups: usize) {
        match self.0.last_mut() {
            Some((last, n)) if *last == id => *n += groups,
            _ if groups == 0 => {}
            _ => self.0.push((id, groups)),
        }
    }

    /// The runs, in order.
    pub(super) fn runs(&self) -> &[(u32, usize)] {
        &self.0
    }
}

/// A stretch of an order: the groups before position `end` and after the previous
/// segment's, of one slot type and one pool.
#[derive(Clone, Copy, Debug)]
pub(super) struct Segment {
    end: usize,
    ty: usize,
    pool: PoolId,
}

/// One unexplored branch.
pub(super) struct Work {
    pub(super) pos: usize,
    /// The segment that holds `pos`.
    seg: usize,
    pub(super) classes: Vec<(Vec<u64>, u64)>,
    pub(super) decisions: Decisions,
    pub(super) blocked: Option<PoolId>,
}

/// The result of simulating one order.
pub(super) struct Outcome {
    pub(super) verdict: RayVerdict,
    pub(super) representative: Decisions,
    pub(super) alternative: Option<Decisions>,
    pub(super) branches: usize,
}

/// Ray's `LeastResourceScorer`, on fixed-point units.
pub(super) fn score(demand: &[u64], avail: &[u64]) -> f64 {
    let scale = crate::model::Amount::SCALE as f64;
    demand
        .iter()
        .zip(avail)
        .filter(|(d, _)| **d > 0)
        .map(|(&d, &a)| {
            if a == 0 {
                0.0
            } else {
                ((a - d) as f64 / scale) / (a as f64 / scale)
            }
        })
        .sum()
}

pub(super) fn tied(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
}

/// Places up to `want` groups of `demand` on nodes of class `ci`, which Ray chose for the
/// first of them, and says how many it placed. Every one but the first goes there only
/// when the placements before it changed counts alone (see the module docs): so all
/// `want` when nothing moves (a zero demand), as many as the class has nodes (at most
/// `want`) when the class left behind exists, else one (which creates that class).
pub(super) fn place(
    classes: &mut Vec<(Vec<u64>, u64)>,
    ci: usize,
    demand: &[u64],
    want: usize,
) -> usize {
    let from = &classes[ci].0;
    let same = |c: &(Vec<u64>, u64)| {
        c.0.iter()
            .zip(from.iter().zip(demand))
            .all(|(x, (a, d))| *x == a.saturating_sub(*d))
    };
    let placed = match classes.iter().position(same) {
        Some(j) if j == ci => return want,
        Some(j) => {
            let n = classes[ci].1.min(want as u64);
            classes[ci].1 -= n;
            classes[j].1 += n;
            n as usize
        }
        None => {
            let to = from
                .iter()
                .zip(demand)
                .map(|(a, d)| a.saturating_sub(*d))
                .collect();
            classes[ci].1 -= 1;
            classes.push((to, 1));
            1
        }
    };
    if classes[ci].1 == 0 {
        classes.remove(ci);
    }
    placed
}

fn state_key(pos: usize, blocked: Option<PoolId>, classes: &[(Vec<u64>, u64)]) -> Box<[u64]> {
    let mut sorted: Vec<&(Vec<u64>, u64)> = classes.iter().collect();
    sorted.sort();
    let mut key = vec![pos as u64, blocked.map_or(u64::MAX, |p| p as u64)];
    for (cap, count) in sorted {
        key.extend_from_slice(cap);
        key.push(*count);
    }
    key.into_boxed_slice()
}

impl<'a> Sim<'a> {
    /// The simulation of `slots` on `cluster`, as read into `instance`.
    pub(super) fn new(
        slots: &'a [NodeSlot],
        cluster: &'a Cluster,
        instance: &'a Instance,
        deadline: Instant,
    ) -> Sim<'a> {
        let never = instance
            .types
            .iter()
            .map(|t| match &instance.totals {
                Some(list) => !list.iter().any(|total| fits(&t.demand, total)),
                None => false,
            })
            .collect();
        let init = instance
            .shapes()
            .filter(|(cap, _)| instance.types.iter().any(|t| fits(&t.demand, cap)))
            .map(|(cap, count)| (cap.to_vec(), count as u64))
            .collect();
        Sim {
            slots,
            cluster,
            instance,
            never,
            init,
            deadline,
        }
    }

    /// The demand of slot type `ty`.
    pub(super) fn demand(&self, ty: usize) -> &[u64] {
        &self.instance.types[ty].demand
    }

    /// The order (runs of slot indices) as segments of one type and one pool.
    fn segments(&self, order: &[Run]) -> Vec<Segment> {
        let runs = &self.instance.slot_runs;
        let mut out = Vec::new();
        let mut pos = 0;
        for r in order {
            let mut at = r.start;
            let mut k = runs.partition_point(|run| run.slots.end <= at);
            while at < r.end {
                let Some(run) = runs.get(k) else { break };
                let end = run.slots.end.min(r.end);
                out.push(Segment {
                    end: pos + (end - at),
                    ty: run.ty,
                    pool: run.pool,
                });
                pos += end - at;
                at = end;
                k += 1;
            }
        }
        out
    }

    /// Whether every group of `order` finds a fitting node on every branch, whatever the
    /// tie-breaks: each earlier group changes at most one node, so a group whose demand
    /// fits more untouched nodes than there are groups before it always fits one.
    #[cfg(test)]
    pub(super) fn places_whatever_ties(&self, order: &[Run]) -> bool {
        self.places_whatever_ties_of(&self.segments(order))
    }

    fn places_whatever_ties_of(&self, segments: &[Segment]) -> bool {
        let fitting: Vec<u64> = self
            .instance
            .types
            .iter()
            .map(|t| {
                self.init
                    .iter()
                    .filter(|(cap, _)| fits(&t.demand, cap))
                    .map(|(_, count)| count)
                    .sum()
            })
            .collect();
        // The last group of a segment has the most groups before it.
        segments.iter().all(|s| fitting[s.ty] > (s.end - 1) as u64)
    }

    /// Simulates the groups in `order` (runs of slot indices), following ties unless
    /// every branch is known to place everything ([`Self::places_whatever_ties_of`]): then one
    /// branch is the answer and the representative.
    pub(super) fn run(&self, order: &[Run], max_branches: usize, caps: &mut CapTable) -> Outcome {
        let segments = self.segments(order);
        let follow_ties = !self.places_whatever_ties_of(&segments);
        let outcome = self.run_segments(&segments, max_branches, caps, follow_ties);
        debug_assert!(follow_ties || outcome.verdict == RayVerdict::Places);
        outcome
    }

    /// [`Sim::run`], following ties or not as told.
    #[cfg(test)]
    pub(super) fn run_with(
        &self,
        order: &[Run],
        max_branches: usize,
        caps: &mut CapTable,
        follow_ties: bool,
    ) -> Outcome {
        self.run_segments(&self.segments(order), max_branches, caps, follow_ties)
    }

    /// Explores the branches of `segments` depth first, each identical state once, until
    /// both a placing and a hanging branch are found, or the bounds cut the search.
    fn run_segments(
        &self,
        segments: &[Segment],
        max_branches: usize,
        caps: &mut CapTable,
        follow_ties: bool,
    ) -> Outcome {
        let mut search = Search {
            sim: self,
            segments,
            total: segments.last().map_or(0, |s| s.end),
            caps,
            follow_ties,
            stack: vec![Work {
                pos: 0,
                seg: 0,
                classes: self.init.clone(),
                decisions: Decisions::default(),
                blocked: None,
            }],
            seen: HashSet::default(),
            scores: Vec::new(),
            ties: Vec::new(),
        };
        let mut places: Option<Decisions> = None;
        let mut hangs: Option<Decisions> = None;
        let mut branches = 0usize;
        let mut cut = false;
        while let Some(mut w) = search.stack.pop() {
            if branches > 0 && (branches >= max_branches.max(1) || Instant::now() > self.deadline) {
                cut = true;
                break;
            }
            if !search.follow(&mut w) {
                continue;
            }
            branches += 1;
            if w.blocked.is_some() {
                hangs.get_or_insert(w.decisions);
            } else {
                places.get_or_insert(w.decisions);
            }
            if places.is_some() && hangs.is_some() {
                break;
            }
        }
        let verdict = match (&places, &hangs) {
            (Some(_), Some(_)) => RayVerdict::DependsOnTies,
            _ if cut => RayVerdict::Undecided,
            (Some(_), None) => RayVerdict::Places,
            _ => RayVerdict::Hangs,
        };
        let (representative, alternative) = match (hangs, places) {
            (Some(h), p) => (h, p),
            (None, Some(p)) => (p, None),
            (None, None) => (Decisions::default(), None),
        };
        Outcome {
            verdict,
            representative,
            alternative,
            branches,
        }
    }
}

/// One search over the branches of an order: what it reads, the branches left to
/// explore, the states seen, and the buffers each group's choice reuses.
struct Search<'s, 'a> {
    sim: &'s Sim<'a>,
    segments: &'s [Segment],
    /// The groups of the order.
    total: usize,
    caps: &'s mut CapTable,
    follow_ties: bool,
    stack: Vec<Work>,
    seen: HashSet<Box<[u64]>, FxBuild>,
    /// Each class's score for the group at hand (`NEG_INFINITY` where it does not fit).
    scores: Vec<f64>,
    /// The classes tied for the best score, in class order.
    ties: Vec<usize>,
}

impl Search<'_, '_> {
    /// Follows the branch `w` to its end (every group placed or pending, or its pool's
    /// creation blocked), pushing the other side of each tie followed; `false` when it
    /// reaches a state already seen, and is abandoned.
    fn follow(&mut self, w: &mut Work) -> bool {
        let segments = self.segments;
        while w.pos < self.total {
            while segments[w.seg].end <= w.pos {
                w.seg += 1;
            }
            let seg = segments[w.seg];
            if w.blocked.is_some_and(|b| b != seg.pool) {
                break;
            }
            let d = self.sim.demand(seg.ty);
            let left = seg.end - w.pos;
            if !self.tie_best(&w.classes, d) {
                // Nothing changes while groups pend: the rest of the segment pends too.
                w.decisions.push(PENDING, left);
                w.blocked.get_or_insert(seg.pool);
                w.pos += left;
                continue;
            }
            let chosen = self.ties[0];
            if !(self.follow_ties && self.ties.len() > 1) {
                let id = self.caps.id(&w.classes[chosen].0);
                let placed = place(&mut w.classes, chosen, d, left);
                w.decisions.push(id, placed);
                w.pos += placed;
                continue;
            }
            self.push_alternatives(w, d);
            let id = self.caps.id(&w.classes[chosen].0);
            place(&mut w.classes, chosen, d, 1);
            w.decisions.push(id, 1);
            w.pos += 1;
            if !self.seen.insert(state_key(w.pos, w.blocked, &w.classes)) {
                return false;
            }
        }
        true
    }

    /// Scores every class for a group of `demand` and collects the best into `ties`;
    /// `false` when no class fits it.
    fn tie_best(&mut self, classes: &[(Vec<u64>, u64)], demand: &[u64]) -> bool {
        self.scores.clear();
        let mut best = f64::NEG_INFINITY;
        for (cap, _) in classes {
            let sc = if fits(demand, cap) {
                score(demand, cap)
            } else {
                f64::NEG_INFINITY
            };
            best = best.max(sc);
            self.scores.push(sc);
        }
        if best == f64::NEG_INFINITY {
            return false;
        }
        let scores = &self.scores;
        self.ties.clear();
        self.ties.extend(
            (0..scores.len()).filter(|&i| scores[i] > f64::NEG_INFINITY && tied(scores[i], best)),
        );
        true
    }

    /// Pushes the branches where the group at `w.pos` goes to a tied class other than the
    /// first, each whose state is new.
    fn push_alternatives(&mut self, w: &Work, demand: &[u64]) {
        for &alt in &self.ties[1..] {
            let mut classes = w.classes.clone();
            let id = self.caps.id(&classes[alt].0);
            place(&mut classes, alt, demand, 1);
            if self.seen.insert(state_key(w.pos + 1, w.blocked, &classes)) {
                let mut decisions = w.decisions.clone();
                decisions.push(id, 1);
                self.stack.push(Work {
                    pos: w.pos + 1,
                    seg: w.seg,
                    classes,
                    decisions,
                    blocked: w.blocked,
                });
            }
        }
    }
}
