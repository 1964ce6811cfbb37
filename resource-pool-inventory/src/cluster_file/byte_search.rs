//! Byte searches of the readers' fast paths, eight bytes at a time: the texts searched
//! (an id, a table of two amounts) are a few words long, where a byte loop or a call to
//! `memchr` or `memcmp` costs more than the search.
//!
//! The searches flag a byte by the top bit of its byte in a word: `x - 1` borrows out of
//! a zero byte (the byte sought, xor-ed away) and `x - 0x20` out of a byte below 0x20,
//! and `& !x` drops bytes whose own top bit was set. A borrow may flag bytes above a
//! flagged one, never below, so the lowest flag is the first byte sought.

const ONES: u64 = u64::from_le_bytes([1; 8]);
const TOPS: u64 = u64::from_le_bytes([0x80; 8]);

/// The eight bytes of `bytes` from `at`, as a little-endian word.
pub(super) fn word(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("eight bytes"))
}

/// The top bits of the bytes of `word` equal to `byte` (and maybe of bytes above one).
fn equal(word: u64, byte: u8) -> u64 {
    let diff = word ^ (ONES * u64::from(byte));
    diff.wrapping_sub(ONES) & !diff & TOPS
}

/// The position of the first byte of `bytes` that `flags` flags in its word, or that
/// `is` is.
fn first(bytes: &[u8], flags: impl Fn(u64) -> u64, is: impl Fn(u8) -> bool) -> Option<usize> {
    let mut at = 0;
    while at + 8 <= bytes.len() {
        let found = flags(word(bytes, at));
        if found != 0 {
            return Some(at + found.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    Some(at + bytes[at..].iter().position(|&b| is(b))?)
}

/// Where the first `"`, `\` or control character of `bytes` is: the end of a string's
/// text, or where it needs more than copying.
pub(super) fn string_end(bytes: &[u8]) -> Option<usize> {
    first(
        bytes,
        |word| {
            equal(word, b'"') | equal(word, b'\\') | (word.wrapping_sub(ONES * 0x20) & !word & TOPS)
        },
        |b| b == b'"' || b == b'\\' || b < 0x20,
    )
}

/// Where the first `byte` of `bytes` is.
pub(super) fn find_byte(bytes: &[u8], byte: u8) -> Option<usize> {
    first(bytes, |word| equal(word, byte), |b| b == byte)
}

/// Whether `rest` starts with `text`.
pub(super) fn starts_with(rest: &[u8], text: &[u8]) -> bool {
    let Some(head) = rest.get(..text.len()) else {
        return false;
    };
    if text.len() < 8 {
        // A byte at a time: too short for a word, and too short to call `memcmp` for.
        return head.iter().zip(text).all(|(a, b)| a == b);
    }
    let mut at = 0;
    while at + 8 < text.len() {
        if word(head, at) != word(text, at) {
            return false;
        }
        at += 8;
    }
    // The last word, overlapping the one before unless the length is a multiple of 8.
    let last = text.len() - 8;
    word(head, last) == word(text, last)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn bytes() -> impl Strategy<Value = Vec<u8>> {
        prop::collection::vec(
            prop_oneof![
                4 => any::<u8>(),
                1 => prop::sample::select(vec![b'"', b'\\', b'}', 0x1f, 0x20, 0x7f, 0x80, 0xa0, 0xff]),
            ],
            0..40,
        )
    }

    proptest! {
        /// Each search finds what a byte-at-a-time one does.
        #[test]
        fn the_searches_find_what_a_byte_loop_does(bytes in bytes(), text in bytes()) {
            let expected = bytes.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20);
            prop_assert_eq!(string_end(&bytes), expected);
            prop_assert_eq!(find_byte(&bytes, b'}'), bytes.iter().position(|&b| b == b'}'));
            prop_assert_eq!(starts_with(&bytes, &text), bytes.starts_with(&text));
            let mut longer = text.clone();
            longer.extend_from_slice(&bytes);
            prop_assert!(starts_with(&longer, &text));
        }
    }
}
