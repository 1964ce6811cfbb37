//! The placement check and Ray's simulation on verl layouts at 100 to 100,000 nodes, and
//! on adversarial packings of 20 to 200 slots.
//!
//! `cargo bench -p resource-pool-benches --bench placement`

mod common;

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use resource_pool_core::model::{Cluster, NodeSlot};
use resource_pool_core::placement::{PlacementOptions, check_placement};
use resource_pool_core::ray_sim::{RaySimOptions, simulate};

use common::{SEED, SIZES};

/// Runs the check once outside the timing and prints what decided it, so the results
/// table can say whether the instance stayed within the budget.
fn describe(group: &str, id: &str, slots: &[NodeSlot], cluster: &Cluster) {
    let report = check_placement(slots, cluster, &PlacementOptions::default());
    eprintln!(
        "[{group}/{id}] nodes={} slots={} feasible={:?} decided_by={:?} steps={} classes={} types={}",
        cluster.nodes.len(),
        slots.len(),
        report.feasible(),
        report.stats.decided_by,
        report.stats.steps,
        report.stats.node_classes,
        report.stats.slot_types,
    );
}

fn bench_check(c: &mut Criterion, group: &str, cases: &[(String, Cluster, Vec<NodeSlot>)]) {
    let mut g = c.benchmark_group(group);
    let options = PlacementOptions::default();
    for (id, cluster, slots) in cases {
        describe(group, id, slots, cluster);
        g.bench_with_input(
            BenchmarkId::from_parameter(id),
            &(cluster, slots),
            |b, (cluster, slots)| {
                b.iter(|| check_placement(black_box(slots), black_box(cluster), &options));
            },
        );
    }
    g.finish();
}

fn placement(c: &mut Criterion) {
    let mut homogeneous = Vec::new();
    let mut heterogeneous = Vec::new();
    for n in SIZES {
        let cluster = common::homogeneous_cluster(n);
        homogeneous.push((
            format!("feasible/{n}"),
            cluster.clone(),
            common::verl_default(n, 0).slots(),
        ));
        homogeneous.push((
            format!("one_slot_over/{n}"),
            cluster,
            common::verl_default(n, 1).slots(),
        ));
        let cluster = common::heterogeneous_cluster(n, SEED ^ n as u64);
        heterogeneous.push((
            format!("feasible/{n}"),
            cluster.clone(),
            common::mixed(n).slots(),
        ));
        let fragmented = common::fragmented(n, &cluster).slots();
        heterogeneous.push((format!("fragmented/{n}"), cluster, fragmented));
    }
    bench_check(c, "placement/homogeneous", &homogeneous);
    bench_check(c, "placement/heterogeneous", &heterogeneous);
}

fn ray_sim(c: &mut Criterion) {
    let mut g = c.benchmark_group("ray_sim");
    let options = RaySimOptions::default();
    for n in SIZES {
        let homogeneous = common::homogeneous_cluster(n);
        let heterogeneous = common::heterogeneous_cluster(n, SEED ^ n as u64);
        let cases = [
            (
                "homogeneous",
                &homogeneous,
                common::verl_default(n, 0).slots(),
            ),
            ("ray_order", &homogeneous, common::ray_order_hang(n).slots()),
            ("heterogeneous", &heterogeneous, common::mixed(n).slots()),
        ];
        for (name, cluster, slots) in cases {
            let report = simulate(&slots, cluster, &options);
            eprintln!(
                "[ray_sim/{name}/{n}] slots={} verdict={} branches={} fix={}",
                slots.len(),
                report.verdict,
                report.branches,
                report.fix.is_some()
            );
            g.bench_with_input(
                BenchmarkId::new(name, n),
                &(cluster, &slots),
                |b, (cluster, slots)| {
                    b.iter(|| simulate(black_box(slots), black_box(cluster), &options));
                },
            );
        }
    }
    g.finish();
}

fn adversarial(c: &mut Criterion) {
    let cases: Vec<(String, Cluster, Vec<NodeSlot>)> = common::adversarial()
        .into_iter()
        .map(|a| {
            let slots = a.layout.slots();
            (a.name, a.cluster, slots)
        })
        .collect();
    bench_check(c, "adversarial", &cases);
}

fn config() -> Criterion {
    // Short by default; `scripts/bench` passes its own times on the command line.
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .configure_from_args()
}

criterion_group! {
    name = benches;
    config = config();
    targets = placement, ray_sim, adversarial
}
criterion_main!(benches);
