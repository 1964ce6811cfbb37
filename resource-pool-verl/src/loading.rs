//! Reading a launch: the pasted line, the YAML, then each override in Hydra's order, into
//! the settings, with every problem found on the way.

use std::collections::HashMap;

use super::fields::{CommandForm, EntryDifference, Found, Listed, NotReadWhy, Place};
use super::hydra::{Op, Override, SweepMode, SweepRun, first_run_value, parse_words, sweep_kind};
use super::judge::Judge;
use super::keys::*;
use super::launch::{EntryKind, Launch, UNDERSTOOD, parse_launch};
use super::layout::layout;
use super::releases::{Release, release};
use super::resolve::{Walk, wrong_type};
use super::rules::rules;
use super::settings::{Origin, VerlSettings};
use super::yaml::{RawScalar, read_yaml};
use super::{LoadedVerl, SpanSpace, VerlDiagnostic, VerlLaunchDiagnostic, any_error};
use resource_pool_core::source::{Span, to_source_span};

/// How to read a launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerlOptions {
    /// The most node-slots built.
    pub max_slots: u64,
    /// Build the pools by this release's row of [`super::releases`] and judge keys against
    /// it only (`0.9.1`); keys as written and all releases when `None`.
    pub verl_version: Option<String>,
    /// The user's config that the launch names
    /// ([`user_config_file`](super::user_config_file)) could not be read.
    pub config_file_unread: bool,
    /// The YAML is a config given as data (a Python dict as its JSON text, shown as
    /// [`CONFIG_DATA_NAME`](super::CONFIG_DATA_NAME)), not a file: its values are
    /// [`Origin::Config`], not "the YAML".
    pub config_is_data: bool,
}

impl VerlOptions {
    /// Every release, at most `max_slots` node-slots.
    pub fn new(max_slots: u64) -> VerlOptions {
        VerlOptions {
            max_slots,
            verl_version: None,
            config_file_unread: false,
            config_is_data: false,
        }
    }
}

/// What was recognised of the launch, for the report.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct LaunchInfo {
    /// The entry point as written, when the line names one.
    pub entry: Option<String>,
    /// The understood entry point it is (`verl.trainer.main_ppo`).
    pub entry_point: Option<&'static str>,
    /// The verl files that show it builds its pools as main_ppo does.
    pub evidence: Option<&'static str>,
    /// The trainer config the keys were judged against (`ppo_trainer`).
    pub config: String,
    /// The defaults-list choices changed (`model_engine=megatron`).
    pub choices: Vec<String>,
    /// The verl releases of the key set used.
    pub releases: Vec<&'static str>,
    /// Whether keys verl does not have were judged (not when part of the config is unread).
    pub keys_judged: bool,
}

/// Reads a verl launch: the YAML (its text, if any) and the pasted words (a launch line, or
/// overrides alone), in Hydra's order. `max_slots` bounds the node-slots built.
pub fn load_verl(yaml: Option<&str>, words: &[String], max_slots: u64) -> LoadedVerl {
    load_launch(&parse_launch(words), yaml, &VerlOptions::new(max_slots))
}

/// Reads a parsed launch with its YAML: `--config`'s text, or the user's config that
/// [`user_config_file`](super::user_config_file) names.
pub fn load_launch(launch: &Launch, yaml: Option<&str>, options: &VerlOptions) -> LoadedVerl {
    let space = SpanSpace {
        yaml_len: yaml.map_or(0, str::len),
    };
    let yaml_place = if options.config_is_data {
        Place::Config
    } else {
        Place::Yaml
    };
    let yaml_origin = |span: Span| {
        if options.config_is_data {
            Origin::Config(span)
        } else {
            Origin::Yaml(span)
        }
    };
    let line_span = |span: &Span| to_source_span(&space.command_line(span));
    let mut diagnostics = Vec::new();
    let mut info = LaunchInfo::default();
    launch_diagnostics(launch, &mut info, &line_span, &mut diagnostics);
    let mut raw: HashMap<KeyId, (RawScalar, bool)> = HashMap::new();
    let mut in_yaml: HashMap<KeyId, Span> = HashMap::new();
    let mut yaml_keys: Vec<String> = Vec::new();
    let mut yaml_key_spans: Vec<Span> = Vec::new();
    let mut yaml_defaults: Vec<(Option<String>, String)> = Vec::new();
    let mut merge_order = Vec::new();
    if let Some(text) = yaml {
        match read_yaml(text) {
            Ok(values) => {
                for (id, span) in values.not_scalar {
                    diagnostics.push(wrong_type(
                        id,
                        Found::MappingOrList,
                        None,
                        yaml_origin(span),
                    ));
                }
                for (id, scalar) in values.values {
                    in_yaml.insert(id, scalar.span.clone());
                    raw.insert(id, (scalar, false));
                }
                yaml_keys = values.keys;
                yaml_key_spans = values.key_spans;
                yaml_defaults = values.defaults;
                merge_order = values.merge_order;
            }
            Err(error) => {
                let span = to_source_span(&error.span);
                let message = error.message;
                diagnostics.push(
                    match error.tag {
                        Some(tag) => VerlLaunchDiagnostic::YamlTag { tag, message, span },
                        None => VerlLaunchDiagnostic::YamlSyntax { message, span },
                    }
                    .into(),
                )
            }
        }
    }
    let (parsed, errors) = parse_words(&launch.overrides);
    for e in errors {
        diagnostics.push(
            VerlLaunchDiagnostic::OverrideSyntax {
                problem: e.problem,
                text: e.text,
                span: line_span(&e.span),
            }
            .into(),
        );
    }
    // A sweep is no value of one run: its choice is no option of verl's either.
    let is_sweep = |o: &Override| o.value.as_ref().and_then(sweep_kind).is_some();
    let one_run: Vec<Override> = parsed.iter().filter(|o| !is_sweep(o)).cloned().collect();
    let multirun = multirun(launch, &parsed);
    let mut judge = Judge::new(
        launch,
        options,
        &yaml_defaults,
        &one_run,
        &mut info,
        &line_span,
        &mut diagnostics,
    );
    for (key, span) in yaml_keys.iter().zip(&yaml_key_spans) {
        diagnostics.extend(judge.yaml_typo(key, span, yaml_place));
    }
    judge.yaml_keys = yaml_keys;
    let release = options.verl_version.as_deref().and_then(release);
    for o in &parsed {
        if let Some(value) = &o.value
            && let Some(kind) = sweep_kind(value)
        {
            diagnostics.extend(sweep(o, value, kind, multirun.as_ref(), &line_span));
            if !judge.is_choice(o) && !o.key.starts_with("hydra.") {
                judge.judge(o, &line_span, &mut diagnostics);
            }
            continue;
        }
        if judge.is_choice(o) || o.key.starts_with("hydra.") {
            continue;
        }
        // Pool keys too: under `--verl-version`, one the release lacks is unknown to it.
        judge.judge(o, &line_span, &mut diagnostics);
        if let (Some(id), Some(release), Some(value)) = (key_id(&o.key), release, &o.value)
            && o.op != Op::Delete
        {
            let span = line_span(&o.key_span);
            let added = matches!(o.op, Op::Add | Op::ForceAdd);
            let scalar = RawScalar {
                span: space.command_line(&value.span),
                ..value.clone()
            };
            diagnostics.extend(not_read(
                id,
                &scalar,
                release,
                &judge,
                added,
                span,
                Place::CommandLine,
            ));
        }
        if judge.adds_existing(o, yaml.is_some()) {
            diagnostics.push(VerlDiagnostic::AddExisting {
                key: o.key.clone(),
                span: line_span(&o.span),
                existing: None,
            });
        }
        apply_override(o, space, &in_yaml, &mut raw, &mut diagnostics);
    }
    // A key the command line sets does not depend on the YAML's merge order.
    for m in merge_order {
        if !matches!(raw.get(&m.key), Some((_, true))) {
            diagnostics.push(VerlDiagnostic::MergeOrder {
                key: KEYS[m.key].path,
                used: m.used,
                newer: m.newer,
                span: to_source_span(&m.span),
            });
        }
    }
    if let Some(release) = release {
        let mut ids: Vec<&KeyId> = in_yaml.keys().collect();
        ids.sort_unstable();
        for &id in ids {
            if let Some((scalar, false)) = raw.get(&id) {
                let span = to_source_span(&scalar.span);
                diagnostics.extend(not_read(
                    id, scalar, release, &judge, true, span, yaml_place,
                ));
            }
        }
    }
    let mut settings = VerlSettings {
        space,
        ..VerlSettings::for_release(release, &info.config)
    };
    let mut ids: Vec<KeyId> = raw.keys().copied().collect();
    ids.sort_unstable();
    for id in ids {
        if let Some(setting) = Walk::new(&raw, &yaml_origin, &mut diagnostics).resolve(id) {
            settings.settings[id] = setting;
        }
    }
    rules(&settings, options.max_slots, &mut diagnostics);
    let layout = (!any_error(&diagnostics))
        .then(|| layout(&settings))
        .flatten();
    // verl builds these pools and stops only when its workers start: the layout is kept,
    // so that the check (and a suggestion) still see it.
    if let Some(layout) = &layout {
        diagnostics.extend(super::rollout::check(&settings, layout));
    }
    LoadedVerl {
        settings,
        diagnostics,
        layout,
        launch: info,
    }
}

/// A pool key set (to a value that changes the pools: not its default, not null) that
/// `release` does not read: `not_read`. A key its config lacks, written without `+` on the
/// command line, is Hydra's error and already `unknown_key`: `added` says it was added
/// (`+`, `++`, or from a YAML, which Hydra merges in).
fn not_read(
    id: KeyId,
    scalar: &RawScalar,
    release: &'static Release,
    judge: &Judge,
    added: bool,
    span: miette::SourceSpan,
    place: Place,
) -> Option<VerlDiagnostic> {
    let key = &KEYS[id];
    let in_yaml = place != Place::CommandLine;
    let value = interpret(&scalar.text, scalar.quoted(), key.kind, in_yaml);
    if is_null(&scalar.text, scalar.quoted(), in_yaml)
        || value.is_some_and(|v| v == key.default.value())
    {
        return None;
    }
    let why = match judge.lacks(key.path) {
        Some(_) if !added => return None,
        Some(others) => NotReadWhy::NotInConfig(others),
        None => NotReadWhy::NotMigrated(KEYS[release.instead(id)?].path),
    };
    Some(VerlDiagnostic::NotRead {
        key: key.path,
        release: release.version,
        why,
        span,
        place,
    })
}

/// Where Hydra is told to multirun: `-m`/`--multirun`, or `hydra.mode=MULTIRUN` (Hydra
/// 1.2 and later).
fn multirun(launch: &Launch, overrides: &[Override]) -> Option<Span> {
    launch.multirun.clone().or_else(|| {
        overrides
            .iter()
            .find(|o| {
                o.key == "hydra.mode" && o.value.as_ref().is_some_and(|v| v.text == "MULTIRUN")
            })
            .map(|o| o.span.clone())
    })
}

/// A sweep's diagnostic: without multirun Hydra stops, whatever the key; with it, each run
/// is checked on its own when the key is one resource-pool reads (a sweep of another key
/// leaves every run's pools as they are).
fn sweep(
    o: &Override,
    value: &RawScalar,
    kind: super::hydra::SweepKind,
    multirun: Option<&Span>,
    line_span: &dyn Fn(&Span) -> miette::SourceSpan,
) -> Option<VerlDiagnostic> {
    let mode = match multirun {
        Some(_) if key_id(&o.key).is_none() => return None,
        Some(_) => SweepMode::Multirun,
        None => SweepMode::SingleRun,
    };
    Some(
        VerlLaunchDiagnostic::Sweep {
            key: o.key.clone(),
            value: shown(&value.text),
            run: SweepRun {
                mode,
                kind,
                key: o.key.clone(),
                value: value.text.clone(),
                one: first_run_value(&value.text, kind),
            },
            span: line_span(&value.span),
            multirun: multirun.map(line_span),
        }
        .into(),
    )
}

fn launch_diagnostics(
    launch: &Launch,
    info: &mut LaunchInfo,
    line_span: &dyn Fn(&Span) -> miette::SourceSpan,
    out: &mut Vec<VerlDiagnostic>,
) {
    use super::fields::LaunchSyntax;
    use super::launch::LaunchProblem;
    for problem in &launch.problems {
        out.push(match problem {
            LaunchProblem::UnknownLauncher(span) => VerlLaunchDiagnostic::UnknownLauncher {
                word: launch.line[span.clone()].chars().take(60).collect(),
                launchers: Listed(super::launch::launcher_forms().map(CommandForm).collect()),
                span: line_span(span),
            }
            .into(),
            LaunchProblem::RaySubmitWithoutEntrypoint(span) => VerlLaunchDiagnostic::LaunchSyntax {
                problem: LaunchSyntax::RaySubmitWithoutEntrypoint,
                span: line_span(span),
            }
            .into(),
            LaunchProblem::InlineCode(span) => VerlLaunchDiagnostic::LaunchSyntax {
                problem: LaunchSyntax::InlineCode,
                span: line_span(span),
            }
            .into(),
            LaunchProblem::MissingValue(span) => VerlLaunchDiagnostic::LaunchSyntax {
                problem: LaunchSyntax::MissingValue,
                span: line_span(span),
            }
            .into(),
            LaunchProblem::NoProgram(span) => VerlLaunchDiagnostic::LaunchSyntax {
                problem: LaunchSyntax::NoProgram,
                span: line_span(span),
            }
            .into(),
            LaunchProblem::OpenQuote(span) => VerlLaunchDiagnostic::LaunchSyntax {
                problem: LaunchSyntax::OpenQuote,
                span: line_span(span),
            }
            .into(),
            LaunchProblem::ShellSyntax(span) => VerlLaunchDiagnostic::ShellSyntax {
                ignored: shown(&launch.line[span.clone()]),
                span: line_span(span),
            }
            .into(),
            LaunchProblem::ShellWords(span) => VerlLaunchDiagnostic::ShellWords {
                word: shown(&launch.line[span.clone()]),
                span: line_span(span),
            }
            .into(),
            LaunchProblem::NotUnicode(span) => VerlLaunchDiagnostic::NotUnicode {
                word: shown(&launch.line[span.clone()]),
                span: line_span(span),
            }
            .into(),
            LaunchProblem::HydraArgs { problem, span } => {
                use super::fields::HydraArgs;
                use super::launch::HydraArgsProblem;
                let (problem, flags) = match problem {
                    HydraArgsProblem::OverrideAfterFlag => (HydraArgs::OverrideAfterFlag, vec![]),
                    HydraArgsProblem::Ambiguous(flags) => (HydraArgs::Ambiguous, flags.clone()),
                    HydraArgsProblem::UnknownFlag => (HydraArgs::UnknownFlag, vec![]),
                    HydraArgsProblem::NotAChoice(choices) => {
                        (HydraArgs::NotAChoice, choices.to_vec())
                    }
                    HydraArgsProblem::ValueNotTaken(flag) => {
                        (HydraArgs::ValueNotTaken, vec![*flag])
                    }
                    HydraArgsProblem::StartsNoTraining(flag) => {
                        (HydraArgs::StartsNoTraining, vec![*flag])
                    }
                };
                let word = shown(&launch.line[span.clone()]);
                VerlLaunchDiagnostic::HydraArgs {
                    problem,
                    message: problem.message(&word, &flags),
                    help: problem.help(&flags),
                    word,
                    flags,
                    span: line_span(span),
                }
                .into()
            }
        });
    }
    if let Some(entry) = &launch.entry {
        info.entry = Some(entry.text.clone());
        match entry.kind {
            EntryKind::Understood(u) => {
                info.entry_point = Some(u.module);
                info.evidence = Some(u.evidence);
            }
            EntryKind::Different(why) => out.push(entry_error(entry, Some(why), line_span)),
            EntryKind::Unknown => out.push(entry_error(entry, None, line_span)),
        }
    }
}

/// Words as a message quotes them: at most 60 characters.
fn shown(text: &str) -> String {
    let mut shown: String = text.chars().take(60).collect();
    if shown.len() < text.len() {
        shown.push('…');
    }
    shown
}

fn entry_error(
    entry: &super::launch::Entry,
    why: Option<&'static str>,
    line_span: &dyn Fn(&Span) -> miette::SourceSpan,
) -> VerlDiagnostic {
    VerlLaunchDiagnostic::EntryPoint {
        entry: entry.text.chars().take(120).collect(),
        why: EntryDifference(why),
        understood: Listed(UNDERSTOOD.iter().map(|u| u.module).collect()),
        span: line_span(&entry.span),
    }
    .into()
}

fn apply_override(
    o: &Override,
    space: SpanSpace,
    in_yaml: &HashMap<KeyId, Span>,
    raw: &mut HashMap<KeyId, (RawScalar, bool)>,
    diagnostics: &mut Vec<VerlDiagnostic>,
) {
    let key_span = to_source_span(&space.command_line(&o.key_span));
    let Some(id) = key_id(&o.key) else {
        return;
    };
    match (o.op, &o.value) {
        (Op::Delete, _) => diagnostics.push(VerlDiagnostic::DeletedKey {
            key: KEYS[id].path,
            span: key_span,
        }),
        (op, Some(value)) => {
            if op == Op::Add
                && let Some(existing) = in_yaml.get(&id)
            {
                diagnostics.push(VerlDiagnostic::AddExisting {
                    key: o.key.clone(),
                    span: to_source_span(&space.command_line(&o.span)),
                    existing: Some(to_source_span(existing)),
                });
            }
            let mut value = value.clone();
            value.span = space.command_line(&value.span);
            raw.insert(id, (value, true));
        }
        (_, None) => {}
    }
}
