//! The problem of `resource_pool::verl::hydra_args`: a word Hydra's argument parser does
//! not take for one of its flags, or a flag after which Hydra does not train.

use serde::Serialize;

/// What is wrong with Hydra's own arguments (`resource_pool::verl::hydra_args`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum HydraArgs {
    /// A flag that is none of Hydra's.
    UnknownFlag,
    /// A flag that makes Hydra print (or rerun a pickled job) and exit.
    StartsNoTraining,
}

impl HydraArgs {
    /// The message, for the word at fault and the flag it names.
    pub fn message(self, word: &str, flags: &[&str]) -> String {
        match self {
            HydraArgs::UnknownFlag => format!(
                "`{word}` is none of Hydra's flags: its argument parser refuses it and verl does not start"
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
            HydraArgs::UnknownFlag => "Hydra's flags are `--config-name`/`-cn`, `--config-path`/`-cp`, `--config-dir`/`-cd`, `--multirun`/`-m` and those that print (`--help`, `--cfg`, `--info`); an override is `key=value`, `+key=value` or `~key`".into(),
            HydraArgs::StartsNoTraining => format!(
                "drop `{}` (and its value) to check the training the line would start",
                flags.first().copied().unwrap_or("the flag")
            ),
        }
    }
}
