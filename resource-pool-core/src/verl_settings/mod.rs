//! verl's launch settings: the Hydra YAML and `key=value` overrides a verl user already
//! has, read into the pools and mapping verl's PPO entry point builds from them.
//!
//! The rules follow verl's `verl/trainer/main_ppo.py` (`TaskRunner`) and
//! `ppo_trainer.yaml` on verl's main branch as of late 2025 (commit `006cebf8`), see
//! [`VERL_VERSION`]:
//! - `global_pool = [trainer.n_gpus_per_node] * trainer.nnodes` (defaults 8 and 1);
//! - `reward_pool = [n_gpus_per_node] * nnodes` of the reward model when
//!   `enable_resource_pool` is set (`reward.reward_model.*` in newer verl,
//!   `reward_model.*` before; a size of 0 or less is verl's `ValueError`);
//! - `actor_rollout` (or `actor_rollout_ref` with `trainer.use_legacy_worker_impl=disable`
//!   and KL in use) and `critic` on global_pool; `rm` when `reward_model.enable`, on
//!   reward_pool when it exists; `ref` on global_pool when
//!   `algorithm.use_kl_in_reward` or `actor_rollout_ref.actor.use_kl_loss` (legacy
//!   workers only; the new engine fuses it into `actor_rollout_ref`);
//! - bundles of `GPU`, or `NPU` with `trainer.device=npu`; `max_colocate_count` 3 (verl's
//!   `ResourcePoolManager` default).
//!
//! Every value keeps where it came from: verl's default, a span in the YAML, or a span in
//! the command line. Both live in one [`SpanSpace`]: the YAML's bytes first, then the
//! command line's, so one span type serves every diagnostic, and a
//! [`SourceFile::with_layer`](crate::source::SourceFile::with_layer) of the YAML and the
//! command line shows each label in its text.

mod diagnostics;
pub mod hydra;
pub mod keys;
pub mod yaml;

pub use diagnostics::VerlDiagnostic;

use std::collections::HashMap;

use crate::check::{CheckDiagnostic, CheckReport, SlotSpans};
use crate::model::{Accelerator, Cluster, PoolId, PoolSpec, ResourcePool, names};
use crate::ray_sim::{GroupFate, RayVerdict};
use crate::source::{Span, did_you_mean, to_source_span};
use hydra::{Op, Override, parse_overrides};
use keys::*;
use yaml::{RawScalar, read_yaml};

/// The verl whose defaults and rules are followed.
pub const VERL_VERSION: &str = "verl main, late 2025 (commit 006cebf8 of verl/trainer/main_ppo.py)";

/// verl's main pool.
pub const GLOBAL_POOL: &str = "global_pool";
/// verl's reward pool.
pub const REWARD_POOL: &str = "reward_pool";

/// Where a launch's spans point: the YAML's bytes first, then, one byte further, the
/// command line's (the overrides joined by spaces). This is the layout of
/// [`SourceFile::with_layer`](crate::source::SourceFile::with_layer), whose
/// [`locate`](crate::source::SourceFile::locate) names the text a span is in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SpanSpace {
    /// The YAML's length, 0 without one.
    pub yaml_len: usize,
}

impl SpanSpace {
    /// Where the command line starts.
    pub fn command_line_base(self) -> usize {
        self.yaml_len + 1
    }

    fn command_line(self, span: &Span) -> Span {
        let base = self.command_line_base();
        span.start + base..span.end + base
    }
}

/// Where a value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// verl's default.
    Default,
    /// The YAML, at this span.
    Yaml(Span),
    /// The command line, at this span (in the span space).
    CommandLine(Span),
}

impl Origin {
    /// The span, unless a default.
    pub fn span(&self) -> Option<Span> {
        match self {
            Origin::Default => None,
            Origin::Yaml(s) | Origin::CommandLine(s) => Some(s.clone()),
        }
    }

    fn words(&self) -> &'static str {
        match self {
            Origin::Default => "verl's default",
            Origin::Yaml(_) => "set in the YAML",
            Origin::CommandLine(_) => "set on the command line",
        }
    }
}

/// One setting's value and origin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    /// The value.
    pub value: Value,
    /// Where it came from.
    pub origin: Origin,
}

/// Every key of [`KEYS`], resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerlSettings {
    settings: Vec<Setting>,
    /// The span space of the YAML and command line these came from.
    pub space: SpanSpace,
}

impl Default for VerlSettings {
    /// verl's defaults.
    fn default() -> VerlSettings {
        VerlSettings {
            settings: KEYS
                .iter()
                .map(|k| Setting {
                    value: k.default.value(),
                    origin: Origin::Default,
                })
                .collect(),
            space: SpanSpace::default(),
        }
    }
}

impl VerlSettings {
    /// A key's setting.
    pub fn get(&self, key: KeyId) -> &Setting {
        &self.settings[key]
    }

    /// Sets a key (a value from code: origin default).
    pub fn set(&mut self, key: KeyId, value: Value) -> &mut VerlSettings {
        self.settings[key] = Setting {
            value,
            origin: Origin::Default,
        };
        self
    }

    fn int(&self, key: KeyId) -> i64 {
        match self.settings[key].value {
            Value::Int(n) => n,
            _ => match KEYS[key].default {
                keys::DefaultValue::Int(n) => n,
                _ => 0,
            },
        }
    }

    fn bool(&self, key: KeyId) -> bool {
        matches!(self.settings[key].value, Value::Bool(true))
    }

    fn str(&self, key: KeyId) -> &str {
        match &self.settings[key].value {
            Value::Str(s) => s,
            _ => "",
        }
    }

    fn given(&self, key: KeyId) -> bool {
        self.settings[key].origin != Origin::Default
    }

    /// The reward pool's keys verl reads: the newer `reward.reward_model.*` when any is
    /// given, else `reward_model.*`. (switch, n_gpus_per_node, nnodes)
    pub fn reward_keys(&self) -> (KeyId, KeyId, KeyId) {
        if [NEW_RM_POOL, NEW_RM_GPUS, NEW_RM_NNODES]
            .iter()
            .any(|&k| self.given(k))
        {
            (NEW_RM_POOL, NEW_RM_GPUS, NEW_RM_NNODES)
        } else {
            (RM_POOL, RM_GPUS, RM_NNODES)
        }
    }

    /// `trainer.device` as an accelerator, if it is one verl knows.
    pub fn accelerator(&self) -> Option<Accelerator> {
        match self.str(DEVICE) {
            "cuda" | "gpu" => Some(Accelerator::Gpu),
            "npu" => Some(Accelerator::Npu),
            _ => None,
        }
    }

    fn span(&self, key: KeyId) -> Option<miette::SourceSpan> {
        self.settings[key].origin.span().map(|s| to_source_span(&s))
    }

    fn describe(&self, key: KeyId) -> String {
        format!("{}={}", KEYS[key].path, self.settings[key].value)
    }
}

/// The settings of a launch, with every problem found on the way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadedVerl {
    /// The settings (verl's defaults where a value is missing or unusable).
    pub settings: VerlSettings,
    /// The problems, in the span space of `settings.space`.
    pub diagnostics: Vec<VerlDiagnostic>,
    /// The layout verl builds, unless a problem stops verl first.
    pub layout: Option<VerlLayout>,
}

impl LoadedVerl {
    /// Whether an error (not a warning) was found.
    pub fn has_errors(&self) -> bool {
        any_error(&self.diagnostics)
    }
}

fn any_error(diagnostics: &[VerlDiagnostic]) -> bool {
    use miette::Diagnostic;
    diagnostics
        .iter()
        .any(|d| matches!(d.severity(), None | Some(miette::Severity::Error)))
}

/// The pools and mapping verl builds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerlLayout {
    /// `global_pool`, then `reward_pool` when verl creates it.
    pub pools: Vec<ResourcePool>,
    /// Every role verl creates a worker group for, by verl's string, and its pool.
    pub mapping: Vec<(&'static str, &'static str)>,
}

/// Reads a verl launch: the YAML (its text, if any) and the overrides, in Hydra's order
/// (YAML, then each override left to right). `max_slots` bounds the node-slots built.
pub fn load_verl(yaml: Option<&str>, overrides: &[String], max_slots: u64) -> LoadedVerl {
    let space = SpanSpace {
        yaml_len: yaml.map_or(0, str::len),
    };
    let mut diagnostics = Vec::new();
    let mut raw: HashMap<KeyId, (RawScalar, bool)> = HashMap::new();
    let mut in_yaml: HashMap<KeyId, Span> = HashMap::new();
    if let Some(text) = yaml {
        match read_yaml(text) {
            Ok(values) => {
                for (id, span) in values.not_scalar {
                    diagnostics.push(VerlDiagnostic::WrongType {
                        key: KEYS[id].path,
                        expected: KEYS[id].kind.name(),
                        found: "a mapping or list".to_owned(),
                        example: example(KEYS[id].kind),
                        span: to_source_span(&span),
                        from: "set in the YAML",
                    });
                }
                for (id, scalar) in values.values {
                    in_yaml.insert(id, scalar.span.clone());
                    raw.insert(id, (scalar, false));
                }
            }
            Err(error) => diagnostics.push(VerlDiagnostic::YamlSyntax {
                message: error.message,
                span: to_source_span(&error.span),
            }),
        }
    }
    let (parsed, errors) = parse_overrides(overrides);
    for e in errors {
        diagnostics.push(VerlDiagnostic::OverrideSyntax {
            message: e.message,
            span: to_source_span(&space.command_line(&e.span)),
        });
    }
    for o in parsed {
        apply_override(&o, space, &in_yaml, &mut raw, &mut diagnostics);
    }
    let mut settings = VerlSettings {
        space,
        ..VerlSettings::default()
    };
    let mut ids: Vec<KeyId> = raw.keys().copied().collect();
    ids.sort_unstable();
    for id in ids {
        if let Some(setting) = resolve(id, &raw, &mut diagnostics, 0) {
            settings.settings[id] = setting;
        }
    }
    rules(&settings, max_slots, &mut diagnostics);
    let layout = (!any_error(&diagnostics))
        .then(|| layout(&settings))
        .flatten();
    LoadedVerl {
        settings,
        diagnostics,
        layout,
    }
}

fn example(kind: Kind) -> String {
    match kind {
        Kind::Int => "1".to_owned(),
        Kind::Bool => "True".to_owned(),
        Kind::Str => "cuda".to_owned(),
    }
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
        if let Some(suggestion) = did_you_mean(&o.key, KEYS.iter().map(|k| k.path)) {
            diagnostics.push(VerlDiagnostic::UnknownKey {
                key: o.key.clone(),
                suggestion,
                span: key_span,
            });
        }
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

/// A key's value: its scalar read as its kind, `${other.key}` followed (at most 8 deep).
fn resolve(
    id: KeyId,
    raw: &HashMap<KeyId, (RawScalar, bool)>,
    diagnostics: &mut Vec<VerlDiagnostic>,
    depth: usize,
) -> Option<Setting> {
    let (scalar, from_command_line) = raw.get(&id)?;
    let origin = if *from_command_line {
        Origin::CommandLine(scalar.span.clone())
    } else {
        Origin::Yaml(scalar.span.clone())
    };
    let key = &KEYS[id];
    if let Some(inner) = scalar
        .text
        .strip_prefix("${")
        .and_then(|t| t.strip_suffix('}'))
        .filter(|_| !scalar.quoted || scalar.text.starts_with("${"))
    {
        let target = key_id(inner.trim()).filter(|&t| t != id && KEYS[t].kind == key.kind);
        let resolved = match target {
            Some(t) if depth < 8 => match resolve(t, raw, diagnostics, depth + 1) {
                Some(s) => Some(s.value),
                None => Some(KEYS[t].default.value()),
            },
            _ => None,
        };
        return match resolved {
            Some(value) => Some(Setting { value, origin }),
            None => {
                if depth == 0 {
                    diagnostics.push(VerlDiagnostic::Unresolved {
                        key: key.path,
                        text: scalar.text.clone(),
                        default: key.default.value().to_string(),
                        span: to_source_span(&scalar.span),
                    });
                }
                None
            }
        };
    }
    match interpret(&scalar.text, scalar.quoted, key.kind) {
        Some(value) => Some(Setting { value, origin }),
        None => {
            if depth == 0 {
                diagnostics.push(VerlDiagnostic::WrongType {
                    key: key.path,
                    expected: key.kind.name(),
                    found: scalar.text.chars().take(40).collect(),
                    example: example(key.kind),
                    span: to_source_span(&scalar.span),
                    from: origin.words(),
                });
            }
            None
        }
    }
}

/// What verl itself rejects or mishandles before placement.
fn rules(s: &VerlSettings, max_slots: u64, out: &mut Vec<VerlDiagnostic>) {
    let positive = |key: KeyId, out: &mut Vec<VerlDiagnostic>| {
        let value = s.int(key);
        if value <= 0 {
            out.push(VerlDiagnostic::NotPositive {
                key: KEYS[key].path,
                value,
                span: s.span(key),
                from: s.get(key).origin.words(),
            });
        }
    };
    positive(NNODES, out);
    positive(N_GPUS_PER_NODE, out);
    let (switch, gpus, nnodes) = s.reward_keys();
    if s.bool(switch) {
        for key in [gpus, nnodes] {
            let value = s.int(key);
            if value <= 0 {
                out.push(VerlDiagnostic::RewardPoolWithoutSize {
                    key: KEYS[key].path,
                    value,
                    enable_key: KEYS[switch].path,
                    span: s.span(key),
                    enable: s.span(switch),
                });
            }
        }
        if !s.bool(RM_ENABLE) {
            out.push(VerlDiagnostic::RewardPoolUnused {
                enable_key: KEYS[switch].path,
                span: s.span(switch),
            });
        }
    }
    if switch == NEW_RM_POOL {
        for (legacy, newer) in [
            (RM_POOL, NEW_RM_POOL),
            (RM_GPUS, NEW_RM_GPUS),
            (RM_NNODES, NEW_RM_NNODES),
        ] {
            if s.given(legacy) && s.given(newer) && s.get(legacy).value != s.get(newer).value {
                out.push(VerlDiagnostic::ConflictingSpellings {
                    legacy: KEYS[legacy].path,
                    newer: KEYS[newer].path,
                    legacy_span: s.span(legacy),
                    newer_span: s.span(newer),
                });
            }
        }
    }
    if s.accelerator().is_none() {
        out.push(VerlDiagnostic::UnknownDevice {
            value: s.str(DEVICE).chars().take(40).collect(),
            span: s.span(DEVICE),
            from: s.get(DEVICE).origin.words(),
        });
    }
    let mut slots = s.int(NNODES).max(0) as u64;
    if s.bool(switch) {
        slots = slots.saturating_add(s.int(nnodes).max(0) as u64);
    }
    if slots > max_slots {
        let key = if s.int(NNODES).max(0) as u64 > max_slots / 2 || !s.bool(switch) {
            NNODES
        } else {
            nnodes
        };
        out.push(VerlDiagnostic::TooManySlots {
            key: KEYS[key].path,
            value: s.int(key),
            limit: max_slots,
            span: s.span(key),
            from: s.get(key).origin.words(),
        });
    }
    for key in [N_GPUS_PER_NODE, gpus] {
        if s.int(key) > i64::from(u32::MAX) {
            out.push(VerlDiagnostic::TooManySlots {
                key: KEYS[key].path,
                value: s.int(key),
                limit: u64::from(u32::MAX),
                span: s.span(key),
                from: s.get(key).origin.words(),
            });
        }
    }
}

/// The pools and mapping of valid settings (`None` if a count does not fit).
fn layout(s: &VerlSettings) -> Option<VerlLayout> {
    let accelerator = s.accelerator()?;
    let pool = |per_node: i64, nodes: i64| -> Option<PoolSpec> {
        let per_node = u32::try_from(per_node).ok()?;
        let nodes = usize::try_from(nodes).ok()?;
        Some(PoolSpec {
            accelerator,
            ..PoolSpec::with_slots(vec![per_node; nodes])
        })
    };
    let mut pools = vec![ResourcePool::new(
        GLOBAL_POOL,
        pool(s.int(N_GPUS_PER_NODE), s.int(NNODES))?,
    )];
    let (switch, gpus, nnodes) = s.reward_keys();
    let reward_pool = s.bool(switch);
    if reward_pool {
        pools.push(ResourcePool::new(
            REWARD_POOL,
            pool(s.int(gpus), s.int(nnodes))?,
        ));
    }
    let kl = s.bool(KL_IN_REWARD) || s.bool(KL_LOSS);
    let new_engine = s.str(LEGACY_WORKER_IMPL) == "disable";
    let mut mapping = vec![(
        if new_engine && kl {
            "actor_rollout_ref"
        } else {
            "actor_rollout"
        },
        GLOBAL_POOL,
    )];
    mapping.push(("critic", GLOBAL_POOL));
    if s.bool(RM_ENABLE) {
        mapping.push((
            "rm",
            if reward_pool {
                REWARD_POOL
            } else {
                GLOBAL_POOL
            },
        ));
    }
    if !new_engine && kl {
        mapping.push(("ref", GLOBAL_POOL));
    }
    Some(VerlLayout { pools, mapping })
}

/// Placement diagnostics point at the settings that size each pool.
impl SlotSpans for VerlSettings {
    fn pool_span(&self, pool: PoolId) -> Option<Span> {
        let (_, gpus, nnodes) = self.reward_keys();
        let candidates = match pool {
            0 => [NNODES, N_GPUS_PER_NODE],
            _ => [nnodes, gpus],
        };
        candidates.iter().find_map(|&k| self.get(k).origin.span())
    }

    fn slot_span(&self, pool: PoolId, _slot: usize) -> Option<Span> {
        self.pool_span(pool)
    }
}

/// What the cluster says about verl's settings: nodes against `trainer.nnodes`, uneven
/// nodes. The generic slot/node checks of [`crate::inventory`] come on top.
pub fn cluster_findings(settings: &VerlSettings, cluster: &Cluster) -> Vec<VerlDiagnostic> {
    let mut out = Vec::new();
    let alive: Vec<_> = cluster.alive().collect();
    let nnodes = settings.int(NNODES);
    if nnodes > alive.len() as i64 {
        out.push(VerlDiagnostic::NnodesExceedAlive {
            nnodes,
            alive: alive.len(),
            plural: if alive.len() == 1 { "" } else { "s" },
            span: settings.span(NNODES),
            from: settings.get(NNODES).origin.words(),
        });
    }
    let accelerator = settings.accelerator().unwrap_or(Accelerator::Gpu);
    let name = match accelerator {
        Accelerator::Gpu => names::GPU,
        Accelerator::Npu => names::NPU,
    };
    let mut counts: Vec<(u64, usize)> = Vec::new();
    for node in &alive {
        let total = node.total.as_ref().unwrap_or(&node.available);
        let n = total.get(name).units() / crate::model::Amount::SCALE;
        match counts.iter_mut().find(|(c, _)| *c == n) {
            Some(entry) => entry.1 += 1,
            None => counts.push((n, 1)),
        }
    }
    counts.retain(|(c, _)| *c > 0);
    // Uneven nodes matter when verl's node-slot sizes cannot fill some node.
    let (switch, gpus, _) = settings.reward_keys();
    let mut sizes = vec![settings.int(N_GPUS_PER_NODE)];
    if settings.bool(switch) {
        sizes.push(settings.int(gpus));
    }
    let fillable = |c: u64| sizes.iter().any(|&s| s > 0 && c.is_multiple_of(s as u64));
    if counts.len() > 1 && counts.iter().any(|(c, _)| !fillable(*c)) {
        counts.sort_unstable_by_key(|&(c, _)| std::cmp::Reverse(c));
        let text: Vec<String> = counts
            .iter()
            .take(6)
            .map(|(c, n)| format!("{c} ({n} node{})", if *n == 1 { "" } else { "s" }))
            .collect();
        out.push(VerlDiagnostic::UnevenNodes {
            counts: text.join(", "),
            accelerator: name,
            per_node: settings.int(N_GPUS_PER_NODE),
            span: settings.span(N_GPUS_PER_NODE),
        });
    }
    out
}

/// The check's Ray findings in verl's terms: the generic `ray::hangs` and
/// `ray::depends_on_ties` diagnostics are replaced by [`VerlDiagnostic::RayHangs`], which
/// names the settings and where Ray puts each pool. Returns the check diagnostics kept and
/// the verl ones.
pub fn ray_findings(
    settings: &VerlSettings,
    report: &CheckReport,
    cluster: &Cluster,
) -> (Vec<CheckDiagnostic>, Vec<VerlDiagnostic>) {
    let kept: Vec<CheckDiagnostic> = report
        .diagnostics
        .iter()
        .filter(|d| {
            !matches!(
                d,
                CheckDiagnostic::RayHangs { .. } | CheckDiagnostic::RayDependsOnTies { .. }
            )
        })
        .cloned()
        .collect();
    let replaced = kept.len() < report.diagnostics.len();
    let mut out = Vec::new();
    if !replaced
        || !matches!(
            report.ray.verdict,
            RayVerdict::Hangs | RayVerdict::DependsOnTies
        )
    {
        return (report.diagnostics.clone(), out);
    }
    let branch = &report.ray.representative;
    let Some((pending_slot, pending)) = branch.first_pending() else {
        return (report.diagnostics.clone(), out);
    };
    let (_, gpus, nnodes) = settings.reward_keys();
    let mut described = vec![
        settings.describe(NNODES),
        settings.describe(N_GPUS_PER_NODE),
    ];
    if report.pools.len() > 1 {
        described.push(settings.describe(nnodes));
        described.push(settings.describe(gpus));
    }
    let last = described.pop().unwrap_or_default();
    let settings_text = if described.is_empty() {
        last
    } else {
        format!("{} and {last}", described.join(", "))
    };
    let node_name = |n: usize| cluster.nodes.get(n).map_or("?", |n| n.id.as_str());
    let mut per_pool: Vec<String> = Vec::new();
    for (p, pool) in report.pools.iter().enumerate() {
        let placed: Vec<&str> = branch
            .groups
            .iter()
            .enumerate()
            .filter(|(i, _)| report.slots[*i].pool == p)
            .filter_map(|(_, g)| match g {
                GroupFate::Placed { node } => Some(node_name(*node)),
                _ => None,
            })
            .collect();
        if !placed.is_empty() {
            let mut shown: Vec<&str> = placed.iter().take(6).copied().collect();
            if placed.len() > 6 {
                shown.push("…");
            }
            per_pool.push(format!("places {} on {}", pool.name, shown.join(", ")));
        }
    }
    let slot = &report.slots[pending_slot];
    let pool_name = report.pools[slot.pool].name.clone();
    let near = pending
        .nearest
        .as_ref()
        .map_or_else(|| "no node is alive".to_owned(), |n| format!("nearest {n}"));
    let story = format!(
        "{}{}{pool_name}[{}] waits forever ({}; {near})",
        per_pool.join(", "),
        if per_pool.is_empty() { "" } else { ", and " },
        slot.slot,
        pending.state,
    );
    let mut help = if report.feasible() == Some(true) {
        "a placement exists, but verl creates global_pool first and Ray spreads each group onto the emptiest node, and verl cannot pin groups".to_owned()
    } else {
        "Ray's choice among equally good nodes decides it".to_owned()
    };
    if report.ray.verdict == RayVerdict::DependsOnTies {
        help = "some of Ray's tie-breaks place everything and some hang: the launch may hang on one run and not the next".to_owned();
    }
    help.push_str(if report.pools.len() > 1 {
        "; give the pools sizes that fit the nodes Ray leaves free (for example one reward node per spare node), or set reward_model.enable_resource_pool=False to run the reward model in global_pool"
    } else {
        "; use node-slots as large as the nodes (trainer.n_gpus_per_node = the accelerators per node)"
    });
    out.push(VerlDiagnostic::RayHangs {
        settings: settings_text,
        story,
        help,
        span: settings.pool_span(slot.pool).map(|s| to_source_span(&s)),
        pool: pool_name,
    });
    (kept, out)
}

#[cfg(test)]
mod tests;
