//! One pool's choices in a suggested layout: how it may change ([`Reshape`]), what it may
//! become ([`PoolChoice`]), bounded by what the cluster's nodes can hold of that pool
//! alone. [`super::space`] combines them into layouts.

use super::Budget;
use crate::placement::copies;

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

pub(super) fn gcd(mut a: u64, mut b: u64) -> u64 {
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
/// Every choice's accelerators are a multiple of the pool's `multiple` (verl's rollout
/// replica size for the pool actor_rollout runs on; 1 elsewhere).
#[derive(Clone, Debug)]
pub(super) enum Choices {
    /// Prefixes of the list, accelerators descending (each total once).
    Listed(Vec<PoolChoice>),
    /// `size × count` as written; `sizes`: each candidate `s` (descending) that fits some
    /// node, and the most slots of `s` the nodes hold (at most what keeps `s·k` within
    /// `size·count`), a multiple of [`per_slot`]`(s, multiple)`.
    Split {
        size: u32,
        count: u32,
        sizes: Vec<(u32, u64)>,
        /// [`Reshape::Split`] or [`Reshape::Spread`].
        reshape: Reshape,
        /// Every choice's accelerators are a multiple of it.
        multiple: u64,
    },
}

/// The fewest slots of `s` whose accelerators are a multiple of `multiple`: a count of
/// slots of `s` must be a multiple of it.
fn per_slot(s: u32, multiple: u64) -> u64 {
    multiple / gcd(u64::from(s), multiple)
}

impl Choices {
    /// The choices of a pool of node-slots `slots`, one bundle of `bundle`, on nodes of
    /// `classes`: split as `split` says (a pool of even slots only), else trimmed.
    pub(super) fn new(
        slots: &[u32],
        split: Option<Reshape>,
        multiple: u64,
        bundle: &[u64],
        classes: &[(Vec<u64>, u64)],
        budget: &mut Budget,
    ) -> Choices {
        let multiple = multiple.max(1);
        match slots.first() {
            Some(&size) if let Some(split) = split => {
                Choices::split(size, slots.len(), bundle, classes, split, multiple)
            }
            _ => {
                let mut list = trim_choices(slots, bundle, classes, budget);
                list.retain(|c| c.accelerators.is_multiple_of(multiple));
                list.reverse();
                Choices::Listed(list)
            }
        }
    }

    fn split(
        size: u32,
        count: usize,
        bundle: &[u64],
        classes: &[(Vec<u64>, u64)],
        reshape: Reshape,
        multiple: u64,
    ) -> Choices {
        let asked = u64::from(size).saturating_mul(count as u64);
        let spread = reshape == Reshape::Spread;
        let mut candidates = divisors(size);
        if spread {
            // verl's `n_gpus_per_node` need not divide the one written: `nnodes=6,
            // n_gpus_per_node=1` on one 8-GPU node of 16 CPUs becomes one node-slot of 4. The
            // powers of two are tried, not every count: verl splits its world into
            // tensor-parallel groups (2 by default) and its batches by the world size, which
            // an odd count like 5 breaks. So are the multiples of the rollout's replica
            // size (a tensor parallel size of 3: slots of 3, 6, ...), which keep a replica
            // on one node, and its divisors (a replica over whole node-slots). Larger slots fit fewer nodes, so the sizes stop at the first
            // that fits none.
            let most = u32::try_from(asked)
                .unwrap_or(u32::MAX)
                .min(MAX_SPREAD_SIZE);
            let fits = |s: u32| s <= most && room(bundle, s, classes, true) > 0;
            candidates.extend(
                std::iter::successors(Some(1u32), |s| s.checked_mul(2)).take_while(|&s| fits(s)),
            );
            if let Ok(step) = u32::try_from(multiple)
                && step > 1
            {
                candidates.extend(divisors(step).into_iter().filter(|&s| fits(s)));
                candidates.extend(
                    std::iter::successors(Some(step), |s| s.checked_add(step))
                        .take_while(|&s| fits(s)),
                );
            }
            candidates.sort_unstable();
            candidates.dedup();
        }
        // A replica lies within a node-slot, or over whole node-slots: verl's rollout
        // replica (`verl/workers/rollout/replica.py`, 0.6.0 on) asserts that a replica
        // larger than `n_gpus_per_node` is a multiple of it.
        candidates.retain(|&s| {
            let s = u64::from(s);
            s.is_multiple_of(multiple) || multiple.is_multiple_of(s)
        });
        let mut sizes: Vec<(u32, u64)> = candidates
            .into_iter()
            .map(|s| {
                // A count past the nodes' copies fits no cluster state this one can be in.
                let most = (asked / u64::from(s))
                    .min(room(bundle, s, classes, spread))
                    .min(u64::from(u32::MAX));
                (s, most - most % per_slot(s, multiple))
            })
            .filter(|&(_, most)| most > 0)
            .collect();
        sizes.reverse();
        Choices::Split {
            size,
            count: u32::try_from(count).unwrap_or(u32::MAX),
            sizes,
            reshape,
            multiple,
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        match self {
            Choices::Listed(list) => list.is_empty(),
            Choices::Split { sizes, .. } => sizes.is_empty(),
        }
    }

    /// The most accelerators of a choice (0 when there is none).
    pub(super) fn most(&self) -> u64 {
        self.at_most(u64::MAX).unwrap_or(0)
    }

    /// The fewest accelerators of a choice (0 when there is none).
    pub(super) fn least(&self) -> u64 {
        match self {
            Choices::Listed(list) => list.last().map_or(0, |c| c.accelerators),
            Choices::Split {
                sizes, multiple, ..
            } => sizes
                .iter()
                .map(|&(s, _)| u64::from(s) * per_slot(s, *multiple))
                .min()
                .unwrap_or(0),
        }
    }

    /// Every choice's accelerators are a multiple of it (0 when there is no choice).
    pub(super) fn step(&self) -> u64 {
        match self {
            Choices::Listed(list) => list.iter().fold(0, |g, c| gcd(g, c.accelerators)),
            Choices::Split {
                sizes, multiple, ..
            } => sizes.iter().fold(0, |g, &(s, _)| {
                gcd(g, u64::from(s) * per_slot(s, *multiple))
            }),
        }
    }

    /// The most accelerators of a choice that has at most `x`.
    pub(super) fn at_most(&self, x: u64) -> Option<u64> {
        match self {
            Choices::Listed(list) => {
                let i = list.partition_point(|c| c.accelerators > x);
                list.get(i).map(|c| c.accelerators)
            }
            Choices::Split {
                sizes, multiple, ..
            } => sizes
                .iter()
                .filter_map(|&(s, most)| {
                    let k = most.min(x / u64::from(s));
                    let k = k - k % per_slot(s, *multiple);
                    (k > 0).then(|| u64::from(s) * k)
                })
                .max(),
        }
    }

    /// Whether some choice of `a` accelerators is the pool as written.
    pub(super) fn keeps(&self, a: u64) -> bool {
        match self {
            Choices::Listed(list) => list
                .first()
                .is_some_and(|c| !c.changed && c.accelerators == a),
            Choices::Split {
                size,
                count,
                sizes,
                multiple,
                ..
            } => {
                u64::from(*size) * u64::from(*count) == a
                    && a.is_multiple_of(*multiple)
                    && sizes
                        .iter()
                        .any(|&(s, most)| s == *size && most >= u64::from(*count))
            }
        }
    }

    /// Appends the choices of exactly `a` accelerators, larger slots first.
    pub(super) fn with(&self, a: u64, out: &mut Vec<PoolChoice>) {
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
                multiple,
            } => {
                for &(s, most) in sizes {
                    let k = a / u64::from(s);
                    if a.is_multiple_of(u64::from(s))
                        && a.is_multiple_of(*multiple)
                        && k >= 1
                        && k <= most
                    {
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
