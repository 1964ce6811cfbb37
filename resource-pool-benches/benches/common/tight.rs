//! Tight two-resource packings (issue 20): 8 to 24 idle eight-GPU nodes with 24 to 48
//! CPUs each, and pools of 1 to 6 node-slots of 1 to 8 GPUs at `max_colocate_count` 1 to
//! 5 (so a slot of `g` GPUs asks `g × m` CPUs), until 90 to 100% of the GPUs are asked.
//! GPUs are nearly all taken and CPUs bind on the small nodes: neither resource alone
//! decides, and a random sample holds feasible and infeasible instances that defeat
//! greedy packing.

use resource_pool_core::model::{Cluster, Node, NodeSlot, PoolSpec, ResourcePool};

use super::{XorShift, gpu_cpu};

/// One tight instance.
#[derive(Clone, Debug)]
pub struct Tight {
    /// `tight/07` and so on.
    pub name: String,
    /// The idle nodes.
    pub cluster: Cluster,
    /// The pools, in creation order.
    pub pools: Vec<ResourcePool>,
    /// Per node: (GPUs, CPUs), whole numbers.
    pub node_sizes: Vec<(u64, u64)>,
}

impl Tight {
    /// Its node-slots in creation order.
    pub fn slots(&self) -> Vec<NodeSlot> {
        resource_pool_core::model::node_slots(self.pools.iter().map(|p| &p.spec))
    }

    /// Per slot: (GPUs, CPUs), whole numbers, in creation order.
    pub fn slot_sizes(&self) -> Vec<(u64, u64)> {
        self.pools
            .iter()
            .flat_map(|p| {
                let m = u64::from(p.spec.max_colocate_count);
                p.spec
                    .process_on_nodes
                    .iter()
                    .map(move |&g| (u64::from(g), u64::from(g) * m))
            })
            .collect()
    }

    /// The instance as JSON: `{"name", "nodes": [[gpu, cpu], ...], "slots": [[gpu, cpu],
    /// ...]}` in whole units, for the CP-SAT script.
    pub fn to_json(&self) -> String {
        let pairs = |v: &[(u64, u64)]| {
            v.iter()
                .map(|(g, c)| format!("[{g}, {c}]"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "{{\"name\": \"{}\", \"nodes\": [{}], \"slots\": [{}]}}",
            self.name,
            pairs(&self.node_sizes),
            pairs(&self.slot_sizes()),
        )
    }
}

/// The seed of the benchmark's sample.
pub const TIGHT_SEED: u64 = 0x7167_4854_0000_0020;

/// The instance `index` of the sample drawn from `seed`.
pub fn tight(seed: u64, index: usize) -> Tight {
    let mut rng = XorShift::new(seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let n = rng.range(8, 24) as usize;
    let node_sizes: Vec<(u64, u64)> = (0..n).map(|_| (8, rng.range(24, 48))).collect();
    let gpus = 8 * n as u64;
    let target = gpus * rng.range(90, 100) / 100;
    let mut pools = Vec::new();
    let mut asked = 0;
    while asked < target {
        let count = rng.range(1, 6);
        let colocate = rng.range(1, 5) as u32;
        let mut slots = Vec::new();
        for _ in 0..count {
            if asked == target {
                break;
            }
            let g = rng.range(1, 8).min(target - asked);
            slots.push(g as u32);
            asked += g;
        }
        let spec = PoolSpec {
            max_colocate_count: colocate,
            ..PoolSpec::with_slots(slots)
        };
        pools.push(ResourcePool::new(format!("pool_{}", pools.len()), spec));
    }
    let cluster = Cluster::new(
        node_sizes
            .iter()
            .enumerate()
            .map(|(i, &(g, c))| {
                let res = gpu_cpu(g, c);
                Node::new(format!("node-{i}"), res.clone()).with_total(res)
            })
            .collect(),
    );
    Tight {
        name: format!("tight/{index:02}"),
        cluster,
        pools,
        node_sizes,
    }
}

/// The benchmark's sample: `count` instances from `seed`.
pub fn tight_sample(seed: u64, count: usize) -> Vec<Tight> {
    (0..count).map(|i| tight(seed, i)).collect()
}
