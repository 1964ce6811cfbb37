//! The layouts a suggestion is chosen from: the pools' choices ([`super::choices`])
//! combined, and the layouts of one total in the search order.

use std::collections::HashMap;

use super::Budget;
use super::choices::{Choices, PoolChoice, Reshape, gcd};
use crate::model::{Cluster, ResourceName, ResourcePool, Resources};
use crate::placement::fill_vector;

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
    /// nodes' free amounts once, then bounds every pool's choices. `multiples[i]`: pool
    /// `i`'s accelerators must be a multiple of it (1 when not listed).
    pub fn new(
        pools: &[ResourcePool],
        reshape: &[Reshape],
        multiples: &[u64],
        cluster: &Cluster,
        budget: &mut Budget,
    ) -> Space {
        let bundles_res: Vec<_> = pools.iter().map(|p| p.spec.bundle()).collect();
        let names = demanded_names(&bundles_res);
        let dims = names.len();
        let bundles: Vec<Vec<u64>> = bundles_res
            .iter()
            .map(|b| {
                let mut v = vec![0; dims];
                fill_vector(b, &names, &mut v);
                v
            })
            .collect();
        let (classes, free) = node_classes(cluster, &names);
        budget.tick(classes.len() as u64);
        let choices: Vec<Choices> = pools
            .iter()
            .zip(&bundles)
            .enumerate()
            .map(|(i, (pool, bundle))| {
                let split = reshape
                    .get(i)
                    .copied()
                    .filter(|r| r.splits() && pool.spec.is_even());
                let multiple = multiples.get(i).copied().unwrap_or(1);
                budget.tick(classes.len() as u64);
                Choices::new(
                    &pool.spec.process_on_nodes,
                    split,
                    multiple,
                    bundle,
                    &classes,
                    budget,
                )
            })
            .collect();
        let (min_rest, max_rest) = rest_bounds(&choices);
        let written: Vec<u64> = pools.iter().map(ResourcePool::world_size).collect();
        let keep_rest = keep_rest(&choices, &written);
        let asked: u64 = written.iter().sum();
        let step = choices.iter().fold(0u64, |g, c| gcd(g, c.step())).max(1);
        let top = asked
            .min(max_rest[0])
            .min(accelerators_free(pools, &names, &free));
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

/// The resources the bundles demand, sorted and once each.
fn demanded_names(bundles: &[Resources]) -> Vec<ResourceName> {
    let mut names: Vec<ResourceName> = Vec::new();
    for bundle in bundles {
        for (name, _) in bundle.entries() {
            if let Err(i) = names.binary_search(name) {
                names.insert(i, name.clone());
            }
        }
    }
    names
}

/// The alive nodes as classes of equal free amounts over `names` (each with its count), and
/// what they have free in total.
fn node_classes(cluster: &Cluster, names: &[ResourceName]) -> (Vec<(Vec<u64>, u64)>, Vec<u64>) {
    let dims = names.len();
    let mut index: HashMap<Vec<u64>, usize> = HashMap::new();
    let mut classes: Vec<(Vec<u64>, u64)> = Vec::new();
    let mut free = vec![0u64; dims];
    let mut buf = vec![0u64; dims];
    for node in cluster.alive() {
        fill_vector(&node.available, names, &mut buf);
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
    (classes, free)
}

/// `min_rest[i]`, `max_rest[i]`: the least and most accelerators pools `i..` can add.
fn rest_bounds(choices: &[Choices]) -> (Vec<u64>, Vec<u64>) {
    let p = choices.len();
    let mut min_rest = vec![0u64; p + 1];
    let mut max_rest = vec![0u64; p + 1];
    for i in (0..p).rev() {
        max_rest[i] = max_rest[i + 1].saturating_add(choices[i].most());
        min_rest[i] = min_rest[i + 1].saturating_add(choices[i].least());
    }
    (min_rest, max_rest)
}

/// `keep_rest[i]`: what pools `i..` add when none changes from `written` (`None` when one
/// cannot keep its layout as written).
fn keep_rest(choices: &[Choices], written: &[u64]) -> Vec<Option<u64>> {
    let p = choices.len();
    let mut keep_rest: Vec<Option<u64>> = vec![Some(0); p + 1];
    for i in (0..p).rev() {
        keep_rest[i] = keep_rest[i + 1]
            .filter(|_| choices[i].keeps(written[i]))
            .map(|rest| rest.saturating_add(written[i]));
    }
    keep_rest
}

/// The whole accelerators of the pools' kinds that the alive nodes have free (`free`, over
/// `names`), in total.
fn accelerators_free(pools: &[ResourcePool], names: &[ResourceName], free: &[u64]) -> u64 {
    let mut kinds: Vec<&str> = pools
        .iter()
        .map(|p| p.spec.accelerator.resource_name())
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    kinds
        .iter()
        .filter_map(|k| names.iter().position(|n| n.as_str() == *k))
        .map(|r| free[r] / crate::model::Amount::SCALE)
        .fold(0u64, u64::saturating_add)
}
