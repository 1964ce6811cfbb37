//! Preprocessing: resources interned into dense vectors, nodes grouped into classes and
//! slots into types.
//!
//! Only resources that some slot demands matter, so every vector has one entry per demanded
//! resource, in name order. Two reductions keep the problem small without changing its
//! answer:
//!
//! - a node's capacity in a resource is clamped to the total demand of that resource (no
//!   packing can use more);
//! - it is then rounded down to a multiple of the greatest common divisor of the demands of
//!   that resource (every packing uses such a multiple).
//!
//! After both, nodes with equal vectors form one class with a count, and slots with equal
//! demands one type with a count: the search works on classes and types, never on nodes
//! times slots. The nodes and slots themselves are read once, into an [`Instance`] that
//! Ray's simulation reads too; the classes are built from its node shapes.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;

use super::instance::Instance;
use super::runs::{IndexRuns, Run};
use crate::model::{Cluster, NodeSlot, ResourceName, Resources};

/// A fast, deterministic hasher for short vectors of `u64` (FxHash's mixing).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FxBuild;

impl BuildHasher for FxBuild {
    type Hasher = Fx;
    fn build_hasher(&self) -> Fx {
        Fx(0)
    }
}

/// The hasher of [`FxBuild`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fx(u64);

impl Fx {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A hash map keyed by short `u64` vectors.
pub(crate) type VecMap<V> = HashMap<Vec<u64>, V, FxBuild>;

/// Distinct short vectors found by value without a copy of each as a key. The vectors
/// stay where the caller keeps them, numbered in the order they were added (the caller's
/// indices); the index keeps their hashes. A few are compared one by one; beyond that a
/// hash leads to the last vector added with it, and each vector to the one added before
/// it with the same hash.
#[derive(Clone, Debug, Default)]
pub(crate) struct VecIndex {
    /// How many vectors were added.
    len: usize,
    /// The hashes of the first few, compared one by one (no allocation for small inputs).
    first: [u64; VEC_INDEX_SCAN],
    /// Once there are more: each hash's last vector, and each vector's previous one with
    /// the same hash.
    last: HashMap<u64, usize, FxBuild>,
    before: Vec<Option<usize>>,
}

/// Vectors a [`VecIndex`] compares one by one before it builds its map.
const VEC_INDEX_SCAN: usize = 8;

impl VecIndex {
    /// The number of the vector equal to `v` (the caller's vectors read through `get`);
    /// else `v`'s hash, for [`VecIndex::add`].
    pub fn find<'a>(&self, v: &[u64], get: impl Fn(usize) -> &'a [u64]) -> Result<usize, u64> {
        let hash = VecIndex::hash(v);
        if self.len <= VEC_INDEX_SCAN {
            return (0..self.len)
                .find(|&i| self.first[i] == hash && get(i) == v)
                .ok_or(hash);
        }
        let mut at = self.last.get(&hash).copied();
        while let Some(i) = at {
            if get(i) == v {
                return Ok(i);
            }
            at = self.before.get(i).copied().flatten();
        }
        Err(hash)
    }

    /// The hash of `v`, for [`VecIndex::add`] when `v` is known to be new.
    pub fn hash(v: &[u64]) -> u64 {
        let mut hash = Fx(0);
        for &word in v {
            hash.add(word);
        }
        hash.0
    }

    /// Adds the caller's next vector, of hash `hash` (from [`VecIndex::find`] or
    /// [`VecIndex::hash`]); returns its number.
    pub fn add(&mut self, hash: u64) -> usize {
        let i = self.len;
        self.len += 1;
        if let Some(slot) = self.first.get_mut(i) {
            *slot = hash;
            return i;
        }
        if i == VEC_INDEX_SCAN {
            // The map, for the vectors compared one by one so far.
            for (j, &h) in self.first.iter().enumerate() {
                self.before.push(self.last.insert(h, j));
            }
        }
        self.before.push(self.last.insert(hash, i));
        i
    }
}

/// The resources some slot demands, sorted by name (the order of [`Resources::iter`]).
pub(crate) fn demanded_names<'a>(
    demands: impl IntoIterator<Item = &'a Resources>,
) -> Vec<ResourceName> {
    let mut names: Vec<ResourceName> = Vec::new();
    for demand in demands {
        for (name, _) in demand.entries() {
            if let Err(i) = names.binary_search(name) {
                names.insert(i, name.clone());
            }
        }
    }
    names
}

/// Writes the amounts of `names` (sorted) held in `res` into `out`, by a merge of the two
/// sorted lists: no lookups, no allocation, and (for Ray's own names) no text compared.
pub(crate) fn fill_vector(res: &Resources, names: &[ResourceName], out: &mut [u64]) {
    out.iter_mut().for_each(|x| *x = 0);
    let mut i = 0;
    for (name, amount) in res.entries() {
        // Equality first: nodes usually hold exactly the demanded names.
        while i < names.len() && names[i] != *name && names[i] < *name {
            i += 1;
        }
        if i == names.len() {
            break;
        }
        if names[i] == *name {
            out[i] = amount.units();
            i += 1;
            if i == names.len() {
                break;
            }
        }
    }
}

/// Whether `demand` fits in `cap`, entry by entry.
pub(crate) fn fits(demand: &[u64], cap: &[u64]) -> bool {
    demand.iter().zip(cap).all(|(d, c)| d <= c)
}

/// Identical slots: one demand vector and the slots (indices into the input) that have it.
#[derive(Clone, Debug)]
pub(crate) struct SlotType {
    pub demand: Vec<u64>,
    pub slots: IndexRuns,
}

/// Identical nodes: one (reduced) capacity vector and how many nodes have it (which ones:
/// [`Problem::node_runs`]).
#[derive(Clone, Debug)]
pub(crate) struct NodeClass {
    pub cap: Vec<u64>,
    pub count: usize,
}

/// The reduced problem.
#[derive(Clone, Debug)]
pub(crate) struct Problem {
    /// The demanded resources, sorted by name.
    pub names: Vec<ResourceName>,
    /// Slot types, in order of first appearance.
    pub types: Vec<SlotType>,
    /// Node classes that can host at least one slot type, in order of first appearance.
    pub classes: Vec<NodeClass>,
    /// The alive nodes, in order, as runs of one shape (the instance's, shared), and the
    /// class of each shape (`None`: its nodes can host nothing).
    pub node_runs: Arc<Vec<(Run, usize)>>,
    pub class_of_shape: Vec<Option<usize>>,
    /// Total demand per resource (saturating).
    pub need: Vec<u64>,
    /// Total available over alive nodes per resource, unreduced (saturating).
    pub free: Vec<u64>,
}

impl Problem {
    /// Reads the input ([`Instance::new`]), then reduces and groups.
    pub fn build(slots: &[NodeSlot], cluster: &Cluster) -> Problem {
        Problem::of(Instance::for_placement(slots, cluster))
    }

    /// Reduces the instance's node shapes and groups them into classes. Costs shapes times
    /// resources, plus the runs of nodes, plus classes times types for dropping useless
    /// classes: the nodes were read once, by [`Instance::new`].
    pub fn new(instance: &Instance) -> Problem {
        Problem::with(instance, instance.names.clone(), instance.types.clone())
    }

    /// [`Problem::new`] of an instance no one else reads: its names and slot types are
    /// taken, not copied.
    pub fn of(mut instance: Instance) -> Problem {
        let names = std::mem::take(&mut instance.names);
        let types = std::mem::take(&mut instance.types);
        Problem::with(&instance, names, types)
    }

    /// [`Problem::new`] with the instance's names and types given apart (the instance's
    /// own types are not read).
    fn with(instance: &Instance, names: Vec<ResourceName>, types: Vec<SlotType>) -> Problem {
        let dims = names.len();
        let mut total = vec![0u64; dims];
        let mut gcd = vec![0u64; dims];
        for t in &types {
            for r in 0..dims {
                let n = t.slots.len() as u64;
                total[r] = total[r].saturating_add(t.demand[r].saturating_mul(n));
                gcd[r] = gcd_u64(gcd[r], t.demand[r]);
            }
        }
        let mut free = vec![0u64; dims];
        let mut buf = vec![0u64; dims];
        let mut index = VecIndex::default();
        let mut classes: Vec<NodeClass> = Vec::new();
        // Shapes come in order of their first node, so classes do too.
        let mut class_of_shape: Vec<Option<usize>> = instance
            .shapes()
            .map(|(cap, nodes)| {
                let count = nodes as u64;
                for r in 0..dims {
                    let raw = cap[r];
                    // Saturating, as a sum over the nodes one by one would be.
                    free[r] = free[r].saturating_add(raw.saturating_mul(count));
                    let c = raw.min(total[r]);
                    buf[r] = if gcd[r] > 1 { c - c % gcd[r] } else { c };
                }
                let c = match index.find(&buf, |c| &classes[c].cap) {
                    Ok(c) => c,
                    Err(hash) => {
                        classes.push(NodeClass {
                            cap: buf.clone(),
                            count: 0,
                        });
                        index.add(hash)
                    }
                };
                classes[c].count += nodes;
                Some(c)
            })
            .collect();
        // Classes that can host no type are dropped, and the others renumbered (most often
        // all are kept).
        let hosts = |class: &NodeClass| types.iter().any(|t| fits(&t.demand, &class.cap));
        if !classes.iter().all(hosts) {
            let mut kept = 0;
            let renumbered: Vec<Option<usize>> = classes
                .iter()
                .map(|class| {
                    hosts(class).then(|| {
                        kept += 1;
                        kept - 1
                    })
                })
                .collect();
            let mut number = renumbered.iter();
            classes.retain(|_| number.next().is_some_and(Option::is_some));
            for class in &mut class_of_shape {
                *class = class.and_then(|c| renumbered[c]);
            }
        }
        Problem {
            names,
            types,
            classes,
            node_runs: Arc::clone(&instance.node_runs),
            class_of_shape,
            need: total,
            free,
        }
    }

    /// The nodes of each class, as runs: `runs[starts[c]..starts[c + 1]]` for class `c`,
    /// ascending (a counting sort of [`Problem::node_runs`]).
    pub fn runs_by_class(&self) -> (Vec<Run>, Vec<usize>) {
        let tagged = self
            .node_runs
            .iter()
            .filter_map(|&(run, s)| Some((run, self.class_of_shape.get(s).copied().flatten()?)));
        runs_by_group(tagged, self.classes.len())
    }

    /// Number of demanded resources.
    pub fn dims(&self) -> usize {
        self.names.len()
    }
}

/// The runs of `runs` (tagged with a group below `groups`) grouped by their tag, in their
/// order: `out[starts[g]..starts[g + 1]]` for group `g` (a counting sort).
pub(crate) fn runs_by_group(
    runs: impl Iterator<Item = (Run, usize)> + Clone,
    groups: usize,
) -> (Vec<Run>, Vec<usize>) {
    let mut starts = vec![0usize; groups + 1];
    for (_, g) in runs.clone() {
        starts[g + 1] += 1;
    }
    for g in 0..groups {
        starts[g + 1] += starts[g];
    }
    let mut out = vec![Run { start: 0, end: 0 }; starts[groups]];
    // Each group's start serves as its cursor, which ends where the next group starts;
    // shifted by one, the cursors are the starts again.
    for (run, g) in runs {
        out[starts[g]] = run;
        starts[g] += 1;
    }
    starts.rotate_right(1);
    starts[0] = 0;
    (out, starts)
}

/// The groups of a list laid out by [`runs_by_group`], each a slice of its own:
/// `runs[starts[g]..starts[g + 1]]` for group `g`.
pub(crate) fn split_groups<'r>(mut runs: &'r mut [Run], starts: &[usize]) -> Vec<&'r mut [Run]> {
    starts
        .windows(2)
        .map(|bounds| {
            let (group, rest) = std::mem::take(&mut runs).split_at_mut(bounds[1] - bounds[0]);
            runs = rest;
            group
        })
        .collect()
}

/// Greatest common divisor, with `gcd(0, x) = x`.
pub(crate) fn gcd_u64(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Amount, Node};
    use crate::test_support::res;

    fn slot(i: usize, gpu: u64) -> NodeSlot {
        NodeSlot {
            pool: 0,
            slot: i,
            bundles: gpu as u32,
            demand: res(gpu, 3 * gpu),
        }
    }

    #[test]
    fn nodes_merge_after_clamping_and_rounding() {
        // Demand: 8 GPU / 24 CPU. Nodes of 8/96 and 8/97 clamp to 8/24: one class; the
        // 8/23 node rounds down to a multiple of 24 CPUs (gcd), 0, and hosts nothing.
        let cluster = Cluster::new(vec![
            Node::new("a", res(8, 96)),
            Node::new("b", res(8, 97)),
            Node::new("c", res(8, 23).with("memory", Amount::from_units(5))),
            Node {
                alive: false,
                ..Node::new("d", res(8, 96))
            },
        ]);
        let p = Problem::build(&[slot(0, 8)], &cluster);
        assert_eq!(p.names, ["CPU", "GPU"]);
        assert_eq!(p.classes.len(), 1);
        assert_eq!(p.classes[0].count, 2);
        let (runs, starts) = p.runs_by_class();
        assert_eq!(starts, [0, 2]);
        let nodes: Vec<usize> = runs.iter().flat_map(|r| r.start..r.end).collect();
        assert_eq!(nodes, [0, 1]);
        assert_eq!(p.classes[0].cap, [240_000, 80_000]);
    }

    #[test]
    fn vectors_of_one_hash_stay_apart() {
        // Fx of [a, b] is (rotl(a * K, 5) ^ b) * K: pick b to collide with [a', 0].
        let k = 0x517c_c1b7_2722_0a95u64;
        let spread = |a: u64| a.wrapping_mul(k).rotate_left(5);
        let colliding = |a: u64, with: u64| vec![a, spread(with) ^ spread(a)];
        // A pair while the index compares one by one, then more, then a pair in the map.
        let mut vectors = vec![vec![1, 0], colliding(2, 1)];
        vectors.extend((10..20).map(|i| vec![i, i]));
        vectors.extend([vec![100, 0], colliding(200, 100), colliding(300, 100)]);
        let mut index = VecIndex::default();
        let mut kept: Vec<Vec<u64>> = Vec::new();
        let mut hashes = Vec::new();
        for v in &vectors {
            let hash = index.find(v, |i| &kept[i]).expect_err("not added yet");
            hashes.push(hash);
            kept.push(v.clone());
            assert_eq!(index.add(hash), kept.len() - 1);
        }
        assert_eq!(hashes[0], hashes[1], "the test's vectors collide");
        assert_eq!(hashes[12], hashes[13]);
        assert_eq!(hashes[12], hashes[14]);
        for (i, v) in vectors.iter().enumerate() {
            assert_eq!(index.find(v, |i| &kept[i]), Ok(i));
        }
        assert!(index.find(&[4, 4], |i| &kept[i]).is_err());
    }

    #[test]
    fn slots_group_into_types() {
        let slots = [slot(0, 8), slot(1, 4), slot(2, 8)];
        let p = Problem::build(&slots, &Cluster::default());
        assert_eq!(p.types.len(), 2);
        assert_eq!(p.types[0].slots.iter().collect::<Vec<_>>(), [0, 2]);
        assert_eq!(p.types[1].slots.iter().collect::<Vec<_>>(), [1]);
        assert!(p.classes.is_empty());
    }

    #[test]
    fn vectors_follow_sorted_names() {
        let names: Vec<ResourceName> = ["CPU", "GPU", "x"].into_iter().map(Into::into).collect();
        let mut out = [9; 3];
        fill_vector(
            &res(1, 2)
                .with("a", Amount::EPSILON)
                .with("z", Amount::EPSILON),
            &names,
            &mut out,
        );
        assert_eq!(out, [20_000, 10_000, 0]);
        assert_eq!(gcd_u64(0, 6), 6);
        assert_eq!(gcd_u64(12, 18), 6);
    }
}
