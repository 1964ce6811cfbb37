//! The three dashboard answers of a large Ray 2.60 cluster, in the shape of the recorded
//! ones (resource-pool-inventory/tests/data/ray-2.60): every field Ray sends, not only those the reader uses, so
//! that reading them costs what reading a real answer costs. Standard library only: the
//! benches and the integration tests (`#[path]`) share it.
//!
//! `nodes` nodes of 8 GPU / 96 CPU / 1 `accelerator_type:H100` (the head node first);
//! the last `dead` of them are dead; `groups` placement groups of 8 bundles of
//! `{CPU: 3, GPU: 1}`, each placed whole on one alive node (group `g` on node `g`), so
//! those nodes show 8 GPUs and 24 CPUs used.

use std::fmt::Write as _;

/// The answers of `/api/v0/nodes?detail=1`, `/api/cluster_status` and
/// `/api/v0/placement_groups?detail=1`.
pub struct RayBodies {
    pub nodes: String,
    pub cluster_status: String,
    pub placement_groups: String,
}

/// A 56-hex-digit id, as Ray's node ids are; distinct for distinct `i`.
fn node_id(i: usize) -> String {
    let a = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5EED;
    let b = (i as u64)
        .wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
        .rotate_left(17);
    let c = (i as u64)
        .wrapping_mul(0x1656_67B1_9E37_79F9)
        .rotate_left(31);
    format!("{a:016x}{b:016x}{c:016x}{:08x}", i as u32)
}

/// A 36-hex-digit placement group id ending in the job id `01000000`, as Ray's are.
fn group_id(g: usize) -> String {
    let a = (g as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xBEEF;
    format!("{a:016x}{:012x}01000000", g as u64 * 7919)
}

fn ip(i: usize) -> String {
    format!("10.{}.{}.{}", (i >> 16) & 255, (i >> 8) & 255, i & 255)
}

/// Ray's camel-casing of a resource name in the cluster status (`CPU_group_0_abc` ->
/// `CPUGroup0Abc`), for ids made of lowercase hex digits and underscores.
fn camel(name: &str) -> String {
    let mut parts = name.split('_');
    let mut out = parts.next().unwrap_or_default().to_owned();
    for part in parts {
        let mut previous_cased = false;
        for c in part.chars() {
            if previous_cased {
                out.extend(c.to_lowercase());
            } else {
                out.extend(c.to_uppercase());
            }
            previous_cased = c.is_alphabetic();
        }
    }
    out
}

/// A list endpoint's answer: `items` (joined already) with their count, none truncated.
fn list_envelope(total: usize, items: &str) -> String {
    format!(
        "{{\"result\": true, \"msg\": \"\", \"data\": {{\"result\": {{\"total\": {total}, \
         \"num_after_truncation\": {total}, \"num_filtered\": {total}, \"result\": [{items}], \
         \"partial_failure_warning\": \"\", \"warnings\": null}}}}}}"
    )
}

/// Every node's memory, in bytes.
const MEMORY: f64 = 1_099_511_627_776.0;
/// Every node's object store, in bytes.
const STORE: f64 = 200_000_000_000.0;

/// The answers for a cluster of `nodes` nodes (the last `dead` dead) and `groups` placed
/// groups (at most one per alive node).
pub fn ray_bodies(nodes: usize, dead: usize, groups: usize) -> RayBodies {
    let alive = nodes - dead;
    let groups = groups.min(alive);
    RayBodies {
        nodes: nodes_body(nodes, alive),
        cluster_status: cluster_status_body(alive, groups),
        placement_groups: placement_groups_body(groups),
    }
}

/// `/api/v0/nodes?detail=1`: every node, those from `alive` on dead.
fn nodes_body(nodes: usize, alive: usize) -> String {
    let mut items = String::new();
    for i in 0..nodes {
        if i > 0 {
            items.push_str(", ");
        }
        write_node(&mut items, i, i >= alive);
    }
    list_envelope(nodes, &items)
}

/// Node `i` of the node list (the head node first).
fn write_node(items: &mut String, i: usize, is_dead: bool) {
    let id = node_id(i);
    let ip = ip(i);
    let head = if i == 0 {
        "\"node:__internal_head__\": 1.0, "
    } else {
        ""
    };
    let _ = write!(
        items,
        "{{\"node_id\": \"{id}\", \"node_ip\": \"{ip}\", \"is_head_node\": {}, \
         \"state\": \"{}\", \"state_message\": {}, \"node_name\": \"{ip}\", \
         \"resources_total\": {{\"object_store_memory\": {STORE:.1}, \"memory\": {MEMORY:.1}, \
         {head}\"node:{ip}\": 1.0, \"CPU\": 96.0, \"GPU\": 8.0, \"accelerator_type:H100\": 1.0}}, \
         \"labels\": {{\"ray.io/node-id\": \"{id}\"}}, \"start_time_ms\": {}, \"end_time_ms\": {}}}",
        i == 0,
        if is_dead { "DEAD" } else { "ALIVE" },
        if is_dead {
            "\"Expected termination: received SIGTERM\""
        } else {
            "null"
        },
        1_796_221_039_830u64 + i as u64,
        if is_dead { 1_796_221_339_830u64 } else { 0 },
    );
}

/// The per-node parts of the cluster status, each a comma-separated list over the alive
/// nodes.
#[derive(Default)]
struct StatusLists {
    usage_by_node: String,
    active: String,
    mapping: String,
    node_types: String,
}

impl StatusLists {
    /// The alive nodes' usage, each held group's resources on its node (group `i` on node
    /// `i`, for the first `groups`).
    fn new(alive: usize, groups: usize) -> StatusLists {
        let mut lists = StatusLists::default();
        for i in 0..alive {
            if i > 0 {
                lists.usage_by_node.push_str(", ");
                lists.active.push_str(", ");
                lists.mapping.push_str(", ");
                lists.node_types.push_str(", ");
            }
            lists.push_node(i, i < groups);
        }
        lists
    }

    /// Alive node `i`, which a group holds whole when `held`.
    fn push_node(&mut self, i: usize, held: bool) {
        let id = node_id(i);
        let ip = ip(i);
        let (gpu, cpu) = if held { (8.0, 24.0) } else { (0.0, 0.0) };
        let mut usage = format!(
            "\"CPU\": [{cpu:.1}, 96.0], \"GPU\": [{gpu:.1}, 8.0], \"acceleratorType:H100\": [0.0, 1.0], \
             \"memory\": [0.0, {MEMORY:.1}], \"objectStoreMemory\": [0.0, {STORE:.1}], \"node:{ip}\": [0.0, 1.0]"
        );
        if held {
            let pg = group_id(i);
            for b in 0..8 {
                for (name, amount) in [("CPU", 3.0), ("GPU", 1.0), ("bundle", 1000.0)] {
                    let key = camel(&format!("{name}_group_{b}_{pg}"));
                    let _ = write!(usage, ", \"{key}\": [0.0, {amount:.1}]");
                }
            }
        }
        let _ = write!(self.usage_by_node, "\"{id}\": {{{usage}}}");
        let _ = write!(self.active, "\"{}\": 1", camel(&format!("node_{id}")));
        let _ = write!(self.mapping, "\"{id}\": \"node_{id}\"");
        let _ = write!(
            self.node_types,
            "[{{\"CPU\": 96.0, \"GPU\": 8.0, \"accelerator_type:H100\": 1.0, \"memory\": {MEMORY:.1}, \
             \"object_store_memory\": {STORE:.1}, \"node:{ip}\": 1.0}}, 1]"
        );
    }
}

/// `/api/cluster_status`: the autoscaler's report over the `alive` nodes, the first
/// `groups` of them held whole.
fn cluster_status_body(alive: usize, groups: usize) -> String {
    let StatusLists {
        usage_by_node,
        active,
        mapping,
        node_types,
    } = StatusLists::new(alive, groups);
    let used_gpu = 8 * groups;
    let used_cpu = 24 * groups;
    let heartbeats: Vec<String> = (0..alive.min(5))
        .map(|i| format!("'{}': 0.00{i}8", node_id(i)))
        .collect();
    format!(
        "{{\"result\": true, \"msg\": \"Got cluster status.\", \"data\": {{\
         \"autoscalingStatus\": \"Cluster status: {alive} nodes\\n - MostDelayedHeartbeats: {{{}}}\\n \
         - NodeIdleSeconds: Min=0 Mean=72 Max=108\\n - ResourceUsage: {used_cpu}.0/{}.0 CPU, {used_gpu}.0/{}.0 GPU\\n \
         - TimeSinceLastHeartbeat: Min=0 Mean=0 Max=0\\nWorker node types:\", \
         \"autoscalingError\": null, \"clusterStatus\": {{\"gcsRequestTime\": 0.0194, \"time\": 1796221316.24, \
         \"monitorPid\": 4677, \"autoscalerUpdateTime\": 0.007, \"autoscalerReport\": {{\
         \"activeNodes\": {{{active}}}, \"idleNodes\": null, \"pendingNodes\": [], \"pendingLaunches\": {{}}, \
         \"failedNodes\": [], \"nodeAvailabilitySummary\": {{\"nodeAvailabilities\": {{}}}}, \
         \"nodeActivities\": null, \"pendingResources\": {{}}, \"nodeTypeMapping\": {{{mapping}}}, \
         \"legacy\": true}}, \"nonTerminatedNodesTime\": 9.5e-06, \"loadMetricsReport\": {{\
         \"usage\": {{\"CPU\": [{used_cpu}.0, {}.0], \"GPU\": [{used_gpu}.0, {}.0]}}, \"resourceDemand\": [], \
         \"pgDemand\": [], \"requestDemand\": [], \"nodeTypes\": [{node_types}], \"headIp\": null, \
         \"usageByNode\": {{{usage_by_node}}}, \"nodeTypeMapping\": null, \"idleTimeMap\": null}}}}}}}}",
        heartbeats.join(", "),
        96 * alive,
        8 * alive,
        96 * alive,
        8 * alive,
    )
}

/// `/api/v0/placement_groups?detail=1`: `groups` groups of 8 bundles, group `g` on node
/// `g`.
fn placement_groups_body(groups: usize) -> String {
    let mut group_items = String::new();
    for g in 0..groups {
        let pg = group_id(g);
        let node = node_id(g);
        if g > 0 {
            group_items.push_str(", ");
        }
        let bundles: Vec<String> = (0..8)
            .map(|b| {
                format!(
                    "{{\"bundle_id\": {{\"placement_group_id\": \"{pg}\", \"bundle_index\": {b}}}, \
                     \"unit_resources\": {{\"CPU\": 3.0, \"GPU\": 1.0}}, \"node_id\": \"{node}\", \
                     \"label_selector\": {{}}}}"
                )
            })
            .collect();
        let _ = write!(
            group_items,
            "{{\"placement_group_id\": \"{pg}\", \"name\": \"pool_{g}\", \"creator_job_id\": \"01000000\", \
             \"state\": \"CREATED\", \"bundles\": [{}], \"is_detached\": false, \"stats\": {{\
             \"creation_request_received_ns\": \"1796221202494179626\", \"scheduling_started_time_ns\": \
             \"1796221202494583927\", \"scheduling_latency_us\": \"22303\", \"end_to_end_creation_latency_us\": \
             \"22707\", \"scheduling_attempt\": 1, \"scheduling_state\": \"FINISHED\", \"highest_retry_delay_ms\": 0.0}}, \
             \"topology_strategy\": {{}}, \"topology_assignments\": {{}}}}",
            bundles.join(", ")
        );
    }
    list_envelope(groups, &group_items)
}
