//! Judging override keys against verl's key set, for a launch whose entry point and config
//! are verl's own (else it is not judged: `not_judged`): for the launch's releases,
//! trainer config and defaults-list choices.
//!
//! Only what Hydra or verl would do is said: an unknown key (without `+`) is Hydra's error,
//! with a suggestion only when a sibling key is [`alike`](key_set::alike); a `+key` or
//! `++key` is never a typo, as Hydra adds it, and is Hydra's `add_existing` only when every
//! release considered has the key. Both are errors with `--verl-version` (the config the
//! line loads is that release's) and warnings without (the line's verl may be none of the
//! table's: a fork looks the same on the line).

use super::fields::{Elsewhere, Listed, Place, Releases, Suggestion};
use super::hydra::{Op, Override};
use super::key_set::{self, KeySet, KeyStatus, ReleaseView};
use super::keys::{KEYS, key_id, sizes_pools};
use super::loading::{LaunchInfo, VerlOptions};
use super::releases::REWARD_TWINS;
use super::{VerlDiagnostic, config_file};
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
    /// Whether `--verl-version` names the release: then the config the line loads is known
    /// and Hydra's refusals are errors; else the line's verl may be none of the table's (a
    /// fork), and they are warnings.
    release_given: bool,
    pub(super) yaml_keys: Vec<String>,
}

/// A defaults-list choice made: its entry, option, and where the command line makes it.
type Chosen = (String, String, Option<Span>);

impl Judge {
    pub(super) fn new(
        launch: &super::launch::Launch,
        options: &VerlOptions,
        yaml_defaults: &[(Option<String>, String)],
        overrides: &[Override],
        info: &mut LaunchInfo,
        line_span: &dyn Fn(&Span) -> miette::SourceSpan,
        out: &mut Vec<VerlDiagnostic>,
    ) -> Judge {
        let set = key_set::key_set();
        let mut config = config_file::config_name(launch, set);
        // A user's config composes one of verl's through its defaults list.
        let verl_configs = set.config_names();
        if !verl_configs.contains(&config.as_str())
            && let Some((_, base)) = yaml_defaults
                .iter()
                .find(|(g, v)| g.is_none() && verl_configs.contains(&v.as_str()))
        {
            config = base.clone();
        }
        let releases: Vec<usize> = (0..set.versions.len())
            .filter(|&i| (options.verl_version.as_ref()).is_none_or(|v| set.versions[i].0 == *v))
            .filter(|&r| set.base(r, &config).is_some())
            .collect();
        let mut choice_entries: Vec<String> = Vec::new();
        for base in releases.iter().filter_map(|&r| set.base(r, &config)) {
            for (entry, _) in set.choices(base) {
                if !choice_entries.contains(entry) {
                    choice_entries.push(entry.clone());
                }
            }
        }
        let chosen = chosen(yaml_defaults, overrides, &choice_entries);
        let mut judge = Judge {
            set,
            config,
            views: Vec::new(),
            releases: Vec::new(),
            choice_entries,
            unjudged: Vec::new(),
            release_given: options.verl_version.is_some(),
            yaml_keys: Vec::new(),
        };
        let kept = judge.views_of(&releases, &chosen, line_span, out);
        judge.releases = release_names(set, &kept);
        *info = LaunchInfo {
            config: judge.config.clone(),
            choices: chosen.iter().map(|(e, o, _)| format!("{e}={o}")).collect(),
            releases: judge.releases.clone(),
            keys_judged: true,
            ..std::mem::take(info)
        };
        judge
    }

    /// The views of `releases` with the choices made; when no release has them all, those
    /// no release has are said once each (`unknown_option`) and their keys not judged.
    /// The releases viewed.
    fn views_of(
        &mut self,
        releases: &[usize],
        chosen: &[Chosen],
        line_span: &dyn Fn(&Span) -> miette::SourceSpan,
        out: &mut Vec<VerlDiagnostic>,
    ) -> Vec<usize> {
        let (set, config) = (self.set, self.config.as_str());
        let variants = |r: usize, strict: bool| -> Option<Vec<usize>> {
            let base = set.base(r, config)?;
            let mut variants = Vec::new();
            for (entry, option, _) in chosen {
                let default = set.choices(base).iter().find(|(e, _)| e == entry);
                match (default, set.variant(r, config, entry, option)) {
                    (Some((_, d)), _) if d == option => {}
                    (_, Some(v)) => variants.push(v),
                    _ if strict => return None,
                    _ => {}
                }
            }
            Some(variants)
        };
        let mut kept: Vec<usize> = releases
            .iter()
            .copied()
            .filter(|&r| variants(r, true).is_some())
            .collect();
        if kept.is_empty() && !chosen.is_empty() {
            for (entry, option, span) in chosen {
                let mut known: Vec<&'static str> = Vec::new();
                for &r in releases {
                    for o in set.options(r, config, entry) {
                        if !known.contains(&o) {
                            known.push(o);
                        }
                    }
                }
                if known.contains(&option.as_str()) {
                    continue;
                }
                if let Some(span) = span {
                    out.push(VerlDiagnostic::UnknownOption {
                        entry: entry.clone(),
                        option: option.clone(),
                        releases: Releases(release_names(set, releases)),
                        options: Listed(known),
                        span: line_span(span),
                    });
                }
                self.unjudged.push(package_of(entry));
            }
            kept = releases.to_vec();
        }
        for &r in &kept {
            if let (Some(base), Some(variants)) = (set.base(r, config), variants(r, false)) {
                self.views.push(ReleaseView {
                    version: r,
                    base,
                    variants,
                });
            }
        }
        kept
    }

    /// `add_existing` for `o` when it is `+key=value` (a scalar) for a key verl's own config
    /// sets in every release judged: Hydra stops at it (it adds to a null or missing key
    /// only). An error with `--verl-version`, else a warning (the line's verl may lack the
    /// key); nothing when a YAML of the user's holds the config (its keys are not verl's).
    pub(super) fn adds_existing(
        &self,
        o: &Override,
        own_yaml: bool,
        line_span: &dyn Fn(&Span) -> miette::SourceSpan,
    ) -> Option<VerlDiagnostic> {
        let scalar = o
            .value
            .as_ref()
            .is_some_and(|v| v.quoted() || !(v.text.starts_with('[') || v.text.starts_with('{')));
        let refused = o.op == Op::Add
            && scalar
            && !own_yaml
            && key_set::set_in_every_view(self.set, &self.views, &o.key);
        let (key, span) = (o.key.clone(), line_span(&o.span));
        refused.then(|| match self.release_given {
            true => VerlDiagnostic::AddExisting {
                key,
                span,
                existing: None,
            },
            false => VerlDiagnostic::AddExistingAnyRelease {
                key,
                releases: Releases(self.releases.clone()),
                span,
            },
        })
    }

    /// Whether the judged config lacks `key`, with the releases of the config that have it.
    pub(super) fn lacks(&self, key: &str) -> Option<Vec<&'static str>> {
        (!self.is_unjudged(key)
            && key_set::status(self.set, &self.views, key) == KeyStatus::Unknown)
            .then(|| key_set::other_releases(self.set, &self.views, &self.config, key))
    }

    /// A key of the YAML (`trainer: {nnode: 2}`) judged by the command line's rule for
    /// `pool_key_typo`: unknown, and a pool key is alike it. Only that rule: a YAML of
    /// yours carries keys of its own, which verl's config need not have.
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
    /// `--verl-version` may lack). A `+key` or `++key` is Hydra's to add: never judged.
    pub(super) fn judge(
        &self,
        o: &Override,
        line_span: &dyn Fn(&Span) -> miette::SourceSpan,
        out: &mut Vec<VerlDiagnostic>,
    ) {
        let key = o.key.as_str();
        if matches!(o.op, Op::Add | Op::ForceAdd)
            || key_set::status(self.set, &self.views, key) != KeyStatus::Unknown
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
        let others = key_set::other_releases(self.set, &self.views, &self.config, key);
        let elsewhere = if !others.is_empty() {
            Elsewhere::Releases(others)
        } else if let Some((entry, option)) = key_set::choice_with(self.set, &self.views, key) {
            Elsewhere::Choice { entry, option }
        } else {
            Elsewhere::Nowhere
        };
        let (key, config) = (key.chars().take(200).collect(), self.config.clone());
        let (releases, suggestion) = (Releases(self.releases.clone()), Suggestion(suggestion));
        let span = line_span(&o.key_span);
        out.push(match self.release_given {
            true => VerlDiagnostic::UnknownKeyOfRelease {
                key,
                config,
                releases,
                elsewhere,
                suggestion,
                span,
            },
            false => VerlDiagnostic::UnknownKey {
                key,
                config,
                releases,
                elsewhere,
                suggestion,
                span,
            },
        });
    }
}

/// The choices made, from the YAML's defaults list, then the command line (a later one of
/// an entry replacing an earlier).
fn chosen(
    yaml_defaults: &[(Option<String>, String)],
    overrides: &[Override],
    choice_entries: &[String],
) -> Vec<Chosen> {
    let mut chosen: Vec<Chosen> = yaml_defaults
        .iter()
        .filter_map(|(g, v)| g.as_ref().map(|g| (g.clone(), v.clone(), None)))
        .filter(|(g, _, _)| choice_entries.contains(g))
        .collect();
    for o in overrides {
        if choice_entries.contains(&o.key)
            && let Some(v) = &o.value
        {
            chosen.retain(|(g, _, _)| *g != o.key);
            chosen.push((o.key.clone(), v.text.clone(), Some(o.span.clone())));
        }
    }
    chosen
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
