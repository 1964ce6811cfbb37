//! Reading a launch: the pasted line, the YAML, then each override in Hydra's order, into
//! the settings, with every problem found on the way. A launch whose entry point or config
//! the reader cannot see is not judged (`not_judged`): one finding says so, and nothing
//! else is read of it.

use std::collections::{BTreeSet, HashMap};

use super::fields::{HydraArgs, LaunchSyntax, NotReadWhy, Place};
use super::hydra::{Op, Override, parse_words};
use super::judge::Judge;
use super::keys::*;
use super::launch::{HydraArgsProblem, Launch, LaunchProblem, parse_launch};
use super::layout::layout;
use super::not_judged::{NotJudged, not_judged, shown};
use super::releases::{Release, release};
use super::resolve::{Walk, wrong_type};
use super::rules::rules;
use super::settings::{Origin, VerlSettings};
use super::yaml::{RawScalar, Unread, YamlValues, read_yaml};
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
    /// The YAML is a config given as data (a Python dict as its JSON text, shown as
    /// [`CONFIG_DATA_NAME`](super::CONFIG_DATA_NAME)), not a file: its values are
    /// [`Origin::Config`], not "the YAML", and it is the composed config itself, wherever
    /// the line's config flags point.
    pub config_is_data: bool,
    /// A verl older than every release known (`--verl-version 0.3.1`, a fork of 0.1-0.4):
    /// its config and pools are not seen, and the launch is not judged.
    pub older_release: Option<String>,
}

impl VerlOptions {
    /// Every release, at most `max_slots` node-slots.
    pub fn new(max_slots: u64) -> VerlOptions {
        VerlOptions {
            max_slots,
            verl_version: None,
            config_is_data: false,
            older_release: None,
        }
    }
}

/// What was recognised of the launch, for the report.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct LaunchInfo {
    /// The entry point as written, when the line names one.
    pub entry: Option<String>,
    /// The verl entry point it is, when it builds its pools as main_ppo does
    /// (`verl.trainer.main_ppo`).
    pub entry_point: Option<&'static str>,
    /// The verl files that show it builds its pools as main_ppo does.
    pub evidence: Option<&'static str>,
    /// The trainer config the keys were judged against (`ppo_trainer`; empty when none).
    pub config: String,
    /// The defaults-list choices changed (`model_engine=megatron`).
    pub choices: Vec<String>,
    /// The verl releases of the key set used.
    pub releases: Vec<&'static str>,
    /// Whether keys were judged against verl's config.
    pub keys_judged: bool,
    /// Why the pools verl builds are not judged (and `LoadedVerl::layout` is `None`), when
    /// the reader cannot see them: an entry point or config that is not verl's own, a
    /// program it does not read, a value of a pool key it does not read.
    pub not_judged: Option<NotJudged>,
}

/// Reads a verl launch: the YAML (its text, if any) and the pasted words (a launch line, or
/// overrides alone), in Hydra's order. `max_slots` bounds the node-slots built.
pub fn load_verl(yaml: Option<&str>, words: &[String], max_slots: u64) -> LoadedVerl {
    load_launch(&parse_launch(words), yaml, &VerlOptions::new(max_slots))
}

/// The spans and origins of one launch: where its YAML's and command line's values point.
struct Spaces<'o> {
    space: SpanSpace,
    options: &'o VerlOptions,
    /// Whether a YAML of the user's (or a config given as data) holds the config.
    own_yaml: bool,
}

impl Spaces<'_> {
    fn line(&self, span: &Span) -> miette::SourceSpan {
        to_source_span(&self.space.command_line(span))
    }

    fn yaml_origin(&self, span: Span) -> Origin {
        match self.options.config_is_data {
            true => Origin::Config(span),
            false => Origin::Yaml(span),
        }
    }

    fn yaml_place(&self) -> Place {
        match self.options.config_is_data {
            true => Place::Config,
            false => Place::Yaml,
        }
    }
}

/// Reads a parsed launch with its YAML (`--config`'s text, or a config given as data).
pub fn load_launch(launch: &Launch, yaml: Option<&str>, options: &VerlOptions) -> LoadedVerl {
    let spaces = Spaces {
        space: SpanSpace {
            yaml_len: yaml.map_or(0, str::len),
        },
        options,
        own_yaml: yaml.is_some(),
    };
    let line_span = |span: &Span| spaces.line(span);
    let mut info = entry_info(launch);
    let (parsed, override_errors) = parse_words(&launch.overrides);
    let read = yaml.map(read_yaml);
    let yaml_defaults = match &read {
        Some(Ok(values)) => values.defaults.clone(),
        _ => Vec::new(),
    };
    let set = super::key_set::key_set();
    if let Some((why, span)) = not_judged(launch, &parsed, &yaml_defaults, options, set) {
        return not_judged_load(launch, why, span, &spaces, info);
    }
    let mut diagnostics = Vec::new();
    launch_diagnostics(launch, &line_span, &mut diagnostics);
    let mut raw: HashMap<KeyId, (RawScalar, bool)> = HashMap::new();
    let (yaml_values, in_yaml) = yaml_into(read, &spaces, &mut raw, &mut diagnostics);
    for e in override_errors {
        let (problem, text, span) = (e.problem, e.text, line_span(&e.span));
        diagnostics.push(
            VerlLaunchDiagnostic::OverrideSyntax {
                problem,
                text,
                span,
            }
            .into(),
        );
    }
    // A sweep is no value of one run: its choice is no option of verl's either.
    let one_run: Vec<Override> = (parsed.iter())
        .filter(|o| {
            !o.value
                .as_ref()
                .is_some_and(|v| v.unread == Some(Unread::Sweep))
        })
        .cloned()
        .collect();
    let mut judge = Judge::new(
        launch,
        options,
        &yaml_defaults,
        &one_run,
        &mut info,
        &line_span,
        &mut diagnostics,
    );
    if let Some(values) = &yaml_values {
        for (key, span) in values.keys.iter().zip(&values.key_spans) {
            diagnostics.extend(judge.yaml_typo(key, span, spaces.yaml_place()));
        }
        judge.yaml_keys = values.keys.clone();
    }
    let release = options.verl_version.as_deref().and_then(release);
    for o in &parsed {
        apply_override(
            o,
            &judge,
            release,
            &spaces,
            &in_yaml,
            &mut raw,
            &mut diagnostics,
        );
    }
    if let Some(release) = release {
        not_read_in_yaml(&in_yaml, &raw, release, &judge, &spaces, &mut diagnostics);
    }
    let shell_words = launch.problems.iter().find_map(|p| match p {
        LaunchProblem::ShellWords(span) => Some(shown(&launch.line[span.clone()])),
        _ => None,
    });
    settle(
        launch_settings(release, &info, &spaces, &raw),
        diagnostics,
        info,
        options,
        shell_words,
    )
}

/// The settings: verl's (or the release's) defaults, then each key's value resolved,
/// with the keys whose value is not read.
fn launch_settings(
    release: Option<&'static Release>,
    info: &LaunchInfo,
    spaces: &Spaces<'_>,
    raw: &HashMap<KeyId, (RawScalar, bool)>,
) -> (VerlSettings, Vec<VerlDiagnostic>, BTreeSet<KeyId>) {
    let mut settings = VerlSettings {
        space: spaces.space,
        ..VerlSettings::for_release(release, &info.config)
    };
    let (mut diagnostics, mut unread) = (Vec::new(), BTreeSet::new());
    let yaml_origin = |span: Span| spaces.yaml_origin(span);
    let mut ids: Vec<KeyId> = raw.keys().copied().collect();
    ids.sort_unstable();
    for id in ids {
        let mut walk = Walk::new(raw, &yaml_origin, &mut diagnostics, &mut unread);
        if let Some(setting) = walk.resolve(id) {
            settings.settings[id] = setting;
        }
    }
    (settings, diagnostics, unread)
}

/// The checks of the settings and the layout verl builds, unless an error stops verl first
/// or a value the pools depend on is not read (then the layout is not claimed).
fn settle(
    (settings, resolved, unread): (VerlSettings, Vec<VerlDiagnostic>, BTreeSet<KeyId>),
    mut diagnostics: Vec<VerlDiagnostic>,
    mut info: LaunchInfo,
    options: &VerlOptions,
    shell_words: Option<String>,
) -> LoadedVerl {
    diagnostics.extend(resolved);
    rules(&settings, options.max_slots, &mut diagnostics);
    let unread_pool_key = unread.iter().copied().find(|&id| sizes_pools(id));
    info.not_judged = match (unread_pool_key, shell_words) {
        (Some(id), _) => Some(NotJudged::ValueNotRead { key: KEYS[id].path }),
        (None, Some(word)) => Some(NotJudged::ShellWords { word }),
        (None, None) => None,
    };
    let layout = (!any_error(&diagnostics) && info.not_judged.is_none())
        .then(|| layout(&settings))
        .flatten();
    // verl builds these pools and stops only when its workers start: the layout is kept,
    // so that the check (and a suggestion) still see it.
    if let Some(layout) = &layout
        && unread.is_empty()
    {
        diagnostics.extend(super::rollout::check(&settings, layout));
    }
    LoadedVerl {
        settings,
        diagnostics,
        layout,
        launch: info,
    }
}

/// What the report says of the entry point.
fn entry_info(launch: &Launch) -> LaunchInfo {
    let entry = launch.entry.as_ref();
    let main_ppo = entry.and_then(|e| e.as_main_ppo());
    LaunchInfo {
        entry: entry.map(|e| e.text.clone()),
        entry_point: main_ppo.map(|e| e.module),
        evidence: main_ppo.and_then(|e| e.evidence()),
        ..LaunchInfo::default()
    }
}

/// A launch not judged: its one finding (the notice, or the error of a module the release
/// lacks), the shell's syntax it ends in, verl's defaults and no layout.
fn not_judged_load(
    launch: &Launch,
    why: NotJudged,
    span: Option<Span>,
    spaces: &Spaces<'_>,
    mut info: LaunchInfo,
) -> LoadedVerl {
    let mut diagnostics = Vec::new();
    for problem in &launch.problems {
        if let LaunchProblem::ShellSyntax(span) = problem {
            let ignored = shown(&launch.line[span.clone()]);
            let span = spaces.line(span);
            diagnostics.push(VerlLaunchDiagnostic::ShellSyntax { ignored, span }.into());
        }
    }
    let span = span.map(|s| spaces.line(&s));
    let finding = match &why {
        NotJudged::NotInRelease {
            entry,
            release,
            releases,
        } => VerlLaunchDiagnostic::EntryPoint {
            entry,
            release: release.clone(),
            releases,
            span: span.unwrap_or_else(|| (0..0).into()),
        },
        _ => VerlLaunchDiagnostic::NotJudged {
            why: why.clone(),
            span,
        },
    };
    diagnostics.push(finding.into());
    info.not_judged = Some(why);
    LoadedVerl {
        settings: VerlSettings {
            space: spaces.space,
            ..VerlSettings::default()
        },
        diagnostics,
        layout: None,
        launch: info,
    }
}

/// The YAML read (its syntax error said), its scalars of the known keys in `raw`; the
/// spans of the values written.
fn yaml_into(
    read: Option<Result<YamlValues, super::yaml::YamlError>>,
    spaces: &Spaces<'_>,
    raw: &mut HashMap<KeyId, (RawScalar, bool)>,
    diagnostics: &mut Vec<VerlDiagnostic>,
) -> (Option<YamlValues>, HashMap<KeyId, Span>) {
    match read {
        Some(Ok(values)) => {
            let in_yaml = yaml_scalars(&values, spaces, raw, diagnostics);
            (Some(values), in_yaml)
        }
        Some(Err(error)) => {
            let (message, span) = (error.message, to_source_span(&error.span));
            diagnostics.push(VerlLaunchDiagnostic::YamlSyntax { message, span }.into());
            (None, HashMap::new())
        }
        None => (None, HashMap::new()),
    }
}

/// The YAML's scalars of the known keys into `raw`, a key set to a mapping or list being
/// `wrong_type`; the spans of the values written.
fn yaml_scalars(
    values: &YamlValues,
    spaces: &Spaces<'_>,
    raw: &mut HashMap<KeyId, (RawScalar, bool)>,
    diagnostics: &mut Vec<VerlDiagnostic>,
) -> HashMap<KeyId, Span> {
    let mut ids: Vec<(&KeyId, &Span)> = values.not_scalar.iter().collect();
    ids.sort_unstable_by_key(|(id, _)| **id);
    for (&id, span) in ids {
        let origin = spaces.yaml_origin(span.clone());
        diagnostics.push(wrong_type(id, super::fields::Found::MappingOrList, origin));
    }
    for (&id, scalar) in &values.unread {
        raw.insert(id, (scalar.clone(), false));
    }
    let mut in_yaml = HashMap::new();
    for (&id, scalar) in &values.values {
        in_yaml.insert(id, scalar.span.clone());
        raw.insert(id, (scalar.clone(), false));
    }
    in_yaml
}

/// One override, in Hydra's order: its key judged, and a pool key's value taken.
fn apply_override(
    o: &Override,
    judge: &Judge,
    release: Option<&'static Release>,
    spaces: &Spaces<'_>,
    in_yaml: &HashMap<KeyId, Span>,
    raw: &mut HashMap<KeyId, (RawScalar, bool)>,
    diagnostics: &mut Vec<VerlDiagnostic>,
) {
    let line_span = |span: &Span| spaces.line(span);
    if judge.is_choice(o) || o.key.starts_with("hydra.") || o.key == "hydra" {
        return;
    }
    // Pool keys too: under `--verl-version`, one the release lacks is unknown to it.
    judge.judge(o, &line_span, diagnostics);
    diagnostics.extend(judge.adds_existing(o, spaces.own_yaml, &line_span));
    let Some(id) = key_id(&o.key) else {
        return;
    };
    let value = match (o.op, &o.value) {
        (Op::Delete, _) => {
            let span = line_span(&o.key_span);
            diagnostics.push(VerlDiagnostic::DeletedKey {
                key: KEYS[id].path,
                span,
            });
            return;
        }
        (_, Some(value)) => RawScalar {
            span: spaces.space.command_line(&value.span),
            ..value.clone()
        },
        (_, None) => return,
    };
    if let Some(release) = release {
        let added = matches!(o.op, Op::Add | Op::ForceAdd);
        let span = line_span(&o.key_span);
        diagnostics.extend(not_read(
            id,
            &value,
            release,
            judge,
            added,
            span,
            Place::CommandLine,
        ));
    }
    if o.op == Op::Add
        && let Some(existing) = in_yaml.get(&id)
    {
        diagnostics.push(VerlDiagnostic::AddExisting {
            key: o.key.clone(),
            span: line_span(&o.span),
            existing: Some(to_source_span(existing)),
        });
    }
    raw.insert(id, (value, true));
}

/// `not_read` for the YAML's pool keys that the command line does not set.
fn not_read_in_yaml(
    in_yaml: &HashMap<KeyId, Span>,
    raw: &HashMap<KeyId, (RawScalar, bool)>,
    release: &'static Release,
    judge: &Judge,
    spaces: &Spaces<'_>,
    diagnostics: &mut Vec<VerlDiagnostic>,
) {
    let mut ids: Vec<&KeyId> = in_yaml.keys().collect();
    ids.sort_unstable();
    for &id in ids {
        if let Some((scalar, false)) = raw.get(&id) {
            let span = to_source_span(&scalar.span);
            let place = spaces.yaml_place();
            diagnostics.extend(not_read(id, scalar, release, judge, true, span, place));
        }
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

/// The problems of the launcher words and Hydra's flags.
fn launch_diagnostics(
    launch: &Launch,
    line_span: &dyn Fn(&Span) -> miette::SourceSpan,
    out: &mut Vec<VerlDiagnostic>,
) {
    let syntax = |problem: LaunchSyntax, span: &Span| {
        let span = line_span(span);
        Some(VerlLaunchDiagnostic::LaunchSyntax { problem, span })
    };
    for problem in &launch.problems {
        let found = match problem {
            LaunchProblem::RaySubmitWithoutEntrypoint(span) => {
                syntax(LaunchSyntax::RaySubmitWithoutEntrypoint, span)
            }
            LaunchProblem::MissingValue(span) => syntax(LaunchSyntax::MissingValue, span),
            LaunchProblem::NoProgram(span) => syntax(LaunchSyntax::NoProgram, span),
            LaunchProblem::OpenQuote(span) => syntax(LaunchSyntax::OpenQuote, span),
            LaunchProblem::ShellSyntax(span) => Some(VerlLaunchDiagnostic::ShellSyntax {
                ignored: shown(&launch.line[span.clone()]),
                span: line_span(span),
            }),
            LaunchProblem::ShellWords(span) => Some(VerlLaunchDiagnostic::ShellWords {
                word: shown(&launch.line[span.clone()]),
                span: line_span(span),
            }),
            LaunchProblem::HydraArgs { problem, span } => Some(hydra_args(
                problem,
                &launch.line[span.clone()],
                line_span(span),
            )),
            // What the reader cannot see is `not_judged`'s.
            LaunchProblem::UnknownLauncher(_)
            | LaunchProblem::CommandUnseen(_)
            | LaunchProblem::InlineCode(_) => None,
        };
        out.extend(found.map(VerlDiagnostic::from));
    }
}

/// `hydra_args` for a word Hydra's argument parser does not take as one of its flags.
fn hydra_args(
    problem: &HydraArgsProblem,
    word: &str,
    span: miette::SourceSpan,
) -> VerlLaunchDiagnostic {
    let (problem, flags) = match problem {
        HydraArgsProblem::UnknownFlag => (HydraArgs::UnknownFlag, vec![]),
        HydraArgsProblem::StartsNoTraining(flag) => (HydraArgs::StartsNoTraining, vec![*flag]),
    };
    let word = shown(word);
    VerlLaunchDiagnostic::HydraArgs {
        problem,
        message: problem.message(&word, &flags),
        help: problem.help(&flags),
        word,
        flags,
        span,
    }
}
