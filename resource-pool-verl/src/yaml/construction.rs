//! The order PyYAML builds a document's mappings in, for one error OmegaConf 2.3 makes of
//! it: a "duplicate key" in a mapping whose `<<` merge brings a key it also writes.
//!
//! OmegaConf 2.3's loader (what Hydra 1.3, and so verl, load config files with) checks each
//! mapping for duplicate keys before PyYAML's `SafeConstructor` builds it, skipping `<<`.
//! PyYAML applies a merge in place (`flatten_mapping` puts the merged pairs before the
//! mapping's own), and applies it to every mapping it merges too. So a mapping that a
//! mapping built *before it* merges is checked with the merged pairs in it, and one of its
//! own keys that a merge also brings is a duplicate: `defs: {big: &big {<<: *base,
//! nnodes: 4}}` then `trainer: {<<: *big}` stops the load (`big` is built after `trainer`,
//! a level deeper), while the same `big` at the top level loads. omegaconf 2.4's own
//! loader does not do this.
//!
//! PyYAML builds a document breadth first: the root, then the mappings and lists its pairs
//! hold, in the order of its pairs once merged (merged pairs first), each once (an alias is
//! the node it names), then theirs. This module replays that order over the shape the
//! event reader records (each node's pairs and merges, no values), and finds the first
//! mapping checked after it was merged into another, if it holds a key twice.

use std::collections::HashSet;

/// A mapping's pair: its key and, when the value is a mapping or a list, that node.
struct Pair {
    key: String,
    /// Whether OmegaConf's check counts it: a key that reads as a string (`1:` or
    /// `true:` does not).
    checked: bool,
    /// Where the key stands (chars).
    at: usize,
    value: Option<usize>,
}

#[derive(Default)]
struct Node {
    is_map: bool,
    /// Where it starts (chars).
    at: usize,
    pairs: Vec<Pair>,
    /// Each `<<` key's mappings (one, or a list's in order), in the order written.
    merges: Vec<Vec<usize>>,
    /// A list's mappings and lists.
    items: Vec<usize>,
}

/// The shape of a document's mappings and lists, as the event reader records it.
#[derive(Default)]
pub(super) struct Shape {
    nodes: Vec<Node>,
}

/// The most pairs a replay expands merges to: PyYAML copies merged pairs into every
/// mapping that merges them, so a chain of merges grows without bound.
pub const MAX_MERGED_PAIRS: usize = 100_000;

impl Shape {
    /// A new mapping or list, starting at char `at`; its id.
    pub fn node(&mut self, is_map: bool, at: usize) -> usize {
        self.nodes.push(Node {
            is_map,
            at,
            ..Node::default()
        });
        self.nodes.len() - 1
    }

    /// A key of mapping `node`, its value to come.
    pub fn key(&mut self, node: usize, key: &str, checked: bool, at: usize) {
        self.nodes[node].pairs.push(Pair {
            key: key.to_owned(),
            checked,
            at,
            value: None,
        });
    }

    /// The value of mapping `node`'s last key is mapping or list `value`.
    pub fn value(&mut self, node: usize, value: usize) {
        if let Some(pair) = self.nodes[node].pairs.last_mut() {
            pair.value = Some(value);
        }
    }

    /// Mapping `node`'s `<<` keys: each one's mappings (one, or a list's in order), in the
    /// order written.
    pub fn merges(&mut self, node: usize, merges: Vec<Vec<usize>>) {
        self.nodes[node].merges = merges;
    }

    /// List `node` holds mapping or list `item`.
    pub fn item(&mut self, node: usize, item: usize) {
        self.nodes[node].items.push(item);
    }

    /// Replays PyYAML's building of the document whose root is node 0 (when the root is a
    /// mapping or a list): the first duplicate OmegaConf 2.3's check finds, as a message and
    /// the char index of the key; or that the merges expand past [`MAX_MERGED_PAIRS`].
    pub fn duplicate(&self) -> Option<(String, usize)> {
        if self.nodes.is_empty() {
            return None;
        }
        let mut flat = Flat {
            shape: self,
            pairs: vec![None; self.nodes.len()],
            total: 0,
            over_at: 0,
        };
        let mut built = vec![false; self.nodes.len()];
        built[0] = true;
        let mut round = vec![0];
        while !round.is_empty() {
            let mut next = Vec::new();
            for node in round {
                let children: Vec<usize> = if self.nodes[node].is_map {
                    if let Some(found) = flat.checked_before_built(node) {
                        return Some(found);
                    }
                    match flat.pairs(node) {
                        Some(pairs) => pairs.iter().filter_map(|&p| self.pair(p).value).collect(),
                        None => return Some(too_many(flat.over_at)),
                    }
                } else {
                    self.nodes[node].items.clone()
                };
                for child in children {
                    if !std::mem::replace(&mut built[child], true) {
                        next.push(child);
                    }
                }
            }
            round = next;
        }
        None
    }

    fn pair(&self, (node, index): (usize, usize)) -> &Pair {
        &self.nodes[node].pairs[index]
    }
}

/// The bound's error, at the mapping whose merges went past it.
fn too_many(at: usize) -> (String, usize) {
    (
        format!("`<<` merges expand to more than {MAX_MERGED_PAIRS} keys as PyYAML applies them"),
        at,
    )
}

/// Mappings as PyYAML's `flatten_mapping` leaves them: merged pairs (each `<<` in turn; a
/// list's mappings last to first), then the mapping's own. A pair is `(node, index)`.
struct Flat<'s> {
    shape: &'s Shape,
    /// Each mapping's pairs once flattened, when it was.
    pairs: Vec<Option<Vec<(usize, usize)>>>,
    total: usize,
    /// Where the mapping whose merges went past [`MAX_MERGED_PAIRS`] starts (chars).
    over_at: usize,
}

impl Flat<'_> {
    /// `node`'s pairs once flattened (flattening it and what it merges, first time);
    /// `None` past [`MAX_MERGED_PAIRS`].
    fn pairs(&mut self, node: usize) -> Option<&[(usize, usize)]> {
        if self.pairs[node].is_none() {
            // Mark it first: a merge that comes back to it finds it flattened, as PyYAML
            // (which removes the `<<` pairs before it recurses) does.
            self.pairs[node] = Some(Vec::new());
            let shape = self.shape;
            let mut merged = Vec::new();
            for list in &shape.nodes[node].merges {
                for &source in list.iter().rev() {
                    merged.extend_from_slice(self.pairs(source)?);
                }
            }
            let own = shape.nodes[node].pairs.len();
            merged.extend((0..own).map(|index| (node, index)));
            self.total += merged.len();
            if self.total > MAX_MERGED_PAIRS {
                self.over_at = shape.nodes[node].at;
                return None;
            }
            self.pairs[node] = Some(merged);
        }
        self.pairs[node].as_deref()
    }

    /// OmegaConf 2.3's duplicate check of `node`, as PyYAML is about to build it: on its
    /// pairs once flattened, if a mapping built before it flattened it already.
    fn checked_before_built(&mut self, node: usize) -> Option<(String, usize)> {
        let pairs = self.pairs[node].as_ref()?;
        let mut seen = HashSet::new();
        for &p in pairs {
            let pair = self.shape.pair(p);
            if pair.checked && !seen.insert(pair.key.as_str()) {
                return Some((
                    format!(
                        "found duplicate key `{}`: OmegaConf 2.3 checks this mapping with what its `<<` merges, because a mapping built before it merges it",
                        pair.key
                    ),
                    pair.at,
                ));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `root: {defs: {base: {nnodes}, big: {<<: base, nnodes}}, trainer: {<<: big}}`, with
    /// `big` at the top level instead when `nested` is false.
    fn defs(nested: bool) -> Shape {
        let mut s = Shape::default();
        let root = s.node(true, 0);
        let holder = if nested {
            s.key(root, "defs", true, 0);
            let defs = s.node(true, 0);
            s.value(root, defs);
            defs
        } else {
            root
        };
        s.key(holder, "base", true, 1);
        let base = s.node(true, 0);
        s.value(holder, base);
        s.key(base, "nnodes", true, 2);
        s.key(holder, "big", true, 3);
        let big = s.node(true, 0);
        s.value(holder, big);
        s.merges(big, vec![vec![base]]);
        s.key(big, "nnodes", true, 4);
        s.key(root, "trainer", true, 5);
        let trainer = s.node(true, 0);
        s.value(root, trainer);
        s.merges(trainer, vec![vec![big]]);
        s
    }

    #[test]
    fn a_mapping_merged_before_it_is_built_holds_its_key_twice() {
        // omegaconf 2.3.0: the nested `big` is built after `trainer` merged it.
        let (message, at) = defs(true).duplicate().expect("a duplicate");
        assert!(
            message.starts_with("found duplicate key `nnodes`"),
            "{message}"
        );
        assert_eq!(at, 4);
        // At the top level, `big` is built (and checked) before `trainer`.
        assert_eq!(defs(false).duplicate(), None);
    }

    #[test]
    fn merges_past_the_bound_are_an_error_at_the_mapping_that_passes_it() {
        // `l0` holds one key; each `l{i}` (at char 10 × i) merges the one before twice.
        let mut s = Shape::default();
        let root = s.node(true, 0);
        let mut before = s.node(true, 5);
        s.key(before, "k", true, 6);
        for i in 1..=40 {
            s.key(root, &format!("l{i}"), true, 10 * i);
            let level = s.node(true, 10 * i + 1);
            s.value(root, level);
            s.merges(level, vec![vec![before, before]]);
            before = level;
        }
        let (message, at) = s.duplicate().expect("past the bound");
        assert!(message.contains(&MAX_MERGED_PAIRS.to_string()), "{message}");
        // Level i flattens to 2^i pairs: the levels' sum passes 100,000 at the 16th
        // (2^17 - 1 pairs in all), the one at char 161.
        assert_eq!(at, 161);
    }
}
