//! End to end, in process: read and parse a cluster file (`parse`) against the whole of
//! `resource-pool check` without its output (`check`: read, parse and lint the config,
//! read and parse the cluster, check). The files are written by the shared generators into
//! `target/bench-data` first.
//!
//! `cargo bench -p resource-pool-core --bench end_to_end`

mod common;

use std::fs;
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use resource_pool_core::check::{CheckOptions, check};
use resource_pool_core::cluster_file::{ClusterLimits, LoadedCluster, load_cluster};
use resource_pool_core::lint::LintOptions;
use resource_pool_core::load::load_config;
use resource_pool_core::source::SourceFile;

use common::SIZES;

fn parse_cluster(path: &Path) -> LoadedCluster {
    let text = fs::read_to_string(path).expect("bench data is written first");
    let source = SourceFile::new(path.display().to_string(), text);
    load_cluster(&source, &ClusterLimits::default())
}

/// What `resource-pool check CONFIG --cluster CLUSTER` computes; `Some(feasible)`.
fn check_files(config: &Path, cluster: &Path) -> Option<bool> {
    let text = fs::read_to_string(config).expect("bench data is written first");
    let source = SourceFile::new(config.display().to_string(), text);
    let loaded = load_config(&source, &LintOptions::default());
    let manager = loaded.manager.as_ref()?;
    let cluster = parse_cluster(cluster).cluster?;
    check(manager, &cluster, &loaded, &CheckOptions::default()).feasible()
}

fn end_to_end(c: &mut Criterion) {
    let dir = common::data_dir();
    common::write_data(&dir).expect("cannot write the bench data");
    let mut g = c.benchmark_group("end_to_end");
    for n in SIZES {
        for kind in ["homogeneous", "heterogeneous"] {
            let cluster = dir.join(format!("{kind}-{n}.cluster.toml"));
            let config = dir.join(format!("{kind}-feasible-{n}.config.toml"));
            assert_eq!(
                check_files(&config, &cluster),
                Some(true),
                "{kind} at {n} nodes"
            );
            g.bench_with_input(
                BenchmarkId::new(format!("parse/{kind}"), n),
                &cluster,
                |b, cluster| {
                    b.iter(|| parse_cluster(black_box(cluster)));
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
