//! What verl itself rejects or mishandles before placement.

use super::VerlDiagnostic;
use super::fields::{Count, Followed};
use super::keys::*;
use super::releases::{REWARD_TWINS, RewardKeys};
use super::settings::VerlSettings;

/// Checks the settings as verl would, before any pool is built.
pub(super) fn rules(s: &VerlSettings, max_slots: u64, out: &mut Vec<VerlDiagnostic>) {
    trainer_sizes(s, out);
    let reward = s.reward_keys();
    reward_pool(s, reward, out);
    // Whether verl builds teacher_pool: `distillation.enabled`, in a release that has it.
    let teacher = s
        .pool_keys()
        .iter()
        .any(|p| p.switch == Some(DISTILL_ENABLE));
    if teacher {
        teacher_pool(s, out);
    }
    conflicting_spellings(s, reward, out);
    if s.accelerator().is_none() {
        out.push(VerlDiagnostic::UnknownDevice {
            value: s.str(DEVICE).chars().take(40).collect(),
            span: s.span(DEVICE),
            origin: s.origin(DEVICE),
        });
    }
    too_many_slots(s, max_slots, out);
    let mut sizes = vec![N_GPUS_PER_NODE];
    sizes.extend(reward.map(|(_, gpus, _)| gpus));
    if teacher {
        sizes.push(DISTILL_GPUS);
    }
    too_many_accelerators(s, &sizes, out);
}

/// The reward pool's switch and size keys, as [`VerlSettings::reward_keys`] gives them.
type RewardPoolKeys = Option<(KeyId, KeyId, KeyId)>;

/// `trainer.nnodes` and `trainer.n_gpus_per_node` must be positive.
fn trainer_sizes(s: &VerlSettings, out: &mut Vec<VerlDiagnostic>) {
    for key in [NNODES, N_GPUS_PER_NODE] {
        let value = s.int(key);
        if value <= 0 {
            out.push(VerlDiagnostic::NotPositive {
                key: KEYS[key].path,
                value: Count(value),
                span: s.span(key),
                origin: s.origin(key),
            });
        }
    }
}

/// An enabled reward pool needs a size, and a reward model to run.
fn reward_pool(s: &VerlSettings, reward: RewardPoolKeys, out: &mut Vec<VerlDiagnostic>) {
    if let Some((switch, gpus, nnodes)) = reward
        && s.bool(switch)
    {
        for key in [gpus, nnodes] {
            let value = s.int(key);
            if value <= 0 {
                out.push(VerlDiagnostic::RewardPoolWithoutSize {
                    key: KEYS[key].path,
                    value: Count(value),
                    enable_key: KEYS[switch].path,
                    span: s.span(key),
                    enable: s.span(switch),
                });
            }
        }
        let model = s.reward_model_key();
        if !s.bool(model) {
            out.push(VerlDiagnostic::RewardPoolUnused {
                enable_key: KEYS[switch].path,
                model_key: KEYS[model].path,
                span: s.span(switch),
            });
        }
    }
}

/// An enabled teacher pool needs a size.
fn teacher_pool(s: &VerlSettings, out: &mut Vec<VerlDiagnostic>) {
    for key in [DISTILL_GPUS, DISTILL_NNODES] {
        let value = s.int(key);
        if value <= 0 {
            out.push(VerlDiagnostic::TeacherPoolWithoutSize {
                key: KEYS[key].path,
                value: Count(value),
                span: s.span(key),
                enable: s.span(DISTILL_ENABLE),
            });
        }
    }
}

/// The reward keys' two spellings given with different values, where verl reads both.
fn conflicting_spellings(s: &VerlSettings, reward: RewardPoolKeys, out: &mut Vec<VerlDiagnostic>) {
    // Both spellings matter where both are read: 0.7.1 and 0.8.0 (the legacy one wins,
    // `migrate_legacy_reward_impl`), or without a release when the newer one is used.
    // Elsewhere one spelling is not read at all, which `not_read` says.
    let followed = match s.release {
        Some(r) if r.reward == RewardKeys::NewerMigrated => Some(Followed::Legacy(r.version)),
        Some(_) => None,
        None => reward
            .filter(|(switch, _, _)| *switch == NEW_RM_POOL)
            .map(|_| Followed::Newer),
    };
    if let Some(followed) = followed {
        for (legacy, newer) in REWARD_TWINS {
            if s.given(legacy) && s.given(newer) && s.get(legacy).value != s.get(newer).value {
                out.push(VerlDiagnostic::ConflictingSpellings {
                    legacy: KEYS[legacy].path,
                    newer: KEYS[newer].path,
                    followed,
                    legacy_span: s.span(legacy),
                    newer_span: s.span(newer),
                });
            }
        }
    }
}

/// Every pool's node-slots together past the limit: the largest pool's count is the one to
/// lower.
fn too_many_slots(s: &VerlSettings, max_slots: u64, out: &mut Vec<VerlDiagnostic>) {
    // Every pool's node-slots together; the largest pool's count is the one to lower.
    let counts: Vec<(KeyId, u64)> = s
        .pool_keys()
        .iter()
        .map(|p| (p.nnodes, s.int(p.nnodes).max(0) as u64))
        .collect();
    let slots = counts
        .iter()
        .fold(0u64, |sum, (_, n)| sum.saturating_add(*n));
    if slots > max_slots {
        let key = counts
            .iter()
            .rev()
            .max_by_key(|(_, n)| *n)
            .map_or(NNODES, |(key, _)| *key);
        out.push(VerlDiagnostic::TooManySlots {
            key: KEYS[key].path,
            value: Count(s.int(key)),
            limit: max_slots,
            span: s.span(key),
            origin: s.origin(key),
        });
    }
}

/// Accelerators per node past what Ray's bundles count.
fn too_many_accelerators(s: &VerlSettings, sizes: &[KeyId], out: &mut Vec<VerlDiagnostic>) {
    for &key in sizes {
        if s.int(key) > i64::from(u32::MAX) {
            out.push(VerlDiagnostic::TooManyAccelerators {
                key: KEYS[key].path,
                value: Count(s.int(key)),
                limit: u64::from(u32::MAX),
                span: s.span(key),
                origin: s.origin(key),
            });
        }
    }
}
