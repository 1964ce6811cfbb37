//! The search budget: a deterministic step count plus a wall-clock deadline, shared by
//! the heuristics, the bounds and the exact search.

use std::time::{Duration, Instant};

/// Which limit of the budget ran out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BudgetLimit {
    /// [`PlacementOptions::max_steps`](super::PlacementOptions::max_steps).
    Steps,
    /// [`PlacementOptions::budget`](super::PlacementOptions::budget).
    Time,
}

/// A deterministic step budget plus a wall-clock deadline.
#[derive(Debug)]
pub(crate) struct Budget {
    pub steps: u64,
    max_steps: u64,
    start: Instant,
    limit: Duration,
    pub exhausted: Option<BudgetLimit>,
}

impl Budget {
    pub fn new(max_steps: u64, limit: Duration) -> Budget {
        Budget {
            steps: 0,
            max_steps,
            start: Instant::now(),
            limit,
            exhausted: None,
        }
    }

    /// Counts `n` steps; `false` once a limit is hit (and from then on). Past
    /// `max_steps` the count stops at `max_steps + 1`.
    pub fn tick(&mut self, n: u64) -> bool {
        if self.exhausted.is_some() {
            return false;
        }
        let before = self.steps;
        self.steps = self.steps.saturating_add(n);
        if self.steps > self.max_steps {
            // One past the limit, however large the tick: the count never overshoots.
            self.steps = self.max_steps + 1;
            self.exhausted = Some(BudgetLimit::Steps);
            return false;
        }
        // The clock is read about every 256 steps.
        if before >> 8 != self.steps >> 8 && self.start.elapsed() > self.limit {
            self.exhausted = Some(BudgetLimit::Time);
            return false;
        }
        true
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_counts_steps() {
        let mut b = Budget::new(3, Duration::from_secs(60));
        assert!(b.tick(2));
        assert!(!b.tick(200));
        assert_eq!(b.exhausted, Some(BudgetLimit::Steps));
        assert_eq!(b.steps, 4);
        assert!(!b.tick(0));
    }
}
