//! Instance generators shared by the benches: clusters, verl layouts and adversarial
//! packings, all deterministic (a seeded xorshift, no `rand`).
//!
//! `gen_data` writes the end-to-end scenarios as TOML files plus a `manifest.json` that
//! `benches/verl_check.py` and `scripts/bench` read.

// Each bench binary uses a different part of this module.
#![allow(dead_code)]

pub mod ray_bodies;
pub mod tight;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use resource_pool_core::config::config_to_toml;
use resource_pool_core::model::{
    Accelerator, Amount, Cluster, Node, NodeSlot, PoolSpec, ResourcePool, ResourcePoolManager,
    Resources, RoleName,
};
use resource_pool_inventory::cluster_file::{cluster_to_json, cluster_to_toml};

/// The cluster sizes of every scenario.
pub const SIZES: [usize; 4] = [100, 1_000, 10_000, 100_000];

/// A tiny xorshift64* generator: deterministic across platforms and runs.
#[derive(Clone, Debug)]
pub struct XorShift(u64);

impl XorShift {
    /// A generator from a seed (zero is replaced: xorshift must not start at zero).
    pub fn new(seed: u64) -> XorShift {
        XorShift(if seed == 0 {
            0x9E37_79B9_7F4A_7C15
        } else {
            seed
        })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }

    /// Shuffles a slice (Fisher-Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.range(0, i as u64) as usize;
            items.swap(i, j);
        }
    }
}

/// What the instance is built to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// A placement exists and Ray finds it.
    Places,
    /// No placement exists; the kind of infeasibility, as the comparison reports it.
    Infeasible(&'static str),
    /// A placement exists but Ray's scheduler, in creation order, hangs.
    RayHangs,
}

impl Expect {
    /// The manifest's word.
    pub fn label(self) -> &'static str {
        match self {
            Expect::Places => "places",
            Expect::Infeasible(kind) => kind,
            Expect::RayHangs => "ray_order_hang",
        }
    }
}

/// A layout to check against a cluster.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Pools in creation order.
    pub pools: Vec<ResourcePool>,
    /// verl role → pool name.
    pub mapping: Vec<(&'static str, String)>,
}

impl Layout {
    /// The manager of the layout.
    pub fn manager(&self) -> ResourcePoolManager<RoleName> {
        let mapping = self
            .mapping
            .iter()
            .map(|(role, pool)| (RoleName::from(*role), pool.as_str()));
        ResourcePoolManager::new(self.pools.clone(), mapping).expect("generated layouts are valid")
    }

    /// Its node-slots in creation order.
    pub fn slots(&self) -> Vec<NodeSlot> {
        self.manager().node_slots()
    }

    /// Its config file.
    pub fn to_toml(&self) -> String {
        config_to_toml(&self.manager())
    }

    /// The number of node-slots.
    pub fn slot_count(&self) -> usize {
        self.pools
            .iter()
            .map(|p| p.spec.process_on_nodes.len())
            .sum()
    }
}

fn whole(n: u64) -> Amount {
    Amount::from_whole(n).expect("small amounts")
}

fn gpu_cpu(gpu: u64, cpu: u64) -> Resources {
    Resources::new()
        .with("GPU", whole(gpu))
        .with("CPU", whole(cpu))
}

fn pool(name: &str, slots: Vec<u32>) -> ResourcePool {
    ResourcePool::new(name, PoolSpec::with_slots(slots))
}

/// `n` idle nodes of 8 GPU / 96 CPU.
pub fn homogeneous_cluster(n: usize) -> Cluster {
    let res = gpu_cpu(8, 96);
    Cluster::new(
        (0..n)
            .map(|i| Node::new(format!("node-{i}"), res.clone()).with_total(res.clone()))
            .collect(),
    )
}

/// `n` nodes of 8 GPU / 128 CPU, partly busy: free GPUs uniform in 0..=8, free CPUs
/// uniform in 0..=128 by fours.
pub fn heterogeneous_cluster(n: usize, seed: u64) -> Cluster {
    let mut rng = XorShift::new(seed);
    let total = gpu_cpu(8, 128);
    Cluster::new(
        (0..n)
            .map(|i| {
                let gpu = rng.range(0, 8);
                let cpu = 4 * rng.range(0, 32);
                Node::new(format!("node-{i}"), gpu_cpu(gpu, cpu)).with_total(total.clone())
            })
            .collect(),
    )
}

/// The reward pool's node count beside a global pool on `n` nodes.
pub fn reward_nodes(n: usize) -> usize {
    (n / 10).max(1)
}

/// verl's default layout on `n` 8-GPU nodes: `global_pool = [8] * (n - r + extra)` and
/// `reward_pool = [8] * r`. `extra = 0` fills the cluster exactly; `extra = 1` is one slot
/// too many.
pub fn verl_default(n: usize, extra: usize) -> Layout {
    let r = reward_nodes(n);
    Layout {
        pools: vec![
            pool("global_pool", vec![8; n - r + extra]),
            pool("reward_pool", vec![8; r]),
        ],
        mapping: vec![
            ("actor_rollout", "global_pool".into()),
            ("critic", "global_pool".into()),
            ("ref", "global_pool".into()),
            ("rm", "reward_pool".into()),
        ],
    }
}

/// verl's default layout with a change to every pool's spec.
fn verl_default_with(n: usize, change: impl Fn(&mut PoolSpec)) -> Layout {
    let mut layout = verl_default(n, 0);
    for pool in &mut layout.pools {
        change(&mut pool.spec);
    }
    layout
}

/// The default layout at 13 CPUs per bundle: 104 CPUs per 8-slot on 96-CPU nodes.
pub fn cpu_short(n: usize) -> Layout {
    verl_default_with(n, |spec| spec.max_colocate_count = 13)
}

/// The default layout asking for NPUs on a GPU cluster.
pub fn wrong_accelerator(n: usize) -> Layout {
    verl_default_with(n, |spec| spec.accelerator = Accelerator::Npu)
}

/// `rollout_pool = [4] * n` created before `actor_pool = [8] * (n / 2)`: both fit
/// (pack the 4s in pairs), but Ray spreads the 4s over every node and the 8s hang.
pub fn ray_order_hang(n: usize) -> Layout {
    Layout {
        pools: vec![
            pool("rollout_pool", vec![4; n]),
            pool("actor_pool", vec![8; n / 2]),
        ],
        mapping: vec![
            ("rollout", "rollout_pool".into()),
            ("actor", "actor_pool".into()),
            ("critic", "actor_pool".into()),
            ("ref", "actor_pool".into()),
        ],
    }
}

/// The node-slots of the heterogeneous layout on `n` nodes: `n / 10` slots (at least 4),
/// a quarter each of 8, 4, 2 and 1 GPUs.
pub fn mixed_slots(n: usize) -> usize {
    (n / 10).max(4)
}

fn mixed_layout(counts: [usize; 4]) -> Layout {
    Layout {
        pools: vec![
            pool("actor_pool", vec![8; counts[0]]),
            pool("rollout_pool", vec![4; counts[1]]),
            pool("critic_pool", vec![2; counts[2]]),
            pool("reward_pool", vec![1; counts[3]]),
        ],
        mapping: vec![
            ("actor", "actor_pool".into()),
            ("rollout", "rollout_pool".into()),
            ("critic", "critic_pool".into()),
            ("ref", "critic_pool".into()),
            ("rm", "reward_pool".into()),
        ],
    }
}

/// Mixed pools of 8, 4, 2 and 1 GPUs on the heterogeneous cluster of `n` nodes: feasible.
pub fn mixed(n: usize) -> Layout {
    let q = mixed_slots(n) / 4;
    mixed_layout([q; 4])
}

/// Nodes of `cluster` that can host an 8-GPU slot at 3 CPUs per GPU.
fn hosts_of_eight(cluster: &Cluster) -> usize {
    let need = gpu_cpu(8, 24);
    cluster
        .alive()
        .filter(|n| n.available.covers(&need))
        .count()
}

/// Fragmentation: one 8-GPU slot more than the nodes with 8 GPUs (and 24 CPUs) free, on
/// the heterogeneous cluster, with far fewer GPUs in total than are free.
pub fn fragmented(n: usize, cluster: &Cluster) -> Layout {
    let q = mixed_slots(n) / 4;
    mixed_layout([hosts_of_eight(cluster) + 1, q, q, q])
}

/// One end-to-end scenario: a cluster file and a config file.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// `homogeneous/feasible` and so on.
    pub name: &'static str,
    /// Which cluster file (`homogeneous` or `heterogeneous`).
    pub cluster: &'static str,
    /// The layout the benchmark checks.
    pub layout: Layout,
    /// What it is built to be.
    pub expect: Expect,
}

/// The seed of every heterogeneous cluster.
pub const SEED: u64 = 0x5EED_0000_0000_0007;

/// The two clusters of one size.
pub fn clusters(n: usize) -> [(&'static str, Cluster); 2] {
    [
        ("homogeneous", homogeneous_cluster(n)),
        ("heterogeneous", heterogeneous_cluster(n, SEED ^ n as u64)),
    ]
}

/// Every end-to-end scenario at `n` nodes (`heterogeneous` must be
/// `heterogeneous_cluster(n, SEED ^ n)`).
pub fn scenarios(n: usize, heterogeneous: &Cluster) -> Vec<Scenario> {
    let s = |name, cluster, layout, expect| Scenario {
        name,
        cluster,
        layout,
        expect,
    };
    vec![
        s(
            "homogeneous/feasible",
            "homogeneous",
            verl_default(n, 0),
            Expect::Places,
        ),
        s(
            "homogeneous/one_slot_over",
            "homogeneous",
            verl_default(n, 1),
            Expect::Infeasible("gpu_total"),
        ),
        s(
            "homogeneous/cpu_short",
            "homogeneous",
            cpu_short(n),
            Expect::Infeasible("cpu_short"),
        ),
        s(
            "homogeneous/wrong_accelerator",
            "homogeneous",
            wrong_accelerator(n),
            Expect::Infeasible("wrong_accelerator"),
        ),
        s(
            "homogeneous/ray_order",
            "homogeneous",
            ray_order_hang(n),
            Expect::RayHangs,
        ),
        s(
            "heterogeneous/feasible",
            "heterogeneous",
            mixed(n),
            Expect::Places,
        ),
        s(
            "heterogeneous/fragmented",
            "heterogeneous",
            fragmented(n, heterogeneous),
            Expect::Infeasible("fragmentation"),
        ),
    ]
}

/// Where the generated files go: `target/bench-data` of the workspace.
pub fn data_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("bench-data")
}

fn write_if_changed(path: &Path, text: &str) -> io::Result<()> {
    if fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    fs::write(path, text)
}

fn json_string(s: &str) -> String {
    // The names written here are plain ASCII without quotes or backslashes.
    format!("\"{s}\"")
}

/// Writes every cluster and config of every size into `dir`, plus `manifest.json`: a list
/// of `{size, scenario, cluster, config, nodes, slots, expect}` with paths relative to
/// `dir`. Returns the manifest's path.
pub fn write_data(dir: &Path) -> io::Result<PathBuf> {
    fs::create_dir_all(dir)?;
    let mut entries = Vec::new();
    for n in SIZES {
        let clusters = clusters(n);
        for (kind, cluster) in &clusters {
            write_if_changed(
                &dir.join(format!("{kind}-{n}.cluster.toml")),
                &cluster_to_toml(cluster),
            )?;
            write_if_changed(
                &dir.join(format!("{kind}-{n}.cluster.json")),
                &cluster_to_json(cluster),
            )?;
        }
        for sc in scenarios(n, &clusters[1].1) {
            let config = format!("{}-{n}.config.toml", sc.name.replace('/', "-"));
            write_if_changed(&dir.join(&config), &sc.layout.to_toml())?;
            entries.push(manifest_entry(n, &sc, &config));
        }
    }
    let manifest = dir.join("manifest.json");
    write_if_changed(&manifest, &format!("[\n  {}\n]\n", entries.join(",\n  ")))?;
    for (nodes, dead, groups) in RAY_SIZES {
        write_ray_data(&dir.join(format!("ray-{nodes}")), nodes, dead, groups)?;
    }
    Ok(manifest)
}

/// The manifest's object for scenario `sc` at `n` nodes, whose config file is `config`.
fn manifest_entry(n: usize, sc: &Scenario, config: &str) -> String {
    format!(
        "{{\"size\": {n}, \"scenario\": {}, \"cluster\": {}, \"config\": {}, \
         \"nodes\": {n}, \"slots\": {}, \"expect\": {}}}",
        json_string(sc.name),
        json_string(&format!("{}-{n}.cluster.toml", sc.cluster)),
        json_string(config),
        sc.layout.slot_count(),
        json_string(sc.expect.label()),
    )
}

/// The live clusters served to `resource-pool check --ray` by `scripts/bench`: nodes, of
/// them dead, placed groups.
pub const RAY_SIZES: [(usize, usize, usize); 3] =
    [(2_000, 2, 200), (5_000, 5, 500), (10_000, 10, 1_000)];

/// A dashboard's answers as files a static HTTP server serves at the endpoints' paths
/// (`DIR/api/v0/nodes`, ...; the query is not part of the path), and `config.toml`: verl's
/// default layout on the nodes left idle.
pub fn write_ray_data(dir: &Path, nodes: usize, dead: usize, groups: usize) -> io::Result<()> {
    let bodies = ray_bodies::ray_bodies(nodes, dead, groups);
    fs::create_dir_all(dir.join("api/v0"))?;
    write_if_changed(&dir.join("api/v0/nodes"), &bodies.nodes)?;
    write_if_changed(&dir.join("api/cluster_status"), &bodies.cluster_status)?;
    write_if_changed(
        &dir.join("api/v0/placement_groups"),
        &bodies.placement_groups,
    )?;
    let idle = nodes - dead - groups;
    write_if_changed(&dir.join("config.toml"), &verl_default(idle, 0).to_toml())
}

/// Nodes of one GPU count (CPU 3 per GPU, never binding) for the adversarial packings.
fn bins(count: usize, gpus: u64) -> Cluster {
    let res = gpu_cpu(gpus, 3 * gpus);
    Cluster::new(
        (0..count)
            .map(|i| Node::new(format!("bin-{i}"), res.clone()))
            .collect(),
    )
}

/// Slot sizes as pools: one pool per distinct size, sizes in the given order.
fn sized_layout(sizes: &[u32]) -> Layout {
    let mut pools: Vec<ResourcePool> = Vec::new();
    for &size in sizes {
        let name = format!("p{size}");
        match pools.iter_mut().find(|p| p.name == name) {
            Some(p) => p.spec.process_on_nodes.push(size),
            None => pools.push(pool(&name, vec![size])),
        }
    }
    let mapping = vec![("actor_rollout", pools[0].name.clone())];
    Layout { pools, mapping }
}

/// An adversarial instance.
#[derive(Clone, Debug)]
pub struct Adversarial {
    /// `ffd_trap/30` and so on.
    pub name: String,
    /// Its nodes.
    pub cluster: Cluster,
    /// Its slots.
    pub layout: Layout,
    /// Whether a placement exists.
    pub feasible: bool,
}

/// Johnson's first-fit-decreasing trap, `groups` times: per group 9 nodes of 120 GPUs
/// and slots 6×62, 6×34, 6×32, 12×26 (30 slots). They pack perfectly ({62,32,26} six
/// times, {34,34,26,26} three times); first-fit decreasing needs 11 nodes per group.
pub fn ffd_trap(groups: usize) -> Adversarial {
    let mut sizes = Vec::new();
    for _ in 0..groups {
        sizes.extend([62; 6]);
        sizes.extend([34; 6]);
        sizes.extend([32; 6]);
        sizes.extend([26; 12]);
    }
    Adversarial {
        name: format!("ffd_trap/{}", sizes.len()),
        cluster: bins(9 * groups, 120),
        layout: sized_layout(&sizes),
        feasible: true,
    }
}

/// A random perfect packing: `slots` slots cut from nodes of 100 GPUs, 2 to 5 per node,
/// every node exactly full, shuffled. Many distinct sizes and no slack.
pub fn perfect_split(slots: usize, seed: u64) -> Adversarial {
    let mut rng = XorShift::new(seed);
    let mut sizes: Vec<u32> = Vec::new();
    let mut nodes = 0;
    while sizes.len() < slots {
        let parts = rng.range(2, 5).min((slots - sizes.len()).max(1) as u64) as usize;
        // Cut 100 into `parts` pieces of at least 5.
        let mut cuts: Vec<u64> = (0..parts - 1).map(|_| rng.range(1, 19)).collect();
        cuts.sort_unstable();
        cuts.dedup();
        let mut last = 0;
        for c in cuts.iter().chain(std::iter::once(&20)) {
            sizes.push((5 * (c - last)) as u32);
            last = *c;
        }
        nodes += 1;
    }
    rng.shuffle(&mut sizes);
    Adversarial {
        name: format!("perfect_split/{}", sizes.len()),
        cluster: bins(nodes, 100),
        layout: sized_layout(&sizes),
        feasible: true,
    }
}

/// A counting trap: `3m + 1` slots of 31..=39 GPUs on `m` nodes of 120. The total fits
/// (at most 39 × (3m + 1) ≤ 120m for m ≥ 13, and on average for m ≥ 4), but no node
/// holds four slots, so it is infeasible.
pub fn count_trap(slots: usize, seed: u64) -> Adversarial {
    let m = (slots - 1) / 3;
    let mut rng = XorShift::new(seed);
    let sizes: Vec<u32> = (0..3 * m + 1).map(|_| rng.range(31, 39) as u32).collect();
    Adversarial {
        name: format!("count_trap/{}", sizes.len()),
        cluster: bins(m, 120),
        layout: sized_layout(&sizes),
        feasible: false,
    }
}

/// Every adversarial instance, 20 to 200 slots.
pub fn adversarial() -> Vec<Adversarial> {
    let mut all: Vec<Adversarial> = [1, 2, 4, 6].into_iter().map(ffd_trap).collect();
    all.extend(
        [20, 50, 100, 200]
            .into_iter()
            .map(|s| perfect_split(s, SEED ^ s as u64)),
    );
    all.extend(
        [22, 49, 100, 199]
            .into_iter()
            .map(|s| count_trap(s, SEED ^ s as u64)),
    );
    all
}
