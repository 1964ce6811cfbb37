//! The problems of what was pasted: the launch line's words (launchers, entry point,
//! Hydra's flags, overrides), its YAML, and what of it the reader cannot see.

use miette::SourceSpan;
use serde::Serialize;

use super::super::fields::*;
use super::super::hydra::OverrideProblem;
use super::super::not_judged::NotJudged;

/// A problem of the pasted launch line, its YAML, or the configs it names (a part of
/// [`VerlDiagnostic`](super::VerlDiagnostic)).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum VerlLaunchDiagnostic {
    /// The YAML does not parse.
    #[error("the YAML does not load: {message}")]
    #[diagnostic(
        code(resource_pool::verl::yaml_syntax),
        help("fix it where labelled: Hydra and verl would stop loading the file here too")
    )]
    YamlSyntax {
        /// The parser's words.
        message: String,
        /// Where.
        #[label("here")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// An override is malformed.
    #[error("`{text}` {problem}")]
    #[diagnostic(
        code(resource_pool::verl::override_syntax),
        help(
            "write overrides as Hydra does: `key=value`, `+key=value` to add a key, `~key` to delete one"
        )
    )]
    OverrideSyntax {
        /// What is wrong.
        problem: OverrideProblem,
        /// The text at fault.
        text: String,
        /// The override.
        #[label("on the command line")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// The launcher words are malformed.
    #[error("{problem}")]
    #[diagnostic(
        code(resource_pool::verl::launch_syntax),
        help(
            "paste the line that starts verl: `python3 -m verl.trainer.main_ppo k=v ...`, optionally after `env VAR=...` or `ray job submit [options] --`"
        )
    )]
    LaunchSyntax {
        /// What is wrong.
        problem: LaunchSyntax,
        /// Where.
        #[label("here")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// A word that looks like a flag and is none of Hydra's, or a flag after which Hydra
    /// prints (`--cfg`, `--help`, `--info`, ...) or reruns a pickled job and exits.
    #[error("{message}")]
    #[diagnostic(code(resource_pool::verl::hydra_args), help("{help}"))]
    HydraArgs {
        /// What is wrong.
        problem: HydraArgs,
        /// The word at fault, as written (at most 60 characters).
        word: String,
        /// The flag that starts no training, in full.
        flags: Vec<&'static str>,
        /// The message.
        #[serde(skip)]
        message: String,
        /// What to do.
        #[serde(skip)]
        help: String,
        /// Where.
        #[label("here")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// The shell's syntax at the end of a line held as words (`shlex.split(script)`):
    /// `"$@"`, a redirection, a pipe; it and what follows are not read.
    #[error("`{ignored}` is the shell's, not verl's: not read")]
    #[diagnostic(
        severity(Advice),
        code(resource_pool::verl::shell_syntax),
        help(
            "resource-pool reads the words verl gets; what the shell does with the line (`\"$@\"`, redirections such as `2>&1`, a `| tee log` pipe) is left out from the first such word on"
        )
    )]
    ShellSyntax {
        /// The words not read, as written (at most 60 characters).
        ignored: String,
        /// Where.
        #[label("not read")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// A word of a line held as words where overrides stand that the shell makes words of
    /// (`${ARGS[@]}`, `$EXTRA_ARGS`): the overrides it stands for are unknown.
    #[error(
        "`{word}` is the shell's to turn into words before verl starts: the overrides it holds are not read, so the pools verl builds are not judged"
    )]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::shell_words),
        help(
            "check the line as the shell runs it, with `{word}` expanded (`bash -x` prints it); from Python, pass `sys.argv` or the list of words the script builds"
        )
    )]
    ShellWords {
        /// The word, as written (at most 60 characters).
        word: String,
        /// Where.
        #[label("not read")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// An entry point of verl's that the release given does not have: verl cannot start it.
    #[error("verl {release} has no module `{entry}`: only verl {} has it", .releases.join(", "))]
    #[diagnostic(
        code(resource_pool::verl::entry_point),
        help("pass the --verl-version you launch, or run an entry point verl {release} has")
    )]
    EntryPoint {
        /// The module.
        entry: &'static str,
        /// The release given.
        release: String,
        /// The releases that have it.
        releases: &'static [&'static str],
        /// Where.
        #[label("entry point")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// What the offline reader cannot see (an entry point or config that is not verl's own,
    /// a program it does not read): the launch is not judged, and no layout is claimed.
    #[error("{why}: this launch is not judged offline")]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::not_judged),
        help(
            "check it with the verl that runs it: `resource-pool verl --python PYTHON -- LINE` composes the config and builds the pools with that interpreter's verl, and `python -m resource_pool.guard LINE` checks the pools verl creates as it runs"
        )
    )]
    NotJudged {
        /// What is not seen.
        why: NotJudged,
        /// Where the line names it.
        #[label("not seen")]
        #[serde(skip)]
        span: Option<SourceSpan>,
    },
}
