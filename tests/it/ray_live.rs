//! Against a real Ray cluster on loopback (`tests/ray/cluster.sh up`; the whole run, once
//! per verified Ray version: `scripts/ray-tests.sh`).
//!
//! Ignored unless asked for (`cargo test --test it -- --ignored ray_live::`, which
//! `scripts/ray-tests.sh` runs with the cluster up): they need `RESOURCE_POOL_RAY_URL`, the
//! dashboard, and fail without it.
//! `RESOURCE_POOL_RAY_VERSION` (set by the script) is the version the dashboard must report.
//!
//! - The inventory read by [`RaySource`] equals Ray's own view (GCS, through the Python
//!   API), node by node, before and after placement groups are created and removed.
//! - `tests/ray/verl_like.py` creates placement groups exactly as verl does on a table of
//!   scenarios; on each, our simulated `ray` verdict equals what Ray did, and our
//!   `feasible` is true whenever Ray placed everything. Pending and held groups are named
//!   in the inventory's notes.
//! - Faults: a wrong port, the GCS port (not HTTP), a node that dies (reported dead and
//!   left out), and the dashboard stopped mid-run.
//!
//! The cluster (see `tests/ray/cluster.sh`): 127.0.0.2 GPU 8/CPU 32; 127.0.0.3 GPU 8/CPU 32
//! with `accelerator_type:H100` and `my_custom`; 127.0.0.4 NPU 8/CPU 32. Scenarios shape
//! it further by holding resources with groups pinned through `node:<ip>`.

use crate::common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use resource_pool::ray_http::RaySource;
use resource_pool_core::check::{ClusterFinding, check_against_slots};
use resource_pool_core::placement::{PlacementOptions, check_placement};
use resource_pool_core::ray_sim::{GroupFate, RaySimOptions, RayVerdict, simulate};
use resource_pool_core::{
    Accelerator, Amount, NodeSlot, PoolSpec, ResourcePool, ResourcePoolManager, Resources,
    RoleName, names,
};
use resource_pool_inventory::{Inventory, InventoryNote, InventorySource};
use serde_json::{Value, json};

const HEAD_IP: &str = "127.0.0.2";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The dashboard URL; a failure without one (the tests are ignored unless a cluster is up).
fn live_url() -> String {
    match std::env::var("RESOURCE_POOL_RAY_URL") {
        Ok(url) if !url.is_empty() => url,
        _ => {
            panic!("RESOURCE_POOL_RAY_URL is not set: start the cluster with scripts/ray-tests.sh")
        }
    }
}

/// The Ray version the cluster runs, when the script says (`RESOURCE_POOL_RAY_VERSION`).
fn expected_version() -> Option<String> {
    std::env::var("RESOURCE_POOL_RAY_VERSION")
        .ok()
        .filter(|v| !v.is_empty())
}

fn gcs_address() -> String {
    std::env::var("RESOURCE_POOL_RAY_GCS").unwrap_or_else(|_| format!("{HEAD_IP}:26390"))
}

fn cluster_sh(args: &[&str]) {
    let status = Command::new("bash")
        .arg(root().join("tests/ray/cluster.sh"))
        .args(args)
        .status()
        .expect("run cluster.sh");
    assert!(status.success(), "cluster.sh {args:?} failed");
}

// ---- The Python harness ---------------------------------------------------------------

struct Harness {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Harness {
    fn start() -> Harness {
        let python = std::env::var("RESOURCE_POOL_RAY_PYTHON")
            .map(PathBuf::from)
            .unwrap_or_else(|_| root().join(".venv/bin/python"));
        let mut child = Command::new(python)
            .arg(root().join("tests/ray/verl_like.py"))
            .args(["--address", &gcs_address(), "--node-ip", HEAD_IP])
            .env("RAY_USAGE_STATS_ENABLED", "0")
            .env("RAY_prestart_worker_first_driver", "0")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start verl_like.py");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut harness = Harness {
            child,
            stdin,
            lines,
        };
        let ready = harness.read(Duration::from_secs(60));
        assert_eq!(ready["ready"], json!(true), "{ready}");
        harness
    }

    fn read(&mut self, timeout: Duration) -> Value {
        let line = self
            .lines
            .recv_timeout(timeout)
            .expect("verl_like.py answered in time");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("verl_like.py said {line:?}: {e}"))
    }

    fn call(&mut self, command: Value) -> Value {
        writeln!(self.stdin, "{command}").expect("write to verl_like.py");
        self.stdin.flush().expect("flush");
        let answer = self.read(Duration::from_secs(60));
        assert!(answer.get("error").is_none(), "{command} -> {answer}");
        answer
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "{}", json!({"cmd": "quit"}));
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ---- Views ----------------------------------------------------------------------------

/// Per alive node address: (total, available), Ray's internal resources left out.
type View = BTreeMap<String, (Resources, Resources)>;

fn resources_of(value: &Value) -> Resources {
    let mut out = Resources::new();
    for (name, amount) in value.as_object().into_iter().flatten() {
        if names::is_ray_internal(name) {
            continue;
        }
        let amount = amount
            .as_f64()
            .and_then(|a| Amount::from_f64_rounded(a).ok())
            .unwrap_or_default();
        out.set(name.clone(), amount);
    }
    out
}

fn ray_view(harness: &mut Harness) -> View {
    let view = harness.call(json!({"cmd": "view"}));
    let mut out = View::new();
    for node in view["nodes"].as_array().into_iter().flatten() {
        if node["alive"] == json!(true) {
            let ip = node["ip"].as_str().unwrap_or_default().to_owned();
            out.insert(
                ip,
                (
                    resources_of(&node["total"]),
                    resources_of(&node["available"]),
                ),
            );
        }
    }
    out
}

fn our_view(inventory: &Inventory) -> View {
    inventory
        .cluster
        .alive()
        .map(|n| {
            (
                n.address.clone().unwrap_or_default(),
                (n.total.clone().unwrap_or_default(), n.available.clone()),
            )
        })
        .collect()
}

fn source(url: &str) -> RaySource {
    RaySource::new(url)
        .expect("url")
        .with_timeout(Duration::from_secs(5))
}

/// Loads until our inventory equals Ray's view (Ray's cluster status lags a few seconds
/// behind placement-group changes); fails after 15 s with both views.
fn converged_inventory(url: &str, harness: &mut Harness, when: &str) -> Inventory {
    let start = Instant::now();
    loop {
        let inventory = source(url)
            .load()
            .unwrap_or_else(|e| panic!("{when}: load: {e}"));
        let ours = our_view(&inventory);
        let theirs = ray_view(harness);
        if ours == theirs {
            return inventory;
        }
        if start.elapsed() > Duration::from_secs(15) {
            panic!(
                "{when}: the inventory differs from Ray's view after 15 s\nours:   {ours:?}\nRay's: {theirs:?}"
            );
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

// ---- Scenarios ------------------------------------------------------------------------

#[derive(Clone, Copy)]
struct Pool {
    slots: &'static [u32],
    accelerator: Accelerator,
    mcc: u32,
    accelerator_type: Option<&'static str>,
}

const fn gpu(slots: &'static [u32]) -> Pool {
    Pool {
        slots,
        accelerator: Accelerator::Gpu,
        mcc: 3,
        accelerator_type: None,
    }
}
const fn npu(slots: &'static [u32]) -> Pool {
    Pool {
        slots,
        accelerator: Accelerator::Npu,
        mcc: 3,
        accelerator_type: None,
    }
}
const fn mcc(pool: Pool, mcc: u32) -> Pool {
    Pool { mcc, ..pool }
}
const fn typed(pool: Pool, name: &'static str) -> Pool {
    Pool {
        accelerator_type: Some(name),
        ..pool
    }
}

type Hold = (&'static str, &'static [(&'static str, f64)]);

struct Scenario {
    name: &'static str,
    /// Resources held on a node before the pools (pinned with `node:<ip>`).
    holds: &'static [Hold],
    pools: &'static [Pool],
    /// What Ray does, when the notes or the design say it.
    expect_places: Option<bool>,
    /// Whether a placement exists, when known.
    expect_feasible: Option<bool>,
}

/// 127.0.0.3 as a 4 GPU / 16 CPU node.
const SMALL_B: Hold = ("127.0.0.3", &[("GPU", 4.0), ("CPU", 16.0)]);
/// 127.0.0.3 fully held (GPU and CPU).
const NO_B: Hold = ("127.0.0.3", &[("GPU", 8.0), ("CPU", 32.0)]);
/// 127.0.0.2 as an 8 GPU / 16 CPU node.
const A_16_CPU: Hold = ("127.0.0.2", &[("CPU", 16.0)]);

const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "notes: [4] then [8] on 8/32 + 4/16 hangs",
        holds: &[SMALL_B],
        pools: &[gpu(&[4]), gpu(&[8])],
        expect_places: Some(false),
        expect_feasible: Some(true),
    },
    Scenario {
        name: "notes: [8] then [4] on 8/32 + 4/16 places",
        holds: &[SMALL_B],
        pools: &[gpu(&[8]), gpu(&[4])],
        expect_places: Some(true),
        expect_feasible: Some(true),
    },
    Scenario {
        name: "notes: [4,4] then [8] on two 8/32 hangs though feasible",
        holds: &[],
        pools: &[gpu(&[4, 4]), gpu(&[8])],
        expect_places: Some(false),
        expect_feasible: Some(true),
    },
    Scenario {
        name: "notes: [8] at mcc 3 on 8 GPU/16 CPU never places",
        holds: &[NO_B, A_16_CPU],
        pools: &[gpu(&[8])],
        expect_places: Some(false),
        expect_feasible: Some(false),
    },
    Scenario {
        name: "[8] at mcc 2 on 8 GPU/16 CPU places",
        holds: &[NO_B, A_16_CPU],
        pools: &[mcc(gpu(&[8]), 2)],
        expect_places: Some(true),
        expect_feasible: Some(true),
    },
    Scenario {
        name: "[8] then [8,8] on two 8/32: the third 8 never fits",
        holds: &[],
        pools: &[gpu(&[8]), gpu(&[8, 8])],
        expect_places: Some(false),
        expect_feasible: Some(false),
    },
    Scenario {
        name: "[8,8] on two 8/32 places",
        holds: &[],
        pools: &[gpu(&[8, 8])],
        expect_places: Some(true),
        expect_feasible: Some(true),
    },
    Scenario {
        name: "[16] in one slot is infeasible",
        holds: &[],
        pools: &[gpu(&[16])],
        expect_places: Some(false),
        expect_feasible: Some(false),
    },
    Scenario {
        name: "NPU [8] places on the NPU node",
        holds: &[],
        pools: &[npu(&[8])],
        expect_places: Some(true),
        expect_feasible: Some(true),
    },
    Scenario {
        name: "NPU [4,4] share the NPU node",
        holds: &[],
        pools: &[npu(&[4, 4])],
        expect_places: Some(true),
        expect_feasible: Some(true),
    },
    Scenario {
        name: "NPU [8,8] needs a second NPU node",
        holds: &[],
        pools: &[npu(&[8, 8])],
        expect_places: Some(false),
        expect_feasible: Some(false),
    },
    Scenario {
        name: "GPU and NPU pools side by side",
        holds: &[],
        pools: &[gpu(&[8, 8]), npu(&[8])],
        expect_places: Some(true),
        expect_feasible: Some(true),
    },
    Scenario {
        name: "GPU [4] when every GPU is held: busy, only the NPU node is free",
        holds: &[
            ("127.0.0.2", &[("GPU", 8.0)]),
            ("127.0.0.3", &[("GPU", 8.0)]),
        ],
        pools: &[gpu(&[4])],
        expect_places: Some(false),
        expect_feasible: Some(false),
    },
    Scenario {
        name: "accelerator_type:H100 [8] goes to the H100 node",
        holds: &[],
        pools: &[typed(gpu(&[8]), "accelerator_type:H100")],
        expect_places: Some(true),
        expect_feasible: Some(true),
    },
    Scenario {
        name: "accelerator_type:H100 [4,4] share the H100 node",
        holds: &[],
        pools: &[typed(gpu(&[4, 4]), "accelerator_type:H100")],
        expect_places: Some(true),
        expect_feasible: Some(true),
    },
    Scenario {
        name: "accelerator_type:H100 [8] with the H100 node half held hangs",
        holds: &[SMALL_B],
        pools: &[typed(gpu(&[8]), "accelerator_type:H100")],
        expect_places: Some(false),
        expect_feasible: Some(false),
    },
    Scenario {
        name: "accelerator_type:A100 that no node declares",
        holds: &[],
        pools: &[typed(gpu(&[1]), "accelerator_type:A100")],
        expect_places: Some(false),
        expect_feasible: Some(false),
    },
    Scenario {
        name: "busy: a held 4 GPU/12 CPU group, [8] then [8] hangs",
        holds: &[("127.0.0.2", &[("GPU", 4.0), ("CPU", 12.0)])],
        pools: &[gpu(&[8]), gpu(&[8])],
        expect_places: Some(false),
        expect_feasible: Some(false),
    },
    Scenario {
        name: "busy: a held 4 GPU group, [4,4] then [4] places",
        holds: &[("127.0.0.2", &[("GPU", 4.0)])],
        pools: &[gpu(&[4, 4]), gpu(&[4])],
        expect_places: Some(true),
        expect_feasible: Some(true),
    },
    Scenario {
        name: "CPU exactly full: [8] at mcc 4 on 32 CPUs places",
        holds: &[NO_B],
        pools: &[mcc(gpu(&[8]), 4)],
        expect_places: Some(true),
        expect_feasible: Some(true),
    },
    Scenario {
        name: "CPU exhaustion: [8] at mcc 4 on 31 CPUs hangs",
        holds: &[NO_B, ("127.0.0.2", &[("CPU", 1.0)])],
        pools: &[mcc(gpu(&[8]), 4)],
        expect_places: Some(false),
        expect_feasible: Some(false),
    },
    Scenario {
        name: "CPU exhaustion: [8,8] at mcc 1 with 4 CPUs left on the head",
        holds: &[("127.0.0.2", &[("CPU", 28.0)])],
        pools: &[mcc(gpu(&[8, 8]), 1)],
        expect_places: Some(false),
        expect_feasible: Some(false),
    },
    Scenario {
        name: "spreading on 8/32 + 4/16: [2],[2],[4],[4] places",
        holds: &[SMALL_B],
        pools: &[gpu(&[2]), gpu(&[2]), gpu(&[4]), gpu(&[4])],
        expect_places: Some(true),
        expect_feasible: Some(true),
    },
    Scenario {
        name: "[6] then [6] then [4] on two 8/32 is infeasible",
        holds: &[],
        pools: &[gpu(&[6]), gpu(&[6]), gpu(&[4])],
        expect_places: Some(false),
        expect_feasible: Some(false),
    },
    Scenario {
        name: "[4,4] then [8] at mcc 1 still hangs",
        holds: &[],
        pools: &[mcc(gpu(&[4, 4]), 1), mcc(gpu(&[8]), 1)],
        expect_places: Some(false),
        expect_feasible: Some(true),
    },
    Scenario {
        name: "[8] then [4,4] on two 8/32 places",
        holds: &[],
        pools: &[gpu(&[8]), gpu(&[4, 4])],
        expect_places: Some(true),
        expect_feasible: Some(true),
    },
    Scenario {
        name: "[2,6] then [8] on two 8/32",
        holds: &[],
        pools: &[gpu(&[2, 6]), gpu(&[8])],
        expect_places: None,
        expect_feasible: Some(true),
    },
];

fn slots_of(pools: &[Pool]) -> Vec<NodeSlot> {
    let pools: Vec<ResourcePool> = pools
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let spec = PoolSpec {
                accelerator: p.accelerator,
                max_colocate_count: p.mcc,
                accelerator_type: p.accelerator_type.map(str::to_owned),
                ..PoolSpec::with_slots(p.slots)
            };
            ResourcePool::new(format!("pool{i}"), spec)
        })
        .collect();
    ResourcePoolManager::<RoleName>::new(pools, [])
        .expect("manager")
        .node_slots()
}

fn pools_json(pools: &[Pool]) -> Value {
    Value::Array(
        pools
            .iter()
            .enumerate()
            .map(|(i, p)| {
                json!({
                    "name": format!("pool{i}"),
                    "slots": p.slots,
                    "accelerator": p.accelerator.resource_name(),
                    "max_colocate_count": p.mcc,
                    "accelerator_type": p.accelerator_type,
                })
            })
            .collect(),
    )
}

fn holds_json(holds: &[Hold]) -> Value {
    Value::Array(
        holds
            .iter()
            .map(|(ip, resources)| {
                let resources: serde_json::Map<String, Value> = resources
                    .iter()
                    .map(|(n, a)| ((*n).to_owned(), json!(a)))
                    .collect();
                json!({"ip": ip, "resources": resources})
            })
            .collect(),
    )
}

/// Runs one scenario; returns a line of the verdict table.
fn run_scenario(url: &str, harness: &mut Harness, scenario: &Scenario) -> String {
    let name = scenario.name;
    if !scenario.holds.is_empty() {
        let held = harness.call(json!({"cmd": "hold", "holds": holds_json(scenario.holds)}));
        assert_eq!(held["ok"], json!(true), "{name}: holds: {held}");
    }
    // The inventory we check with, equal to Ray's view node by node.
    let inventory = converged_inventory(url, harness, &format!("{name}: before the pools"));
    for (ip, _) in scenario.holds {
        assert!(
            inventory.notes.iter().any(|n| matches!(n,
                InventoryNote::HeldByPlacementGroup { group, node, .. }
                    if group.name.starts_with("hold-") && node.address.as_deref() == Some(*ip))),
            "{name}: no note names the group held on {ip}: {:?}",
            inventory.notes
        );
    }

    let slots = slots_of(scenario.pools);
    let feasible =
        check_placement(&slots, &inventory.cluster, &PlacementOptions::default()).feasible();
    let sim = simulate(&slots, &inventory.cluster, &RaySimOptions::default());

    let outcome =
        harness.call(json!({"cmd": "pools", "pools": pools_json(scenario.pools), "wait_s": 2.5}));
    let ray_places = outcome["all_placed"] == json!(true);
    let ray_slots = outcome["slots"].as_array().cloned().unwrap_or_default();
    assert_eq!(ray_slots.len(), slots.len(), "{name}: {outcome}");

    // Our verdict against Ray's outcome.
    match sim.verdict {
        RayVerdict::Places => assert!(
            ray_places,
            "{name}: we said Ray places it, Ray did not: {outcome}"
        ),
        RayVerdict::Hangs => assert!(
            !ray_places,
            "{name}: we said Ray hangs, Ray placed it: {outcome}"
        ),
        RayVerdict::DependsOnTies => {}
        RayVerdict::Undecided => panic!("{name}: the simulation is undecided"),
    }
    if sim.verdict != RayVerdict::DependsOnTies {
        for (i, (fate, ray)) in sim.representative.groups.iter().zip(&ray_slots).enumerate() {
            let ours = match fate {
                GroupFate::Placed { .. } => "placed",
                GroupFate::Pending(_) => "pending",
                GroupFate::NotCreated { .. } => "not created",
            };
            let theirs = match (ray["attempted"].as_bool(), ray["placed"].as_bool()) {
                (Some(false), _) => "not created",
                (_, Some(true)) => "placed",
                _ => "pending",
            };
            assert_eq!(ours, theirs, "{name}: slot {i}: {outcome}");
            if let GroupFate::Placed { node } = fate {
                // The node, when no other node is the same over what the slot asks for.
                let ours_node = &inventory.cluster.nodes[*node];
                let same = |n: &resource_pool_core::Node| {
                    slots[i]
                        .demand
                        .iter()
                        .all(|(r, _)| n.available.get(r) == ours_node.available.get(r))
                };
                let twins = inventory.cluster.nodes.iter().filter(|n| same(n)).count();
                if twins == 1 && sim.branches == 1 && i == 0 {
                    assert_eq!(
                        ours_node.address.as_deref(),
                        ray["node_ip"].as_str(),
                        "{name}: slot {i}'s node"
                    );
                }
            }
        }
    }
    if ray_places {
        assert_eq!(
            feasible,
            Some(true),
            "{name}: Ray placed everything but we found it infeasible"
        );
    }
    if let Some(expected) = scenario.expect_places {
        assert_eq!(
            ray_places, expected,
            "{name}: Ray did not do what the notes say: {outcome}"
        );
    }
    if let Some(expected) = scenario.expect_feasible {
        assert_eq!(feasible, Some(expected), "{name}: feasible");
    }

    // With the groups in place: the inventory still equals Ray's view, and every pending
    // group is named.
    let after = converged_inventory(url, harness, &format!("{name}: with the groups"));
    for ray in &ray_slots {
        if ray["attempted"] == json!(true) && ray["placed"] == json!(false) {
            let group_name = ray["name"].as_str().unwrap_or_default();
            assert!(
                after.notes.iter().any(|n| matches!(n, InventoryNote::PendingPlacementGroup { group, .. } if group.name == group_name)),
                "{name}: pending group {group_name} is not named: {:?}",
                after.notes
            );
        }
    }

    let cleared = harness.call(json!({"cmd": "clear"}));
    assert_eq!(cleared["ok"], json!(true), "{name}: clear: {cleared}");
    format!(
        "{:<72} ray: {:<6} ours: {:<15} feasible: {:?}",
        name,
        if ray_places { "places" } else { "hangs" },
        sim.verdict.to_string(),
        feasible
    )
}

#[test]
#[ignore = "needs a Ray cluster: scripts/ray-tests.sh"]
fn live_cluster() {
    let url = live_url();
    let start = Instant::now();
    let mut harness = Harness::start();

    // 0. The dashboard says which Ray it runs, and it is one of the verified versions.
    let read = source(&url).load_with_version().expect("load");
    let version = read.version.expect("the dashboard answers /api/version");
    if let Some(expected) = expected_version() {
        assert_eq!(version.ray_version, expected);
    }
    assert!(read.unverified.is_none(), "{:?}", read.unverified);
    eprintln!("live_cluster: Ray {}", version.ray_version);

    // 1. Idle: the inventory equals Ray's view, node by node, with the declared shapes.
    let idle = converged_inventory(&url, &mut harness, "idle");
    let view = our_view(&idle);
    let gpu8 = |extra: &[(&str, u64)]| {
        let mut r: Resources = [("GPU", 8), ("CPU", 32)]
            .iter()
            .map(|&(n, a)| (n, Amount::from_whole(a).unwrap_or_default()))
            .collect();
        for &(n, a) in extra {
            r.set(n, Amount::from_whole(a).unwrap_or_default());
        }
        r
    };
    assert_eq!(view.get("127.0.0.2").map(|v| &v.0), Some(&gpu8(&[])));
    assert_eq!(
        view.get("127.0.0.3").map(|v| &v.0),
        Some(&gpu8(&[("accelerator_type:H100", 1), ("my_custom", 2)]))
    );
    let npu_node: Resources = [("NPU", 8), ("CPU", 32)]
        .iter()
        .map(|&(n, a)| (n, Amount::from_whole(a).unwrap_or_default()))
        .collect();
    assert_eq!(view.get("127.0.0.4").map(|v| &v.0), Some(&npu_node));
    let labels = idle
        .cluster
        .nodes
        .iter()
        .find(|n| n.address.as_deref() == Some("127.0.0.3"))
        .map(|n| n.labels.clone())
        .unwrap_or_default();
    assert_eq!(labels.get("zone").map(String::as_str), Some("z1"));
    assert!(idle.notes.is_empty(), "{:?}", idle.notes);

    // The command line against the live cluster: `check --ray`, `RAY_ADDRESS` as the
    // default, and `inventory --ray` writing a cluster file that reads back as the same
    // cluster.
    cli_against_the_live_cluster(&url, &idle);

    // 2. The scenarios.
    assert!(SCENARIOS.len() >= 20);
    let mut table = Vec::new();
    for scenario in SCENARIOS {
        let line = run_scenario(&url, &mut harness, scenario);
        eprintln!("{line}");
        table.push(line);
    }
    eprintln!(
        "{} scenarios agree with Ray in {:.1?}",
        table.len(),
        start.elapsed()
    );

    // 3. After everything was removed: idle again, node by node.
    let again = converged_inventory(&url, &mut harness, "after the scenarios");
    assert_eq!(our_view(&again), our_view(&idle));

    // 4. A node dies: reported dead, left out, and the config checks say what it means.
    cluster_sh(&["kill-node", "127.0.0.4"]);
    let deadline = Instant::now() + Duration::from_secs(30);
    let dead = loop {
        let inventory = source(&url).load().expect("load after the node died");
        let is_dead = inventory.notes.iter().any(|n| matches!(n, InventoryNote::DeadNode { node, .. } if node.address.as_deref() == Some("127.0.0.4")));
        if is_dead {
            break inventory;
        }
        assert!(
            Instant::now() < deadline,
            "127.0.0.4 is not reported dead after 30 s: {:?}",
            inventory.notes
        );
        std::thread::sleep(Duration::from_millis(500));
    };
    // The dead node stays in the cluster, not alive (the Inventory contract).
    assert!(
        dead.cluster
            .nodes
            .iter()
            .filter(|n| n.address.as_deref() == Some("127.0.0.4"))
            .all(|n| !n.alive)
    );
    assert_eq!(dead.cluster.alive().count(), 2);
    assert_eq!(
        ray_view(&mut harness).keys().cloned().collect::<Vec<_>>(),
        ["127.0.0.2", "127.0.0.3"]
    );
    let npu_notes = check_against_slots(&dead.cluster, &slots_of(&[npu(&[8])]));
    assert!(
        npu_notes.iter().any(
            |n| matches!(n, ClusterFinding::AcceleratorMismatch { wanted, .. } if wanted == "NPU")
        ),
        "{npu_notes:?}"
    );
    let three = check_against_slots(&dead.cluster, &slots_of(&[gpu(&[8, 8, 8])]));
    assert!(
        three.iter().any(|f| matches!(
            f,
            ClusterFinding::TooFewAliveNodes {
                alive: 2,
                needed: 3,
                dead: 1,
                listed_by,
                ..
            } if *listed_by == Default::default()
        )),
        "{three:?}"
    );
    drop(harness);

    // 5. The dashboard stops mid-run: a clear error within the budget. While the process
    // dies, a connection may still be accepted and then reset (`transport`); once it is
    // gone, nothing listens (`unreachable`). Every attempt must fail clearly and in time,
    // and `unreachable` must come within a few seconds.
    cluster_sh(&["kill-dashboard"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let t = Instant::now();
        let error = RaySource::new(&url)
            .expect("url")
            .with_timeout(Duration::from_secs(3))
            .load()
            .expect_err("dashboard down");
        assert!(t.elapsed() < Duration::from_secs(4), "{error}");
        let code = miette::Diagnostic::code(&error)
            .map(|c| c.to_string())
            .unwrap_or_default();
        if code == "resource_pool::ray::unreachable" {
            break;
        }
        assert_eq!(code, "resource_pool::ray::transport", "{error}");
        assert!(Instant::now() < deadline, "still not unreachable: {error}");
        std::thread::sleep(Duration::from_millis(200));
    }
    eprintln!("live_cluster: done in {:.1?}", start.elapsed());
}

#[test]
#[ignore = "needs a Ray cluster: scripts/ray-tests.sh"]
fn wrong_ports_fail_clearly_within_the_budget() {
    let url = live_url();
    // A port nothing listens on, next to the dashboard's.
    let port: u16 = url
        .rsplit(':')
        .next()
        .and_then(|p| p.trim_end_matches('/').parse().ok())
        .expect("port in the URL");
    let wrong = format!("http://127.0.0.1:{}", port.wrapping_add(7));
    let error = RaySource::new(&wrong)
        .expect("url")
        .load()
        .expect_err("wrong port");
    let code = miette::Diagnostic::code(&error)
        .map(|c| c.to_string())
        .unwrap_or_default();
    assert_eq!(code, "resource_pool::ray::unreachable", "{error}");

    // The GCS port: a gRPC server, not the dashboard.
    let gcs = format!("http://{}", gcs_address());
    let t = Instant::now();
    let error = RaySource::new(&gcs)
        .expect("url")
        .with_timeout(Duration::from_secs(3))
        .load()
        .expect_err("GCS port");
    let code = miette::Diagnostic::code(&error)
        .map(|c| c.to_string())
        .unwrap_or_default();
    assert!(code.starts_with("resource_pool::ray::"), "{code}: {error}");
    assert!(t.elapsed() < Duration::from_secs(4), "{:?}", t.elapsed());
    eprintln!("GCS port: {code}: {error}");
}

fn cli(args: &[&str], ray_address: Option<&str>) -> std::process::Output {
    let mut command = common::resource_pool();
    command.args(args);
    if let Some(address) = ray_address {
        command.env("RAY_ADDRESS", address);
    }
    command.output().expect("the binary runs")
}

fn cli_against_the_live_cluster(url: &str, idle: &Inventory) {
    let config = "examples/configs/large_pool_first.toml";
    for output in [
        cli(&["check", config, "--ray", url, "--format", "json"], None),
        cli(&["check", config, "--format", "json"], Some(url)),
    ] {
        assert_eq!(
            output.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let value: Value = serde_json::from_slice(&output.stdout).expect("JSON on stdout");
        assert_eq!(value["feasible"], true, "{value}");
        assert_eq!(value["ray"], "places", "{value}");
        if let Some(expected) = expected_version() {
            assert_eq!(value["ray_version"], expected.as_str(), "{value}");
        }
        assert_eq!(
            value["ray_placement"].as_array().map(Vec::len),
            Some(2),
            "{value}"
        );
    }
    let output = cli(&["inventory", "--ray", url], None);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    if let Some(expected) = expected_version() {
        assert!(
            text.starts_with(&format!("# read from a Ray {expected} dashboard\n")),
            "{text}"
        );
    }
    let source = resource_pool::source::SourceFile::new("inventory.toml", text.as_str());
    let loaded = resource_pool::inventory::cluster_file::load_cluster(&source, &Default::default());
    assert!(
        loaded.diagnostics.is_empty(),
        "{text}\n{:?}",
        loaded.diagnostics
    );
    assert_eq!(loaded.cluster.as_ref(), Some(&idle.cluster), "{text}");
}
