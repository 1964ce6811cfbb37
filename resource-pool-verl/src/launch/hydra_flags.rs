//! Hydra's own flags after the entry point (`get_args_parser` of Hydra 1.3,
//! `hydra/_internal/utils.py`): `--config-name`/`-cn`, `--config-path`/`-cp` and
//! `--config-dir`/`-cd` with their value after `=` or as the next word, the flags that
//! take none (`--multirun`/`-m`, `--run`/`-r`, `--resolve`), and those after which Hydra
//! prints or reruns a pickled job instead of training. A long flag may be cut to a prefix
//! of one flag only, as argparse takes it; after `--` every word is an override. Any
//! other word that starts with `-` (and is no negative number) is no flag of Hydra's.
//! How argparse refuses other corner cases is Hydra's to say, at once, when it starts.

use super::{FlagValue, HydraArgsProblem, Launch, LaunchProblem, unquoted};
use crate::shell_expansion::expands_to_words;

/// What a flag of Hydra's does for the check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Does {
    ConfigName,
    ConfigPath,
    ConfigDir,
    Multirun,
    /// Read and let be: `--run`, `--resolve`, `--package`.
    Nothing,
    /// Prints (help, the config, Hydra's information, its version, shell completion) or
    /// reruns a pickled job, then exits: the line starts no training of its own.
    PrintsOrReruns,
}

/// One of Hydra's flags: its long name, its short one, whether it takes a value, and what
/// it does.
#[derive(Debug)]
struct HydraFlag {
    long: &'static str,
    short: Option<&'static str>,
    takes_value: bool,
    does: Does,
}

const fn flag(
    long: &'static str,
    short: Option<&'static str>,
    takes_value: bool,
    does: Does,
) -> HydraFlag {
    HydraFlag {
        long,
        short,
        takes_value,
        does,
    }
}

/// Hydra 1.3's flags (hydra-core 1.3.2, the same in 1.3.8). `--info` takes a value only
/// when one follows; as it prints and exits, its value does not matter here.
const HYDRA_FLAGS: &[HydraFlag] = &[
    flag("--help", Some("-h"), false, Does::PrintsOrReruns),
    flag("--hydra-help", None, false, Does::PrintsOrReruns),
    flag("--version", None, false, Does::PrintsOrReruns),
    flag("--cfg", Some("-c"), true, Does::PrintsOrReruns),
    flag("--resolve", None, false, Does::Nothing),
    flag("--package", Some("-p"), true, Does::Nothing),
    flag("--run", Some("-r"), false, Does::Nothing),
    flag("--multirun", Some("-m"), false, Does::Multirun),
    flag(
        "--shell-completion",
        Some("-sc"),
        false,
        Does::PrintsOrReruns,
    ),
    flag("--config-path", Some("-cp"), true, Does::ConfigPath),
    flag("--config-name", Some("-cn"), true, Does::ConfigName),
    flag("--config-dir", Some("-cd"), true, Does::ConfigDir),
    flag("--experimental-rerun", None, true, Does::PrintsOrReruns),
    flag("--info", Some("-i"), false, Does::PrintsOrReruns),
];

/// The flag `name` names: whole (`--config-name`, `-cn`), or a prefix of one long flag
/// only (`--config-n`).
fn lookup(name: &str) -> Option<&'static HydraFlag> {
    let exact = HYDRA_FLAGS
        .iter()
        .find(|f| f.long == name || f.short == Some(name));
    if exact.is_some() || !name.starts_with("--") || name.len() < 3 {
        return exact;
    }
    let mut prefixed = HYDRA_FLAGS.iter().filter(|f| f.long.starts_with(name));
    match (prefixed.next(), prefixed.next()) {
        (Some(one), None) => Some(one),
        _ => None,
    }
}

/// Whether argparse takes `word` for a flag, not a value: a `-` and more, no negative
/// number (`-1`, `-.5`), no space.
fn looks_like_flag(word: &str) -> bool {
    let Some(rest) = word.strip_prefix('-').filter(|r| !r.is_empty()) else {
        return false;
    };
    let number =
        rest.parse::<f64>().is_ok() && rest.starts_with(|c: char| c.is_ascii_digit() || c == '.');
    !number && !word.contains(' ')
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
    let mut after_dash_dash = false;
    while let Some(w) = words.get(i) {
        if !after_dash_dash && w == "--" {
            after_dash_dash = true;
        } else if after_dash_dash || !looks_like_flag(w) {
            if expands_to_words(w) {
                // `"${ARGS[@]}"` of a script, split by `shlex`: the words are the shell's
                // to make, unknown here.
                launch.problems.push(LaunchProblem::ShellWords(span(i)));
            } else {
                launch.overrides.push((w.clone(), starts[i]));
            }
        } else {
            i = read_flag(launch, words, starts, i);
        }
        i += 1;
    }
}

/// Reads the flag `words[i]` (and its value); the index of the last word it takes.
fn read_flag(launch: &mut Launch, words: &[String], starts: &[usize], i: usize) -> usize {
    let w = &words[i];
    let (name, attached) = match w.split_once('=') {
        Some((name, value)) => (name, Some((value, starts[i] + name.len() + 1))),
        None => (w.as_str(), None),
    };
    let name_span = starts[i]..starts[i] + name.len();
    let Some(flag) = lookup(name) else {
        launch.problems.push(LaunchProblem::HydraArgs {
            problem: HydraArgsProblem::UnknownFlag,
            span: name_span,
        });
        return i;
    };
    match flag.does {
        Does::PrintsOrReruns => launch.problems.push(LaunchProblem::HydraArgs {
            problem: HydraArgsProblem::StartsNoTraining(flag.long),
            span: name_span.clone(),
        }),
        Does::Multirun => launch.multirun = Some(name_span.clone()),
        _ => {}
    }
    if !flag.takes_value {
        return i;
    }
    let (value, at, last) = match (attached, words.get(i + 1)) {
        (Some((value, at)), _) => (value, at, i),
        (None, Some(next)) if !looks_like_flag(next) => (next.as_str(), starts[i + 1], i + 1),
        (None, _) => {
            launch.problems.push(LaunchProblem::MissingValue(name_span));
            return i;
        }
    };
    let value = Some(FlagValue {
        value: unquoted(value),
        span: at..at + value.len(),
    });
    match flag.does {
        Does::ConfigName => launch.config_name = value,
        Does::ConfigPath => launch.config_path = value,
        Does::ConfigDir => launch.config_dir = value,
        Does::Multirun | Does::Nothing | Does::PrintsOrReruns => {}
    }
    last
}

#[cfg(test)]
mod tests {
    use super::super::parse_launch;
    use super::*;

    fn launch(flags: &str) -> Launch {
        let line = format!("python3 -m verl.trainer.main_ppo {flags}");
        parse_launch(&line.split(' ').map(str::to_owned).collect::<Vec<_>>())
    }

    #[test]
    fn config_flags_take_their_value_attached_or_next() {
        for flags in [
            "--config-name=ppo_megatron_trainer a=1",
            "--config-name ppo_megatron_trainer a=1",
            "-cn ppo_megatron_trainer a=1",
            "--config-n=ppo_megatron_trainer a=1",
            "a=1 --config-name='ppo_megatron_trainer'",
            "-m -cn ppo_megatron_trainer -- a=1",
        ] {
            let l = launch(flags);
            let name = l.config_name.as_ref().unwrap_or_else(|| panic!("{flags}"));
            assert_eq!(name.value, "ppo_megatron_trainer", "{flags}");
            assert!(
                l.line[name.span.clone()].contains("ppo_megatron_trainer"),
                "{flags}"
            );
            assert!(l.problems.is_empty(), "{flags}: {:?}", l.problems);
            assert_eq!(l.overrides.len(), 1, "{flags}");
        }
    }

    #[test]
    fn other_dashed_words_are_no_flag_and_printing_flags_start_no_training() {
        let unknown = |flags: &str| {
            let l = launch(flags);
            match &l.problems[..] {
                [
                    LaunchProblem::HydraArgs {
                        problem: HydraArgsProblem::UnknownFlag,
                        span,
                    },
                ] => l.line[span.clone()].to_owned(),
                other => panic!("{flags}: {other:?}"),
            }
        };
        assert_eq!(unknown("--cluster c.toml"), "--cluster");
        assert_eq!(unknown("--conf=x"), "--conf");
        let l = launch("--cfg job");
        assert!(matches!(
            &l.problems[..],
            [LaunchProblem::HydraArgs {
                problem: HydraArgsProblem::StartsNoTraining("--cfg"),
                ..
            }]
        ));
        // Negative numbers and words after `--` are values and overrides.
        let l = launch("a=-1 -- -x=1");
        assert!(l.problems.is_empty(), "{:?}", l.problems);
        assert_eq!(l.overrides.len(), 2);
        let l = launch("--config-path");
        assert!(matches!(&l.problems[..], [LaunchProblem::MissingValue(_)]));
    }
}
