//! An index of positions in a list, by a hash of their keys' bytes: how the readers find
//! an id used before among 100,000 and a resources table's text read before.
//!
//! std's `HashMap` hashes with SipHash and keeps a key and a value in each bucket: for
//! 100,000 short ids, hashing was most of the duplicate check and its 3 MB of buckets a
//! page fault each. Here a slot is one `u32`, a position and, in the bits the position
//! leaves, bits of its key's hash (so that keys are compared only when those match),
//! probed in a row (a cache line holds sixteen); keys are hashed by a keyed
//! multiply-and-fold: a few instructions per eight bytes, its keys drawn from std's
//! random source so that no file can aim at them. 100,000 ids take 512 KiB.
//!
//! A file still cannot make the work grow without bound: every probe is counted, and an
//! index past its budget says so ([`Crowded`]); its user then falls back to std's
//! `HashMap`, or forgets (a cache may). The answers never depend on the hash, only the
//! time taken.

use std::hash::{BuildHasher, RandomState};

use super::byte_search::word;

/// An index past its budget of probes, or full: too many keys fell on the same slots.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Crowded;

/// An empty slot: its position bits are all set, which no position is.
const EMPTY: u32 = u32::MAX;

/// How many probes an index may make.
#[derive(Clone, Copy, Debug)]
pub(super) enum Budget {
    /// In all, this many per key of its capacity (about three are made): for an index
    /// that must find every key, whose user falls back to another way when it is spent.
    PerKey(usize),
    /// At most this many for each key looked for: for a cache, which may forget.
    PerWalk(usize),
}

/// Positions by the hash of their keys (see the module's text).
pub(super) struct HashIndex {
    /// A position in the low `position_bits`, the hash's high bits above it (its tag);
    /// [`EMPTY`] is an empty slot.
    slots: Vec<u32>,
    /// The bits of a slot that hold its position.
    position_bits: u32,
    /// The slots in use.
    len: usize,
    /// Probes left in all, and for each walk.
    probes_left: usize,
    walk_limit: usize,
    keys: HashKeys,
}

/// Where a walk over the slots ended.
enum Walk {
    /// At the position of a key.
    Found(usize),
    /// At an empty slot.
    Empty(usize),
}

impl HashIndex {
    /// An index for up to `capacity` positions (positions from 2^31 - 1 on are not added:
    /// [`Crowded`]).
    pub(super) fn new(capacity: usize, budget: Budget) -> HashIndex {
        // Filled at most to four fifths: a linear probe then looks at three slots on
        // average.
        let slots = (capacity + capacity / 4 + 1).next_power_of_two().max(8);
        // Positions 0..capacity stay below the all-ones of an empty slot's position bits;
        // the rest of the slot is the tag.
        let position_bits = (usize::BITS - capacity.saturating_add(1).leading_zeros()).min(31);
        let (probes_left, walk_limit) = match budget {
            Budget::PerKey(probes) => (
                capacity.saturating_mul(probes).saturating_add(1024),
                usize::MAX,
            ),
            Budget::PerWalk(probes) => (usize::MAX, probes),
        };
        HashIndex {
            // Not zero: slots read before they are written would each map the zero page
            // first and fault again on the write.
            slots: vec![EMPTY; slots],
            position_bits,
            len: 0,
            probes_left,
            walk_limit,
            keys: HashKeys::new(),
        }
    }

    /// The hash of a key's bytes.
    pub(super) fn hash(&self, key: &[u8]) -> u64 {
        self.keys.hash(key)
    }

    /// Reads the slot a walk for `hash` starts at, so that its cache line is on the way
    /// when the walk comes: a user that knows its next keys reads their slots one right
    /// after the other before walking for any, and the cache misses of a large index
    /// overlap instead of coming one by one.
    pub(super) fn warm(&self, hash: u64) {
        std::hint::black_box(self.slots[hash as usize & (self.slots.len() - 1)]);
    }

    /// The first position added whose key `is_key` (its key hashed to `hash`), if any.
    pub(super) fn find(
        &mut self,
        hash: u64,
        is_key: impl FnMut(usize) -> bool,
    ) -> Result<Option<usize>, Crowded> {
        match self.walk(hash, is_key)? {
            Walk::Found(position) => Ok(Some(position)),
            Walk::Empty(_) => Ok(None),
        }
    }

    /// The first position added whose key `is_key` (its key hashed to `hash`), else adds
    /// `position` (`None`). When [`Crowded`], nothing is added.
    pub(super) fn find_or_add(
        &mut self,
        hash: u64,
        position: usize,
        is_key: impl FnMut(usize) -> bool,
    ) -> Result<Option<usize>, Crowded> {
        match self.walk(hash, is_key)? {
            Walk::Found(position) => Ok(Some(position)),
            Walk::Empty(at) => {
                // Four fifths full at most, so that walks stay short.
                if (self.len + 1) * 5 > self.slots.len() * 4 {
                    return Err(Crowded);
                }
                let stored = u32::try_from(position).map_err(|_| Crowded)?;
                if stored >= self.positions() {
                    return Err(Crowded);
                }
                self.slots[at] = self.tag(hash) | stored;
                self.len += 1;
                Ok(None)
            }
        }
    }

    /// The slots from the hash's on, up to the key's or an empty one.
    fn walk(&mut self, hash: u64, mut is_key: impl FnMut(usize) -> bool) -> Result<Walk, Crowded> {
        let tag = self.tag(hash);
        let positions = self.positions();
        let mask = self.slots.len() - 1;
        let mut at = hash as usize & mask;
        for _ in 0..self.walk_limit {
            if self.probes_left == 0 {
                return Err(Crowded);
            }
            self.probes_left -= 1;
            let slot = self.slots[at];
            if slot == EMPTY {
                return Ok(Walk::Empty(at));
            }
            if slot & !positions == tag {
                let position = (slot & positions) as usize;
                if is_key(position) {
                    return Ok(Walk::Found(position));
                }
            }
            at = (at + 1) & mask;
        }
        Err(Crowded)
    }

    /// The bits of a slot above its position, from the hash's high bits (its low bits
    /// choose the slot).
    fn tag(&self, hash: u64) -> u32 {
        ((hash >> 32) as u32) & !self.positions()
    }

    /// The position bits of a slot, all set.
    fn positions(&self) -> u32 {
        (1 << self.position_bits) - 1
    }
}

/// The keys of the hash, drawn from std's random source.
struct HashKeys {
    start: u64,
    multiplier: u64,
}

impl HashKeys {
    fn new() -> HashKeys {
        let random = RandomState::new();
        HashKeys {
            start: random.hash_one(0u8),
            // Odd, so that no word is multiplied to zero by it.
            multiplier: random.hash_one(1u8) | 1,
        }
    }

    /// Each eight bytes folded into the state with the keys (the last eight, which may
    /// overlap the word before, for the rest; a short key read in two overlapping
    /// halves), then the state folded once more so that every bit of it reaches the tag
    /// and the slot. The length is in the state, so keys that read alike differ.
    fn hash(&self, key: &[u8]) -> u64 {
        let mut state = self.start ^ key.len() as u64;
        let mut fold_in = |word: u64| state = fold(state ^ word, self.multiplier);
        match key.len() {
            0 => {}
            1..=3 => fold_in(
                u64::from(key[0])
                    | u64::from(key[key.len() / 2]) << 8
                    | u64::from(key[key.len() - 1]) << 16,
            ),
            4..=7 => fold_in(u64::from(half(key, 0)) | u64::from(half(key, key.len() - 4)) << 32),
            length => {
                let mut at = 0;
                while at + 8 < length {
                    fold_in(word(key, at));
                    at += 8;
                }
                fold_in(word(key, length - 8));
            }
        }
        fold(state, 0x9e37_79b9_7f4a_7c15)
    }
}

fn half(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("four bytes"))
}

/// The 128-bit product of `a` and `b`, its halves xor-ed: every bit of each reaches the
/// middle bits of the result.
fn fold(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    (product as u64) ^ ((product >> 64) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_position_of_each_key() {
        let keys = ["a", "b", "a", "", "node-10", "b", "node-10", "a"];
        let mut index = HashIndex::new(keys.len(), Budget::PerKey(8));
        let firsts: Vec<Option<usize>> = keys
            .iter()
            .enumerate()
            .map(|(i, key)| {
                let hash = index.hash(key.as_bytes());
                index.find_or_add(hash, i, |j| keys[j] == *key).unwrap()
            })
            .collect();
        assert_eq!(
            firsts,
            [None, None, Some(0), None, None, Some(1), Some(4), Some(0)]
        );
    }

    #[test]
    fn keys_on_one_hash_are_told_apart_until_the_budget_ends() {
        let keys: Vec<String> = (0..100).map(|i| i.to_string()).collect();
        let mut index = HashIndex::new(keys.len(), Budget::PerKey(4));
        // Every key on one hash: each probes past all the others.
        let mut outcome = Ok(None);
        for (i, key) in keys.iter().enumerate() {
            outcome = index.find_or_add(7, i, |j| keys[j] == *key);
            if outcome.is_err() {
                break;
            }
            assert_eq!(outcome, Ok(None));
        }
        assert_eq!(
            outcome,
            Err(Crowded),
            "100 keys on one slot pass 4 probes each"
        );
    }

    #[test]
    fn a_walk_stops_at_its_limit() {
        let mut index = HashIndex::new(100, Budget::PerWalk(3));
        for i in 0..3 {
            assert_eq!(index.find_or_add(7, i, |_| false), Ok(None));
        }
        assert_eq!(index.find(7, |_| false), Err(Crowded));
        assert_eq!(index.find(7, |j| j == 2), Ok(Some(2)));
    }

    #[test]
    fn a_full_index_adds_no_more() {
        let mut index = HashIndex::new(4, Budget::PerKey(8));
        let added = (0..100)
            .take_while(|&i| {
                let hash = index.hash(&[i as u8]);
                index.find_or_add(hash, i, |_| false).is_ok()
            })
            .count();
        assert!((4..8).contains(&added), "{added}");
    }

    #[test]
    fn equal_bytes_hash_equally_and_lengths_count() {
        let keys = HashKeys::new();
        assert_eq!(keys.hash(b"node-12345"), keys.hash(b"node-12345"));
        assert_ne!(keys.hash(b"a"), keys.hash(b"a\0"));
        assert_ne!(keys.hash(b""), keys.hash(b"\0"));
    }
}
