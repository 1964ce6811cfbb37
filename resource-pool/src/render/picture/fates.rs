//! The picture's second pass: Ray's fate of each slot. The groups that pend (drawn under
//! the cluster, at most [`MAX_PENDING`]), the node each comes nearest to (marked on its
//! row), and the pools verl never creates because it waits on an earlier one.

use std::collections::HashMap;

use super::legend::slot_range;
use super::{Cell, MAX_CELLS, MAX_PENDING, PendingGroup, Segment, pool_accelerator, slot_name};
use crate::model::names;
use crate::ray_sim::GroupFate;
use crate::{Cluster, NodeSlot, ResourcePool};

/// What the fates add to the picture.
pub(super) struct Fates {
    /// The pending groups drawn.
    pub pending: Vec<PendingGroup>,
    /// Pending groups not drawn.
    pub pending_hidden: usize,
    /// Node index → the pending groups (`pool[slot]`) it comes nearest to holding.
    pub nearest_for: HashMap<usize, Vec<String>>,
    /// (`pool[slots]` never created, the pool verl waits on).
    pub not_created: Vec<(String, String)>,
}

/// Reads the fates of `slots` (by slot index).
pub(super) fn read(
    fates: &[GroupFate],
    slots: &[NodeSlot],
    pools: &[ResourcePool],
    cluster: &Cluster,
) -> Fates {
    let mut pending = Vec::new();
    let mut pending_hidden = 0;
    let mut nearest_for: HashMap<usize, Vec<String>> = HashMap::new();
    let mut not_created: Vec<(usize, Vec<usize>, usize)> = Vec::new();
    for (i, fate) in fates.iter().enumerate() {
        let Some(slot) = slots.get(i) else { continue };
        let name = slot_name(pools, slot);
        match fate {
            GroupFate::Placed { .. } => {}
            GroupFate::Pending(p) => {
                if let Some(nearest) = &p.nearest
                    && nearest.node < cluster.nodes.len()
                {
                    let list = nearest_for.entry(nearest.node).or_default();
                    if list.len() < MAX_PENDING {
                        list.push(name.clone());
                    }
                }
                if pending.len() == MAX_PENDING {
                    pending_hidden += 1;
                    continue;
                }
                let accelerator = pool_accelerator(pools, slot);
                let drawn = (slot.bundles as usize).min(MAX_CELLS);
                pending.push(PendingGroup {
                    name,
                    segment: Segment {
                        accelerator,
                        cells: vec![
                            Cell::Held {
                                pool: slot.pool,
                                slot: Some(slot.slot),
                            };
                            drawn
                        ],
                        hidden: u64::from(slot.bundles) - drawn as u64,
                    },
                    cpu: slot.demand.get(names::CPU),
                    state: p.state.to_string(),
                    nearest: p.nearest.as_ref().map(ToString::to_string),
                });
            }
            GroupFate::NotCreated { blocked_by } => match not_created.last_mut() {
                Some((pool, list, _)) if *pool == slot.pool => list.push(slot.slot),
                _ => not_created.push((slot.pool, vec![slot.slot], *blocked_by)),
            },
        }
    }
    Fates {
        pending,
        pending_hidden,
        nearest_for,
        not_created: not_created
            .into_iter()
            .map(|(pool, list, blocked_by)| {
                let name = pools.get(pool).map(|p| p.name.as_str()).unwrap_or("?");
                let waits = pools
                    .get(blocked_by)
                    .map(|p| p.name.as_str())
                    .unwrap_or("?");
                (format!("{name}[{}]", slot_range(&list)), waits.to_owned())
            })
            .collect(),
    }
}
