//! The problem of `resource_pool::verl::hydra_args`: Hydra's own arguments as its
//! argument parser refuses them, or a flag after which Hydra does not train.

use serde::Serialize;

/// What is wrong with Hydra's own arguments (`resource_pool::verl::hydra_args`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HydraArgs {
    /// An override after a Hydra flag that follows overrides.
    OverrideAfterFlag,
    /// A prefix of several of Hydra's long flags.
    Ambiguous,
    /// A flag that is none of Hydra's.
    UnknownFlag,
    /// A value outside the flag's choices.
    NotAChoice,
    /// A value given to a flag that takes none.
    ValueNotTaken,
    /// A flag that makes Hydra print (or rerun a pickled job) and exit.
    StartsNoTraining,
}

impl HydraArgs {
    /// The message, for the word at fault and the flags it names.
    pub fn message(self, word: &str, flags: &[&str]) -> String {
        match self {
            HydraArgs::OverrideAfterFlag => format!(
                "`{word}` follows a Hydra flag that follows overrides: Hydra's argument parser refuses it (\"unrecognized arguments\") and verl does not start"
            ),
            HydraArgs::Ambiguous => format!(
                "`{word}` could be {}: Hydra's argument parser refuses it (\"ambiguous option\") and verl does not start",
                one_of(flags)
            ),
            HydraArgs::UnknownFlag => format!(
                "`{word}` is none of Hydra's flags: its argument parser refuses it (\"unrecognized arguments\") and verl does not start"
            ),
            HydraArgs::NotAChoice => format!(
                "`{word}` is not {}: Hydra's argument parser refuses it (\"invalid choice\") and verl does not start",
                one_of(flags)
            ),
            HydraArgs::ValueNotTaken => format!(
                "`{word}` gives {} a value it does not take: Hydra's argument parser refuses it (\"ignored explicit argument\") and verl does not start",
                one_of(flags)
            ),
            HydraArgs::StartsNoTraining if flags == ["--experimental-rerun"] => format!(
                "`{word}` makes Hydra rerun a pickled job: this line starts no training of its own"
            ),
            HydraArgs::StartsNoTraining => {
                format!("`{word}` makes Hydra print and exit: this line starts no training")
            }
        }
    }

    /// What to do.
    pub fn help(self, flags: &[&str]) -> String {
        match self {
            HydraArgs::OverrideAfterFlag => "put Hydra's flags (`--config-name`, `--config-path`, `-m`, ...) before the overrides, or all of them after the overrides".into(),
            HydraArgs::Ambiguous => format!("write the flag whole: {}", one_of(flags)),
            HydraArgs::NotAChoice => format!("write {}", one_of(flags)),
            HydraArgs::ValueNotTaken => format!("write {} alone", one_of(flags)),
            HydraArgs::UnknownFlag => "Hydra's flags are `--config-name`/`-cn`, `--config-path`/`-cp`, `--config-dir`/`-cd`, `--multirun`/`-m` and those that print (`--help`, `--cfg`, `--info`); an override is `key=value`, `+key=value` or `~key`".into(),
            HydraArgs::StartsNoTraining => format!(
                "drop {} (and its value) to check the training the line would start",
                one_of(flags)
            ),
        }
    }
}

/// `` `a`, `b` or `c` ``.
fn one_of(items: &[&str]) -> String {
    let quoted: Vec<String> = items.iter().map(|i| format!("`{i}`")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => quoted.concat(),
    }
}
