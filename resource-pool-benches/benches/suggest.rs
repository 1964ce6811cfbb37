//! The cost of a suggestion against the check it follows, in the same process: for each
//! instance, the check's time, the suggestion's time (both answers), their ratio, and what
//! the search did. Prints one line per instance; fails if a suggestion is not found.
//!
//! `cargo bench -p resource-pool-benches --bench suggest`

use std::time::{Duration, Instant};

use resource_pool_core::check::suggest::{LayoutTerms, OverrideStyle, PoolChoice};
use resource_pool_core::check::suggest::{
    Reshape, SearchResult, SuggestOptions, Suggestions, suggest,
};
use resource_pool_core::check::{CheckOptions, CheckReport, NoSpans, SlotSpans, check};
use resource_pool_core::model::{
    Amount, Cluster, Node, PoolId, PoolSpec, ResourcePool, ResourcePoolManager, Resources, RoleName,
};
use resource_pool_core::source::Span;

/// Every pool splits, as verl's do; no overrides.
struct SplitAll;

impl SlotSpans for SplitAll {
    fn pool_span(&self, _: PoolId) -> Option<Span> {
        None
    }
    fn slot_span(&self, _: PoolId, _: usize) -> Option<Span> {
        None
    }
}

impl LayoutTerms for SplitAll {
    fn reshape(&self, _: PoolId) -> Reshape {
        Reshape::Split
    }
    fn reorderable(&self) -> bool {
        false
    }
    fn style(&self) -> OverrideStyle {
        OverrideStyle::None
    }
    fn overrides(&self, _: PoolId, _: &str, _: &PoolChoice, _: &[u32]) -> Vec<String> {
        Vec::new()
    }
}

fn res(gpu: u64, cpu: u64) -> Resources {
    Resources::new()
        .with("GPU", Amount::from_units(gpu * Amount::SCALE))
        .with("CPU", Amount::from_units(cpu * Amount::SCALE))
}

/// `nodes` nodes of 8 GPUs and 96 CPUs; every `busy_every`-th holds 4 GPUs and 12 CPUs.
fn cluster(nodes: usize, busy_every: usize) -> Cluster {
    Cluster::new(
        (0..nodes)
            .map(|i| {
                let busy = busy_every > 0 && i % busy_every == 0;
                let free = if busy { res(4, 84) } else { res(8, 96) };
                Node::new(format!("node-{i:06}"), free).with_total(res(8, 96))
            })
            .collect(),
    )
}

fn pools(specs: &[(&str, Vec<u32>)]) -> Vec<ResourcePool> {
    specs
        .iter()
        .map(|(name, slots)| ResourcePool::new(*name, PoolSpec::with_slots(slots.clone())))
        .collect()
}

fn time<T>(runs: u32, mut f: impl FnMut() -> T) -> (T, Duration) {
    let mut best = Duration::MAX;
    let mut out = None;
    for _ in 0..runs {
        let start = Instant::now();
        let value = f();
        best = best.min(start.elapsed());
        out = Some(value);
    }
    (out.expect("at least one run"), best)
}

fn describe(s: &Suggestions) -> String {
    s.answers
        .iter()
        .map(|a| {
            let what = match &a.result {
                SearchResult::Found(found) => format!("{} accelerators", found.accelerators),
                SearchResult::NoneFits => "none fits".to_owned(),
                SearchResult::Undecided { tried } => format!("UNDECIDED after {tried}"),
            };
            format!(
                "{}: {what} ({} generated, {} over free, {} infeasible, {} simulated, {} steps)",
                a.when,
                a.stats.generated,
                a.stats.over_free,
                a.stats.infeasible,
                a.stats.simulated,
                a.stats.steps
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn run(name: &str, pools: Vec<ResourcePool>, cluster: &Cluster, terms: &dyn LayoutTerms) {
    let manager = ResourcePoolManager::<RoleName>::new(pools, []).expect("valid");
    let options = CheckOptions::default();
    let runs = 3;
    let (report, check_time): (CheckReport, _) =
        time(runs, || check(&manager, cluster, &NoSpans, &options));
    assert!(!report.passes(), "{name}: the instance must fail");
    let (found, suggest_time) = time(runs, || {
        suggest(&report, cluster, terms, &SuggestOptions::within(&options))
    });
    println!(
        "{name}: check {:.2} ms, suggest {:.2} ms, ratio {:.2}; {}",
        check_time.as_secs_f64() * 1e3,
        suggest_time.as_secs_f64() * 1e3,
        suggest_time.as_secs_f64() / check_time.as_secs_f64(),
        describe(&found)
    );
    let decided = |s: &Suggestions| {
        s.answers
            .iter()
            .all(|a| matches!(a.result, SearchResult::Found(_)))
    };
    if !decided(&found) {
        // Undecided within the check's budget: how much it takes (one run).
        let generous = SuggestOptions {
            max_steps: u64::MAX,
            budget: Duration::from_secs(120),
            ..SuggestOptions::within(&options)
        };
        let (again, took) = time(1, || suggest(&report, cluster, terms, &generous));
        println!(
            "  with 120 s and no step limit: {:.0} ms; {}",
            took.as_secs_f64() * 1e3,
            describe(&again)
        );
        assert!(decided(&again), "{name}: undecided even then");
    }
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is read.
    for n in [100usize, 1_000, 10_000, 100_000] {
        let busy = cluster(n, 50);
        run(
            &format!("verl 8 × {n} on {n} nodes, 1 in 50 busy"),
            pools(&[("global_pool", vec![8; n])]),
            &busy,
            &SplitAll,
        );
        run(
            &format!("list [8; {n}] on {n} nodes, 1 in 50 busy (trim)"),
            pools(&[("global_pool", vec![8; n])]),
            &busy,
            &NoSpans,
        );
        let reward = (n / 10).max(1);
        run(
            &format!("verl 8 × {n} + reward 8 × {reward} on {n} nodes, 1 in 50 busy"),
            pools(&[
                ("global_pool", vec![8; n]),
                ("reward_pool", vec![8; reward]),
            ]),
            &busy,
            &SplitAll,
        );
    }
}
