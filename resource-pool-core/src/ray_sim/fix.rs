//! When Ray does not place everything but a placement exists: the pool orders Ray places,
//! else pins to the placement's nodes.

use super::sim::Sim;
use super::*;
use crate::placement::{Run, VecMap, check_placement_of};

/// Interned capacity vectors, so that branch decisions are plain `u32`s.
#[derive(Default)]
pub(super) struct CapTable {
    index: VecMap<u32>,
    caps: Vec<Vec<u64>>,
}

impl CapTable {
    pub(super) fn id(&mut self, cap: &[u64]) -> u32 {
        if let Some(&id) = self.index.get(cap) {
            return id;
        }
        let id = self.caps.len() as u32;
        self.index.insert(cap.to_vec(), id);
        self.caps.push(cap.to_vec());
        id
    }

    pub(super) fn get(&self, id: u32) -> Option<&Vec<u64>> {
        self.caps.get(id as usize)
    }
}

/// The next permutation in lexicographic order; `false` after the last.
pub(super) fn next_permutation(p: &mut [usize]) -> bool {
    let n = p.len();
    if n < 2 {
        return false;
    }
    let mut i = n - 1;
    while i > 0 && p[i - 1] >= p[i] {
        i -= 1;
    }
    if i == 0 {
        return false;
    }
    let mut j = n - 1;
    while p[j] <= p[i - 1] {
        j -= 1;
    }
    p.swap(i - 1, j);
    p[i..].reverse();
    true
}

/// The fix Ray would need: a pool order it places, else pins. `placement` is the
/// placement check's report on the same input and options, when the caller has it.
pub(super) fn find_fix(
    sim: &Sim<'_>,
    options: &RaySimOptions,
    caps: &mut CapTable,
    placement: Option<&PlacementReport>,
) -> Option<RayFix> {
    let checked;
    let placement = match placement {
        Some(report) => report,
        None => {
            checked = check_placement_of(sim.instance, sim.slots, sim.cluster, &options.placement);
            &checked
        }
    };
    let witness = placement.witness()?.clone();
    // Pools in creation order, and their slots as runs.
    let mut pools: Vec<PoolId> = Vec::new();
    let mut members: Vec<Vec<(Run, usize)>> = Vec::new();
    for run in &sim.instance.slot_runs {
        let p = match pools.iter().position(|&p| p == run.pool) {
            Some(p) => p,
            None => {
                pools.push(run.pool);
                members.push(Vec::new());
                pools.len() - 1
            }
        };
        members[p].push((run.slots, run.ty));
    }
    if (2..=MAX_FIX_POOLS).contains(&pools.len()) {
        // Largest demand first, then every permutation.
        let dims = sim.instance.names.len();
        let mut max_cap = vec![0u64; dims];
        for (cap, _) in &sim.init {
            for r in 0..dims {
                max_cap[r] = max_cap[r].max(cap[r]);
            }
        }
        let weight = |i: usize| -> f64 {
            members[i]
                .iter()
                .map(|&(_, ty)| {
                    sim.demand(ty)
                        .iter()
                        .zip(&max_cap)
                        .map(|(&d, &m)| if m == 0 { 0.0 } else { d as f64 / m as f64 })
                        .sum::<f64>()
                })
                .fold(0.0, f64::max)
        };
        // A launcher's stages stay in order: a permutation that breaks them is no fix.
        let rank = |i: usize| options.pool_ranks.get(pools[i]).copied().unwrap_or(0);
        let keeps_ranks = |p: &[usize]| p.windows(2).all(|w| rank(w[0]) <= rank(w[1]));
        let mut largest: Vec<usize> = (0..pools.len()).collect();
        largest.sort_by(|&a, &b| {
            (rank(a).cmp(&rank(b)))
                .then(weight(b).total_cmp(&weight(a)))
                .then(a.cmp(&b))
        });
        let identity: Vec<usize> = (0..pools.len()).collect();
        let mut perm = identity.clone();
        let mut candidates =
            std::iter::once(largest.clone()).chain(std::iter::from_fn(move || {
                next_permutation(&mut perm).then(|| perm.clone())
            }));
        let mut tried = 0usize;
        while tried < options.max_orders && Instant::now() < sim.deadline {
            let Some(p) = candidates.next() else { break };
            if p == identity || (tried > 0 && p == largest) || !keeps_ranks(&p) {
                continue;
            }
            tried += 1;
            let order: Vec<Run> = p
                .iter()
                .flat_map(|&i| members[i].iter().map(|&(run, _)| run))
                .collect();
            let outcome = sim.run(&order, options.max_branches, caps);
            if outcome.verdict == RayVerdict::Places {
                return Some(RayFix::PoolOrder(p.iter().map(|&i| pools[i]).collect()));
            }
        }
    }
    Some(RayFix::Pin(witness))
}
