//! Sets of indices (of nodes, of slots) held as ascending runs of consecutive indices.
//!
//! Nodes of one shape and slots of one size come in long runs: a cluster of 100,000 equal
//! nodes is one run, verl's `[8] * 100_000` is one run. Holding the runs rather than the
//! indices makes the check's preprocessing and its replays cost per run, not per index,
//! and spares it a vector of 100,000 indices (and the fresh pages it touches) per class.

/// The indices `start..end`: `Copy`, unlike `Range`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Run {
    pub start: usize,
    pub end: usize,
}

impl Run {
    /// How many indices it holds.
    pub fn len(self) -> usize {
        self.end - self.start
    }
}

/// Appends `run` to `runs`, merged into the last one when it continues it.
pub(crate) fn push_run(runs: &mut Vec<Run>, run: Run) {
    if run.start >= run.end {
        return;
    }
    match runs.last_mut() {
        Some(last) if last.end == run.start => last.end = run.end,
        _ => runs.push(run),
    }
}

/// A set of indices as ascending, disjoint runs (never two that touch).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct IndexRuns {
    runs: Vec<Run>,
    len: usize,
}

impl IndexRuns {
    /// Adds `index`, which must be above every index held: callers add in ascending order.
    #[cfg(test)]
    pub fn push(&mut self, index: usize) {
        self.push_run(Run {
            start: index,
            end: index + 1,
        });
    }

    /// Adds the indices of `run`, which must be above every index held: callers add in
    /// ascending order. A run out of order is ignored (a bug; debug builds assert).
    pub fn push_run(&mut self, run: Run) {
        let ascending = self.runs.last().is_none_or(|last| last.end <= run.start);
        debug_assert!(ascending, "indices are added in ascending order");
        if ascending && run.start < run.end {
            push_run(&mut self.runs, run);
            self.len += run.len();
        }
    }

    /// How many indices it holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The runs, ascending.
    pub fn runs(&self) -> &[Run] {
        &self.runs
    }

    /// The indices, ascending.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.runs.iter().flat_map(|r| r.start..r.end)
    }

    /// The smallest index.
    pub fn first(&self) -> Option<usize> {
        self.runs.first().map(|r| r.start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_merge() {
        let mut a = IndexRuns::default();
        for i in [0, 1, 2, 5, 6, 9] {
            a.push(i);
        }
        a.push_run(Run { start: 10, end: 12 });
        assert_eq!(a.len(), 8);
        assert_eq!(a.runs().len(), 3);
        assert_eq!(a.iter().collect::<Vec<_>>(), [0, 1, 2, 5, 6, 9, 10, 11]);
        assert_eq!(a.first(), Some(0));
    }
}
