//! Words in messages: a noun or verb agrees with its count (`1 node-slot asks`,
//! `2 node-slots ask`), because a count of 1 is common (one dead node, one slot), and a
//! word to paste into a shell is quoted when it must be. One helper for the check's
//! messages, the inventories' and the front ends' (reports, the dashboard reader); every
//! noun they count takes `s` in the plural.

/// `noun` after a count of `n`: as it is for 1, with `s` otherwise (`0 nodes`).
pub fn noun(n: usize, noun: &str) -> String {
    agreed(n == 1, noun)
}

/// `noun` as it is when `one`, with `s` otherwise.
fn agreed(one: bool, noun: &str) -> String {
    if one {
        noun.to_owned()
    } else {
        format!("{noun}s")
    }
}

/// `1 node-slot`, `2 node-slots`.
pub fn count(n: usize, noun_: &str) -> String {
    format!("{n} {}", noun(n, noun_))
}

/// The verb of a subject counted `n`: `one` for 1 (`is`, `asks`), `many` otherwise.
pub fn verb<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// `word` as one shell word: as it is when it holds only characters no shell treats
/// specially, in single quotes otherwise.
pub fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-=,/:@+%".contains(&b));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(count(1, "node-slot"), "1 node-slot");
        assert_eq!(count(2, "node-slot"), "2 node-slots");
        assert_eq!(count(0, "node"), "0 nodes");
        assert_eq!(verb(1, "is", "are"), "is");
        assert_eq!(verb(3, "is", "are"), "are");
    }

    #[test]
    fn shell_words_are_quoted_when_needed() {
        assert_eq!(shell_word("trainer.nnodes=2"), "trainer.nnodes=2");
        assert_eq!(
            shell_word("pools.global_pool.process_on_nodes=[8,8]"),
            "'pools.global_pool.process_on_nodes=[8,8]'"
        );
        assert_eq!(shell_word("a'b"), r"'a'\''b'");
        assert_eq!(shell_word(""), "''");
    }
}
