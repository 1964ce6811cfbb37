//! Anchored mappings, kept as what they hold, so that an alias (`trainer: *base`) or a `<<`
//! merge (`trainer: {<<: *base}`) reads as the mapping written there, as PyYAML's
//! `SafeLoader` (OmegaConf's loader) builds it.
//!
//! A mapping is kept as items by path relative to it: each key, each scalar, and each
//! value that is a mapping or a list (a known key holding one is `wrong_type`), in the
//! order written. A merge is shallow: the mapping's own keys win over merged ones, a later
//! `<<` key over an earlier one, and an earlier mapping of a `<<` list over a later one;
//! a key that wins brings everything under it, and a key that loses brings nothing
//! (`flatten_mapping` in PyYAML's `constructor.py`, then a dict's last-write-wins).
//!
//! Memory stays bounded: every item kept or merged counts against [`MAX_ANCHORED_ITEMS`], past
//! which the file is an error (an alias-and-merge "billion laughs" would otherwise grow
//! exponentially).

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::CharScalar;

/// The most items anchored mappings may hold and merges may copy, all together.
pub const MAX_ANCHORED_ITEMS: usize = 100_000;

/// A path relative to a mapping: its keys, outermost first; never empty.
pub(super) type Path = Vec<String>;

/// What stands at a path.
#[derive(Clone, Debug)]
pub(super) enum Item {
    /// A key, where it is written (chars).
    Key((usize, usize)),
    /// A scalar value.
    Scalar(CharScalar),
    /// A value that is a mapping or a list, where it starts (chars).
    Container((usize, usize)),
}

/// A mapping being kept: the frame it stands in (an index into the reader's stack) and its
/// node in the document's shape.
struct Open {
    frame: usize,
    node: usize,
    items: Vec<(Path, Item)>,
}

/// A key that two mappings of one `<<` list bring: PyYAML up to 6.0.3 (and omegaconf 2.4)
/// gives it to the first, PyYAML 6.0.4 (2026-11-20) to the last (for keys longer than one
/// character: it dedupes merged pairs by the identity of their key strings). `used` holds
/// the first's items under the key (which the reading takes), `newer` the last's.
#[derive(Debug, Default)]
pub(super) struct Contested {
    pub used: Vec<(Path, Item)>,
    pub newer: Vec<(Path, Item)>,
}

/// What the `<<` keys of a mapping bring into it (see [`Anchors::merged`]).
pub(super) struct Merged {
    /// The items of the mappings that win each key, by path relative to the mapping.
    pub items: Vec<(Path, Item)>,
    /// The keys PyYAML's releases give to different mappings of one list.
    pub contested: Vec<Contested>,
}

/// The mappings of one parse that are kept (anchored ones, and those a `<<` names), by
/// their node in the document's shape, and those being read.
#[derive(Default)]
pub(super) struct Anchors {
    kept: HashMap<usize, Rc<[(Path, Item)]>>,
    open: Vec<Open>,
    /// Items kept or merged so far, against [`MAX_ANCHORED_ITEMS`].
    spent: usize,
}

impl Anchors {
    /// Starts keeping mapping `node`, in stack frame `frame`.
    pub fn open(&mut self, frame: usize, node: usize) {
        self.open.push(Open {
            frame,
            node,
            items: Vec::new(),
        });
    }

    /// Whether any mapping is being kept.
    pub fn keeping(&self) -> bool {
        !self.open.is_empty()
    }

    /// Keeps `item` in every open mapping, at the path `path_from(frame)` gives relative to
    /// that mapping's frame (`None`: not under it by keys alone, as in a list).
    pub fn keep(
        &mut self,
        path_from: impl Fn(usize) -> Option<Path>,
        item: &Item,
    ) -> Result<(), String> {
        for open in &mut self.open {
            if let Some(path) = path_from(open.frame).filter(|p| !p.is_empty()) {
                self.spent += 1;
                open.items.push((path, item.clone()));
            }
        }
        self.within_bound()
    }

    /// Closes the mapping kept for stack frame `frame`, if one is.
    pub fn close(&mut self, frame: usize) {
        if self.open.last().is_some_and(|open| open.frame == frame)
            && let Some(open) = self.open.pop()
        {
            self.kept.insert(open.node, open.items.into());
        }
    }

    /// Counts `n` items copied elsewhere (an alias's mapping placed where it stands)
    /// against [`MAX_ANCHORED_ITEMS`].
    pub fn spend(&mut self, n: usize) -> Result<(), String> {
        self.spent += n;
        self.within_bound()
    }

    /// Everything mapping `node` holds (shared, not copied), when it was kept.
    pub fn items(&self, node: usize) -> Option<Rc<[(Path, Item)]>> {
        self.kept.get(&node).cloned()
    }

    /// What the `<<` keys of a mapping whose own keys are `explicit` bring into it: per
    /// key, the items of the kept mapping that wins it. `merges` holds each `<<` key's
    /// nodes (one, or a list's in order), in the order written; a node not kept brings
    /// nothing. Also each key that two
    /// mappings of one list bring, which PyYAML's releases give to different ones (see
    /// [`Contested`]).
    pub fn merged(
        &mut self,
        merges: &[Vec<usize>],
        explicit: &HashMap<String, usize>,
    ) -> Result<Merged, String> {
        let mut claimed: HashSet<&str> = explicit.keys().map(String::as_str).collect();
        let (mut out, mut contested) = (Vec::new(), Vec::new());
        // A later `<<` wins; within a list, the first mapping.
        for list in merges.iter().rev() {
            // Each key the list brings, in the order first brought: its first and last
            // mapping.
            let mut in_list: Vec<(&str, usize, usize)> = Vec::new();
            let mut at: HashMap<&str, usize> = HashMap::new();
            for &source in list {
                let Some(items) = self.kept.get(&source) else {
                    continue;
                };
                self.spent += items.len();
                if self.spent > MAX_ANCHORED_ITEMS {
                    return Err(self.too_many());
                }
                for (path, _) in items.iter() {
                    let key = path[0].as_str();
                    if claimed.contains(key) {
                        continue;
                    }
                    match at.get(key) {
                        Some(&i) => in_list[i].2 = source,
                        None => {
                            at.insert(key, in_list.len());
                            in_list.push((key, source, source));
                        }
                    }
                }
            }
            // Each mapping's items under the keys it wins (and, for a contested key, the
            // last one's under it): one pass over each mapping, whatever its width.
            let wins: HashMap<&str, (usize, usize)> = in_list
                .iter()
                .map(|&(key, first, last)| (key, (first, last)))
                .collect();
            let mut sides: HashMap<&str, Contested> = HashMap::new();
            let mut done: HashSet<usize> = HashSet::new();
            for &source in list.iter().filter(|&&source| done.insert(source)) {
                let Some(items) = self.kept.get(&source) else {
                    continue;
                };
                for (path, item) in items.iter() {
                    let Some(&(first, last)) = wins.get(path[0].as_str()) else {
                        continue;
                    };
                    let pair = (path.clone(), item.clone());
                    if source == first {
                        out.push(pair.clone());
                    }
                    if first != last {
                        let side = sides.entry(path[0].as_str()).or_default();
                        match source {
                            s if s == first => side.used.push(pair),
                            s if s == last => side.newer.push(pair),
                            _ => {}
                        }
                    }
                }
            }
            // In the order the keys were first brought.
            contested.extend(in_list.iter().filter_map(|(key, ..)| sides.remove(key)));
            claimed.extend(in_list.into_iter().map(|(key, ..)| key));
        }
        self.within_bound().map(|()| Merged {
            items: out,
            contested,
        })
    }

    fn within_bound(&self) -> Result<(), String> {
        match self.spent > MAX_ANCHORED_ITEMS {
            true => Err(self.too_many()),
            false => Ok(()),
        }
    }

    fn too_many(&self) -> String {
        format!(
            "anchored mappings and what aliases and `<<` merges copy of them hold more than {MAX_ANCHORED_ITEMS} keys and values"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(path: &[&str]) -> (Path, Item) {
        (
            path.iter().map(|s| s.to_string()).collect(),
            Item::Key((0, 0)),
        )
    }

    fn paths(items: &[(Path, Item)]) -> Vec<String> {
        items.iter().map(|(p, _)| p.join(".")).collect()
    }

    #[test]
    fn a_merge_is_shallow_and_later_sources_win() {
        let mut anchors = Anchors::default();
        let (low, high) = (7, 8);
        anchors.open(1, low);
        for item in [key(&["a"]), key(&["inner"]), key(&["inner", "x"])] {
            anchors.keep(|_| Some(item.0.clone()), &item.1).unwrap();
        }
        anchors.close(1);
        assert_eq!(anchors.items(low).map(|items| items.len()), Some(3));
        anchors.open(2, high);
        for item in [key(&["inner"]), key(&["inner", "y"]), key(&["b"])] {
            anchors.keep(|_| Some(item.0.clone()), &item.1).unwrap();
        }
        anchors.close(2);
        // `inner` is the later source's, whole; `a` the earlier's; `b` is the mapping's own.
        let explicit = HashMap::from([("b".to_owned(), 0)]);
        let Merged {
            items: merged,
            contested,
        } = anchors.merged(&[vec![low], vec![high]], &explicit).unwrap();
        assert_eq!(paths(&merged), ["inner", "inner.y", "a"]);
        assert!(contested.is_empty());
        // As one list, `[low, high]`: the first brings `inner`, and the last would in
        // PyYAML 6.0.4.
        let Merged {
            items: merged,
            contested,
        } = anchors.merged(&[vec![low, high]], &explicit).unwrap();
        assert_eq!(paths(&merged), ["a", "inner", "inner.x"]);
        assert_eq!(contested.len(), 1);
        assert_eq!(paths(&contested[0].used), ["inner", "inner.x"]);
        assert_eq!(paths(&contested[0].newer), ["inner", "inner.y"]);
    }

    #[test]
    fn copies_are_bounded() {
        let mut anchors = Anchors::default();
        anchors.open(1, 1);
        let item = key(&["k"]);
        anchors.keep(|_| Some(item.0.clone()), &item.1).unwrap();
        anchors.close(1);
        let sources = vec![vec![1]; MAX_ANCHORED_ITEMS];
        assert!(anchors.merged(&sources, &HashMap::new()).is_err());
    }
}
