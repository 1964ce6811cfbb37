//! The launch line's words as they reach resource-pool, before they are read: words that
//! are not UTF-8 (the OS gives bytes) read lossily, and what the shell leaves in a line held as words
//! (`shlex.split(script)`, `sys.argv`): whitespace-only words from `\`-continuations, and a
//! tail of shell syntax (`"$@"`, `2>&1`, `> log`, `| tee log`) that is no word of verl's.

use std::borrow::Cow;
use std::ffi::OsString;

use super::super::shell_expansion::{parens_left_open, unclosed_expansion};
use super::Launch;

/// Whether a word is whitespace only (or empty): a `\`-continuation's line break as
/// `shlex.split` leaves it, never a word of verl's.
pub(super) fn is_blank(word: &str) -> bool {
    word.trim().is_empty()
}

/// Whether a word is the shell's, not the program's: `$@`/`$*` (the script's own
/// arguments, `"$@"` once the shell's quotes are gone), a redirection (`2>&1`, `>log`,
/// `>>log`, `&>log`, `<in`), or a pipe or list operator (`|`, `||`, `&&`, `;`, `&`).
pub(super) fn is_shell_syntax(word: &str) -> bool {
    let unquoted = word.trim_matches('"');
    if matches!(unquoted, "$@" | "$*" | "${@}" | "${*}") {
        return true;
    }
    if matches!(word, "&&" | "||" | ";" | "&") || word.starts_with('|') {
        return true;
    }
    let rest = word.trim_start_matches(|c: char| c.is_ascii_digit());
    rest.starts_with(['>', '<']) || rest.starts_with("&>")
}

/// The most words one shell expansion is joined from: a script's `$(...)` holds a few,
/// and a bound keeps a line of many words that each open one linear to read.
const MAX_EXPANSION_WORDS: usize = 64;

/// The words with what `shlex.split` cut apart inside a shell expansion joined again:
/// bash keeps `$((GPUS / NODES))` and `$(nvidia-smi -L | wc -l)` one word, `shlex`
/// splits them at their blanks (and its `|` would end the line here). A word that leaves
/// a `$(` open takes the words after it, a space between each, until they close it;
/// never closed within [`MAX_EXPANSION_WORDS`], the words stay as they are. The line (the
/// words joined by spaces) is the same either way, so every span into it stays.
pub(super) fn join_cut_expansions(words: &[String]) -> Cow<'_, [String]> {
    if words.iter().all(|w| unclosed_expansion(w) == 0) {
        return Cow::Borrowed(words);
    }
    let mut joined = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let mut open = unclosed_expansion(&words[i]);
        let mut end = i + 1;
        while open > 0 && end < words.len().min(i + MAX_EXPANSION_WORDS) {
            open = parens_left_open(&words[end], open);
            end += 1;
        }
        if open > 0 {
            end = i + 1;
        }
        joined.push(words[i..end].join(" "));
        i = end;
    }
    Cow::Owned(joined)
}

/// Where the shell's syntax starts: the words from there on are not read.
pub(super) fn shell_cut(words: &[String]) -> usize {
    words
        .iter()
        .position(|w| is_shell_syntax(w))
        .unwrap_or(words.len())
}

/// Reads the pasted words as the OS gives them (`resource-pool verl`'s arguments), a word
/// that is not UTF-8 with its bad bytes as `�`: a value the reader reads that holds one is
/// no value of verl's either, and is said so where it is read.
pub fn parse_launch_os(words: &[OsString]) -> Launch {
    let text: Vec<String> = words
        .iter()
        .map(|w| w.to_string_lossy().into_owned())
        .collect();
    super::parse_launch(&text)
}

#[cfg(test)]
mod tests {
    use super::super::{LaunchProblem, parse_launch};
    use super::*;

    #[cfg(unix)]
    #[test]
    fn words_that_are_not_utf8_are_read_lossily() {
        use std::os::unix::ffi::OsStringExt;
        let mut words: Vec<OsString> = ["python3", "-m", "verl.trainer.main_ppo"]
            .iter()
            .map(OsString::from)
            .collect();
        words.push(OsString::from_vec(
            b"data.train_files=/data/caf\xe9".to_vec(),
        ));
        let l = parse_launch_os(&words);
        assert!(l.problems.is_empty(), "{:?}", l.problems);
        assert_eq!(l.overrides[0].0, "data.train_files=/data/caf\u{fffd}");
    }

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn shell_leftovers_of_a_line_held_as_words() {
        // `shlex.split` of verl's quickstart: `\`-continuations, `$@`, `2>&1 | tee log`.
        let l = parse_launch(&words(&[
            "PYTHONUNBUFFERED=1",
            "python3",
            "-m",
            "verl.trainer.main_ppo",
            "\n",
            "trainer.nnodes=1",
            " ",
            "\n",
            "trainer.n_gpus_per_node=1",
            "$@",
            "2>&1",
            "|",
            "tee",
            "verl_demo.log",
        ]));
        let overrides: Vec<&str> = l.overrides.iter().map(|(o, _)| o.as_str()).collect();
        assert_eq!(overrides, ["trainer.nnodes=1", "trainer.n_gpus_per_node=1"]);
        let [LaunchProblem::ShellSyntax(span)] = &l.problems[..] else {
            panic!("{:?}", l.problems)
        };
        assert_eq!(&l.line[span.clone()], "$@ 2>&1 | tee verl_demo.log");
        for tail in [
            &["\"$@\""][..],
            &[">log"],
            &[">>", "log"],
            &["2>", "err"],
            &["|", "tee", "x"],
            &["&&", "echo"],
        ] {
            let mut w = words(&["python3", "-m", "verl.trainer.main_ppo", "trainer.nnodes=1"]);
            w.extend(tail.iter().map(|t| t.to_string()));
            let l = parse_launch(&w);
            assert_eq!(l.overrides.len(), 1, "{tail:?}");
            assert!(
                matches!(&l.problems[..], [LaunchProblem::ShellSyntax(_)]),
                "{tail:?}"
            );
        }
        // Values that hold such characters are verl's.
        let l = parse_launch(&words(&[
            "python3",
            "-m",
            "verl.trainer.main_ppo",
            "data.filter='len>5'",
            "x.y=a|b",
        ]));
        assert!(l.problems.is_empty() && l.overrides.len() == 2);
    }

    #[test]
    fn an_expansion_shlex_cut_at_its_blanks_is_one_word_again() {
        // `shlex.split` of verl users' scripts: bash keeps each `$(...)` one word.
        let l = parse_launch(&words(&[
            "python3",
            "-m",
            "verl.trainer.main_ppo",
            "trainer.n_gpus_per_node=$((NUM_GPUS",
            "/",
            "NUM_NODES))",
            "trainer.nnodes=$(nvidia-smi",
            "-L",
            "|",
            "wc",
            "-l)",
            "trainer.total_epochs=$((2",
        ]));
        let overrides: Vec<&str> = l.overrides.iter().map(|(o, _)| o.as_str()).collect();
        assert_eq!(
            overrides,
            [
                "trainer.n_gpus_per_node=$((NUM_GPUS / NUM_NODES))",
                "trainer.nnodes=$(nvidia-smi -L | wc -l)",
                // Never closed: left as it is.
                "trainer.total_epochs=$((2",
            ]
        );
        assert!(l.problems.is_empty(), "{:?}", l.problems);
        for (o, at) in &l.overrides {
            assert_eq!(&l.line[*at..*at + o.len()], o);
        }
    }

    #[test]
    fn a_script_path_alone_is_the_entry_point() {
        // `sys.argv` inside verl: the script's path first.
        let l = parse_launch(&words(&[
            "/opt/verl/verl/trainer/main_ppo.py",
            "trainer.nnodes=2",
        ]));
        let entry = l.entry.as_ref().expect("an entry point");
        assert!(matches!(entry.kind, super::super::EntryKind::Verl(_)));
        assert!(l.problems.is_empty(), "{:?}", l.problems);
        assert_eq!(l.overrides.len(), 1);
        // Another script is named as an entry point that is not verl's.
        let l = parse_launch(&words(&["train.py", "trainer.nnodes=2"]));
        assert_eq!(l.entry.unwrap().kind, super::super::EntryKind::Unseen);
    }
}
