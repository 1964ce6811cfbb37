//! What the offline reader cannot see, and so does not judge: an entry point that is not
//! one of verl's (a recipe's main, a project's own trainer), one of verl's that builds its
//! pools otherwise or that the release given lacks, a program it does not read, a config
//! outside verl's own `verl/trainer/config`, or a value of a pool key it does not read.
//! Such a launch gets one finding that says so, no key is judged against a config the line
//! does not load, and no layout is claimed: verl's own code, where verl is installed, is
//! what can tell (`resource-pool verl --python`, `python -m resource_pool.guard`).

use std::fmt;

use serde::Serialize;

use super::config_file::{ConfigPlace, config_name, config_place};
use super::hydra::Override;
use super::key_set::KeySet;
use super::launch::{Builds, EntryKind, FlagValue, Launch, LaunchProblem};
use super::loading::VerlOptions;
use resource_pool_core::source::Span;

/// Why a launch is not judged (`LaunchInfo::not_judged`): shown as the reason (`Display`),
/// serialised as `what` and its fields.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "what", rename_all = "snake_case")]
#[non_exhaustive]
pub enum NotJudged {
    /// A module or script that no release of verl has: a recipe's main
    /// (`recipe.dapo.main_dapo`), a project's own trainer.
    EntryPoint {
        /// The entry point, as written.
        entry: String,
    },
    /// One of verl's modules that does not build its pools as main_ppo does.
    BuildsOtherwise {
        /// The module.
        entry: &'static str,
        /// What it builds instead.
        builds: &'static str,
    },
    /// One of verl's modules that the release given does not have (its own finding, an
    /// error: verl cannot start it).
    NotInRelease {
        /// The module.
        entry: &'static str,
        /// The release given.
        release: String,
        /// The releases that have it.
        releases: &'static [&'static str],
    },
    /// A program the reader does not read (`torchrun`, `bash run.sh`), or a launcher after
    /// which no word starts one it reads (`docker exec box ./train.sh`).
    Program {
        /// Its words, as written (at most 60 characters).
        word: String,
    },
    /// `python3 -c CODE`: inline code.
    InlineCode,
    /// A config outside verl's own `verl/trainer/config`, or one the shell names.
    Config {
        /// The flag or override that names it (`--config-path`, `hydra.searchpath`).
        flag: &'static str,
        /// Its value, as written (at most 60 characters).
        value: String,
    },
    /// A value of a key that sizes the pools, which the reader does not read (said by
    /// that value's own finding).
    ValueNotRead {
        /// The key.
        key: &'static str,
    },
    /// A verl older than every release known (a fork of 0.1-0.4): its config and code.
    OlderRelease {
        /// The version given.
        version: String,
        /// The oldest release known.
        oldest: &'static str,
    },
    /// A word that the shell makes overrides of (`"${ARGS[@]}"`), which are not read (said
    /// by its own finding).
    ShellWords {
        /// The word, as written (at most 60 characters).
        word: String,
    },
}

impl fmt::Display for NotJudged {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotJudged::EntryPoint { entry } => write!(
                f,
                "`{entry}` is no entry point of verl's own, so what it builds is not seen"
            ),
            NotJudged::BuildsOtherwise { entry, builds } => write!(
                f,
                "`{entry}` does not build its pools as verl.trainer.main_ppo does: {builds}"
            ),
            NotJudged::NotInRelease {
                entry,
                release,
                releases,
            } => write!(
                f,
                "verl {release} has no module `{entry}` (verl {} has it)",
                releases.join(", ")
            ),
            NotJudged::Program { word } => {
                write!(f, "`{word}` runs a program resource-pool does not read")
            }
            NotJudged::InlineCode => {
                f.write_str("`python3 -c` runs inline code, which resource-pool does not read")
            }
            NotJudged::Config { flag, value } => write!(
                f,
                "`{flag}` names `{value}`, a config outside verl's own verl/trainer/config"
            ),
            NotJudged::ValueNotRead { key } => {
                write!(f, "the value of `{key}` is not read")
            }
            NotJudged::OlderRelease { version, oldest } => write!(
                f,
                "verl {version} is older than every release resource-pool knows ({oldest} on), so its config and pools are not seen"
            ),
            NotJudged::ShellWords { word } => write!(
                f,
                "`{word}` holds overrides the shell makes, which are not read"
            ),
        }
    }
}

/// Words as a message quotes them: at most 60 characters.
pub(super) fn shown(text: &str) -> String {
    let mut shown: String = text.chars().take(60).collect();
    if shown.len() < text.len() {
        shown.push('…');
    }
    shown
}

/// What of `launch` the reader cannot see, and where the line names it: the entry point
/// first, then the config (not for a config given as data, which is the composed config
/// itself). `yaml_defaults` is the defaults list of a YAML of the user's, which may
/// compose one of verl's configs.
pub(super) fn not_judged(
    launch: &Launch,
    overrides: &[Override],
    yaml_defaults: &[(Option<String>, String)],
    options: &VerlOptions,
    set: &KeySet,
) -> Option<(NotJudged, Option<Span>)> {
    if let Some(version) = &options.older_release {
        let oldest = crate::releases::oldest().version;
        let version = shown(version);
        return Some((NotJudged::OlderRelease { version, oldest }, None));
    }
    if let Some(found) = unseen_program(launch).or_else(|| unseen_entry(launch, options, set)) {
        return Some(found);
    }
    if options.config_is_data {
        return None;
    }
    unseen_config(launch, overrides, yaml_defaults, set)
}

/// A program the reader does not read, before any entry point.
fn unseen_program(launch: &Launch) -> Option<(NotJudged, Option<Span>)> {
    launch.problems.iter().find_map(|p| match p {
        LaunchProblem::UnknownLauncher(span) | LaunchProblem::CommandUnseen(span) => {
            let word = shown(&launch.line[span.clone()]);
            Some((NotJudged::Program { word }, Some(span.clone())))
        }
        LaunchProblem::InlineCode(span) => Some((NotJudged::InlineCode, Some(span.clone()))),
        _ => None,
    })
}

/// An entry point that is not verl's, that the release given lacks, or that builds its
/// pools otherwise.
fn unseen_entry(
    launch: &Launch,
    options: &VerlOptions,
    set: &KeySet,
) -> Option<(NotJudged, Option<Span>)> {
    let entry = launch.entry.as_ref()?;
    let span = Some(entry.span.clone());
    let EntryKind::Verl(verl) = entry.kind else {
        let entry = shown(&entry.text);
        return Some((NotJudged::EntryPoint { entry }, span));
    };
    let release =
        (options.verl_version.as_deref()).filter(|v| set.version_names().any(|known| known == *v));
    if let Some(release) = release
        && !verl.releases.contains(&release)
    {
        let why = NotJudged::NotInRelease {
            entry: verl.module,
            release: release.to_owned(),
            releases: verl.releases,
        };
        return Some((why, span));
    }
    match verl.builds {
        Builds::AsMainPpo(_) => None,
        Builds::Otherwise(builds) => Some((
            NotJudged::BuildsOtherwise {
                entry: verl.module,
                builds,
            },
            span,
        )),
    }
}

/// A config outside verl's own folder: a `--config-path` elsewhere (or the shell's), a
/// `--config-dir`, a `hydra.searchpath` entry other than verl's own package, or a
/// `--config-name` that names none of verl's trainer configs (unless a YAML of the user's
/// composes one of them through its defaults list).
fn unseen_config(
    launch: &Launch,
    overrides: &[Override],
    yaml_defaults: &[(Option<String>, String)],
    set: &KeySet,
) -> Option<(NotJudged, Option<Span>)> {
    let flag = |flag: &'static str, value: &FlagValue| {
        let why = NotJudged::Config {
            flag,
            value: shown(&value.value),
        };
        Some((why, Some(value.span.clone())))
    };
    match config_place(launch) {
        ConfigPlace::Verl => {}
        ConfigPlace::Shell { at } => {
            let name = (launch.config_name.as_ref()).filter(|n| n.span == at);
            return match name {
                Some(name) => flag("--config-name", name),
                None => flag("--config-path", launch.config_path.as_ref()?),
            };
        }
        ConfigPlace::Elsewhere => return flag("--config-path", launch.config_path.as_ref()?),
    }
    if let Some(dir) = &launch.config_dir {
        return flag("--config-dir", dir);
    }
    if let Some(o) = overrides.iter().find(|o| o.key == "hydra.searchpath")
        && let Some(v) = &o.value
        && foreign_search_path(&v.text)
    {
        let value = shown(&v.text);
        let why = NotJudged::Config {
            flag: "hydra.searchpath",
            value,
        };
        return Some((why, Some(o.span.clone())));
    }
    let name = config_name(launch, set);
    let verl_configs = set.config_names();
    let composed = yaml_defaults
        .iter()
        .any(|(group, v)| group.is_none() && verl_configs.contains(&v.as_str()));
    if verl_configs.contains(&name.as_str()) || composed {
        return None;
    }
    let value = shown(&name);
    let span = launch.config_name.as_ref().map(|n| n.span.clone());
    Some((
        NotJudged::Config {
            flag: "--config-name",
            value,
        },
        span,
    ))
}

/// Whether a `hydra.searchpath` list names a place other than verl's own config package.
fn foreign_search_path(text: &str) -> bool {
    text.trim_matches(|c| c == '[' || c == ']')
        .split(',')
        .map(|p| p.trim().trim_matches(|c| c == '\'' || c == '"'))
        .filter(|p| !p.is_empty())
        .any(|p| !p.replace('.', "/").ends_with("verl/trainer/config"))
}
