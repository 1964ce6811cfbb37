//! Hydra's own flags after the entry point, read as Hydra 1.3's argument parser reads
//! them (`hydra/_internal/utils.py`: `get_args_parser`, Python's `argparse`): a long flag
//! may be cut to a prefix no other long flag has (`--config-n=x`), a value is the rest of
//! the word after `=` or the next word, and the overrides are one run of words: an
//! override after a flag that follows overrides is argparse's `unrecognized arguments`.

use super::{FlagValue, HydraArgsProblem, Launch, LaunchProblem, unquoted};
use crate::source::Span;

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
        let (name, inline) = match w.split_once('=') {
            Some((f, v)) if f.starts_with('-') => (f, Some(v)),
            _ => (w.as_str(), None),
        };
        let found = match after_dash_dash || !w.starts_with('-') {
            true => Ok(None),
            false => lookup(name),
        };
        let hydra_flag = match found {
            Ok(Some(hydra_flag)) => hydra_flag,
            Ok(None) if looks_like_flag(w) && !after_dash_dash => {
                // No flag of Hydra's: argparse's `unrecognized arguments`.
                launch.problems.push(LaunchProblem::HydraArgs {
                    problem: HydraArgsProblem::UnknownFlag,
                    span: starts[i]..starts[i] + name.len(),
                });
                i += 1;
                continue;
            }
            Ok(None) => {
                if overrides_ended {
                    refuse_split(launch, span(i));
                }
                launch.overrides.push((w.clone(), starts[i]));
                i += 1;
                continue;
            }
            Err(candidates) => {
                launch.problems.push(LaunchProblem::HydraArgs {
                    problem: HydraArgsProblem::Ambiguous(candidates),
                    span: starts[i]..starts[i] + name.len(),
                });
                i += 1;
                continue;
            }
        };
        overrides_ended |= !launch.overrides.is_empty();
        // The flag as written (before `=`), kept before `i` moves on to its value.
        let flag_span = starts[i]..starts[i] + name.len();
        let value = match (hydra_flag.takes, inline) {
            (Takes::Nothing, _) => None,
            (_, Some(v)) => {
                let start = starts[i] + name.len() + 1;
                Some((v.to_owned(), start..start + v.len()))
            }
            (Takes::Value, None) => match words.get(i + 1) {
                Some(next) if !looks_like_flag(next) => {
                    i += 1;
                    Some((next.clone(), span(i)))
                }
                _ => {
                    launch.problems.push(LaunchProblem::MissingValue(span(i)));
                    i += 1;
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
            // argparse's `invalid choice` (`--info trainer.nnodes=2` takes the override).
            launch.problems.push(LaunchProblem::HydraArgs {
                problem: HydraArgsProblem::NotAChoice(hydra_flag.choices),
                span: at.clone(),
            });
            i += 1;
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
            Does::Multirun => launch.multirun = Some(flag_span),
            Does::Nothing => {}
            Does::PrintsOrReruns => launch.problems.push(LaunchProblem::HydraArgs {
                problem: HydraArgsProblem::StartsNoTraining(hydra_flag.long),
                span: flag_span,
            }),
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
            "--experimental-rerun", "-cp=a b",
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
