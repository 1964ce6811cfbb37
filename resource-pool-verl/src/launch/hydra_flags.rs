//! Hydra's own flags after the entry point, read as Hydra 1.3's argument parser reads
//! them (`hydra/_internal/utils.py`: `get_args_parser`, Python's `argparse`): a long flag
//! may be cut to a prefix no other long flag has (`--config-n=x`), a value is the rest of
//! the word after `=` or the next word, and the overrides are one run of words: an
//! override after a flag that follows overrides is argparse's `unrecognized arguments`.

use super::{FlagValue, HydraArgsProblem, Launch, LaunchProblem, unquoted};
use crate::shell_expansion::expands_to_words;
use resource_pool_core::source::Span;

/// What a flag of Hydra's does for the check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Does {
    ConfigName,
    ConfigPath,
    ConfigDir,
    Multirun,
    /// Read and let be: `--run`, `--resolve`, `--package` (of `--cfg`'s printing).
    Nothing,
    /// Prints (help, the config, Hydra's information, its version, shell completion) or
    /// reruns a pickled job, then exits: the line starts no training of its own.
    PrintsOrReruns,
}

/// How many values a flag takes: none, one (`argparse`'s default), or one if the next
/// word is no flag (`nargs='?'`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Takes {
    Nothing,
    Value,
    MaybeValue,
}

/// One of Hydra's flags: its long name, its short one, what it takes (and the values it
/// may take, when it names them) and does.
#[derive(Debug)]
struct HydraFlag {
    long: &'static str,
    short: Option<&'static str>,
    takes: Takes,
    choices: &'static [&'static str],
    does: Does,
}

const fn flag(
    long: &'static str,
    short: Option<&'static str>,
    takes: Takes,
    does: Does,
) -> HydraFlag {
    HydraFlag {
        long,
        short,
        takes,
        choices: &[],
        does,
    }
}

/// Hydra 1.3's flags (`get_args_parser` of hydra-core 1.3.2, the same in 1.3.8).
const HYDRA_FLAGS: &[HydraFlag] = &[
    flag("--help", Some("-h"), Takes::Nothing, Does::PrintsOrReruns),
    flag("--hydra-help", None, Takes::Nothing, Does::PrintsOrReruns),
    flag("--version", None, Takes::Nothing, Does::PrintsOrReruns),
    HydraFlag {
        choices: &["job", "hydra", "all"],
        ..flag("--cfg", Some("-c"), Takes::Value, Does::PrintsOrReruns)
    },
    flag("--resolve", None, Takes::Nothing, Does::Nothing),
    flag("--package", Some("-p"), Takes::Value, Does::Nothing),
    flag("--run", Some("-r"), Takes::Nothing, Does::Nothing),
    flag("--multirun", Some("-m"), Takes::Nothing, Does::Multirun),
    flag(
        "--shell-completion",
        Some("-sc"),
        Takes::Nothing,
        Does::PrintsOrReruns,
    ),
    flag("--config-path", Some("-cp"), Takes::Value, Does::ConfigPath),
    flag("--config-name", Some("-cn"), Takes::Value, Does::ConfigName),
    flag("--config-dir", Some("-cd"), Takes::Value, Does::ConfigDir),
    flag(
        "--experimental-rerun",
        None,
        Takes::Value,
        Does::PrintsOrReruns,
    ),
    HydraFlag {
        choices: &[
            "all",
            "config",
            "defaults",
            "defaults-tree",
            "plugins",
            "searchpath",
        ],
        ..flag(
            "--info",
            Some("-i"),
            Takes::MaybeValue,
            Does::PrintsOrReruns,
        )
    },
];

/// The flag `name` names (`--config-name`, `-cn`, or a prefix of one long flag only), or
/// the long flags a prefix of several could be; `Ok(None)` when it names none.
fn lookup(name: &str) -> Result<Option<&'static HydraFlag>, Vec<&'static str>> {
    if let Some(exact) = HYDRA_FLAGS
        .iter()
        .find(|f| f.long == name || f.short == Some(name))
    {
        return Ok(Some(exact));
    }
    if !name.starts_with("--") || name.len() < 3 {
        return Ok(None);
    }
    let matching: Vec<&HydraFlag> = HYDRA_FLAGS
        .iter()
        .filter(|f| f.long.starts_with(name))
        .collect();
    match matching[..] {
        [] => Ok(None),
        [one] => Ok(Some(one)),
        _ => Err(matching.iter().map(|f| f.long).collect()),
    }
}

/// Whether argparse takes `word` for a flag (so not for a value), in its order: a word of
/// `-` and more that names a flag of Hydra's (whole, before an `=`, or a prefix), else one
/// that is no negative number (`-1`, `-.5`) and holds no space.
fn looks_like_flag(word: &str) -> bool {
    if word.len() < 2 || !word.starts_with('-') {
        return false;
    }
    let name = word.split_once('=').map_or(word, |(name, _)| name);
    if !matches!(lookup(word), Ok(None)) || !matches!(lookup(name), Ok(None)) {
        return true;
    }
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let negative_number = word
        .strip_prefix('-')
        .is_some_and(|n| match n.split_once('.') {
            Some((whole, fraction)) => (whole.is_empty() || digits(whole)) && digits(fraction),
            None => digits(n),
        });
    !negative_number && !word.contains(' ')
}

/// What a word is to argparse.
#[derive(Debug)]
enum Named {
    /// An override (or a value): no flag.
    NotAFlag,
    /// Hydra's flags it sets, in order (several when short flags run together, `-rm`),
    /// each with the value written in the word and where it starts there (`--cfg=job`,
    /// `-cjob`); a flag that needs a value and has none here takes the next word.
    Flags(Vec<(&'static HydraFlag, Option<usize>)>),
    /// A prefix of several flags, as long as `.1` bytes.
    Ambiguous(Vec<&'static str>, usize),
    /// A flag that is none of Hydra's.
    Unknown,
    /// A flag that takes no value, given one (`--multirun=x`, `-mx`).
    ValueNotTaken(&'static HydraFlag),
}

/// The flag whose short form is `short` exactly (`-c`).
fn short_flag(short: &str) -> Option<&'static HydraFlag> {
    HYDRA_FLAGS.iter().find(|f| f.short == Some(short))
}

/// What `word` is to Hydra's argument parser (Python 3.11's `argparse`): a flag whole, cut
/// to a prefix, or before `=`; a single-dash flag with its value attached (`-cjob`) or run
/// together with others (`-rm`); a prefix of a short flag (`-s` for `-sc`).
fn named(word: &str) -> Named {
    if word.len() < 2 || !word.starts_with('-') {
        return Named::NotAFlag;
    }
    let (name, value_at) = match word.split_once('=') {
        Some((name, _)) => (name, Some(name.len() + 1)),
        None => (word, None),
    };
    let single_dash = !word.starts_with("--");
    let found = match lookup(name) {
        Err(candidates) => return Named::Ambiguous(candidates, name.len()),
        Ok(Some(flag)) => Some((flag, value_at)),
        // `-cjob`: `-c` with `job`; `-cnx` too (`-c` with `nx`, not `-cn` with `x`).
        Ok(None) if single_dash && word.len() > 2 => {
            word.get(..2).and_then(short_flag).map(|f| (f, Some(2)))
        }
        Ok(None) => None,
    };
    let found = found.or_else(|| {
        // `-s`: a prefix of one short flag (`-sc`).
        let mut prefixed = HYDRA_FLAGS
            .iter()
            .filter(|f| single_dash && f.short.is_some_and(|s| s.starts_with(name)));
        match (prefixed.next(), prefixed.next()) {
            (Some(flag), None) => Some((flag, value_at)),
            _ => None,
        }
    });
    let Some((mut flag, mut at)) = found else {
        return match looks_like_flag(word) {
            true => Named::Unknown,
            false => Named::NotAFlag,
        };
    };
    let mut flags = Vec::new();
    // A flag that takes no value, with something after it: for a single-dash flag, the
    // next short flag run together with it (`-rm`), else argparse's refusal.
    // (Something: a rest of the word, or an `=` with nothing after it.)
    while flag.takes == Takes::Nothing
        && let Some(start) = at.filter(|&start| start < word.len() || word[..start].ends_with('='))
    {
        let next = word[start..].chars().next().map(|c| format!("-{c}"));
        match next.as_deref().and_then(short_flag).filter(|_| single_dash) {
            Some(next_flag) => {
                flags.push((flag, None));
                let after = start + next.as_ref().map_or(0, |n| n.len() - 1);
                (flag, at) = (next_flag, (after < word.len()).then_some(after));
            }
            None => return Named::ValueNotTaken(flag),
        }
    }
    flags.push((flag, at));
    Named::Flags(flags)
}

/// Reads `words[i..]` (each starting at `starts[k]` in the line) as Hydra's flags and the
/// overrides, into `launch`.
pub(super) fn read_hydra_args(
    launch: &mut Launch,
    words: &[String],
    starts: &[usize],
    mut i: usize,
) {
    let span = |k: usize| starts[k]..starts[k] + words[k].len();
    // Overrides were read, then a flag: a later override (or `--`) is argparse's error.
    let mut overrides_ended = false;
    let mut refused_split = false;
    let mut refuse_split = |launch: &mut Launch, at: Span| {
        if !refused_split {
            refused_split = true;
            launch.problems.push(LaunchProblem::HydraArgs {
                problem: HydraArgsProblem::OverrideAfterFlag,
                span: at,
            });
        }
    };
    let mut after_dash_dash = false;
    while let Some(w) = words.get(i) {
        if !after_dash_dash && w == "--" {
            // argparse's end of flags: every word after it is an override (a second `--`
            // too), of the same run as the overrides before it.
            if overrides_ended {
                refuse_split(launch, span(i));
            }
            after_dash_dash = true;
            i += 1;
            continue;
        }
        // The flag as written: before an `=`, or the whole word (`-cjob`).
        let flag_span = starts[i]..starts[i] + w.split_once('=').map_or(w.len(), |(n, _)| n.len());
        let flags = match (after_dash_dash, named(w)) {
            (true, _) | (false, Named::NotAFlag) if expands_to_words(w) => {
                // `"${ARGS[@]}"` of a script, split by `shlex`: the words are the shell's
                // to make, unknown here.
                launch.problems.push(LaunchProblem::ShellWords(span(i)));
                i += 1;
                continue;
            }
            (true, _) | (false, Named::NotAFlag) => {
                if overrides_ended {
                    refuse_split(launch, span(i));
                }
                launch.overrides.push((w.clone(), starts[i]));
                i += 1;
                continue;
            }
            (false, Named::Flags(flags)) => flags,
            (false, refused) => {
                let (problem, at) = match refused {
                    Named::Ambiguous(candidates, len) => (
                        HydraArgsProblem::Ambiguous(candidates),
                        starts[i]..starts[i] + len,
                    ),
                    Named::ValueNotTaken(flag) => {
                        (HydraArgsProblem::ValueNotTaken(flag.long), span(i))
                    }
                    _ => (HydraArgsProblem::UnknownFlag, flag_span),
                };
                launch
                    .problems
                    .push(LaunchProblem::HydraArgs { problem, span: at });
                i += 1;
                continue;
            }
        };
        overrides_ended |= !launch.overrides.is_empty();
        let word = i;
        for (hydra_flag, value_at) in flags {
            let value = match (hydra_flag.takes, value_at) {
                (Takes::Nothing, _) => None,
                (_, Some(at)) => Some((
                    w[at..].to_owned(),
                    starts[word] + at..starts[word] + w.len(),
                )),
                (Takes::Value, None) => match words.get(i + 1) {
                    Some(next) if !looks_like_flag(next) => {
                        i += 1;
                        Some((next.clone(), span(i)))
                    }
                    _ => {
                        launch
                            .problems
                            .push(LaunchProblem::MissingValue(span(word)));
                        continue;
                    }
                },
                (Takes::MaybeValue, None) => match words.get(i + 1) {
                    Some(next) if !looks_like_flag(next) => {
                        i += 1;
                        Some((next.clone(), span(i)))
                    }
                    _ => None,
                },
            };
            if let Some((value, at)) = &value
                && !hydra_flag.choices.is_empty()
                && !hydra_flag.choices.contains(&value.as_str())
            {
                // argparse's `invalid choice` (`--info trainer.nnodes=2` takes the
                // override).
                launch.problems.push(LaunchProblem::HydraArgs {
                    problem: HydraArgsProblem::NotAChoice(hydra_flag.choices),
                    span: at.clone(),
                });
                continue;
            }
            let set = |slot: &mut Option<FlagValue>| {
                if let Some((value, span)) = &value {
                    *slot = Some(FlagValue {
                        value: unquoted(value),
                        span: span.clone(),
                    });
                }
            };
            match hydra_flag.does {
                Does::ConfigName => set(&mut launch.config_name),
                Does::ConfigPath => set(&mut launch.config_path),
                Does::ConfigDir => set(&mut launch.config_dir),
                Does::Multirun => launch.multirun = Some(flag_span.clone()),
                Does::Nothing => {}
                Does::PrintsOrReruns => launch.problems.push(LaunchProblem::HydraArgs {
                    problem: HydraArgsProblem::StartsNoTraining(hydra_flag.long),
                    span: flag_span.clone(),
                }),
            }
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse_launch;
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Every span the reader gives lies in the line, on character boundaries, for
        /// any words: flags with and without values, cut, unknown, `--`, overrides.
        #[test]
        fn spans_stay_in_the_line(words in proptest::collection::vec(prop::sample::select(vec![
            "--cfg", "job", "-c", "--info", "--info=x", "-cn", "--config-n=é", "--conf",
            "--conf=a", "-m", "--", "a=1", "ü=2", "--foo", "-x", "-1", "a b", "--help",
            "--experimental-rerun", "-cp=a b", "-cjob", "-rm", "-mx", "--multirun=", "-rcé", "-é", "-éx",
        ]), 0..8)) {
            let mut line = vec!["python3".to_owned(), "-m".to_owned(), "verl.trainer.main_ppo".to_owned()];
            line.extend(words.iter().map(|w| (*w).to_owned()));
            let launch = parse_launch(&line);
            for problem in &launch.problems {
                if let LaunchProblem::HydraArgs { span, .. } | LaunchProblem::MissingValue(span) = problem {
                    prop_assert!(launch.line.get(span.clone()).is_some(), "{problem:?} in {:?}", launch.line);
                }
            }
            for flag in [&launch.config_name, &launch.config_path, &launch.config_dir].into_iter().flatten() {
                prop_assert!(launch.line.get(flag.span.clone()).is_some());
            }
            if let Some(span) = &launch.multirun {
                prop_assert!(launch.line.get(span.clone()).is_some());
            }
        }
    }

    #[test]
    fn long_flags_may_be_cut_to_a_prefix_of_one() {
        assert_eq!(lookup("--config-n").unwrap().unwrap().long, "--config-name");
        assert_eq!(lookup("-cn").unwrap().unwrap().long, "--config-name");
        assert_eq!(lookup("--multi").unwrap().unwrap().long, "--multirun");
        assert_eq!(
            lookup("--conf").unwrap_err(),
            ["--config-path", "--config-name", "--config-dir"]
        );
        assert!(lookup("--foo").unwrap().is_none());
        assert!(lookup("-x").unwrap().is_none());
        assert!(lookup("--").unwrap().is_none());
    }

    #[test]
    fn single_dash_words_as_argparse_reads_them() {
        // Python 3.11's argparse under hydra-core 1.3.2 (checked 2026-12-06).
        fn flags(word: &str) -> Vec<(&'static str, Option<&str>)> {
            match named(word) {
                Named::Flags(flags) => flags
                    .iter()
                    .map(|(f, at)| (f.long, at.map(|at| &word[at..])))
                    .collect(),
                other => panic!("{word}: {other:?}"),
            }
        }
        assert_eq!(flags("-cjob"), [("--cfg", Some("job"))]);
        assert_eq!(flags("-cnx"), [("--cfg", Some("nx"))]);
        assert_eq!(flags("-rm"), [("--run", None), ("--multirun", None)]);
        assert_eq!(flags("-r=m"), [("--run", None), ("--multirun", None)]);
        assert_eq!(flags("-rcjob"), [("--run", None), ("--cfg", Some("job"))]);
        assert_eq!(flags("-s"), [("--shell-completion", None)]);
        assert_eq!(flags("-cn=x"), [("--config-name", Some("x"))]);
        for word in ["-mx", "-m=x", "--multirun=x", "--multirun=", "-sc=1"] {
            assert!(matches!(named(word), Named::ValueNotTaken(_)), "{word}");
        }
        assert!(matches!(named("-scx"), Named::Unknown));
        assert!(matches!(named("-1"), Named::NotAFlag));
    }

    #[test]
    fn negative_numbers_and_spaced_words_are_values() {
        for value in ["-1", "-0.5", "-.5", "a b", "-a b", "x", "-"] {
            assert!(!looks_like_flag(value), "{value}");
        }
        for flag in [
            "-x",
            "--",
            "--config-name",
            "-1a",
            "-1.",
            "-1.x",
            "-cp=a b",
            "--conf=a b",
        ] {
            assert!(looks_like_flag(flag), "{flag}");
        }
    }
}
