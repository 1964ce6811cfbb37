//! The layouts a suggestion is chosen from: every pool's choices, bounded by what the
//! cluster can hold of that pool alone, and the layouts of one total in the search order.

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
    /// verl's `n_gpus_per_node × nnodes`, where `nnodes` counts machines (more node-slots
    /// than alive nodes is verl's own `nnodes_vs_cluster` warning): `size × count` becomes
    /// `s × k` with `s·k ≤ size·count`, `s` a divisor of `size` or a power of two (verl's
    /// `n_gpus_per_node` need not divide the one written, but its parallel groups want
    /// even sizes) and `k` at most the alive nodes that hold one node-slot of `s`.
    Spread,
}

impl Reshape {
    /// Whether it is a split (`size × count` → `s × k`), spread or not.
    pub fn splits(self) -> bool {
        matches!(self, Reshape::Split | Reshape::Spread)
    }
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
            Reshape::Split | Reshape::Spread => vec![self.size; self.count as usize],
        }
    }
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
/// (saturating); one per node at most when `one_per_node`.
fn room(bundle: &[u64], size: u32, classes: &[(Vec<u64>, u64)], one_per_node: bool) -> u64 {
    let demand: Vec<u64> = bundle
        .iter()
        .map(|b| b.saturating_mul(u64::from(size)))
        .collect();
    classes.iter().fold(0u64, |sum, (cap, count)| {
        let per_node = copies(&demand, cap);
        let per_node = if one_per_node {
            per_node.min(1)
        } else {
            per_node
        };
        sum.saturating_add(per_node.saturating_mul(*count))
    })
}

/// The largest power of two a [`Reshape::Spread`] tries beyond the divisors of the size
/// written.
const MAX_SPREAD_SIZE: u32 = 256;

/// The divisors of `n`, ascending.
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
    let rooms: Vec<u64> = sizes
        .iter()
        .map(|&s| room(bundle, s, classes, false))
        .collect();
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

/// One pool's choices. A trimmed pool's are listed (at most its node-slots); a split
/// pool's are `s × k` for every divisor `s` and `k` up to a bound per size, computed when
/// asked (a pool of 100,000 nodes has millions of them, and the search looks at a few).
#[derive(Clone, Debug)]
enum Choices {
    /// Prefixes of the list, accelerators descending (each total once).
    Listed(Vec<PoolChoice>),
    /// `size × count` as written; `sizes`: each divisor `s` (descending) that fits some
    /// node, and the most slots of `s` the nodes hold (at most what keeps `s·k` within
    /// `size·count`).
    Split {
        size: u32,
        count: u32,
        sizes: Vec<(u32, u64)>,
        /// [`Reshape::Split`] or [`Reshape::Spread`].
        reshape: Reshape,
    },
}

impl Choices {
    fn split(
        size: u32,
        count: usize,
        bundle: &[u64],
        classes: &[(Vec<u64>, u64)],
        reshape: Reshape,
    ) -> Choices {
        let asked = u64::from(size).saturating_mul(count as u64);
        let spread = reshape == Reshape::Spread;
        let mut candidates = divisors(size);
        if spread {
            // verl's `n_gpus_per_node` need not divide the one written: `nnodes=6,
            // n_gpus_per_node=1` on one 8-GPU node of 16 CPUs becomes one node-slot of 4. The
            // powers of two are tried, not every count: verl splits its world into
            // tensor-parallel groups (2 by default) and its batches by the world size, which
            // an odd count like 5 breaks. Larger slots fit fewer nodes, so the sizes stop at
            // the first that fits none.
            let most = u32::try_from(asked)
                .unwrap_or(u32::MAX)
                .min(MAX_SPREAD_SIZE);
            candidates.extend(
                std::iter::successors(Some(1u32), |s| s.checked_mul(2))
                    .take_while(|&s| s <= most && room(bundle, s, classes, true) > 0),
            );
            candidates.sort_unstable();
            candidates.dedup();
        }
        let mut sizes: Vec<(u32, u64)> = candidates
            .into_iter()
            .map(|s| {
                // A count past the nodes' copies fits no cluster state this one can be in.
                let most = (asked / u64::from(s))
                    .min(room(bundle, s, classes, spread))
                    .min(u64::from(u32::MAX));
                (s, most)
            })
            .filter(|&(_, most)| most > 0)
            .collect();
        sizes.reverse();
        Choices::Split {
            size,
            count: u32::try_from(count).unwrap_or(u32::MAX),
            sizes,
            reshape,
        }
    }

    fn is_empty(&self) -> bool {
        match self {
            Choices::Listed(list) => list.is_empty(),
            Choices::Split { sizes, .. } => sizes.is_empty(),
        }
    }

    /// The most accelerators of a choice (0 when there is none).
    fn most(&self) -> u64 {
        self.at_most(u64::MAX).unwrap_or(0)
    }

    /// The fewest accelerators of a choice (0 when there is none).
    fn least(&self) -> u64 {
        match self {
            Choices::Listed(list) => list.last().map_or(0, |c| c.accelerators),
            Choices::Split { sizes, .. } => {
                sizes.iter().map(|&(s, _)| u64::from(s)).min().unwrap_or(0)
            }
        }
    }

    /// Every choice's accelerators are a multiple of it (0 when there is no choice).
    fn step(&self) -> u64 {
        match self {
            Choices::Listed(list) => list.iter().fold(0, |g, c| gcd(g, c.accelerators)),
            Choices::Split { sizes, .. } => sizes.iter().fold(0, |g, &(s, _)| gcd(g, u64::from(s))),
        }
    }

    /// The most accelerators of a choice that has at most `x`.
    fn at_most(&self, x: u64) -> Option<u64> {
        match self {
            Choices::Listed(list) => {
                let i = list.partition_point(|c| c.accelerators > x);
                list.get(i).map(|c| c.accelerators)
            }
            Choices::Split { sizes, .. } => sizes
                .iter()
                .filter(|&&(s, _)| u64::from(s) <= x)
                .map(|&(s, most)| u64::from(s) * most.min(x / u64::from(s)))
                .max(),
        }
    }

    /// Whether some choice of `a` accelerators is the pool as written.
    fn keeps(&self, a: u64) -> bool {
        match self {
            Choices::Listed(list) => list
                .first()
                .is_some_and(|c| !c.changed && c.accelerators == a),
            Choices::Split {
                size, count, sizes, ..
            } => {
                u64::from(*size) * u64::from(*count) == a
                    && sizes
                        .iter()
                        .any(|&(s, most)| s == *size && most >= u64::from(*count))
            }
        }
    }

    /// Appends the choices of exactly `a` accelerators, larger slots first.
    fn with(&self, a: u64, out: &mut Vec<PoolChoice>) {
        match self {
            Choices::Listed(list) => {
                let i = list.partition_point(|c| c.accelerators > a);
                out.extend(list[i..].iter().take_while(|c| c.accelerators == a));
            }
            Choices::Split {
                size,
                count,
                sizes,
                reshape,
            } => {
                for &(s, most) in sizes {
                    let k = a / u64::from(s);
                    if a.is_multiple_of(u64::from(s)) && k >= 1 && k <= most {
                        out.push(PoolChoice {
                            accelerators: a,
                            size: s,
                            count: k as u32,
                            reshape: *reshape,
                            changed: s != *size || k != u64::from(*count),
                        });
                    }
                }
            }
        }
    }
}

/// How a walk over the layouts of one total ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Walk {
    /// Every layout was visited.
    Done,
    /// The visitor said stop.
    Stopped,
    /// The budget ran out.
    OutOfBudget,
}

/// The search space of one cluster state.
pub(super) struct Space {
    /// Per pool, its choices.
    choices: Vec<Choices>,
    /// Whether building it ran out of budget: the space is incomplete and no answer from
    /// it may claim to be the best.
    pub truncated: bool,
    /// Per pool, one bundle's demand over the demanded resources: a pool of `a`
    /// accelerators asks `a` times this in total.
    bundles: Vec<Vec<u64>>,
    /// What the alive nodes have free in total, over the demanded resources.
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
    /// Per pool, its accelerators as written.
    written: Vec<u64>,
    /// `keep_rest[i]`: what pools `i..` add when none changes (`None` when one cannot keep
    /// its layout as written on this cluster).
    keep_rest: Vec<Option<u64>>,
}

impl Space {
    /// The space of `pools` on `cluster`: interns the demanded resources and the alive
    /// nodes' free amounts once, then bounds every pool's choices.
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
        let choices: Vec<Choices> = pools
            .iter()
            .zip(&bundles)
            .enumerate()
            .map(|(i, (pool, bundle))| {
                let slots = &pool.spec.process_on_nodes;
                let split = reshape
                    .get(i)
                    .copied()
                    .filter(|r| r.splits() && pool.spec.is_even());
                budget.tick(classes.len() as u64);
                match slots.first() {
                    Some(&size) if let Some(split) = split => {
                        Choices::split(size, slots.len(), bundle, &classes, split)
                    }
                    _ => {
                        let mut list = trim_choices(slots, bundle, &classes, budget);
                        list.reverse();
                        Choices::Listed(list)
                    }
                }
            })
            .collect();
        let p = choices.len();
        let mut min_rest = vec![0u64; p + 1];
        let mut max_rest = vec![0u64; p + 1];
        for i in (0..p).rev() {
            max_rest[i] = max_rest[i + 1].saturating_add(choices[i].most());
            min_rest[i] = min_rest[i + 1].saturating_add(choices[i].least());
        }
        let written: Vec<u64> = pools.iter().map(ResourcePool::world_size).collect();
        let mut keep_rest: Vec<Option<u64>> = vec![Some(0); p + 1];
        for i in (0..p).rev() {
            keep_rest[i] = keep_rest[i + 1]
                .filter(|_| choices[i].keeps(written[i]))
                .map(|rest| rest.saturating_add(written[i]));
        }
        let asked: u64 = written.iter().sum();
        let mut kinds: Vec<&str> = pools
            .iter()
            .map(|p| p.spec.accelerator.resource_name())
            .collect();
        kinds.sort_unstable();
        kinds.dedup();
        let accelerators_free: u64 = kinds
            .iter()
            .filter_map(|k| names.iter().position(|n| n.as_str() == *k))
            .map(|r| free[r] / crate::model::Amount::SCALE)
            .fold(0u64, u64::saturating_add);
        let step = choices.iter().fold(0u64, |g, c| gcd(g, c.step())).max(1);
        let top = asked.min(max_rest[0]).min(accelerators_free);
        Space {
            choices,
            truncated: budget.exhausted.is_some(),
            bundles,
            free,
            top: top - top % step,
            bottom: min_rest[0],
            step,
            min_rest,
            max_rest,
            written,
            keep_rest,
        }
    }

    /// Whether some pool has no choice at all: nothing of this shape fits.
    pub fn empty(&self) -> bool {
        self.choices.iter().any(Choices::is_empty)
    }

    /// The largest value of pool `level` below `below` (any, when `None`) and at most what
    /// `rem` leaves after the later pools' least that can lead to a layout with at most
    /// `allowed` more pools changed: with none, only the value as written; with one, that
    /// or the value that leaves the later pools exactly as written.
    fn value_below(
        &self,
        level: usize,
        rem: u64,
        allowed: usize,
        below: Option<u64>,
    ) -> Option<u64> {
        let mut most = rem.saturating_sub(self.min_rest[level + 1]);
        if let Some(below) = below {
            most = most.min(below.checked_sub(1)?);
        }
        let choices = &self.choices[level];
        let written = self.written[level];
        let kept = (written <= most && choices.keeps(written)).then_some(written);
        match allowed {
            0 => kept,
            1 => {
                let changed = self.keep_rest[level + 1]
                    .and_then(|rest| rem.checked_sub(rest))
                    .filter(|&v| v <= most && choices.at_most(v) == Some(v));
                kept.max(changed)
            }
            _ => choices.at_most(most),
        }
    }

    /// Calls `visit` on every layout of `total` accelerators with exactly `changed` pools
    /// changed, in the search order (the pools' accelerators, larger first in pool order,
    /// then their slot sizes), until `visit` says stop. Returns whether it stopped
    /// (`Stopped`), ran out of budget, or saw every layout.
    pub fn walk(
        &self,
        total: u64,
        changed: usize,
        budget: &mut Budget,
        mut visit: impl FnMut(&[PoolChoice], &mut Budget) -> bool,
    ) -> Walk {
        let p = self.choices.len();
        if p == 0 {
            return Walk::Done;
        }
        // Depth first over pools on an explicit stack: `value[i]` is pool i's accelerators,
        // `rem[i]` what pools i.. must add, `forced[i]` how many of pools ..i must change
        // (a value other than the one written). Each pool's values are tried largest
        // first: at most what remains less what the later pools must add, at least what
        // remains less what they can add. Values are in order, and a value's choices are
        // combined larger slots first, so layouts come in the search order.
        let mut value: Vec<Option<u64>> = vec![None; p];
        let mut rem = vec![0u64; p + 1];
        let mut forced = vec![0usize; p + 1];
        rem[0] = total;
        let mut per_pool: Vec<Vec<PoolChoice>> = vec![Vec::new(); p];
        let mut layout: Vec<PoolChoice> = Vec::with_capacity(p);
        let mut level = 0;
        value[0] = self.value_below(0, total, changed, None);
        loop {
            if !budget.tick(1) {
                return Walk::OutOfBudget;
            }
            let fits = value[level]
                .is_some_and(|v| v.saturating_add(self.max_rest[level + 1]) >= rem[level]);
            if fits {
                let v = value[level].unwrap_or(0);
                forced[level + 1] = forced[level] + usize::from(!self.choices[level].keeps(v));
            }
            if fits && forced[level + 1] <= changed && level + 1 < p {
                rem[level + 1] = rem[level] - value[level].unwrap_or(0);
                level += 1;
                value[level] = self.value_below(level, rem[level], changed - forced[level], None);
                continue;
            }
            if fits && forced[level + 1] <= changed {
                // The last pool takes exactly what remains (`first` gave at most that,
                // `fits` at least): the combinations of the pools' choices of these values
                // with `changed` pools changed.
                for (i, list) in per_pool.iter_mut().enumerate() {
                    list.clear();
                    self.choices[i].with(value[i].unwrap_or(0), list);
                }
                let mut pick = vec![0usize; p];
                'product: loop {
                    if !budget.tick(1) {
                        return Walk::OutOfBudget;
                    }
                    layout.clear();
                    layout.extend(pick.iter().enumerate().map(|(i, &j)| per_pool[i][j]));
                    if layout.iter().filter(|c| c.changed).count() == changed
                        && !visit(&layout, budget)
                    {
                        return Walk::Stopped;
                    }
                    for i in (0..p).rev() {
                        pick[i] += 1;
                        if pick[i] < per_pool[i].len() {
                            continue 'product;
                        }
                        pick[i] = 0;
                    }
                    break;
                }
            }
            // Back to the next value of the pool before: this pool's later values are
            // smaller still (so they fit no better), changed when this one is (the pool
            // as written is its largest choice), and the last pool has no other value of
            // exactly what remains.
            if level == 0 {
                return Walk::Done;
            }
            level -= 1;
            value[level] =
                self.value_below(level, rem[level], changed - forced[level], value[level]);
        }
    }

    /// Whether the layout's summed demand of every resource is at most what is free.
    pub fn within_free(&self, layout: &[PoolChoice]) -> bool {
        (0..self.free.len()).all(|r| {
            let need: u128 = layout
                .iter()
                .zip(&self.bundles)
                .map(|(c, b)| u128::from(c.accelerators) * u128::from(b[r]))
                .sum();
            need <= u128::from(self.free[r])
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
