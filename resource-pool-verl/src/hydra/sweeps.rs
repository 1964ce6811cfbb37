//! Hydra's sweeps on the command line: a value that is several runs' values (`1,2`,
//! `choice(1,2)`, `range(1,3)`, a cast of one), found by Hydra's lexer's commas; the
//! first run's value where it is plain to see; and what running one means for verl.

use super::cast;
use super::lexing::top_level_items;
use crate::yaml::RawScalar;

/// A value that Hydra reads as a sweep (its multirun's several values), not one value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SweepKind {
    /// A comma list outside brackets and quotes: `1,2` (Hydra's simple choice sweep).
    List,
    /// One of Hydra's sweep functions: `choice(1,2)`, `range(1,3)`, `interval(0,1)`,
    /// `glob(*)`.
    Function,
}

/// Hydra's sweep functions (its extended override grammar).
const SWEEP_FUNCTIONS: &[&str] = &["choice", "range", "interval", "glob"];

/// Whether an override's value is a sweep, and of which kind. A quoted value is a string;
/// a comma inside `[...]`, `{...}`, `(...)`, quotes or `${...}`, or after `\`, separates
/// no runs.
pub fn sweep_kind(value: &RawScalar) -> Option<SweepKind> {
    if value.quoted() {
        return None;
    }
    let text = value.text.as_str();
    if let Some(kind) = cast_sweep_kind(text) {
        return kind;
    }
    if let Some((name, _)) = text.split_once('(')
        && text.ends_with(')')
        && SWEEP_FUNCTIONS.contains(&name.trim())
    {
        return Some(SweepKind::Function);
    }
    (top_level_items(text).len() > 1).then_some(SweepKind::List)
}

/// A cast's sweep: `Some(kind)` when `text` is a cast (`int(1,2)` is a list sweep, a cast
/// of a sweep function or of a cast of one is that sweep; Hydra cannot cast `range` and
/// `interval` but to a number, nor `glob` at all: those are errors, see [`cast`]).
fn cast_sweep_kind(text: &str) -> Option<Option<SweepKind>> {
    let (name, args) = cast::cast_call(text.trim())?;
    let Some(Ok(arg)) = cast::one_argument(args) else {
        return Some((top_level_items(args).len() > 1).then_some(SweepKind::List));
    };
    if cast::cast_call(arg).is_some() {
        return cast_sweep_kind(arg);
    }
    let inner = cast::call(arg).map(|(inner, _)| inner);
    Some(match inner {
        Some("choice") => Some(SweepKind::Function),
        Some("range" | "interval") if matches!(name, "int" | "float") => Some(SweepKind::Function),
        _ => None,
    })
}

/// One run's value of a sweep, when it is plain to see: a list's or `choice(...)`'s first
/// item, `range(...)`'s start.
pub fn first_run_value(text: &str, kind: SweepKind) -> Option<String> {
    // A cast of a sweep: the cast of its first run's value (`int(1,2)`: `int(1)`).
    if let Some((name, args)) = cast::cast_call(text.trim()) {
        let first = match (kind, cast::one_argument(args)) {
            (SweepKind::List, _) => top_level_items(args).first()?.trim().to_owned(),
            (SweepKind::Function, Some(Ok(arg))) => first_run_value(arg, kind)?,
            (SweepKind::Function, _) => return None,
        };
        return Some(format!("{name}({first})"));
    }
    let first = match kind {
        SweepKind::List => top_level_items(text).first().copied(),
        SweepKind::Function => {
            let (name, args) = text.strip_suffix(')')?.split_once('(')?;
            let args = top_level_items(args);
            if args.iter().any(|a| a.contains('=')) {
                return None;
            }
            match (name.trim(), args.len()) {
                ("choice", _) => args.first().copied(),
                // `range(stop)` starts at 0.
                ("range", 1) => Some("0"),
                ("range", _) => args.first().copied(),
                _ => None,
            }
        }
    }?;
    Some(first.trim().to_owned()).filter(|v| !v.is_empty())
}

/// Why a sweep is reported, and (with `#`, the help) what to do: the JSON has its `mode`
/// and `kind`; the key and values only shape the words.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SweepRun {
    /// Whether Hydra runs in multirun mode.
    pub mode: SweepMode,
    /// The sweep's form.
    pub kind: SweepKind,
    /// The dotted key.
    #[serde(skip)]
    pub key: String,
    /// The sweep as written.
    #[serde(skip)]
    pub value: String,
    /// One run's value, when plain to see.
    #[serde(skip)]
    pub one: Option<String>,
}

/// Hydra's run mode for a sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SweepMode {
    /// `-m`/`--multirun` (or `hydra.mode=MULTIRUN`): one run per value.
    Multirun,
    /// A single run: Hydra refuses a sweep.
    SingleRun,
}

/// What happens; with `#` (`{run:#}`, the help), what to do.
impl std::fmt::Display for SweepRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let key = &self.key;
        let one = self.one.as_deref().unwrap_or("VALUE");
        match (self.mode, self.kind) {
            (SweepMode::Multirun, _) if f.alternate() => write!(
                f,
                "check each run on its own: pass one value instead of the sweep, for example `{key}={one}`, once per value"
            ),
            // A list or a string is no value of a key resource-pool reads (counts, switches).
            (SweepMode::SingleRun, SweepKind::List)
                if f.alternate() && crate::keys::key_id(key).is_none() =>
            {
                write!(
                f,
                "for one run, pass one value (for example `{key}={one}`); for a list write `{key}=[{}]`, for a string quote it (`{key}='{}'`); to sweep, add `-m` and check each run on its own",
                    self.value, self.value
                )
            }
            (SweepMode::SingleRun, _) if f.alternate() => write!(
                f,
                "for one run, pass one value (for example `{key}={one}`); to sweep, add `-m` and check each run on its own"
            ),
            (SweepMode::Multirun, _) => f.write_str(
                "with `--multirun`, Hydra starts one run per value, and resource-pool checks one run at a time",
            ),
            (SweepMode::SingleRun, SweepKind::List) => f.write_str(
                "without `--multirun`, Hydra stops before verl starts (\"Ambiguous value for argument\")",
            ),
            (SweepMode::SingleRun, SweepKind::Function) => f.write_str(
                "without `--multirun`, Hydra stops before verl starts (\"Sweep parameters ... requires --multirun\")",
            ),
        }
    }
}
