//! The rollout's parallel sizes against the pool `actor_rollout` runs on. verl checks
//! them only when its workers start: each actor_rollout worker divides the pool's
//! accelerators (its `world_size`) into rollout replicas and asserts that they divide
//! evenly (`_build_rollout` in `fsdp_workers.py`/`megatron_workers.py`, the rollout set-up
//! of `engine_workers.py` from 0.7.0). What the replicas are made of is the release's
//! [`RolloutWorld`]. Once the pool divides, verl (0.6.0 on) builds the replicas, and each
//! asserts that it lies within a node or over whole nodes: when and over which node size
//! is the release's [`RolloutReplicas`].

use super::fields::KeyValue;
use super::keys::{KEYS, KeyId, N_GPUS_PER_NODE, ROLLOUT_GPUS, ROLLOUT_MODE, ROLLOUT_TP};
use super::layout::{ACTOR_ROLLOUT_POOL, VerlLayout};
use super::releases::{RolloutReplicas, RolloutWorld};
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

/// What the rollout's sizes multiply into, by the release (see [`rollout_world`]).
pub(crate) fn kind(s: &VerlSettings) -> RolloutWorld {
    s.release.map_or(RolloutWorld::TpDpPp, |r| r.rollout_world)
}

fn world_keys(s: &VerlSettings) -> &'static [KeyId] {
    kind(s).keys()
}

/// The pool of `layout` that verl's actor_rollout worker group runs on (`actor_rollout`,
/// or `actor_rollout_ref` on the new engine: [`ACTOR_ROLLOUT_POOL`], as the layout maps
/// it), by its index.
pub fn actor_rollout_pool(layout: &VerlLayout) -> Option<usize> {
    layout
        .pools
        .iter()
        .position(|p| p.name == ACTOR_ROLLOUT_POOL)
}

/// The key verl reads its rollout replicas' `gpus_per_node` from, and its value, when it
/// builds them at start-up: by the release's [`RolloutReplicas`], or the newest verl's
/// without one. 0.6.x builds them only with `actor_rollout_ref.rollout.mode=async` (its
/// default is `sync`); without a release, a mode written as anything but `async` is read
/// as a line for such a release (0.7.0 ignores the mode, 0.8.0 on refuses it). From 0.7.1
/// the key is `actor_rollout_ref.rollout.n_gpus_per_node`, which follows
/// `trainer.n_gpus_per_node` unless it is set (its default interpolates it).
pub fn replica_per_node(s: &VerlSettings) -> Option<(KeyId, u64)> {
    let replicas = s
        .release
        .map_or(RolloutReplicas::AlwaysRolloutNodes, |r| r.rollout_replicas);
    let asynchronous = s.str(ROLLOUT_MODE) == "async";
    let built = match replicas {
        RolloutReplicas::None => false,
        RolloutReplicas::AsyncMode => asynchronous,
        // Without a release, a mode written as other than `async` is a line for 0.6.
        _ => s.release.is_some() || asynchronous,
    };
    let key = match replicas.per_node_key()? {
        ROLLOUT_GPUS if !s.given(ROLLOUT_GPUS) => N_GPUS_PER_NODE,
        key => key,
    };
    let per_node = u64::try_from(s.int(key)).ok().filter(|&g| g >= 1)?;
    built.then_some((key, per_node))
}

/// The rollout's sizes that messages name: the tensor parallel size, and the others where
/// they are not 1.
fn named_keys(s: &VerlSettings) -> impl Iterator<Item = KeyId> + '_ {
    world_keys(s)
        .iter()
        .copied()
        .filter(|&k| k == ROLLOUT_TP || s.int(k) != 1)
}

/// The rollout's sizes, each as verl reads it: the tensor parallel size, and the others
/// where they are not 1.
fn sizes(s: &VerlSettings) -> Listed<KeyValue> {
    Listed(
        named_keys(s)
            .map(|k| KeyValue {
                key: KEYS[k].path,
                value: s.get(k).value.to_string(),
            })
            .collect(),
    )
}

/// The rollout's sizes that multiply into [`rollout_world`] and differ from 1 (the tensor
/// parallel size always), with their values; empty when [`rollout_world`] is `None`.
pub fn rollout_factors(s: &VerlSettings) -> Vec<(KeyId, u64)> {
    if rollout_world(s).is_none() {
        return Vec::new();
    }
    named_keys(s)
        .filter_map(|k| Some((k, u64::try_from(s.int(k)).ok()?)))
        .collect()
}

/// The first key of `keys` the user wrote, else the rollout's tensor parallel size: where
/// the label goes.
fn labelled(s: &VerlSettings, keys: impl IntoIterator<Item = KeyId>) -> KeyId {
    keys.into_iter().find(|&k| s.given(k)).unwrap_or(ROLLOUT_TP)
}

/// verl's start-up assertions on `layout`, the first that fails (verl stops there): the
/// actor_rollout pool's accelerators must be a multiple of the rollout's size, and then a
/// replica larger than a node a multiple of the node's size.
pub(super) fn check(s: &VerlSettings, layout: &VerlLayout) -> Option<VerlDiagnostic> {
    let divisor = rollout_world(s)?;
    let index = actor_rollout_pool(layout)?;
    let world_size = layout.pools[index].world_size();
    if world_size.is_multiple_of(divisor) {
        return replica_check(s, divisor);
    }
    let keys = s.pool_keys().get(index).copied()?;
    // The label goes where the user wrote a value: a rollout size, else the pool's.
    let labelled = labelled(
        s,
        world_keys(s)
            .iter()
            .copied()
            .chain([keys.gpus, keys.nnodes]),
    );
    Some(VerlDiagnostic::RolloutIndivisible {
        sizes: sizes(s),
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

/// `RolloutReplica.__init__` (`verl/workers/rollout/replica.py`, 0.6.0 on): a replica of
/// `replica` accelerators larger than `gpus_per_node` must be a multiple of it.
fn replica_check(s: &VerlSettings, replica: u64) -> Option<VerlDiagnostic> {
    let (per_node_key, per_node) = replica_per_node(s)?;
    if replica <= per_node || replica.is_multiple_of(per_node) {
        return None;
    }
    let labelled = labelled(
        s,
        world_keys(s)
            .iter()
            .copied()
            .chain([per_node_key, ROLLOUT_MODE]),
    );
    Some(VerlDiagnostic::RolloutReplicaNodes {
        sizes: sizes(s),
        replica,
        per_node,
        per_node_key: KEYS[per_node_key].path,
        tp_key: KEYS[ROLLOUT_TP].path,
        key: KEYS[labelled].path,
        span: s.span(labelled),
        origin: s.origin(labelled),
    })
}
