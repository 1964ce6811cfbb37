//! The heaviest set of slots one node can hold: a bounded knapsack over every demanded
//! resource at once, solved exactly by depth-first branch and bound, or bounded from above
//! when that would take too long.
//!
//! The weighted bounds ([`super::bounds`]) need only an upper bound on this maximum to
//! stay sound; the closer it is to the true maximum, the more they refute.

use super::bounds::copies;

/// One kind of item: its demand vector, its weight and how many there are.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Item<'a> {
    pub demand: &'a [u64],
    pub weight: u64,
    pub count: u64,
}

/// The most knapsack nodes one call explores before it settles for an upper bound.
pub(crate) const EXACT_NODES: u64 = 4_096;

/// The most item kinds solved exactly (the recursion goes one level per kind).
const EXACT_KINDS: usize = 64;

/// An upper bound on the largest total weight of items (at most `count` of each) whose
/// demands fit `cap` together, exact unless the search needed more than `EXACT_NODES`
/// nodes; `work` is increased by the nodes explored. `items` should come heaviest first
/// (the search finds good sets sooner).
pub(crate) fn max_weight(items: &[Item<'_>], cap: &[u64], work: &mut u64) -> u128 {
    let fitting: Vec<Item<'_>> = items
        .iter()
        .filter(|it| it.weight > 0 && it.count > 0 && fits(it.demand, cap))
        .copied()
        .collect();
    let relaxed = relaxation(&fitting, cap);
    if fitting.is_empty() || fitting.len() > EXACT_KINDS {
        return relaxed;
    }
    let mut search = Search {
        items: &fitting,
        best: 0,
        nodes: 0,
        aborted: false,
    };
    let mut rest = cap.to_vec();
    search.go(0, &mut rest, 0);
    *work = work.saturating_add(search.nodes);
    if search.aborted { relaxed } else { search.best }
}

fn fits(demand: &[u64], cap: &[u64]) -> bool {
    demand.iter().zip(cap).all(|(d, c)| d <= c)
}

/// A quick upper bound: the smaller of (a) every kind's weight times the copies that fit
/// alone, summed, and (b) per resource that every fitting kind asks for, the capacity
/// times the best weight per unit of it, rounded down (the maximum is an integer no larger
/// than that product). Exact integers: no rounding can make it too small.
fn relaxation(items: &[Item<'_>], cap: &[u64]) -> u128 {
    let mut each: u128 = 0;
    for it in items {
        let k = it.count.min(copies(it.demand, cap));
        each = each.saturating_add(u128::from(it.weight).saturating_mul(u128::from(k)));
    }
    let mut best = each;
    for (r, &c) in cap.iter().enumerate() {
        if items.iter().any(|it| it.demand[r] == 0) {
            continue;
        }
        let ratio = items
            .iter()
            .map(|it| {
                u128::from(c).saturating_mul(u128::from(it.weight)) / u128::from(it.demand[r])
            })
            .max()
            .unwrap_or(0);
        best = best.min(ratio);
    }
    best
}

struct Search<'s, 'a> {
    items: &'s [Item<'a>],
    best: u128,
    nodes: u64,
    aborted: bool,
}

impl Search<'_, '_> {
    /// Items `i..` into `rest`, `value` gained so far.
    fn go(&mut self, i: usize, rest: &mut [u64], value: u128) {
        if self.aborted {
            return;
        }
        self.nodes += 1;
        if self.nodes > EXACT_NODES {
            self.aborted = true;
            return;
        }
        if value > self.best {
            self.best = value;
        }
        if i == self.items.len()
            || value.saturating_add(relaxation(&self.items[i..], rest)) <= self.best
        {
            return;
        }
        let it = self.items[i];
        let most = it.count.min(copies(it.demand, rest));
        // Most copies first: heavy sets are found early and prune the rest.
        for k in (0..=most).rev() {
            for (c, d) in rest.iter_mut().zip(it.demand) {
                *c -= d * k;
            }
            let gain = u128::from(it.weight).saturating_mul(u128::from(k));
            self.go(i + 1, rest, value.saturating_add(gain));
            for (c, d) in rest.iter_mut().zip(it.demand) {
                *c += d * k;
            }
            if self.aborted {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Every choice of counts, the heaviest that fits.
    fn brute(items: &[(Vec<u64>, u64, u64)], cap: &[u64]) -> u128 {
        fn go(items: &[(Vec<u64>, u64, u64)], rest: &mut Vec<u64>) -> u128 {
            let Some(((d, w, n), tail)) = items.split_first() else {
                return 0;
            };
            let mut best = 0;
            for k in 0..=*n {
                if !d.iter().zip(rest.iter()).all(|(x, c)| x * k <= *c) {
                    break;
                }
                rest.iter_mut().zip(d).for_each(|(c, x)| *c -= x * k);
                best = best.max(u128::from(*w) * u128::from(k) + go(tail, rest));
                rest.iter_mut().zip(d).for_each(|(c, x)| *c += x * k);
            }
            best
        }
        go(items, &mut cap.to_vec())
    }

    proptest! {
        #[test]
        fn exact_on_small_instances_and_never_below(
            items in prop::collection::vec(
                (prop::collection::vec(0u64..=9, 2), 0u64..=12, 0u64..=3), 0..=7),
            cap in prop::collection::vec(0u64..=20, 2),
        ) {
            let kinds: Vec<Item<'_>> = items
                .iter()
                .map(|(d, w, n)| Item { demand: d, weight: *w, count: *n })
                .collect();
            let mut work = 0;
            let got = max_weight(&kinds, &cap, &mut work);
            prop_assert_eq!(got, brute(&items, &cap));
            prop_assert!(relaxation(&kinds, &cap) >= got);
        }
    }

    #[test]
    fn demands_of_nothing_are_bounded_by_their_count() {
        let none = [0u64, 0];
        let one = [1u64, 0];
        let items = [
            Item {
                demand: &none,
                weight: 3,
                count: 2,
            },
            Item {
                demand: &one,
                weight: 5,
                count: 9,
            },
        ];
        let mut work = 0;
        assert_eq!(max_weight(&items, &[4, 0], &mut work), 6 + 20);
    }
}
