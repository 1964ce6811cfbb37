//! End to end, in process: read and parse a cluster file, TOML (`parse`) and JSON
//! (`parse_json`), against the whole of `resource-pool check` without its output (`check`:
//! read, parse and lint the config, read and parse the cluster, check); and a live Ray
//! cluster's three dashboard answers (`ray/parse`: parsed and joined into an inventory;
//! `ray/check`: that, then the check of verl's default layout on the idle nodes). The files
//! are written by the shared generators into `target/bench-data` first.
//!
//! `cargo bench -p resource-pool-benches --bench end_to_end`

mod common;

use std::fs;
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use resource_pool_core::check::{CheckOptions, check};
use resource_pool_core::lint::LintOptions;
use resource_pool_core::load::{LoadedConfig, load_config};
use resource_pool_core::source::SourceFile;
use resource_pool_inventory::Inventory;
use resource_pool_inventory::cluster_file::{ClusterLimits, LoadedCluster, load_cluster};
use resource_pool_inventory::ray_json::parse_inventory;

use common::{RAY_SIZES, SIZES};

fn parse_cluster(path: &Path) -> LoadedCluster {
    let text = fs::read_to_string(path).expect("bench data is written first");
    let source = SourceFile::new(path.display().to_string(), text);
    load_cluster(&source, &ClusterLimits::default())
}

fn read_config(path: &Path) -> LoadedConfig {
    let text = fs::read_to_string(path).expect("bench data is written first");
    let source = SourceFile::new(path.display().to_string(), text);
    load_config(&source, &LintOptions::default())
}

/// What `resource-pool check CONFIG --cluster CLUSTER` computes; `Some(feasible)`.
fn check_files(config: &Path, cluster: &Path) -> Option<bool> {
    let loaded = read_config(config);
    let manager = loaded.manager.as_ref()?;
    let cluster = parse_cluster(cluster).cluster?;
    check(manager, &cluster, &loaded, &CheckOptions::default()).feasible()
}

/// The three answers of a dashboard, as `scripts/bench` serves them.
struct RayAnswers {
    nodes: Vec<u8>,
    cluster_status: Vec<u8>,
    placement_groups: Vec<u8>,
}

impl RayAnswers {
    fn read(dir: &Path) -> RayAnswers {
        let read = |path: &str| fs::read(dir.join(path)).expect("bench data is written first");
        RayAnswers {
            nodes: read("api/v0/nodes"),
            cluster_status: read("api/cluster_status"),
            placement_groups: read("api/v0/placement_groups"),
        }
    }

    fn inventory(&self) -> Inventory {
        parse_inventory(&self.nodes, &self.cluster_status, &self.placement_groups)
            .expect("the generated answers parse")
    }
}

/// What `resource-pool check CONFIG --ray URL` computes once the answers are in.
fn check_ray(config: &Path, answers: &RayAnswers) -> Option<bool> {
    let loaded = read_config(config);
    let manager = loaded.manager.as_ref()?;
    let cluster = answers.inventory().cluster;
    check(manager, &cluster, &loaded, &CheckOptions::default()).feasible()
}

fn end_to_end(c: &mut Criterion) {
    let dir = common::data_dir();
    common::write_data(&dir).expect("cannot write the bench data");
    let mut g = c.benchmark_group("end_to_end");
    for n in SIZES {
        for kind in ["homogeneous", "heterogeneous"] {
            let cluster = dir.join(format!("{kind}-{n}.cluster.toml"));
            let json = dir.join(format!("{kind}-{n}.cluster.json"));
            let config = dir.join(format!("{kind}-feasible-{n}.config.toml"));
            assert_eq!(
                check_files(&config, &cluster),
                Some(true),
                "{kind} at {n} nodes"
            );
            assert_eq!(
                parse_cluster(&json).cluster,
                parse_cluster(&cluster).cluster,
                "{kind} at {n} nodes: JSON and TOML"
            );
            g.bench_with_input(
                BenchmarkId::new(format!("parse/{kind}"), n),
                &cluster,
                |b, cluster| {
                    b.iter(|| parse_cluster(black_box(cluster)));
                },
            );
            g.bench_with_input(
                BenchmarkId::new(format!("parse_json/{kind}"), n),
                &json,
                |b, json| {
                    b.iter(|| parse_cluster(black_box(json)));
                },
            );
            g.bench_with_input(
                BenchmarkId::new(format!("check/{kind}"), n),
                &(&config, &cluster),
                |b, (config, cluster)| {
                    b.iter(|| check_files(black_box(config), black_box(cluster)))
                },
            );
        }
    }
    for (nodes, _, _) in RAY_SIZES {
        let ray = dir.join(format!("ray-{nodes}"));
        let answers = RayAnswers::read(&ray);
        let config = ray.join("config.toml");
        assert_eq!(check_ray(&config, &answers), Some(true), "ray at {nodes}");
        g.bench_with_input(BenchmarkId::new("ray/parse", nodes), &answers, |b, a| {
            b.iter(|| black_box(a).inventory());
        });
        g.bench_with_input(
            BenchmarkId::new("ray/check", nodes),
            &(&config, &answers),
            |b, (config, answers)| b.iter(|| check_ray(black_box(config), black_box(answers))),
        );
    }
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .configure_from_args()
}

criterion_group! {
    name = benches;
    config = config();
    targets = end_to_end
}
criterion_main!(benches);
