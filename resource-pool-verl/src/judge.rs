//! Judging override keys against verl's key set: for the launch's releases, trainer config
//! and defaults-list choices, with the user's config and search path said when unread.

use super::config_file::{ConfigPlace, config_name, config_place};
use super::fields::{ConfigUnreadWhy, Elsewhere, Listed, Place, Releases, Suggestion};
use super::hydra::{Op, Override};
use super::key_set::{self, KeySet, KeyStatus, ReleaseView};
use super::keys::{KEYS, key_id, sizes_pools};
use super::launch::Launch;
use super::loading::{LaunchInfo, VerlOptions};
use super::releases::REWARD_TWINS;
use super::{VerlDiagnostic, VerlLaunchDiagnostic};
use resource_pool_core::source::Span;

/// Judges override keys against verl's key set for the launch's releases, config and
/// choices.
pub(super) struct Judge {
    set: &'static KeySet,
    config: String,
    views: Vec<ReleaseView>,
    releases: Vec<&'static str>,
    /// Choices of the config, by their entry (`model_engine`).
    choice_entries: Vec<String>,
    /// Packages whose keys cannot be judged (an option verl does not have).
    unjudged: Vec<String>,
    /// Whether unknown keys are judged at all.
    judged: bool,
    pub(super) yaml_keys: Vec<String>,
}

impl Judge {
    pub(super) fn new(
        launch: &Launch,
        options: &VerlOptions,
        yaml_defaults: &[(Option<String>, String)],
        overrides: &[Override],
        info: &mut LaunchInfo,
        line_span: &dyn Fn(&Span) -> miette::SourceSpan,
        out: &mut Vec<VerlDiagnostic>,
    ) -> Judge {
        let set = key_set::key_set();
        let mut releases: Vec<usize> = (0..set.versions.len())
            .filter(|&i| {
                options
                    .verl_version
                    .as_ref()
                    .is_none_or(|v| set.versions[i].0 == *v)
            })
            .collect();
        let mut judged = true;
        let mut config = config_name(launch, set);
        match config_place(launch) {
            ConfigPlace::Verl => {}
            ConfigPlace::UserDir(dir) => {
                if options.config_file_unread {
                    judged = false;
                    out.push(
                        VerlLaunchDiagnostic::ConfigUnread {
                            path: format!("{dir}/{config}.yaml"),
                            why: ConfigUnreadWhy::NotFound,
                            span: launch.config_path.as_ref().map(|p| line_span(&p.span)),
                        }
                        .into(),
                    );
                }
            }
            ConfigPlace::Package(package) => {
                judged = false;
                out.push(
                    VerlLaunchDiagnostic::ConfigUnread {
                        path: format!("{package}/{config}.yaml"),
                        why: ConfigUnreadWhy::Package,
                        span: launch.config_path.as_ref().map(|p| line_span(&p.span)),
                    }
                    .into(),
                );
            }
            ConfigPlace::Shell { dir, at } => {
                judged = false;
                out.push(
                    VerlLaunchDiagnostic::ConfigUnread {
                        path: match dir {
                            Some(dir) => format!("{dir}/{config}.yaml"),
                            None => format!("{config}.yaml"),
                        },
                        why: ConfigUnreadWhy::ShellVariable,
                        span: Some(line_span(&at)),
                    }
                    .into(),
                );
            }
        }
        // A user's config composes one of verl's through its defaults list.
        let verl_configs = set.config_names();
        if !verl_configs.contains(&config.as_str()) {
            let named = yaml_defaults
                .iter()
                .find(|(g, v)| g.is_none() && verl_configs.contains(&v.as_str()));
            match named {
                Some((_, base)) => config = base.clone(),
                None if matches!(config_place(launch), ConfigPlace::Verl) => {
                    if let Some(name) = &launch.config_name {
                        out.push(
                            VerlLaunchDiagnostic::UnknownConfig {
                                name: config.clone(),
                                releases: Releases(release_names(set, &releases)),
                                known: Listed(verl_configs.clone()),
                                span: line_span(&name.span),
                            }
                            .into(),
                        );
                    }
                    config = "ppo_trainer".to_owned();
                }
                None => {
                    judged = false;
                    config = "ppo_trainer".to_owned();
                }
            }
        }
        releases.retain(|&r| set.base(r, &config).is_some());
        let choice_entries: Vec<String> = {
            let mut e: Vec<String> = Vec::new();
            for &r in &releases {
                if let Some(base) = set.base(r, &config) {
                    for (entry, _) in set.choices(base) {
                        if !e.contains(entry) {
                            e.push(entry.clone());
                        }
                    }
                }
            }
            e
        };
        // The choices, from the YAML's defaults list, then the command line.
        let mut chosen: Vec<(String, String, Option<Span>)> = yaml_defaults
            .iter()
            .filter_map(|(g, v)| g.as_ref().map(|g| (g.clone(), v.clone(), None)))
            .filter(|(g, _, _)| choice_entries.contains(g))
            .collect();
        for o in overrides {
            let key = o.key.as_str();
            if choice_entries.iter().any(|e| e == key)
                && let Some(v) = &o.value
            {
                chosen.retain(|(g, _, _)| g != key);
                chosen.push((key.to_owned(), v.text.clone(), Some(o.span.clone())));
            }
            if key == "hydra.searchpath"
                && let Some(v) = &o.value
            {
                let foreign: Vec<String> = v
                    .text
                    .trim_matches(|c| c == '[' || c == ']')
                    .split(',')
                    .map(|p| p.trim().trim_matches(|c| c == '\'' || c == '"').to_owned())
                    .filter(|p| !p.is_empty())
                    .filter(|p| {
                        let p = p.replace('.', "/");
                        !p.ends_with("verl/trainer/config")
                    })
                    .collect();
                if !foreign.is_empty() {
                    judged = false;
                    out.push(
                        VerlLaunchDiagnostic::SearchPathUnread {
                            places: Listed(foreign),
                            span: line_span(&o.span),
                        }
                        .into(),
                    );
                }
            }
        }
        if let Some(dir) = &launch.config_dir {
            judged = false;
            out.push(
                VerlLaunchDiagnostic::SearchPathUnread {
                    places: Listed(vec![dir.value.clone()]),
                    span: line_span(&dir.span),
                }
                .into(),
            );
        }
        let mut unjudged = Vec::new();
        let mut views = Vec::new();
        let mut kept_releases = Vec::new();
        'release: for &r in &releases {
            let Some(base) = set.base(r, &config) else {
                continue;
            };
            let mut variants = Vec::new();
            for (entry, option, _) in &chosen {
                let default = set
                    .choices(base)
                    .iter()
                    .find(|(e, _)| e == entry)
                    .map(|(_, o)| o.as_str());
                match default {
                    None => continue 'release,
                    Some(d) if d == option => {}
                    Some(_) => match set.variant(r, &config, entry, option) {
                        Some(v) => variants.push(v),
                        None => continue 'release,
                    },
                }
            }
            kept_releases.push(r);
            views.push(ReleaseView {
                version: r,
                base,
                variants,
            });
        }
        // Choices no release has: said once each, and their keys are not judged.
        if views.is_empty() && !chosen.is_empty() {
            for (entry, option, span) in &chosen {
                let known_anywhere = releases
                    .iter()
                    .any(|&r| set.options(r, &config, entry).contains(&option.as_str()));
                if !known_anywhere {
                    let mut options: Vec<&'static str> = Vec::new();
                    for &r in &releases {
                        for o in set.options(r, &config, entry) {
                            if !options.contains(&o) {
                                options.push(o);
                            }
                        }
                    }
                    if let Some(span) = span {
                        out.push(VerlDiagnostic::UnknownOption {
                            entry: entry.clone(),
                            option: option.clone(),
                            releases: Releases(release_names(set, &releases)),
                            options: Listed(options),
                            span: line_span(span),
                        });
                    }
                    unjudged.push(package_of(entry));
                }
            }
            // Judge against the releases that have the choices known, without the unknown ones.
            for &r in &releases {
                if let Some(base) = set.base(r, &config) {
                    let variants = chosen
                        .iter()
                        .filter_map(|(e, o, _)| set.variant(r, &config, e, o))
                        .collect();
                    kept_releases.push(r);
                    views.push(ReleaseView {
                        version: r,
                        base,
                        variants,
                    });
                }
            }
        }
        let releases = release_names(set, &kept_releases);
        *info = LaunchInfo {
            config: config.clone(),
            choices: chosen.iter().map(|(e, o, _)| format!("{e}={o}")).collect(),
            releases: releases.clone(),
            keys_judged: judged,
            ..std::mem::take(info)
        };
        Judge {
            set,
            config,
            views,
            releases,
            choice_entries,
            unjudged,
            judged,
            yaml_keys: Vec::new(),
        }
    }

    /// Whether `o` is `+key=value` (a scalar) for a key verl's own config sets in every
    /// release judged: Hydra stops at it (it adds to a null or missing key only). Never
    /// said when part of the config is unread, nor when a YAML of the user's holds the
    /// config (its keys are not verl's).
    pub(super) fn adds_existing(&self, o: &Override, own_yaml: bool) -> bool {
        let scalar = o
            .value
            .as_ref()
            .is_some_and(|v| v.quoted() || !(v.text.starts_with('[') || v.text.starts_with('{')));
        o.op == Op::Add
            && scalar
            && self.judged
            && !own_yaml
            && key_set::set_in_every_view(self.set, &self.views, &o.key)
    }

    /// Whether the judged config lacks `key` (never said when part of it is unread),
    /// with the releases of the config that have it.
    pub(super) fn lacks(&self, key: &str) -> Option<Vec<&'static str>> {
        (self.judged
            && !self.is_unjudged(key)
            && key_set::status(self.set, &self.views, key) == KeyStatus::Unknown)
            .then(|| key_set::other_releases(self.set, &self.views, &self.config, key))
    }

    /// A key of the YAML (`trainer: {nnode: 2}`) judged by the command line's rule for
    /// `pool_key_typo`: unknown, and its closest known key sizes the pools. Only that rule:
    /// a YAML of yours carries keys of its own, which verl's config need not have.
    pub(super) fn yaml_typo(&self, key: &str, span: &Span, place: Place) -> Option<VerlDiagnostic> {
        // Under a pool key (`nnodes: {a: 1}`) the value is already `wrong_type`.
        let mut prefixes = key.match_indices('.').map(|(i, _)| &key[..i]);
        if key_id(key).is_some()
            || prefixes.any(|p| key_id(p).is_some())
            || key == "hydra"
            || key.starts_with("hydra.")
            || self.is_unjudged(key)
            || key_set::status(self.set, &self.views, key) != KeyStatus::Unknown
        {
            return None;
        }
        let suggestion = key_set::suggest(self.set, &self.views, key)
            .filter(|s| key_id(s).is_some_and(sizes_pools))?;
        Some(VerlDiagnostic::PoolKeyTypo {
            key: key.chars().take(200).collect(),
            suggestion,
            span: resource_pool_core::source::to_source_span(span),
            place,
        })
    }

    pub(super) fn is_choice(&self, o: &Override) -> bool {
        self.choice_entries.contains(&o.key)
    }

    /// Whether `key` lies in a package whose keys cannot be judged (a choice of an option
    /// verl does not have; the empty package is the whole config): nothing is said of it.
    fn is_unjudged(&self, key: &str) -> bool {
        self.unjudged
            .iter()
            .any(|p| p.is_empty() || key == p || key.starts_with(&format!("{p}.")))
    }

    /// Judges one override's key (not a choice; a pool key too, which a release given by
    /// `--verl-version` may lack).
    pub(super) fn judge(
        &self,
        o: &Override,
        line_span: &dyn Fn(&Span) -> miette::SourceSpan,
        out: &mut Vec<VerlDiagnostic>,
    ) {
        let key = o.key.as_str();
        if key_set::status(self.set, &self.views, key) != KeyStatus::Unknown
            || self.yaml_keys.iter().any(|k| k == key)
            || self.is_unjudged(key)
        {
            return;
        }
        // A pool key another release has: its other spelling, when this one has it (the
        // nearest spelling of a pool key is no advice: `reward_model.enable` for `nnodes`).
        let suggestion = match key_id(key) {
            Some(id) => REWARD_TWINS
                .iter()
                .find_map(|&(l, n)| (l == id).then_some(n).or((n == id).then_some(l)))
                .map(|twin| KEYS[twin].path)
                .filter(|twin| key_set::status(self.set, &self.views, twin) == KeyStatus::Known),
            None => key_set::suggest(self.set, &self.views, key),
        };
        // A pool key itself (one another release has, under `--verl-version`) is no typo.
        if let Some(s) = suggestion
            && key_id(s).is_some_and(sizes_pools)
            && key_id(key).is_none()
        {
            out.push(VerlDiagnostic::PoolKeyTypo {
                key: key.to_owned(),
                suggestion: s,
                span: line_span(&o.key_span),
                place: Place::CommandLine,
            });
            return;
        }
        // `+key` adds what verl may read with `.get()`; a key set with parts unread
        // cannot say a key is missing.
        if matches!(o.op, Op::Add | Op::ForceAdd) || !self.judged {
            return;
        }
        let others = key_set::other_releases(self.set, &self.views, &self.config, key);
        let elsewhere = if !others.is_empty() {
            Elsewhere::Releases(others)
        } else if let Some((entry, option)) = key_set::choice_with(self.set, &self.views, key) {
            Elsewhere::Choice { entry, option }
        } else {
            Elsewhere::Nowhere
        };
        out.push(VerlDiagnostic::UnknownKey {
            key: key.chars().take(200).collect(),
            config: self.config.clone(),
            releases: Releases(self.releases.clone()),
            elsewhere,
            suggestion: Suggestion(suggestion),
            span: line_span(&o.key_span),
        });
    }
}

fn release_names(set: &'static KeySet, releases: &[usize]) -> Vec<&'static str> {
    releases
        .iter()
        .map(|&r| set.versions[r].0.as_str())
        .collect()
}

/// The config package a choice fills: `actor@actor_rollout_ref.actor` fills
/// `actor_rollout_ref.actor`; `critic` fills `critic`; `model_engine` fills every package
/// (its options pick the others').
fn package_of(entry: &str) -> String {
    match entry.split_once('@') {
        Some((_, package)) => package.to_owned(),
        None if entry == "model_engine" => String::new(),
        None => entry.to_owned(),
    }
}
