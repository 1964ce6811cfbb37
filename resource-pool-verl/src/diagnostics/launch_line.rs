//! The problems of what was pasted: the launch line's words (launchers, entry point,
//! Hydra's flags, overrides and sweeps), its YAML and the configs it names.

use miette::SourceSpan;
use serde::Serialize;

use super::super::fields::*;
use super::super::hydra::{OverrideProblem, SweepRun};

/// A problem of the pasted launch line, its YAML, or the configs it names (a part of
/// [`VerlDiagnostic`](super::VerlDiagnostic)).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum VerlLaunchDiagnostic {
    /// The YAML does not load: its syntax, a key written twice in a mapping, a second
    /// document, or a `<<` merge OmegaConf's loader refuses.
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

    /// The YAML parses, but OmegaConf's loader stops at a tag in it: one it has no
    /// constructor for (a local `!custom`, `!!python/int`), one of another kind of node
    /// (`!!seq` on a scalar), or one of a value OmegaConf refuses (`!!timestamp`).
    #[error("the YAML does not load: {message}")]
    #[diagnostic(
        code(resource_pool::verl::yaml_tag),
        help(
            "drop the tag `{tag}`: OmegaConf stops loading the file at it, so Hydra and verl would stop here too"
        )
    )]
    YamlTag {
        /// The tag as written.
        tag: String,
        /// Why the loader stops at it.
        message: String,
        /// The tag.
        #[label("this tag")]
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

    /// Hydra's own arguments as its argument parser refuses them (an override after a flag
    /// that follows overrides, a prefix of several long flags), or a flag after which
    /// Hydra prints (`--cfg`, `--help`, `--info`, ...) or reruns a pickled job and exits.
    #[error("{message}")]
    #[diagnostic(code(resource_pool::verl::hydra_args), help("{help}"))]
    HydraArgs {
        /// What is wrong.
        problem: HydraArgs,
        /// The word at fault, as written (at most 60 characters).
        word: String,
        /// The flags it names: those an ambiguous prefix could be, or the flag that
        /// starts no training, in full.
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
        "`{word}` is the shell's to turn into words before verl starts; the check reads the line without them"
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

    /// A word of the launch line that is not UTF-8, where the check reads it.
    #[error(
        "`{word}` is not UTF-8 (its bad bytes shown as `�`), and resource-pool reads this word"
    )]
    #[diagnostic(
        code(resource_pool::verl::not_unicode),
        help(
            "write the entry point, Hydra's flags, `ray job submit`'s address and the overrides of the keys that size the pools in UTF-8; other words (a data path) may hold any bytes"
        )
    )]
    NotUnicode {
        /// The word, its bad bytes as U+FFFD (at most 60 characters).
        word: String,
        /// Where.
        #[label("not UTF-8")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// A program that is no launcher understood.
    #[error("`{word}` is neither a launcher resource-pool understands nor a Hydra override")]
    #[diagnostic(
        code(resource_pool::verl::unknown_launcher),
        help(
            "resource-pool reads the launchers {launchers} before verl's entry point; paste verl's own command, or only its overrides"
        )
    )]
    UnknownLauncher {
        /// The word of the pasted line that is not understood.
        word: String,
        /// The launchers understood, as their command forms.
        launchers: Listed<CommandForm>,
        /// Where.
        #[label("not understood")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// An entry point that does not build its pools as `verl.trainer.main_ppo` does.
    #[error("`{entry}` does not build its pools the way verl.trainer.main_ppo does{why}")]
    #[diagnostic(
        code(resource_pool::verl::entry_point),
        help(
            "resource-pool builds the pools of {understood}; for another entry point, write its layout as a resource-pool config"
        )
    )]
    EntryPoint {
        /// The entry point as written.
        entry: String,
        /// What it does instead, when known.
        why: EntryDifference,
        /// The entry points understood.
        understood: Listed<&'static str>,
        /// Where.
        #[label("entry point")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// `--config-name` names a config verl does not ship.
    #[error("verl has no config `{name}` ({releases}); its trainer configs are {known}")]
    #[diagnostic(
        code(resource_pool::verl::unknown_config),
        help(
            "use one of verl's configs, or point --config-path at the folder that holds yours (or pass it with --config)"
        )
    )]
    UnknownConfig {
        /// The config name, as given.
        name: String,
        /// The releases looked in.
        releases: Releases,
        /// verl's trainer configs.
        known: Listed<&'static str>,
        /// Where.
        #[label("--config-name")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// A config in the user's tree that could not be read: its keys cannot be judged.
    #[error(
        "the config `{path}` could not be read{why}: the keys and defaults it adds are not judged"
    )]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::config_unread),
        help("{why:#}")
    )]
    ConfigUnread {
        /// The file looked for.
        path: String,
        /// Why it is not read.
        why: ConfigUnreadWhy,
        /// `--config-path`, or `--config-name` when it is the shell's.
        #[label("here")]
        #[serde(skip)]
        span: Option<SourceSpan>,
    },

    /// `hydra.searchpath` or `--config-dir` folders whose configs cannot be read.
    #[error(
        "{places} add configs resource-pool cannot read: keys that only they add are not judged"
    )]
    #[diagnostic(
        severity(Warning),
        code(resource_pool::verl::search_path_unread),
        help("pass the config you compose with --config to have its keys judged")
    )]
    SearchPathUnread {
        /// The search path entries.
        places: Listed<String>,
        /// Where.
        #[label("search path")]
        #[serde(skip)]
        span: SourceSpan,
    },

    /// A Hydra sweep (`a=1,2`, `a=range(1,3)`): with `--multirun` several runs, which are
    /// checked one at a time; without it, Hydra's error.
    #[error("`{key}={value}` is a Hydra sweep: {run}")]
    #[diagnostic(code(resource_pool::verl::sweep), help("{run:#}"))]
    Sweep {
        /// The dotted key, as written.
        key: String,
        /// The sweep, as written (at most 60 characters).
        value: String,
        /// Hydra's run mode and the sweep's form (with `#`, what to do).
        run: SweepRun,
        /// The sweep.
        #[label("a sweep")]
        #[serde(skip)]
        span: SourceSpan,
        /// `-m`/`--multirun` (or `hydra.mode=MULTIRUN`), when given.
        #[label("multirun")]
        #[serde(skip)]
        multirun: Option<SourceSpan>,
    },
}
