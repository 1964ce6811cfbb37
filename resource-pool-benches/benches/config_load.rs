//! Loading a config in process, as `resource-pool lint` and `check` do: parse, lint and
//! build (`load_config_with`, no overrides, then with one `--set` override), on the
//! generated configs of the end-to-end scenarios: the 100,000-slot homogeneous one (a 300 KB
//! `process_on_nodes`), the heterogeneous one (several pools, 30 KB) and a two-slot one.
//! The files are written by `gen_data` into `target/bench-data` first.
//!
//! `cargo bench -p resource-pool-benches --bench config_load`

mod common;

use std::fs;
use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use resource_pool_core::lint::LintOptions;
use resource_pool_core::load::load_config_with;
use resource_pool_core::source::SourceFile;

const FILES: [&str; 3] = [
    "homogeneous-feasible-100000.config.toml",
    "heterogeneous-feasible-100000.config.toml",
    "two-slots.config.toml",
];

fn load(c: &mut Criterion) {
    let mut group = c.benchmark_group("config_load");
    let options = LintOptions::default();
    for name in FILES {
        let path = common::data_dir().join(name);
        let text = fs::read_to_string(&path).expect("bench data is written first (gen_data)");
        let source = SourceFile::new(name, text);
        group.bench_with_input(BenchmarkId::new("file", name), &source, |b, source| {
            b.iter(|| {
                let loaded = load_config_with(source, &[], &options).expect("no overrides");
                assert!(loaded.manager.is_some(), "{name} loads");
                black_box(loaded)
            });
        });
        let overrides = vec!["mapping.critic = \"global_pool\"".to_owned()];
        group.bench_with_input(BenchmarkId::new("with_set", name), &source, |b, source| {
            b.iter(|| black_box(load_config_with(source, &overrides, &options)));
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = load
}
criterion_main!(benches);
