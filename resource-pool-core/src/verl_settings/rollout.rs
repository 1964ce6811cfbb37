//! The rollout's parallel sizes against the pool `actor_rollout` runs on. verl checks
//! them only when its workers start: each actor_rollout worker divides the pool's
//! accelerators (its `world_size`) into rollout replicas and asserts that they divide
//! evenly (`_build_rollout` in `fsdp_workers.py`/`megatron_workers.py`, the rollout set-up
//! of `engine_workers.py` from 0.7.0). What the replicas are made of is the release's
//! [`RolloutWorld`].

use super::fields::KeyValue;
use super::keys::{KEYS, KeyId, ROLLOUT_TP};
use super::layout::VerlLayout;
use super::releases::RolloutWorld;
use super::settings::VerlSettings;
use super::{Listed, VerlDiagnostic};

/// What the rollout's sizes multiply into (verl's `infer_tp` or `infer_world_size`), by the
/// release's row, or the newest verl's without one; `None` when a size is below 1 (verl
/// fails otherwise there, not by this assertion).
pub fn rollout_world(s: &VerlSettings) -> Option<u64> {
    world_keys(s).iter().try_fold(1u64, |product, &key| {
        let value = u64::try_from(s.int(key)).ok().filter(|&v| v >= 1)?;
        Some(product.saturating_mul(value))
    })
}

fn kind(s: &VerlSettings) -> RolloutWorld {
    s.release.map_or(RolloutWorld::TpDpPp, |r| r.rollout_world)
}

fn world_keys(s: &VerlSettings) -> &'static [KeyId] {
    kind(s).keys()
}

/// The pool of `layout` that verl's actor_rollout worker group runs on (`actor_rollout`,
/// or `actor_rollout_ref` on the new engine), by its index.
pub fn actor_rollout_pool(layout: &VerlLayout) -> Option<usize> {
    let (_, pool) = layout
        .mapping
        .iter()
        .find(|(role, _)| role.starts_with("actor_rollout"))?;
    layout.pools.iter().position(|p| p.name == *pool)
}

/// verl's start-up assertion on `layout`: the actor_rollout pool's accelerators must be a
/// multiple of the rollout's size.
pub(super) fn check(s: &VerlSettings, layout: &VerlLayout) -> Option<VerlDiagnostic> {
    let divisor = rollout_world(s)?;
    let index = actor_rollout_pool(layout)?;
    let world_size = layout.pools[index].world_size();
    if world_size.is_multiple_of(divisor) {
        return None;
    }
    let keys = s.pool_keys().get(index).copied()?;
    // The label goes where the user wrote a value: a rollout size, else the pool's.
    let labelled = world_keys(s)
        .iter()
        .chain(&[keys.gpus, keys.nnodes])
        .copied()
        .find(|&k| s.given(k))
        .unwrap_or(ROLLOUT_TP);
    Some(VerlDiagnostic::RolloutIndivisible {
        sizes: Listed(
            // The tensor parallel size, and the other sizes where they are not 1.
            world_keys(s)
                .iter()
                .filter(|&&k| k == ROLLOUT_TP || s.int(k) != 1)
                .map(|&k| KeyValue {
                    key: KEYS[k].path,
                    value: s.get(k).value.to_string(),
                })
                .collect(),
        ),
        divisor,
        divisor_name: kind(s).name(),
        world_size,
        pool: layout.pools[index].name.clone(),
        per_node_key: KEYS[keys.gpus].path,
        nodes_key: KEYS[keys.nnodes].path,
        tp_key: KEYS[ROLLOUT_TP].path,
        key: KEYS[labelled].path,
        span: s.span(labelled),
        origin: s.origin(labelled),
    })
}
