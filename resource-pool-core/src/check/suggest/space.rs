//! The layouts a suggestion is chosen from: every pool's choices, bounded by what the
//! cluster can hold of that pool alone, and the layouts of one total in the search order.

use std::cmp::Ordering;
use std::collections::HashMap;

use super::Budget;
use crate::model::{Cluster, ResourceName, ResourcePool};
use crate::placement::fill_vector;

/// How a pool may change in a suggested layout (see the module docs of
/// [`super`](crate::check::suggest)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reshape {
    /// Keep the node-slot sizes; lose node-slots from the end.
    Trim,
    /// `size × count` becomes `s × k`: `s` a divisor of `size`, `s·k ≤ size·count`.
    Split,
}

/// What one pool becomes in a suggested layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PoolChoice {
    /// Accelerators over its node-slots.
    pub accelerators: u64,
    /// Its node-slot size: `s` of a split, the first slot's size of a trim.
    pub size: u32,
    /// Its node-slots: the first `count` of the list (trim), or `count` of `size` (split).
    pub count: u32,
    /// How it was reshaped.
    pub reshape: Reshape,
    /// Whether it differs from the pool as written.
    pub changed: bool,
}

impl PoolChoice {
    /// The node-slots of this choice for a pool written as `original`.
    pub fn process_on_nodes(&self, original: &[u32]) -> Vec<u32> {
        match self.reshape {
            Reshape::Trim => original.iter().copied().take(self.count as usize).collect(),
            Reshape::Split => vec![self.size; self.count as usize],
        }
    }
}

/// The search space of one cluster state.
pub(super) struct Space {
    /// Per pool, its choices: accelerators descending, then size descending.
    pub choices: Vec<Vec<PoolChoice>>,
    /// Whether some pool's choices were cut (by [`MAX_CHOICES`] or the budget): the space
    /// is incomplete and no answer from it may claim to be the best.
    pub truncated: bool,
    /// Per pool, one bundle's demand over `names`: a pool of `a` accelerators asks `a`
    /// times this in total.
    bundles: Vec<Vec<u64>>,
    /// What the alive nodes have free in total, over `names`.
    free: Vec<u64>,
    /// The largest total worth trying.
    pub top: u64,
    /// The smallest total there is.
    pub bottom: u64,
    /// Every total is a multiple of it.
    pub step: u64,
    /// `min_rest[i]`, `max_rest[i]`: the least and most accelerators pools `i..` can add.
    min_rest: Vec<u64>,
    max_rest: Vec<u64>,
}

/// How many slots of `demand` a node of `cap` holds (`u64::MAX` for a demand of nothing).
fn copies(demand: &[u64], cap: &[u64]) -> u64 {
    demand
        .iter()
        .zip(cap)
        .filter(|(d, _)| **d > 0)
        .map(|(d, c)| c / d)
        .min()
        .unwrap_or(u64::MAX)
}

/// Copies of `size` bundles of `bundle` that the node classes hold, each class alone
/// (saturating).
fn room(bundle: &[u64], size: u32, classes: &[(Vec<u64>, u64)]) -> u64 {
    let demand: Vec<u64> = bundle
        .iter()
        .map(|b| b.saturating_mul(u64::from(size)))
        .collect();
    classes.iter().fold(0u64, |sum, (cap, count)| {
        sum.saturating_add(copies(&demand, cap).saturating_mul(*count))
    })
}

fn divisors(n: u32) -> Vec<u32> {
    let mut small = Vec::new();
    let mut large = Vec::new();
    let mut d = 1u32;
    while u64::from(d) * u64::from(d) <= u64::from(n) {
        if n.is_multiple_of(d) {
            small.push(d);
            if d != n / d {
                large.push(n / d);
            }
        }
        d += 1;
    }
    large.reverse();
    small.extend(large);
    small
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The most choices one pool may have; past it the search says undecided instead of
/// allocating more (only a cluster of absurd amounts gets there).
pub(super) const MAX_CHOICES: u64 = 1 << 20;

/// The choices of a pool written as `size × count` that may split; `None` past
/// [`MAX_CHOICES`] or the budget.
fn split_choices(
    size: u32,
    count: usize,
    bundle: &[u64],
    classes: &[(Vec<u64>, u64)],
    budget: &mut Budget,
) -> Option<Vec<PoolChoice>> {
    let asked = u64::from(size).saturating_mul(count as u64);
    let mut out = Vec::new();
    for s in divisors(size) {
        // A count past the nodes' copies fits no cluster state this one can be in.
        let most = (asked / u64::from(s))
            .min(room(bundle, s, classes))
            .min(u64::from(u32::MAX));
        if out.len() as u64 + most > MAX_CHOICES || !budget.tick(most.saturating_add(1)) {
            return None;
        }
        for k in 1..=most {
            out.push(PoolChoice {
                accelerators: u64::from(s) * k,
                size: s,
                count: k as u32,
                reshape: Reshape::Split,
                changed: s != size || k != count as u64,
            });
        }
    }
    Some(out)
}

/// The choices of a pool that keeps its slot sizes: its prefixes, up to the longest whose
/// slots pass the per-size bound (for each size, the slots at least as large number no
/// more than the copies of it the nodes hold).
fn trim_choices(
    slots: &[u32],
    bundle: &[u64],
    classes: &[(Vec<u64>, u64)],
    budget: &mut Budget,
) -> Vec<PoolChoice> {
    let mut sizes: Vec<u32> = slots.to_vec();
    sizes.sort_unstable();
    sizes.dedup();
    let rooms: Vec<u64> = sizes.iter().map(|&s| room(bundle, s, classes)).collect();
    let mut need = vec![0u64; sizes.len()];
    let mut out = Vec::new();
    let mut accelerators = 0u64;
    for (k, &x) in slots.iter().enumerate() {
        if !budget.tick(1) {
            break;
        }
        let at = sizes.partition_point(|&s| s <= x);
        let mut fits = true;
        for (n, r) in need[..at].iter_mut().zip(&rooms) {
            *n += 1;
            fits &= *n <= *r;
        }
        if !fits {
            break;
        }
        accelerators = accelerators.saturating_add(u64::from(x));
        out.push(PoolChoice {
            accelerators,
            size: slots[0],
            count: (k + 1) as u32,
            reshape: Reshape::Trim,
            changed: k + 1 != slots.len(),
        });
    }
    out
}

impl Space {
    /// The space of `pools` on `cluster`: interns the demanded resources and the alive
    /// nodes' free amounts once, then builds every pool's choices.
    pub fn new(
        pools: &[ResourcePool],
        reshape: &[Reshape],
        cluster: &Cluster,
        budget: &mut Budget,
    ) -> Space {
        let bundles_res: Vec<_> = pools.iter().map(|p| p.spec.bundle()).collect();
        let mut names: Vec<ResourceName> = Vec::new();
        for bundle in &bundles_res {
            for (name, _) in bundle.entries() {
                if let Err(i) = names.binary_search(name) {
                    names.insert(i, name.clone());
                }
            }
        }
        let dims = names.len();
        let bundles: Vec<Vec<u64>> = bundles_res
            .iter()
            .map(|b| {
                let mut v = vec![0; dims];
                fill_vector(b, &names, &mut v);
                v
            })
            .collect();
        let mut index: HashMap<Vec<u64>, usize> = HashMap::new();
        let mut classes: Vec<(Vec<u64>, u64)> = Vec::new();
        let mut free = vec![0u64; dims];
        let mut buf = vec![0u64; dims];
        for node in cluster.alive() {
            fill_vector(&node.available, &names, &mut buf);
            for (f, b) in free.iter_mut().zip(&buf) {
                *f = f.saturating_add(*b);
            }
            match index.get(&buf) {
                Some(&c) => classes[c].1 += 1,
                None => {
                    index.insert(buf.clone(), classes.len());
                    classes.push((buf.clone(), 1));
                }
            }
        }
        budget.tick(classes.len() as u64);
        let mut truncated = false;
        let choices: Vec<Vec<PoolChoice>> = pools
            .iter()
            .zip(&bundles)
            .enumerate()
            .map(|(i, (pool, bundle))| {
                let slots = &pool.spec.process_on_nodes;
                let split = reshape.get(i) == Some(&Reshape::Split) && pool.spec.is_even();
                let mut list = match slots.first() {
                    Some(&size) if split => {
                        split_choices(size, slots.len(), bundle, &classes, budget).unwrap_or_else(
                            || {
                                truncated = true;
                                Vec::new()
                            },
                        )
                    }
                    _ => trim_choices(slots, bundle, &classes, budget),
                };
                list.sort_by(|a, b| {
                    b.accelerators
                        .cmp(&a.accelerators)
                        .then(b.size.cmp(&a.size))
                });
                list
            })
            .collect();
        let p = choices.len();
        let mut min_rest = vec![0u64; p + 1];
        let mut max_rest = vec![0u64; p + 1];
        for i in (0..p).rev() {
            let most = choices[i].first().map_or(0, |c| c.accelerators);
            let least = choices[i].last().map_or(0, |c| c.accelerators);
            max_rest[i] = max_rest[i + 1].saturating_add(most);
            min_rest[i] = min_rest[i + 1].saturating_add(least);
        }
        let asked: u64 = pools.iter().map(ResourcePool::world_size).sum();
        let accelerators_free: u64 = pools
            .iter()
            .map(|p| p.spec.accelerator.resource_name())
            .fold(Vec::new(), |mut kinds: Vec<&str>, k| {
                if !kinds.contains(&k) {
                    kinds.push(k);
                }
                kinds
            })
            .iter()
            .filter_map(|k| names.iter().position(|n| n.as_str() == *k))
            .map(|r| free[r] / crate::model::Amount::SCALE)
            .fold(0u64, u64::saturating_add);
        let step = choices
            .iter()
            .flatten()
            .fold(0u64, |g, c| gcd(g, c.accelerators))
            .max(1);
        let top = asked.min(max_rest[0]).min(accelerators_free);
        Space {
            choices,
            truncated: truncated || budget.exhausted.is_some(),
            bundles,
            free,
            top: top - top % step,
            bottom: min_rest[0],
            step,
            min_rest,
            max_rest,
        }
    }

    /// Whether some pool has no choice at all: nothing of this shape fits.
    pub fn empty(&self) -> bool {
        self.choices.iter().any(Vec::is_empty)
    }

    /// Appends to `out` every layout of `total` accelerators (one choice index per pool,
    /// flattened). `false` when the budget ran out first.
    pub fn layouts_of(&self, total: u64, budget: &mut Budget, out: &mut Vec<u32>) -> bool {
        let p = self.choices.len();
        if p == 0 {
            return true;
        }
        // Depth-first over pools on an explicit stack: `pick[i]` is pool i's choice,
        // `rem[i]` what pools i.. must add.
        let mut pick = vec![0usize; p];
        let mut rem = vec![0u64; p + 1];
        rem[0] = total;
        let first = |i: usize, rem: u64| -> usize {
            // Choices larger than what remains, less what the later pools must add.
            let most = rem.saturating_sub(self.min_rest[i + 1]);
            self.choices[i].partition_point(|c| c.accelerators > most)
        };
        let mut level = 0;
        pick[0] = first(0, total);
        loop {
            if !budget.tick(1) {
                return false;
            }
            let list = &self.choices[level];
            let fits = pick[level] < list.len()
                && list[pick[level]]
                    .accelerators
                    .saturating_add(self.max_rest[level + 1])
                    >= rem[level];
            if !fits {
                // Every later choice is smaller still: back to the pool before.
                if level == 0 {
                    return true;
                }
                level -= 1;
                pick[level] += 1;
                continue;
            }
            let a = list[pick[level]].accelerators;
            if level + 1 == p {
                // The last pool takes exactly what remains: every choice of that size.
                let mut j = pick[level];
                while j < list.len() && list[j].accelerators == rem[level] {
                    pick[level] = j;
                    out.extend(pick.iter().map(|&x| x as u32));
                    j += 1;
                }
                if level == 0 {
                    return true;
                }
                level -= 1;
                pick[level] += 1;
                continue;
            }
            rem[level + 1] = rem[level] - a;
            level += 1;
            pick[level] = first(level, rem[level]);
        }
    }

    /// Whether the layout's summed demand of every resource is at most what is free.
    pub fn within_free(&self, layout: &[u32]) -> bool {
        (0..self.free.len()).all(|r| {
            let need: u128 = layout
                .iter()
                .enumerate()
                .map(|(i, &j)| {
                    u128::from(self.choices[i][j as usize].accelerators)
                        * u128::from(self.bundles[i][r])
                })
                .sum();
            need <= u128::from(self.free[r])
        })
    }

    /// The search order among layouts of one total: fewest pools changed, then the
    /// earliest pools' accelerators (larger first), then their slot sizes (larger first).
    pub fn rank(&self, a: &[u32], b: &[u32]) -> Ordering {
        let choice = |l: &[u32], i: usize| &self.choices[i][l[i] as usize];
        let changed = |l: &[u32]| (0..l.len()).filter(|&i| choice(l, i).changed).count();
        changed(a)
            .cmp(&changed(b))
            .then_with(|| {
                (0..a.len())
                    .map(|i| choice(b, i).accelerators.cmp(&choice(a, i).accelerators))
                    .find(|o| o.is_ne())
                    .unwrap_or(Ordering::Equal)
            })
            .then_with(|| {
                (0..a.len())
                    .map(|i| choice(b, i).size.cmp(&choice(a, i).size))
                    .find(|o| o.is_ne())
                    .unwrap_or(Ordering::Equal)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divisors_in_order() {
        assert_eq!(divisors(8), [1, 2, 4, 8]);
        assert_eq!(divisors(12), [1, 2, 3, 4, 6, 12]);
        assert_eq!(divisors(1), [1]);
        assert_eq!(divisors(7), [1, 7]);
    }

    #[test]
    fn copies_are_the_tightest_resource() {
        assert_eq!(copies(&[2, 3], &[9, 9]), 3);
        assert_eq!(copies(&[0, 4], &[0, 9]), 2);
        assert_eq!(copies(&[0, 0], &[1, 1]), u64::MAX);
    }
}
