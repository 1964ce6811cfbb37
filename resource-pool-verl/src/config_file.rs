//! Which config file a launch names: Hydra's `--config-path` (relative to the entry
//! point's file, or a `pkg://` package) and `--config-name` (else the entry point's own).

use super::key_set::KeySet;
use super::launch::{EntryKind, Launch, UNDERSTOOD};
use super::shell_expansion::holds_shell_expansion;
use resource_pool_core::source::Span;

/// The user's config file the launch names, as a path relative to where verl runs: a
/// `--config-path` outside verl's own package, joined with `--config-name`. `None` when
/// the config is verl's own (judged from the shipped key set) or a package that cannot
/// be read from disk.
pub fn user_config_file(launch: &Launch) -> Option<String> {
    match config_place(launch) {
        ConfigPlace::UserDir(dir) => Some(format!(
            "{dir}/{}.yaml",
            config_name(launch, super::key_set::key_set())
        )),
        _ => None,
    }
}

pub(super) enum ConfigPlace {
    Verl,
    UserDir(String),
    Package(String),
    /// `--config-path` or `--config-name` holds what the shell fills in
    /// (`--config-path="$CONFIG_PATH"` in a line `shlex.split` left as written): the
    /// folder as written, if one is, and the span of the flag's value that holds it.
    Shell {
        dir: Option<String>,
        at: Span,
    },
}

/// Hydra's rule: a relative `--config-path` is relative to the entry point's file.
pub(super) fn config_place(launch: &Launch) -> ConfigPlace {
    let shell = [&launch.config_path, &launch.config_name]
        .into_iter()
        .flatten()
        .find(|flag| holds_shell_expansion(&flag.value));
    if let Some(flag) = shell {
        return ConfigPlace::Shell {
            dir: launch
                .config_path
                .as_ref()
                .map(|p| p.value.trim_end_matches('/').to_owned()),
            at: flag.span.clone(),
        };
    }
    let Some(path) = &launch.config_path else {
        return ConfigPlace::Verl;
    };
    let path = path.value.trim_end_matches('/');
    if let Some(package) = path.strip_prefix("pkg://") {
        let package = package.replace('.', "/");
        return if package == "verl/trainer/config" {
            ConfigPlace::Verl
        } else {
            ConfigPlace::Package(path.to_owned())
        };
    }
    if path.starts_with('/') {
        return ConfigPlace::UserDir(path.to_owned());
    }
    let folder = launch
        .entry
        .as_ref()
        .map_or_else(|| "verl/trainer".to_owned(), |e| e.folder());
    let joined = normalise(&format!("{folder}/{path}"));
    let verl_own = launch
        .entry
        .as_ref()
        .is_none_or(|e| matches!(e.kind, EntryKind::Understood(_)));
    if verl_own && joined.ends_with("verl/trainer/config") {
        ConfigPlace::Verl
    } else {
        ConfigPlace::UserDir(joined)
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

pub(super) fn config_name(launch: &Launch, set: &KeySet) -> String {
    if let Some(name) = &launch.config_name {
        return name.value.trim_end_matches(".yaml").to_owned();
    }
    let module = match launch.entry.as_ref().map(|e| e.kind) {
        Some(EntryKind::Understood(u)) => u.module,
        _ => UNDERSTOOD[0].module,
    };
    set.entries
        .iter()
        .rev()
        .find(|e| e.module == module)
        .map_or_else(|| "ppo_trainer".to_owned(), |e| e.config_name.clone())
}
