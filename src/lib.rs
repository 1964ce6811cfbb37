//! The `resource-pool` command line: `lint`, `check`, `verl`, `inventory` and `schema`.
//!
//! Exit status: 0 when everything is valid (warnings allowed), 1 when a config is invalid
//! or cannot be placed, 2 for usage errors and files (or clusters) that cannot be read.
//!
//! Everything is written through `to_stdout` and `to_stderr`: `print!` panics when the
//! reader has gone (`resource-pool check ... | head`), so the lints forbid it here.
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![forbid(unsafe_code)]

mod check_cmd;
mod cluster_input;
mod inventory_cmd;
mod launch_cluster;
mod lint_cmd;
mod plan_file;
mod schema_cmd;
mod verl_cmd;
mod verl_options;

/// What `resource-pool verl` computes, for other front ends (the Python module).
pub use resource_pool::verl::version::verl_release;

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use resource_pool::inventory::cluster_file::ClusterLimits;
use resource_pool::lint::{ConfigLimits, LintOptions, RoleSet};
use resource_pool::source::ReadLimits;

use resource_pool::report::{self, ColorChoice, github, sarif};

/// Check verl's GPU/NPU resource-pool layouts before Ray hangs on them.
#[derive(Debug, Parser)]
#[command(name = "resource-pool", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    /// When to colour output.
    #[arg(long, value_enum, default_value_t = Color::Auto, global = true, env = "RESOURCE_POOL_COLOR")]
    color: Color,
    /// Print only the machine-readable result (or nothing, for human output) and errors.
    #[arg(long, short, global = true)]
    quiet: bool,
    /// The largest file read, in bytes.
    #[arg(long, default_value_t = ReadLimits::DEFAULT_MAX_FILE_BYTES, global = true, value_name = "BYTES", env = "RESOURCE_POOL_MAX_FILE_SIZE")]
    max_file_size: u64,
    /// The most node-slots a config may ask for.
    #[arg(long, default_value_t = ConfigLimits::DEFAULT_MAX_SLOTS, global = true, value_name = "N", env = "RESOURCE_POOL_MAX_SLOTS")]
    max_slots: u64,
    /// The most nodes a cluster may have.
    #[arg(long, default_value_t = ClusterLimits::DEFAULT_MAX_NODES, global = true, value_name = "N", env = "RESOURCE_POOL_MAX_NODES")]
    max_nodes: usize,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check configs statically: syntax, keys, sizes, mapping, role names.
    Lint(lint_cmd::LintArgs),
    /// Lint a config, then check that it can be placed on a cluster and that Ray will.
    Check(check_cmd::CheckArgs),
    /// Build the pools verl builds from its Hydra YAML and overrides, and check them.
    Verl(verl_cmd::VerlArgs),
    /// Print a cluster (a live Ray cluster, Slurm, kubectl, this machine, a cluster file) as a
    /// cluster file, TOML or JSON.
    Inventory(inventory_cmd::InventoryArgs),
    /// Print the JSON Schema of config or cluster files, for editors.
    Schema(schema_cmd::SchemaArgs),
}

/// `--color`: when to colour output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Color {
    /// Colour when the stream is a terminal, as `NO_COLOR`, `CLICOLOR_FORCE` and
    /// `CLICOLOR` say (in that order).
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

impl From<Color> for ColorChoice {
    fn from(color: Color) -> ColorChoice {
        match color {
            Color::Auto => ColorChoice::Auto,
            Color::Always => ColorChoice::Always,
            Color::Never => ColorChoice::Never,
        }
    }
}

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Reports for people, with source snippets (on stderr) and a plan (on stdout).
    Human,
    /// One JSON object on stdout.
    Json,
    /// GitHub Actions workflow commands on stdout (`::error file=...::`): annotations.
    Github,
    /// One SARIF 2.1.0 log on stdout, for code scanning.
    Sarif,
}

/// The role names a config's `[mapping]` may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Roles {
    /// verl's roles, by their strings (`ref`, `rm`) and enum names (`ref_policy`).
    Verl,
    /// Any name.
    Any,
}

/// The variable that gives `--set`'s overrides when no `--set` is given.
pub const SET_VARIABLE: &str = "RESOURCE_POOL_SET";

/// `--set KEY=VALUE`: config overrides applied before lint.
#[derive(Debug, Default, clap::Args)]
pub struct SetArgs {
    /// Override a config value before lint: KEY a dotted TOML key, VALUE a TOML value
    /// (`--set pools.global_pool.process_on_nodes=[8,8,8]`); repeatable. Without it, the
    /// lines of `RESOURCE_POOL_SET` (blank lines and `#` lines skipped).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
}

impl SetArgs {
    /// The overrides: the flags, or else the variable's lines.
    fn overrides(&self) -> Result<Vec<String>, report::Finding> {
        if !self.set.is_empty() {
            return Ok(self.set.clone());
        }
        let Some(value) = std::env::var_os(SET_VARIABLE) else {
            return Ok(Vec::new());
        };
        let text = value
            .into_string()
            .map_err(|_| report::Finding::bare(NotUnicode(SET_VARIABLE)))?;
        Ok(override_lines(&text))
    }
}

/// The overrides of a `RESOURCE_POOL_SET` value: one per line, without the line breaks
/// (`\n` or `\r\n`), blank lines and `#` comment lines skipped.
fn override_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|line| {
            let line = line.trim();
            !line.is_empty() && !line.starts_with('#')
        })
        .map(str::to_owned)
        .collect()
}

/// An environment variable that is not UTF-8.
#[derive(Debug, thiserror::Error, miette::Diagnostic, serde::Serialize)]
#[error("the environment variable {0} is not UTF-8")]
#[diagnostic(
    code(resource_pool::cli::env_not_unicode),
    help("set it to UTF-8 text, or unset it and pass the values as flags")
)]
struct NotUnicode(&'static str);

/// Loads a config with the command line's overrides; malformed overrides are findings
/// (a usage error).
fn load(
    source: &resource_pool::source::SourceFile,
    set: &SetArgs,
    options: &LintOptions,
) -> Result<resource_pool::load::LoadedConfig, Vec<report::Finding>> {
    let overrides = set.overrides().map_err(|finding| vec![finding])?;
    resource_pool::load::load_config_with(source, &overrides, options).map_err(|failure| {
        failure
            .errors
            .into_iter()
            .map(|e| report::Finding::in_file(e, &failure.source))
            .collect()
    })
}

/// Settings every command shares.
pub struct Context {
    color: ColorChoice,
    quiet: bool,
    read_limits: ReadLimits,
    config_limits: ConfigLimits,
    cluster_limits: ClusterLimits,
}

impl Context {
    /// Whether to colour what goes to stderr (diagnostics).
    fn stderr_colour(&self) -> bool {
        self.color.enabled(std::io::stderr().is_terminal())
    }

    /// Whether to colour what goes to stdout (the plan).
    fn stdout_colour(&self) -> bool {
        self.color.enabled(std::io::stdout().is_terminal())
    }

    fn lint_options(&self, roles: Roles) -> LintOptions {
        let roles = match roles {
            Roles::Verl => resource_pool::verl::role_set(),
            Roles::Any => RoleSet::Any,
        };
        LintOptions {
            roles,
            limits: self.config_limits,
        }
    }
}

/// The outcome of a command, as an exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// Valid, placeable, placed by Ray.
    Ok = 0,
    /// Invalid, unplaceable, a Ray hang, or undecided.
    Failed = 1,
    /// A usage error or an unreadable input.
    Unreadable = 2,
}

/// Runs the command line.
pub fn run() -> ExitCode {
    ExitCode::from(run_from(std::env::args_os()))
}

/// Runs the command line on `args` (the program's name first), as [`run`] does on the
/// process's own, and returns the exit status: for front ends that carry the command
/// inside them, such as the Python wheel's `resource-pool` entry point. `--help`,
/// `--version` and usage errors print as clap prints them and return clap's status.
pub fn run_from<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(error) => {
            // As `Error::exit` does, without ending the process.
            let _ = error.print();
            return u8::try_from(error.exit_code()).unwrap_or(2);
        }
    };
    let context = Context {
        color: cli.color.into(),
        quiet: cli.quiet,
        read_limits: ReadLimits {
            max_file_bytes: cli.max_file_size,
        },
        config_limits: ConfigLimits {
            max_slots: cli.max_slots,
        },
        cluster_limits: ClusterLimits {
            max_nodes: cli.max_nodes,
        },
    };
    let outcome = match &cli.command {
        Command::Lint(args) => lint_cmd::run(args, &context),
        Command::Check(args) => check_cmd::run(args, &context),
        Command::Inventory(args) => inventory_cmd::run(args, &context),
        Command::Verl(args) => verl_cmd::run(args, &context),
        Command::Schema(args) => schema_cmd::run(args, &context),
    };
    // A process that goes on after the command (Python) does not flush stdout at exit.
    use std::io::Write as _;
    let _ = std::io::stdout().flush();
    outcome as u8
}

/// Reads a file or says why not.
fn read(
    path: &std::path::Path,
    context: &Context,
) -> Result<resource_pool::source::SourceFile, report::Finding> {
    resource_pool::source::SourceFile::read(path, context.read_limits)
        .map_err(report::Finding::unreadable)
}

/// Writes text to stdout. A reader that has gone (a closed pipe) is not an error of ours:
/// what it did not read is dropped, and the exit status stays the verdict's.
fn to_stdout(text: &str) {
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

/// Writes text to stderr, as [`to_stdout`] does to stdout.
fn to_stderr(text: &str) {
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// Frees what a command has done with on a thread of its own, once its answer is out:
/// freeing a large check (100,000 nodes and node-slots) takes milliseconds of returning
/// pages, which are no part of the answer. The process's exit cuts the thread short (the
/// system takes the memory back); where the command runs inside another process (the
/// Python entry point) it frees everything as a drop would.
fn drop_aside<T: Send + 'static>(value: T) {
    // When no thread can be started, the closure (and the value) is dropped right here.
    let _ = std::thread::Builder::new().spawn(move || drop(value));
}

/// Prints a result object (`check`'s, `verl`'s) as JSON on stdout, in its layout
/// ([`report::json::write_value`]). `write` gets a buffered stdout; what it writes goes out as it
/// is written (no text of it all in memory), and a closed stdout ends the writing, as
/// [`to_stdout`] ignores it.
fn print_result(
    write: impl FnOnce(&mut std::io::BufWriter<std::io::StdoutLock<'static>>) -> std::io::Result<()>,
) {
    use std::io::Write;
    // Large buffers: a 100,000-slot result is megabytes, written in fewer system calls.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let _ = write(&mut out);
    let _ = out.flush();
}

/// Prints JSON on stdout.
fn print_json(value: &serde_json::Value) {
    // Serialising a Value cannot fail.
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    to_stdout(&text);
}

/// Prints findings for a CI system (`--format github` or `sarif`) on stdout; `main_file`
/// is the file that findings with no place of their own are about.
fn print_for_ci(format: Format, findings: &[report::Finding], main_file: Option<&str>) {
    match format {
        Format::Github => to_stdout(&github::render(findings)),
        Format::Sarif => print_json(&sarif::render(findings, main_file)),
        Format::Human | Format::Json => {}
    }
}

/// Prints human reports on stderr; with `-q`, of the errors only (its promise: nothing
/// else for people).
fn print_human(findings: &[report::Finding], context: &Context) {
    let shown: Vec<&report::Finding> = findings
        .iter()
        .filter(|f| !context.quiet || f.is_error())
        .collect();
    to_stderr(&report::render_human_refs(&shown, context.stderr_colour()));
}

#[cfg(test)]
mod tests {
    use super::override_lines;

    #[test]
    fn override_lines_skip_blank_and_comment_lines() {
        assert_eq!(
            override_lines("a=1\r\n\n  # a comment\nb=[8, 8]\n\n"),
            ["a=1", "b=[8, 8]"]
        );
        assert!(override_lines("\n \n").is_empty());
    }
}
