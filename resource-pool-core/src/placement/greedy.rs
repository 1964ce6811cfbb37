//! The heuristics: batched greedy packings over bins (a multiset of remaining-capacity
//! vectors with counts: nodes whose remaining capacities are equal are one bin).

use super::budget::Budget;
use super::plan::Move;
use super::problem::{Problem, VecMap, fits};

/// Weights that make resources comparable: one over the largest capacity of each.
pub(crate) fn scales(problem: &Problem) -> Vec<f64> {
    (0..problem.dims())
        .map(|r| {
            let max = problem.classes.iter().map(|c| c.cap[r]).max().unwrap_or(0);
            if max == 0 { 0.0 } else { 1.0 / max as f64 }
        })
        .collect()
}

pub(crate) fn size(v: &[u64], scales: &[f64]) -> f64 {
    v.iter().zip(scales).map(|(&x, s)| x as f64 * s).sum()
}

/// Slot types, largest first (ties by index: deterministic).
pub(crate) fn types_by_size(problem: &Problem, scales: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..problem.types.len()).collect();
    let sizes: Vec<f64> = problem
        .types
        .iter()
        .map(|t| size(&t.demand, scales))
        .collect();
    order.sort_by(|&a, &b| sizes[b].total_cmp(&sizes[a]).then(a.cmp(&b)));
    order
}

/// How bins are visited by the greedy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinOrder {
    /// Tightest first: best fit.
    Tightest,
    /// Emptiest first: worst fit.
    Emptiest,
    /// In cluster order: first fit.
    Given,
}

/// Most slots of demand `d` that fit in `cap`, at most `limit`.
fn per_node(cap: &[u64], d: &[u64], limit: u64) -> u64 {
    let mut k = limit;
    for (&c, &x) in cap.iter().zip(d) {
        if let Some(q) = c.checked_div(x) {
            k = k.min(q);
        }
    }
    k
}

fn sub_times(cap: &[u64], d: &[u64], k: u64) -> Vec<u64> {
    cap.iter()
        .zip(d)
        .map(|(&c, &x)| c.saturating_sub(x.saturating_mul(k)))
        .collect()
}

/// A batched greedy: slot types in `order`, each placed as densely as it goes on the bins
/// in `bins` order. Returns the plan and how many slots of each type it placed (`full`:
/// stop at the first type that does not fit entirely).
pub(crate) fn greedy(
    problem: &Problem,
    order: &[usize],
    bin_order: BinOrder,
    scales: &[f64],
    full: bool,
    budget: &mut Budget,
) -> Option<(Vec<Move>, Vec<u64>)> {
    let mut bins: Vec<(Vec<u64>, u64)> = problem
        .classes
        .iter()
        .map(|c| (c.cap.clone(), c.count as u64))
        .collect();
    let mut moves = Vec::new();
    let mut placed = vec![0u64; problem.types.len()];
    for &t in order {
        let d = &problem.types[t].demand;
        let mut m = problem.types[t].slots.len() as u64;
        let mut idx: Vec<usize> = (0..bins.len()).collect();
        match bin_order {
            BinOrder::Given => {}
            BinOrder::Tightest | BinOrder::Emptiest => {
                let sizes: Vec<f64> = bins.iter().map(|b| size(&b.0, scales)).collect();
                idx.sort_by(|&a, &b| {
                    let o = sizes[a].total_cmp(&sizes[b]);
                    if bin_order == BinOrder::Tightest {
                        o
                    } else {
                        o.reverse()
                    }
                });
            }
        }
        if !budget.tick(bins.len() as u64 + 1) {
            return None;
        }
        for i in idx {
            if m == 0 {
                break;
            }
            let k = per_node(&bins[i].0, d, m);
            if k == 0 || bins[i].1 == 0 || !fits(d, &bins[i].0) {
                continue;
            }
            let n = bins[i].1;
            let filled = n.min(m / k);
            if filled > 0 {
                moves.push(Move {
                    ty: t,
                    from: bins[i].0.clone(),
                    per_node: k,
                    nodes: filled,
                });
                let to = sub_times(&bins[i].0, d, k);
                bins[i].1 -= filled;
                bins.push((to, filled));
                m -= filled * k;
            }
            if m > 0 && m < k && bins[i].1 > 0 {
                moves.push(Move {
                    ty: t,
                    from: bins[i].0.clone(),
                    per_node: m,
                    nodes: 1,
                });
                let to = sub_times(&bins[i].0, d, m);
                bins[i].1 -= 1;
                bins.push((to, 1));
                m = 0;
            }
        }
        placed[t] = problem.types[t].slots.len() as u64 - m;
        if m > 0 && full {
            return None;
        }
        // Merge equal capacities, keeping first-appearance order.
        let mut merged: Vec<(Vec<u64>, u64)> = Vec::with_capacity(bins.len());
        let mut at: VecMap<usize> = VecMap::default();
        for (cap, count) in bins {
            if count == 0 {
                continue;
            }
            match at.get(&cap) {
                Some(&j) => merged[j].1 += count,
                None => {
                    at.insert(cap.clone(), merged.len());
                    merged.push((cap, count));
                }
            }
        }
        bins = merged;
    }
    Some((moves, placed))
}
