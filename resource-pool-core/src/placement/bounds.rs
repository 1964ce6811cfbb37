//! Necessary conditions: each one that fails proves that no placement exists.
//!
//! - **Fit alone and copies** ([`copies_suffice`]): every slot type fits some node, and the
//!   slots at least as large as a type number no more than the copies of it the nodes hold.
//! - **Weighted capacity** ([`Weights::refute`]): give every slot type a weight `w ≥ 0`.
//!   The slots one node hosts fit it together, so they weigh at most the heaviest set of
//!   slots that fits the node, `K(node)` ([`knapsack::max_weight`]). Summed over nodes: a
//!   placement needs `Σ w(slot) ≤ Σ K(node)`. This holds for *any* weights, so the proof
//!   needs no property of them, only a `K` that is never too small (the knapsack is exact
//!   or rounds up). Good weights come from dual feasible functions of one resource
//!   (Fekete and Schepers' `u^(k)`, the thresholds of Martello and Toth's bound L2), and
//!   `K` is taken over every resource at once, so a weighting of GPUs also sees which
//!   slots the node's CPUs rule out. With weight = demand of one resource the bound is
//!   the usable capacity per node (its waste); with weight 1 it counts slots.

use super::budget::Budget;
use super::knapsack::{self, Item};
use super::problem::Problem;

/// How many slots of `demand` fit a node of `cap` at once (`u64::MAX` for a demand of
/// nothing).
pub(crate) fn copies(demand: &[u64], cap: &[u64]) -> u64 {
    demand
        .iter()
        .zip(cap)
        .filter(|(d, _)| **d > 0)
        .map(|(d, c)| c / d)
        .min()
        .unwrap_or(u64::MAX)
}

/// A necessary condition: for every slot type `t`, the slots of every type at least as
/// large as `t` in every resource (each takes at least what `t` takes) number no more than
/// the copies of `t` the nodes can hold. It refutes fragmentation at once: nine 8-GPU
/// slots on eight nodes with 8 GPUs free, whatever the other nodes hold.
pub(crate) fn copies_suffice(problem: &Problem) -> bool {
    problem.types.iter().all(|t| {
        let need: u64 = problem
            .types
            .iter()
            .filter(|u| u.demand.iter().zip(&t.demand).all(|(a, b)| a >= b))
            .map(|u| u.slots.len() as u64)
            .sum();
        let mut room = 0u64;
        for class in &problem.classes {
            room = room
                .saturating_add((class.count as u64).saturating_mul(copies(&t.demand, &class.cap)));
            if room >= need {
                return true;
            }
        }
        room >= need
    })
}

/// The most `u^(k)` functions per resource.
const MAX_K: u64 = 8;

/// The most thresholds of L2 per resource (spread over the demanded sizes).
const MAX_THRESHOLDS: usize = 24;

/// Which weightings [`Weights::refute`] tries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Effort {
    /// All of them (once per problem).
    All,
    /// Those that refuted something before, most successful first, plus one other in
    /// turn (at every state of a search: trying all would cost more than it prunes).
    Learned,
}

/// Weightings of the slot types, each a vector indexed by type, and how often each one
/// refuted a state.
#[derive(Clone, Debug, Default)]
pub(crate) struct Weights {
    families: Vec<Vec<u64>>,
    hits: Vec<u64>,
    /// The weighting `Effort::Learned` tries next beside the successful ones.
    probe: usize,
}

impl Weights {
    /// The weightings of `problem`: per resource `r`, with `C` the largest capacity of `r`
    /// over the node classes and `x` a type's demand of it,
    ///
    /// - `x` itself (usable capacity) and, once, `1` (slot count);
    /// - for each demanded `K ≤ C/2`: `C` when `x > C − K`, `x` when `K ≤ x ≤ C − K`, else
    ///   `0` (the thresholds of L2, at most 24 of them);
    /// - for `k = 1..=8`: `k·x` when `(k+1)·x` is a multiple of `C`, else
    ///   `⌊(k+1)·x / C⌋·C` (`u^(k)`, scaled by `k·C` to stay integral).
    ///
    /// Duplicates and weightings of nothing are dropped.
    pub fn new(problem: &Problem) -> Weights {
        let mut families: Vec<Vec<u64>> = vec![vec![1; problem.types.len()]];
        for r in 0..problem.dims() {
            let cap = problem.classes.iter().map(|c| c.cap[r]).max().unwrap_or(0);
            if cap == 0 {
                continue;
            }
            let x: Vec<u64> = problem.types.iter().map(|t| t.demand[r].min(cap)).collect();
            families.push(x.clone());
            let mut sizes: Vec<u64> = x.iter().copied().filter(|&v| v > 0).collect();
            sizes.sort_unstable();
            sizes.dedup();
            sizes.retain(|&k| k <= cap / 2);
            let stride = sizes.len().div_ceil(MAX_THRESHOLDS).max(1);
            for &k in sizes.iter().step_by(stride) {
                families.push(
                    x.iter()
                        .map(|&v| match v {
                            v if v > cap - k => cap,
                            v if v >= k => v,
                            _ => 0,
                        })
                        .collect(),
                );
            }
            for k in 1..=MAX_K {
                families.push(
                    x.iter()
                        .map(|&v| {
                            let scaled = u128::from(k + 1) * u128::from(v);
                            let w = if scaled % u128::from(cap) == 0 {
                                u128::from(k) * u128::from(v)
                            } else {
                                scaled / u128::from(cap) * u128::from(cap)
                            };
                            u64::try_from(w).unwrap_or(u64::MAX)
                        })
                        .collect(),
                );
            }
        }
        let mut seen = std::collections::HashSet::new();
        families.retain(|w| w.iter().any(|&v| v > 0) && seen.insert(w.clone()));
        Weights {
            hits: vec![0; families.len()],
            families,
            probe: 0,
        }
    }

    /// The weightings to try at `effort`, in order.
    fn chosen(&mut self, effort: Effort) -> Vec<usize> {
        let n = self.families.len();
        if effort == Effort::All || n == 0 {
            return (0..n).collect();
        }
        let mut chosen: Vec<usize> = (0..n).filter(|&f| self.hits[f] > 0).collect();
        chosen.sort_by(|&a, &b| self.hits[b].cmp(&self.hits[a]).then(a.cmp(&b)));
        if chosen.len() < n {
            while self.hits[self.probe % n] > 0 {
                self.probe += 1;
            }
            chosen.push(self.probe % n);
            self.probe += 1;
        }
        chosen
    }

    /// Whether some weighting proves that `remaining` (slot type, how many of it are left)
    /// cannot all go onto `bins` (remaining capacity, how many nodes have it). `work` is
    /// Each knapsack counts against `budget` (one step per sixteen of its nodes, plus
    /// one); once the budget runs out the answer is `false` (nothing proven).
    pub fn refute<'b>(
        &mut self,
        problem: &Problem,
        remaining: &[(usize, u64)],
        bins: impl Iterator<Item = (&'b [u64], u64)> + Clone,
        effort: Effort,
        budget: &mut Budget,
    ) -> bool {
        let mut items: Vec<Item<'_>> = Vec::with_capacity(remaining.len());
        for f in self.chosen(effort) {
            let w = &self.families[f];
            let need: u128 = remaining
                .iter()
                .map(|&(t, n)| u128::from(w[t]).saturating_mul(u128::from(n)))
                .fold(0, u128::saturating_add);
            if need == 0 {
                continue;
            }
            items.clear();
            items.extend(remaining.iter().map(|&(t, n)| Item {
                demand: &problem.types[t].demand,
                weight: w[t],
                count: n,
            }));
            items.sort_by_key(|it| std::cmp::Reverse(it.weight));
            let mut room: u128 = 0;
            for (cap, count) in bins.clone() {
                let mut work = 0;
                let k = knapsack::max_weight(&items, cap, &mut work);
                if !budget.tick(1 + work / 16) {
                    return false;
                }
                room = room.saturating_add(k.saturating_mul(u128::from(count)));
                if room >= need {
                    break;
                }
            }
            if room < need {
                self.hits[f] += 1;
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use proptest::prelude::*;

    use super::*;
    use crate::model::{Cluster, NodeSlot, PoolSpec};
    use crate::test_support::{brute_force, node, tight_case};

    fn refutes(weights: &mut Weights, problem: &Problem) -> bool {
        let everything: Vec<(usize, u64)> = (0..problem.types.len())
            .map(|t| (t, problem.types[t].slots.len() as u64))
            .collect();
        let bins = problem
            .classes
            .iter()
            .map(|c| (c.cap.as_slice(), c.count as u64));
        let mut budget = Budget::new(u64::MAX, Duration::from_secs(60));
        weights.refute(problem, &everything, bins, Effort::All, &mut budget)
    }

    fn only(family: &[u64]) -> Weights {
        Weights {
            families: vec![family.to_vec()],
            hits: vec![0],
            probe: 0,
        }
    }

    #[test]
    fn a_threshold_refutes_what_totals_and_copies_do_not() {
        // 6 + 6 + 4 GPUs on two nodes of 8: 16 of 16, at most one 6 and two 4s per node,
        // yet a 4 beside a 6 is 10. L2's threshold K = 4 weighs 8, 8, 4: 20 > 2 × 8.
        let cluster = Cluster::new(vec![node("a", 8, 96), node("b", 8, 96)]);
        let slots = crate::model::node_slots(&[PoolSpec::with_slots([6, 6, 4])]);
        let problem = Problem::build(&slots, &cluster);
        assert!(copies_suffice(&problem));
        let mut weights = Weights::new(&problem);
        assert!(refutes(&mut weights, &problem));
        assert!(!brute_force(&slots, &cluster));
        // 6 + 2 and 6 + 2 fit: nothing may refute that.
        let slots = crate::model::node_slots(&[PoolSpec::with_slots([6, 6, 2, 2])]);
        let problem = Problem::build(&slots, &cluster);
        assert!(!refutes(&mut Weights::new(&problem), &problem));
    }

    #[test]
    fn learned_effort_tries_the_successful_weighting_first() {
        let cluster = Cluster::new(vec![node("a", 8, 96), node("b", 8, 96)]);
        let slots: Vec<NodeSlot> = crate::model::node_slots(&[PoolSpec::with_slots([6, 6, 4])]);
        let problem = Problem::build(&slots, &cluster);
        let mut weights = Weights::new(&problem);
        assert!(refutes(&mut weights, &problem));
        let hit = weights.hits.iter().position(|&h| h > 0);
        assert!(hit.is_some());
        assert_eq!(weights.chosen(Effort::Learned)[0], hit.unwrap_or(0));
        // One more besides, in turn, never the successful one twice.
        let chosen = weights.chosen(Effort::Learned);
        assert_eq!(chosen.len(), 2.min(weights.families.len()));
        assert_ne!(chosen.get(1), hit.as_ref());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Each weighting on its own: a refutation of an instance that has a placement
        /// fails here, whichever weighting made it.
        #[test]
        fn every_weighting_alone_refutes_only_what_has_no_placement(
            (slots, cluster) in tight_case(),
        ) {
            let problem = Problem::build(&slots, &cluster);
            let all = Weights::new(&problem);
            for family in &all.families {
                if refutes(&mut only(family), &problem) {
                    prop_assert!(!brute_force(&slots, &cluster), "weights {:?}", family);
                }
            }
        }
    }
}
