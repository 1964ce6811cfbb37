//! The launch line as a verl user pastes it: the launchers before verl's arguments
//! (`env VAR=..`, leading `VAR=value` words, `ray job submit [options] --`, `python3` with
//! its flags), the entry point (`-m MODULE` or a script), Hydra's own flags
//! (`--config-name`/`-cn`, `--config-path`/`-cp`, `--config-dir`/`-cd`, ...), and the
//! overrides after them. A line of bare overrides (no launcher) is read as before.
//! `ray job submit`'s own words say which cluster the job goes to: its `--address` and the
//! `RAY_API_SERVER_ADDRESS` / `RAY_ADDRESS` the launchers before it set ([`Submit`], read
//! in the `submit` module).
//!
//! Every word keeps its span in the command line: the words joined by single spaces.

use super::shell_expansion::expands_to_words;
use resource_pool_core::source::Span;

mod entry_points;
mod hydra_flags;
pub mod job_cluster;
mod launchers;
mod shell_string;
mod submit;
mod words;

pub use entry_points::{Builds, ENTRY_POINTS, Entry, EntryKind, EntryPoint, main_ppo};
use entry_points::{module_entry, script_entry};
use launchers::Command;
pub use resource_pool_core::words::shell_word;
use shell_string::{CommandString, LeftOpen};
pub use submit::{
    AddressVia, AmbientAddresses, RAY_ADDRESS, RAY_API_SERVER_ADDRESS, Submit, SubmitEnv,
    SubmitTarget, is_dashboard_url,
};
use submit::{SubmitEnvs, submit_address};
pub use words::parse_launch_os;

/// A value of a Hydra flag, with its span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlagValue {
    /// The value, quotes removed.
    pub value: String,
    /// The value's span.
    pub span: Span,
}

/// A problem of the launcher words.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LaunchProblem {
    /// `ray job submit` without the `--` that starts its entrypoint.
    RaySubmitWithoutEntrypoint(Span),
    /// `python3 -c CODE`: no entry point to read.
    InlineCode(Span),
    /// An interpreter flag that needs a value, at the end of the line.
    MissingValue(Span),
    /// A program word that is none of the launchers understood.
    UnknownLauncher(Span),
    /// A launcher (`docker exec box ./train.sh`) after which no word starts a program the
    /// reader reads: on the launcher's words.
    CommandUnseen(Span),
    /// Launcher words with no program after them (`env`, `ray job submit --`, `python3 -u`):
    /// on the last of them.
    NoProgram(Span),
    /// The shell's syntax (`"$@"`, `2>&1`, `| tee log`) and every word after it, which are
    /// not read: a line held as words (`shlex.split(script)`) keeps them.
    ShellSyntax(Span),
    /// A word where an override would stand that the shell makes words of
    /// (`${ARGS[@]}`, `$EXTRA_ARGS`, `$(cat overrides.txt)`): a line held as words keeps it
    /// as written, and the words it stands for are not read.
    ShellWords(Span),
    /// A shell's command string (`bash -c '...'`) that leaves a quote, `$(`, `${` or
    /// backquote open, which the shell refuses.
    OpenQuote(Span),
    /// Hydra's own arguments as its argument parser refuses them, or a flag that makes
    /// Hydra print (or rerun a pickled job) instead of training.
    HydraArgs {
        /// What is wrong.
        problem: HydraArgsProblem,
        /// The word (or flag) at fault.
        span: Span,
    },
}

/// What is wrong with Hydra's own arguments (see [`LaunchProblem::HydraArgs`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HydraArgsProblem {
    /// A word that looks like a flag and is none of Hydra's (`--foo`, `-x`, a prefix of
    /// several: `--conf`): argparse refuses it.
    UnknownFlag,
    /// A flag (named by its long form) after which Hydra prints its help, the config,
    /// its information, version or shell completion, or reruns a pickled job, and exits.
    StartsNoTraining(&'static str),
}

/// The pasted line, read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Launch {
    /// The command line the spans point into.
    pub line: String,
    /// The entry point, when the line names one.
    pub entry: Option<Entry>,
    /// `--config-name` / `-cn`.
    pub config_name: Option<FlagValue>,
    /// `--config-path` / `-cp`.
    pub config_path: Option<FlagValue>,
    /// `--config-dir` / `-cd`: a folder added to the search path.
    pub config_dir: Option<FlagValue>,
    /// `--multirun` / `-m`: Hydra starts one run per value of each sweep (`a=1,2`).
    pub multirun: Option<Span>,
    /// The words after the launcher and Hydra's flags: overrides, with their start offsets.
    pub overrides: Vec<(String, usize)>,
    /// What is wrong with the launcher words.
    pub problems: Vec<LaunchProblem>,
    /// `ray job submit`'s words about its cluster, when the line submits with it.
    pub submit: Option<Submit>,
}

fn unquoted(value: &str) -> String {
    value.trim_matches(|c| c == '\'' || c == '"').to_owned()
}

/// Python's short flags that take a value: `-m MODULE`, `-c CODE`, `-X dev`, `-W ignore`
/// (its one long flag with a value, `--check-hash-based-pycs`, is read apart).
const PYTHON_FLAGS_WITH_VALUE: &[char] = &['m', 'c', 'X', 'W'];

/// The name of the program a word runs, written by name or by path (`/usr/bin/python3`,
/// `/opt/singularity/bin/singularity`): what follows its last `/`.
fn program_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

fn is_python(word: &str) -> bool {
    let name = program_name(word);
    name == "python"
        || name
            .strip_prefix("python")
            .is_some_and(|v| !v.is_empty() && v.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

fn is_env_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// Whether `words[i]` starts Python: an interpreter's name (see [`is_python`]), or what a
/// script's shell fills one in from (`"$PYTHON" -m ...`, `${PYTHON_BIN} train.py`,
/// `"${LAUNCH[@]}" -m ...`), known by what follows it: a flag or a `.py` script.
fn is_python_at(words: &[String], i: usize) -> bool {
    words.get(i).is_some_and(|w| {
        is_python(w)
            || (expands_to_words(w)
                && words
                    .get(i + 1)
                    .is_some_and(|next| next.starts_with('-') || next.ends_with(".py")))
    })
}

/// Whether `words[i]` is a launcher read here: Python, `ray`, `env`, one with options of
/// its own (`uv run`, `srun`, the container launchers: `launchers::LAUNCHERS`), a shell
/// given `-c STRING`, or the shell's `exec` and `nohup`, which run the words after them as
/// they are.
fn is_launcher_at(words: &[String], i: usize) -> bool {
    launchers::launcher_at(words, i).is_some()
        || shell_string::command_string_at(words, i).is_some()
        || is_python_at(words, i)
        || words
            .get(i)
            .is_some_and(|w| matches!(w.as_str(), "env" | "exec" | "nohup"))
        || (words.get(i).is_some_and(|w| w == "ray")
            && words.get(i + 1).is_some_and(|w| w == "job"))
}

/// Whether `words[i]` starts a program the reader reads: a launcher, or a script run as a
/// program (`train.py`, not a `key=value` or an option's `/a.py:/b.py`).
fn starts_program_at(words: &[String], i: usize) -> bool {
    is_launcher_at(words, i)
        || words[i].ends_with(".py") && !words[i].contains(['=', ':']) && !words[i].starts_with('-')
}

/// Reads the pasted words (whitespace-only words, which a `\`-continuation leaves in a line
/// split as the shell would, skipped).
pub fn parse_launch(words: &[String]) -> Launch {
    if words.iter().any(|w| words::is_blank(w)) {
        let kept: Vec<String> = words
            .iter()
            .filter(|w| !words::is_blank(w))
            .cloned()
            .collect();
        return read_launch(&kept);
    }
    read_launch(words)
}

/// The most shell command strings read one inside another (`bash -c "sh -c '...'"`): each
/// is shorter than the line that holds it, so this bounds only the work.
const MAX_SHELL_STRINGS: usize = 8;

/// Reads words without blanks. A shell given `-c STRING` is read as the words of the
/// command in its string that runs verl (`shell_string`): the words from the string on are
/// replaced by those and the line is read again, `expanded` telling where strings were
/// read. All the words make the line the spans point into; the shell's syntax and what
/// follows it are not read.
fn read_launch(all: &[String]) -> Launch {
    let mut words = words::join_cut_expansions(all);
    let mut expanded = Vec::new();
    loop {
        match read_words(&words, &expanded) {
            Reading::Read(launch) => return *launch,
            Reading::ShellString { at, command } => {
                let words = words.to_mut();
                words.truncate(at);
                words.extend(command);
                expanded.push(at);
            }
        }
    }
}

/// A reading of the words: done, or a shell's command string to read in its place.
enum Reading {
    Read(Box<Launch>),
    ShellString {
        /// The index of the string.
        at: usize,
        /// The words of the command it runs verl with.
        command: Vec<String>,
    },
}

/// Reads the words once; `expanded` are the indices where shell strings' commands stand
/// already.
fn read_words(all: &[String], expanded: &[usize]) -> Reading {
    let mut starts = Vec::with_capacity(all.len());
    let mut offset = 0;
    for w in all {
        starts.push(offset);
        offset += w.len() + 1;
    }
    let mut launch = Launch {
        line: all.join(" "),
        ..Launch::default()
    };
    let cut = words::shell_cut(all);
    if cut < all.len() {
        let span = starts[cut]..launch.line.len();
        launch.problems.push(LaunchProblem::ShellSyntax(span));
    }
    // A line as `bash -x` prints it starts with its trace mark (`+`, `++` in a subshell):
    // the shell's, not a word of the command.
    let traced = all[..cut]
        .first()
        .is_some_and(|w| !w.is_empty() && w.bytes().all(|b| b == b'+'));
    let mut line = LineReader {
        words: &all[..cut],
        starts,
        launch,
        env: SubmitEnvs::default(),
    };
    let first = usize::from(traced);
    let read = line
        .launchers(first, expanded)
        .and_then(|i| line.entry_point(i, first));
    if let Step::At(i) = read {
        hydra_flags::read_hydra_args(&mut line.launch, line.words, &line.starts, i);
    }
    match read {
        Step::ShellString(reading) => reading,
        Step::At(_) | Step::Done => Reading::Read(Box::new(line.launch)),
    }
}

/// Where the reading of the words goes on.
enum Step {
    /// At this word.
    At(usize),
    /// Nowhere: the launch is read (a problem said, or the overrides read).
    Done,
    /// A shell's command string to read in its place.
    ShellString(Reading),
}

impl Step {
    fn and_then(self, next: impl FnOnce(usize) -> Step) -> Step {
        match self {
            Step::At(i) => next(i),
            stop => stop,
        }
    }
}

/// The words of one reading, where each starts in the line, the launch read so far, and
/// `RAY_ADDRESS` and `RAY_API_SERVER_ADDRESS` as the launchers before `ray job submit` leave
/// them.
struct LineReader<'w> {
    words: &'w [String],
    starts: Vec<usize>,
    launch: Launch,
    env: SubmitEnvs,
}

impl LineReader<'_> {
    fn span(&self, i: usize) -> Span {
        self.starts[i]..self.starts[i] + self.words[i].len()
    }

    /// `problem` on the launch, which is then read.
    fn stop(&mut self, problem: LaunchProblem) -> Step {
        self.launch.problems.push(problem);
        Step::Done
    }

    /// The launchers from `words[i]`, outermost first (env assignments, `env`, `exec`,
    /// `nohup`, `ray job submit ... --`, a shell's string, launchers with options of their
    /// own): the word after the last.
    fn launchers(&mut self, mut i: usize, expanded: &[usize]) -> Step {
        let words = self.words;
        loop {
            // What the launchers after `ray job submit --` set is the job's environment on
            // the cluster, not the one `ray job submit` reads.
            let before_submit = self.launch.submit.is_none();
            let assignments = (words[i..].iter())
                .take_while(|w| is_env_assignment(w))
                .count();
            if assignments > 0 {
                // `VAR=value` words count as the environment only before a launcher; else
                // they are overrides (`model_engine=megatron`).
                if !is_launcher_at(words, i + assignments) {
                    return Step::At(i);
                }
                for k in (i..i + assignments).filter(|_| before_submit) {
                    self.env.assign(&words[k], self.starts[k]);
                }
                i += assignments;
            }
            let next = match self.shell_string(i, expanded) {
                Step::At(at) if at == i => self.launcher(i, before_submit),
                other => other,
            };
            match next {
                Step::At(at) if at == i => return Step::At(i),
                Step::At(at) => i = at,
                stop => return stop,
            }
        }
    }

    /// A shell given `-c STRING` at `words[i]`: the command in the string that runs verl,
    /// read in its place (once; after that, its words stand from the string's index on).
    /// `At(i)` when there is none.
    fn shell_string(&mut self, i: usize, expanded: &[usize]) -> Step {
        match shell_string::command_string_at(self.words, i) {
            Some(CommandString::At(at)) if expanded.contains(&at) => Step::At(at),
            Some(CommandString::At(at)) if expanded.len() < MAX_SHELL_STRINGS => {
                match shell_string::verl_command(&self.words[at]) {
                    Ok(command) if !command.is_empty() => {
                        Step::ShellString(Reading::ShellString { at, command })
                    }
                    Ok(_) => self.stop(LaunchProblem::NoProgram(self.span(at))),
                    Err(LeftOpen) => self.stop(LaunchProblem::OpenQuote(self.span(at))),
                }
            }
            Some(CommandString::Missing(last)) => {
                self.stop(LaunchProblem::NoProgram(self.span(last)))
            }
            _ => Step::At(i),
        }
    }

    /// The launcher at `words[i]`, read: the word after it, or `At(i)` when there is none.
    fn launcher(&mut self, i: usize, before_submit: bool) -> Step {
        let words = self.words;
        if let Some((launcher, start)) = launchers::launcher_at(words, i) {
            return match launchers::command_after(launcher, words, start, |j| {
                starts_program_at(words, j)
            }) {
                Command::Program(next) => Step::At(next),
                Command::Module(at) => {
                    // `uv run -m MODULE`: Python's `-m`, uv's options before it.
                    self.launch.entry = Some(module_entry(&words[at], self.span(at)));
                    self.hydra_args(at + 1)
                }
                // On the launcher's own words: what it runs is not seen.
                Command::Unseen => {
                    let span = self.starts[i]..self.span(start - 1).end;
                    self.stop(LaunchProblem::CommandUnseen(span))
                }
            };
        }
        match words.get(i).map(String::as_str) {
            Some("env") => self.env_options(i + 1, before_submit),
            // A script's `exec` (its flags `-c`, `-l`, `-a NAME`) and `nohup` run the
            // words after them.
            Some("exec") => {
                let mut i = i + 1;
                while let Some(flag) = words.get(i).filter(|w| w.starts_with('-')) {
                    i = (i + if flag == "-a" { 2 } else { 1 }).min(words.len());
                }
                Step::At(i)
            }
            Some("nohup") => Step::At(i + 1),
            Some("ray") if words.get(i + 1).is_some_and(|w| w == "job") => {
                match words[i..].iter().position(|w| w == "--") {
                    Some(dash) if before_submit => {
                        let address = submit_address(words, &self.starts, i + 2..i + dash);
                        let env = std::mem::take(&mut self.env);
                        self.launch.submit = Some(env.submit(address));
                        Step::At(i + dash + 1)
                    }
                    Some(dash) => Step::At(i + dash + 1),
                    None => self.stop(LaunchProblem::RaySubmitWithoutEntrypoint(self.span(i))),
                }
            }
            _ => Step::At(i),
        }
    }

    /// `env`'s options from `words[i]`: the word after them.
    fn env_options(&mut self, mut i: usize, before_submit: bool) -> Step {
        while let Some(w) = self.words.get(i) {
            match w.as_str() {
                "-i" | "--ignore-environment" => {
                    if before_submit {
                        self.env.clear();
                    }
                    i += 1;
                }
                "-0" | "--null" => i += 1,
                "-u" | "--unset" | "-C" | "--chdir" => {
                    // The option's value is the next word; without one the line ends in
                    // the middle of `env`'s options.
                    let Some(value) = self.words.get(i + 1) else {
                        return self.stop(LaunchProblem::MissingValue(self.span(i)));
                    };
                    if matches!(w.as_str(), "-u" | "--unset") && before_submit {
                        self.env.unset(value);
                    }
                    i += 2;
                }
                w if w.starts_with("--unset=") || w.starts_with("--chdir=") => {
                    if let Some(name) = w.strip_prefix("--unset=")
                        && before_submit
                    {
                        self.env.unset(name);
                    }
                    i += 1;
                }
                _ => break,
            }
        }
        Step::At(i)
    }

    /// The entry point at `words[i]` (after the launchers, which start at `first`): Python
    /// and its module or script, or a script alone; then the word after it.
    fn entry_point(&mut self, i: usize, first: usize) -> Step {
        let words = self.words;
        if i > first && i == words.len() {
            return self.stop(LaunchProblem::NoProgram(self.span(i - 1)));
        }
        if is_python_at(words, i) {
            return self.python(i + 1);
        }
        match words.get(i) {
            Some(w) if w.ends_with(".py") && !w.contains('=') => {
                // A script run as a program (its path alone: `sys.argv[0]` inside verl).
                self.launch.entry = Some(script_entry(w, self.span(i)));
                Step::At(i + 1)
            }
            // A program that is no launcher understood (`torchrun`, `bash run.sh`), or
            // launcher words with no program after them.
            Some(w) if i > first || !w.contains('=') && !w.starts_with(['-', '~']) => {
                self.stop(LaunchProblem::UnknownLauncher(self.span(i)))
            }
            _ => Step::At(i),
        }
    }

    /// Python's flags from `words[i]`, then its module or script: the word after it.
    fn python(&mut self, mut i: usize) -> Step {
        let words = self.words;
        loop {
            let Some(w) = words.get(i) else {
                return self.stop(LaunchProblem::NoProgram(self.span(i - 1)));
            };
            if w == "--check-hash-based-pycs" {
                if i + 1 >= words.len() {
                    return self.stop(LaunchProblem::MissingValue(self.span(i)));
                }
                i += 2;
                continue;
            }
            if w.starts_with("--") {
                i += 1;
                continue;
            }
            let Some(flags) = w.strip_prefix('-').filter(|f| !f.is_empty()) else {
                // A script (`-` alone is stdin, which we cannot read either).
                self.launch.entry = Some(script_entry(w, self.span(i)));
                return Step::At(i + 1);
            };
            // Python reads its short flags as getopt does: `-um MODULE` is `-u -m MODULE`,
            // and a flag that takes a value takes the rest of its word
            // (`-mverl.trainer.main_ppo`, `-Xdev`), else the next word.
            let Some((at, flag)) = flags
                .char_indices()
                .find(|(_, c)| PYTHON_FLAGS_WITH_VALUE.contains(c))
            else {
                i += 1;
                continue;
            };
            let attached = 1 + at + flag.len_utf8();
            let (value, value_span, next) = if attached < w.len() {
                let start = self.starts[i] + attached;
                (&w[attached..], start..self.span(i).end, i + 1)
            } else if let Some(value) = words.get(i + 1) {
                (value.as_str(), self.span(i + 1), i + 2)
            } else {
                return self.stop(LaunchProblem::MissingValue(self.span(i)));
            };
            match flag {
                'm' => {
                    self.launch.entry = Some(module_entry(value, value_span));
                    return Step::At(next);
                }
                'c' => return self.stop(LaunchProblem::InlineCode(self.span(i))),
                _ => i = next,
            }
        }
    }

    /// Hydra's own flags from `words[i]`, then the overrides: the launch is read.
    fn hydra_args(&mut self, i: usize) -> Step {
        hydra_flags::read_hydra_args(&mut self.launch, self.words, &self.starts, i);
        Step::Done
    }
}

#[cfg(test)]
mod tests {
    use super::entry_points::script_module;
    use super::*;

    /// A line as the shell splits it, at single spaces (also for `submit`'s tests).
    pub(super) fn words(line: &str) -> Vec<String> {
        line.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn python_with_flags_and_a_module() {
        let w = words(
            "python3 -u -X dev -m verl.trainer.main_ppo trainer.nnodes=2 -cn ppo_megatron_trainer --config-path=config",
        );
        let l = parse_launch(&w);
        let entry = l.entry.as_ref().unwrap();
        assert_eq!(entry.text, "verl.trainer.main_ppo");
        assert_eq!(&l.line[entry.span.clone()], "verl.trainer.main_ppo");
        assert!(matches!(entry.kind, EntryKind::Verl(u) if u.module == "verl.trainer.main_ppo"));
        assert_eq!(entry.folder(), "verl/trainer");
        assert_eq!(
            l.config_name.as_ref().unwrap().value,
            "ppo_megatron_trainer"
        );
        let path = l.config_path.as_ref().unwrap();
        assert_eq!(
            (path.value.as_str(), &l.line[path.span.clone()]),
            ("config", "config")
        );
        assert_eq!(l.overrides.len(), 1);
        let (text, at) = &l.overrides[0];
        assert_eq!(&l.line[*at..*at + text.len()], "trainer.nnodes=2");
        assert!(l.problems.is_empty());
        assert_eq!(l.multirun, None);
    }

    #[test]
    fn hydras_multirun_flag_after_the_entry_point_is_kept_not_pythons_m() {
        for (line, flag) in [
            (
                "python3 -m verl.trainer.main_ppo -m trainer.nnodes=1,2",
                "-m",
            ),
            (
                "python3 -m verl.trainer.main_ppo trainer.nnodes=1,2 --multirun",
                "--multirun",
            ),
            ("-m trainer.nnodes=1,2", "-m"),
        ] {
            let l = parse_launch(&words(line));
            let span = l.multirun.clone().unwrap_or_else(|| panic!("{line}"));
            assert_eq!(&l.line[span], flag, "{line}");
            let overrides: Vec<&str> = l.overrides.iter().map(|(o, _)| o.as_str()).collect();
            assert_eq!(overrides, ["trainer.nnodes=1,2"], "{line}");
        }
    }

    #[test]
    fn launchers_that_start_no_program_are_a_problem_on_their_last_word() {
        for (line, last) in [
            ("env", "env"),
            ("env -i", "-i"),
            ("A=1 env", "env"),
            ("ray job submit --address http://h:8265 --", "--"),
            ("python3", "python3"),
            ("python3 -u -X dev", "dev"),
        ] {
            let l = parse_launch(&words(line));
            assert!(
                matches!(&l.problems[..], [LaunchProblem::NoProgram(s)] if l.line[s.clone()] == *last),
                "{line}: {:?}",
                l.problems
            );
        }
        // Overrides alone, and nothing at all, are no launcher: verl's defaults.
        for line in ["", "trainer.nnodes=2", "A=1 B=2"] {
            let w: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
            assert!(parse_launch(&w).problems.is_empty(), "{line}");
        }
    }

    #[test]
    fn python_short_flags_combine_as_getopt_reads_them() {
        for line in [
            "python3 -um verl.trainer.main_ppo trainer.nnodes=2",
            "python3 -Bm verl.trainer.main_ppo trainer.nnodes=2",
            "python3 -mverl.trainer.main_ppo trainer.nnodes=2",
            "python3 -Xdev -Wignore -um verl.trainer.main_ppo trainer.nnodes=2",
            "python3 -uX dev -Bmverl.trainer.main_ppo trainer.nnodes=2",
            "python3 --check-hash-based-pycs never -m verl.trainer.main_ppo trainer.nnodes=2",
        ] {
            let l = parse_launch(&words(line));
            let entry = l
                .entry
                .as_ref()
                .unwrap_or_else(|| panic!("{line}: no entry"));
            assert_eq!(
                &l.line[entry.span.clone()],
                "verl.trainer.main_ppo",
                "{line}"
            );
            assert!(matches!(entry.kind, EntryKind::Verl(_)), "{line}");
            let overrides: Vec<&str> = l.overrides.iter().map(|(o, _)| o.as_str()).collect();
            assert_eq!(overrides, ["trainer.nnodes=2"], "{line}");
            assert!(l.problems.is_empty(), "{line}");
        }
        // `-uc CODE`: inline code, on its flag; a value flag at the end has no value.
        let l = parse_launch(&words("python3 -uc print(1) trainer.nnodes=2"));
        assert!(
            matches!(&l.problems[..], [LaunchProblem::InlineCode(s)] if l.line[s.clone()] == *"-uc")
        );
        let l = parse_launch(&words("python3 -u -m"));
        assert!(
            matches!(&l.problems[..], [LaunchProblem::MissingValue(s)] if l.line[s.clone()] == *"-m")
        );
    }

    #[test]
    fn env_and_ray_job_submit_before_python() {
        let w = words(
            "ray job submit --address http://h:8265 --runtime-env-json={} -- env CUDA=1 VLLM_USE_V1=1 python3 -m verl.trainer.main_ppo a.b=1",
        );
        let l = parse_launch(&w);
        assert_eq!(l.entry.as_ref().unwrap().text, "verl.trainer.main_ppo");
        assert_eq!(l.overrides, vec![("a.b=1".to_owned(), l.line.len() - 5)]);
        let l = parse_launch(&words(
            "HYDRA_FULL_ERROR=1 python3 verl/trainer/main_ppo.py x.y=1",
        ));
        let entry = l.entry.unwrap();
        assert!(!entry.module);
        assert!(matches!(entry.kind, EntryKind::Verl(_)));
    }

    #[test]
    fn a_scripts_exec_nohup_uv_run_and_interpreter_variable() {
        // `shlex.split` of lines verl users' scripts hold.
        for line in [
            "exec python3 -m verl.trainer.main_ppo a.b=1",
            "exec -a verl -cl python3 -m verl.trainer.main_ppo a.b=1",
            "nohup python3 -m verl.trainer.main_ppo a.b=1",
            "$PYTHON -m verl.trainer.main_ppo a.b=1",
            "exec ${PYTHON} -u -m verl.trainer.main_ppo a.b=1",
            "HYDRA_FULL_ERROR=1 $RL_PYTHON -m verl.trainer.main_ppo a.b=1",
            "$PYTHON_BIN verl/trainer/main_ppo.py a.b=1",
            // verl's example scripts, as `bash -x` prints them.
            "uv run --frozen --no-sync python3 -m verl.trainer.main_ppo a.b=1",
            "VLLM_USE_V1=1 uv run --extra vllm -- python3 -m verl.trainer.main_ppo a.b=1",
            "uv run -p 3.12 -m verl.trainer.main_ppo a.b=1",
            "${LAUNCH[@]} -m verl.trainer.main_ppo a.b=1",
            // verl's Slurm example, and run in a container.
            "PYTHONUNBUFFERED=1 srun --overlap --nodes=1 --ntasks=1 -w node1 python3 -m verl.trainer.main_ppo a.b=1",
            "srun --overlap -w node1 docker exec -e A=1 verl python3 -m verl.trainer.main_ppo a.b=1",
            "srun -N1 apptainer exec --nv --bind /data:/data verl.sif python3 -m verl.trainer.main_ppo a.b=1",
            "singularity exec --nv -B /d verl.sif python3 -m verl.trainer.main_ppo a.b=1",
            "docker run --rm --gpus all --shm-size 10g -v /d:/d verlai/verl:latest python3 -m verl.trainer.main_ppo a.b=1",
            "podman exec -l python3 -m verl.trainer.main_ppo a.b=1",
        ] {
            let l = parse_launch(&words(line));
            assert!(l.problems.is_empty(), "{line}: {:?}", l.problems);
            let entry = l.entry.as_ref().unwrap_or_else(|| panic!("{line}"));
            assert!(
                matches!(entry.kind, EntryKind::Verl(_)),
                "{line}: {entry:?}"
            );
            let overrides: Vec<&str> = l.overrides.iter().map(|(o, _)| o.as_str()).collect();
            assert_eq!(overrides, ["a.b=1"], "{line}");
        }
        // No program after the launcher's words: what it runs is not seen.
        let l = parse_launch(&words("uv run --frozen"));
        assert!(
            matches!(&l.problems[..], [LaunchProblem::CommandUnseen(s)] if &l.line[s.clone()] == "uv run"),
            "{:?}",
            l.problems
        );
        let l = parse_launch(&words("docker exec box ./train.sh a.b=1"));
        assert!(
            matches!(&l.problems[..], [LaunchProblem::CommandUnseen(_)]),
            "{:?}",
            l.problems
        );
        // A line as `bash -x` prints it, its trace mark first.
        let l = parse_launch(&words(
            "+ uv run --frozen python3 -m verl.trainer.main_ppo a.b=1",
        ));
        assert!(l.problems.is_empty(), "{:?}", l.problems);
        assert_eq!(l.entry.expect("entry").text, "verl.trainer.main_ppo");
        let l = parse_launch(&words("++ a.b=1 c.d=2"));
        assert!(l.problems.is_empty() && l.overrides.len() == 2);
        // A variable with no flag or script after it is not known to be Python.
        let l = parse_launch(&words("$LAUNCHER a.b=1"));
        assert!(
            matches!(&l.problems[..], [LaunchProblem::UnknownLauncher(_)]),
            "{:?}",
            l.problems
        );
        // An array of overrides: its words are the shell's, not read.
        let l = parse_launch(&words(
            "python3 -m verl.trainer.main_ppo ${ARGS[@]} a.b=1 $EXTRA_ARGS",
        ));
        let shell_words: Vec<&str> = l
            .problems
            .iter()
            .map(|p| match p {
                LaunchProblem::ShellWords(span) => &l.line[span.clone()],
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(shell_words, ["${ARGS[@]}", "$EXTRA_ARGS"]);
        assert_eq!(l.overrides.len(), 1);
    }

    #[test]
    fn bare_overrides_stay_overrides() {
        let l = parse_launch(&words("model_engine=megatron trainer.nnodes=2 +x.y=1 ~z"));
        assert!(l.entry.is_none() && l.problems.is_empty());
        assert_eq!(l.overrides.len(), 4);
    }

    #[test]
    fn entry_points_that_are_not_verls_and_unknown_programs() {
        let l = parse_launch(&words("python3 -m recipe.dapo.main_dapo a=1"));
        assert_eq!(l.entry.unwrap().kind, EntryKind::Unseen);
        let l = parse_launch(&words("python3 -m my.trainer a=1"));
        assert_eq!(l.entry.unwrap().kind, EntryKind::Unseen);
        let l = parse_launch(&words("python3 -m verl.trainer.main_eval a=1"));
        assert!(matches!(l.entry.unwrap().kind, EntryKind::Verl(e) if e.evidence().is_none()));
        let l = parse_launch(&words(
            "torchrun --nproc_per_node=8 -m verl.trainer.main_ppo",
        ));
        assert!(matches!(
            l.problems[..],
            [LaunchProblem::UnknownLauncher(_)]
        ));
        let l = parse_launch(&words(
            "ray job submit --address x python3 -m verl.trainer.main_ppo",
        ));
        assert!(matches!(
            l.problems[..],
            [LaunchProblem::RaySubmitWithoutEntrypoint(_)]
        ));
        let l = parse_launch(&words("python3 -c print(1)"));
        assert!(matches!(l.problems[..], [LaunchProblem::InlineCode(_)]));
    }

    #[test]
    fn script_paths_read_as_modules() {
        assert_eq!(
            script_module("/opt/verl/verl/trainer/main_ppo.py").as_deref(),
            Some("verl.trainer.main_ppo")
        );
        assert_eq!(script_module("recipe/dapo/main_dapo.py"), None);
        assert_eq!(script_module("train.py"), None);
    }

    #[test]
    fn env_options_without_their_value_are_a_problem_not_a_panic() {
        // Found by the proptest below: `env -u` at the end of the line read past it.
        for line in [
            &["env", "-u"][..],
            &["env", "--chdir"],
            &["FOO=1", "env", "-C"],
        ] {
            let words: Vec<String> = line.iter().map(|w| w.to_string()).collect();
            let l = parse_launch(&words);
            assert!(
                matches!(l.problems.as_slice(), [LaunchProblem::MissingValue(_)]),
                "{line:?}: {:?}",
                l.problems
            );
        }
    }

    #[test]
    fn a_shell_string_is_read_as_the_command_it_runs() {
        let owned = |ws: &[&str]| ws.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>();
        for ws in [
            &["bash", "-c", "python3 -m verl.trainer.main_ppo a.b=1"][..],
            &[
                "docker",
                "exec",
                "box",
                "bash",
                "-lc",
                "cd /w && python3 -m verl.trainer.main_ppo 'a.b=1' 2>&1 | tee log",
            ],
            &[
                "srun",
                "-N1",
                "sh",
                "-c",
                "A=1 exec python3 -m verl.trainer.main_ppo a.b=1",
            ],
            &[
                "bash",
                "-c",
                "bash -c 'python3 -m verl.trainer.main_ppo a.b=1'",
            ],
            // The words after the string are its `$0` and arguments: not verl's.
            &[
                "A=1",
                "/bin/bash",
                "-o",
                "pipefail",
                "-c",
                "python3 -m verl.trainer.main_ppo a.b=1",
                "name",
                "x=2",
            ],
        ] {
            let l = parse_launch(&owned(ws));
            let problems: Vec<_> = l
                .problems
                .iter()
                .filter(|p| !matches!(p, LaunchProblem::ShellSyntax(_)))
                .collect();
            assert!(problems.is_empty(), "{ws:?}: {problems:?}");
            let entry = l.entry.as_ref().unwrap_or_else(|| panic!("{ws:?}"));
            assert_eq!(entry.text, "verl.trainer.main_ppo", "{ws:?}");
            let overrides: Vec<&str> = l.overrides.iter().map(|(o, _)| o.as_str()).collect();
            assert_eq!(overrides, ["a.b=1"], "{ws:?}");
            let (text, at) = &l.overrides[0];
            assert_eq!(&l.line[*at..*at + text.len()], text, "{ws:?}");
        }
        let l = parse_launch(&owned(&["bash", "-c", "python3 -m m 'a=1"]));
        assert!(
            matches!(&l.problems[..], [LaunchProblem::OpenQuote(s)] if &l.line[s.clone()] == "python3 -m m 'a=1"),
            "{:?}",
            l.problems
        );
        for (ws, last) in [(&["bash", "-c", " ; "][..], " ; "), (&["bash", "-c"], "-c")] {
            let l = parse_launch(&owned(ws));
            assert!(
                matches!(&l.problems[..], [LaunchProblem::NoProgram(s)] if &l.line[s.clone()] == last),
                "{ws:?}: {:?}",
                l.problems
            );
        }
        let l = parse_launch(&owned(&["bash", "run.sh", "a=1"]));
        assert!(matches!(
            &l.problems[..],
            [LaunchProblem::UnknownLauncher(_)]
        ));
        // Strings nested past the bound: read no further, and said so. (Each level quotes
        // the one inside, so the text grows fourfold a level.)
        let mut text = "python3 -m verl.trainer.main_ppo a.b=1".to_owned();
        for _ in 0..MAX_SHELL_STRINGS + 2 {
            text = format!("bash -c {}", shell_word(&text));
        }
        let l = parse_launch(&owned(&["bash", "-c", &text]));
        assert!(
            matches!(&l.problems[..], [LaunchProblem::UnknownLauncher(_)]),
            "{:?}",
            l.problems
        );
    }

    proptest::proptest! {
        #[test]
        fn any_words_parse_with_spans_inside(list in proptest::collection::vec("(bash|-lc|-c|cd /w && python3 -m m a=1|python3 'a=1|\"x; y=2\" \\$(a b)|python3|-m|-u|-X|ray|job|submit|--|env|-i|-u|exec|nohup|-a|uv|run|srun|docker|-w|-p|--with|\\+|\\$P|\\$\\(\\(a|/|a\\)\\)|\\$\\{A\\[@\\]\\}|[A-Z]=1|RAY_ADDRESS=[a-z:/]{0,6}|RAY_API_SERVER_ADDRESS=[a-z:/]{0,6}|--address|--address=[a-z:/]{0,6}|-cn|--config-path=[a-z]{0,3}|[a-z_.+~=]{0,12})", 0..12)) {
            let l = parse_launch(&list);
            for (text, at) in &l.overrides {
                proptest::prop_assert_eq!(l.line.get(*at..*at + text.len()), Some(text.as_str()));
            }
            for f in [&l.config_name, &l.config_path, &l.config_dir].into_iter().flatten() {
                proptest::prop_assert!(l.line.get(f.span.clone()).is_some());
            }
            if let Some(e) = &l.entry {
                proptest::prop_assert_eq!(l.line.get(e.span.clone()), Some(e.text.as_str()));
            }
            let submit = l.submit.iter().flat_map(|s| {
                let set = |e: &'_ SubmitEnv| match e {
                    SubmitEnv::Set(v) => Some(v.clone()),
                    _ => None,
                };
                s.address.iter().cloned().chain(set(&s.env)).chain(set(&s.api_server_env))
            });
            for address in submit {
                proptest::prop_assert_eq!(l.line.get(address.span.clone()), Some(address.value.as_str()));
            }
        }
    }
}
