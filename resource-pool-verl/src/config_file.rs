//! Which config a launch names: Hydra's `--config-path` (relative to the entry point's
//! file, or a `pkg://` package) and `--config-name` (else the entry point's own).

use super::key_set::KeySet;
use super::launch::{EntryKind, Launch, main_ppo};
use super::shell_expansion::holds_shell_expansion;
use resource_pool_core::source::Span;

/// Where the config folder of a launch is.
pub(super) enum ConfigPlace {
    /// verl's own `verl/trainer/config` (no `--config-path`, or one that names it).
    Verl,
    /// Another folder or package: the user's tree, a recipe's `config/`, `pkg://other`.
    Elsewhere,
    /// `--config-path` or `--config-name` holds what the shell fills in
    /// (`--config-path="$CONFIG_PATH"` in a line `shlex.split` left as written): the span of
    /// the flag's value that holds it.
    Shell { at: Span },
}

/// Hydra's rule: a relative `--config-path` is relative to the entry point's file.
pub(super) fn config_place(launch: &Launch) -> ConfigPlace {
    let shell = [&launch.config_path, &launch.config_name]
        .into_iter()
        .flatten()
        .find(|flag| holds_shell_expansion(&flag.value));
    if let Some(flag) = shell {
        return ConfigPlace::Shell {
            at: flag.span.clone(),
        };
    }
    let Some(path) = &launch.config_path else {
        return ConfigPlace::Verl;
    };
    let path = path.value.trim_end_matches('/');
    if let Some(package) = path.strip_prefix("pkg://") {
        return match package.replace('.', "/") == "verl/trainer/config" {
            true => ConfigPlace::Verl,
            false => ConfigPlace::Elsewhere,
        };
    }
    if path.starts_with('/') {
        return ConfigPlace::Elsewhere;
    }
    let folder = launch
        .entry
        .as_ref()
        .map_or_else(|| "verl/trainer".to_owned(), |e| e.folder());
    let joined = normalise(&format!("{folder}/{path}"));
    let verl_own = launch
        .entry
        .as_ref()
        .is_none_or(|e| matches!(e.kind, EntryKind::Verl(_)));
    match verl_own && joined.ends_with("verl/trainer/config") {
        true => ConfigPlace::Verl,
        false => ConfigPlace::Elsewhere,
    }
}

/// `a/./b/../c` as `a/c` (leading `..` kept).
fn normalise(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    let joined = parts.join("/");
    if path.starts_with('/') {
        format!("/{joined}")
    } else {
        joined
    }
}

/// The config a launch composes: `--config-name` (without `.yaml`), else its entry point's
/// own (`@hydra.main`'s, from the key table), else main_ppo's.
pub(super) fn config_name(launch: &Launch, set: &KeySet) -> String {
    if let Some(name) = &launch.config_name {
        return name.value.trim_end_matches(".yaml").to_owned();
    }
    let module = launch
        .entry
        .as_ref()
        .and_then(|e| e.as_main_ppo())
        .unwrap_or(main_ppo())
        .module;
    set.entries
        .iter()
        .rev()
        .find(|e| e.module == module)
        .map_or_else(|| "ppo_trainer".to_owned(), |e| e.config_name.clone())
}
