//! The tight packings of issue 20 through the exact check, at each budget given: prints
//! one line per instance and budget, and writes the instances as JSON for
//! `benches/packing_cpsat.py`, which runs OR-Tools CP-SAT on the same ones.
//!
//! `cargo bench -p resource-pool-benches --bench packing -- [--count 60] [--seed S]
//! [--budgets 1,10] [--instances FILE] [--results FILE]`
//!
//! Each result line of `--results` is JSON: `{"name", "budget_s", "verdict"
//! ("feasible" | "infeasible" | "undecided"), "decided_by", "seconds", "steps"}`. A
//! `feasible` verdict is replayed through `Witness::validate` here, so a wrong witness
//! fails the run instead of counting.

mod common;

use std::fmt::Write as _;
use std::fs;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use resource_pool_core::placement::{PlacementOptions, PlacementOutcome, check_placement};

use common::tight::{TIGHT_SEED, tight_sample};

struct Args {
    count: usize,
    seed: u64,
    budgets: Vec<f64>,
    instances: Option<String>,
    results: Option<String>,
    only: Option<usize>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        count: 60,
        seed: TIGHT_SEED,
        budgets: vec![1.0],
        instances: None,
        results: None,
        only: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--bench" => {}
            "--count" => args.count = value()?.parse().map_err(|e| format!("--count: {e}"))?,
            "--only" => args.only = Some(value()?.parse().map_err(|e| format!("--only: {e}"))?),
            "--seed" => {
                let v = value()?;
                let v = v.trim_start_matches("0x");
                args.seed = u64::from_str_radix(v, 16).map_err(|e| format!("--seed: {e}"))?;
            }
            "--budgets" => {
                args.budgets = value()?
                    .split(',')
                    .map(|b| b.parse::<f64>().map_err(|e| format!("--budgets: {e}")))
                    .collect::<Result<_, _>>()?;
            }
            "--instances" => args.instances = Some(value()?),
            "--results" => args.results = Some(value()?),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(args)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("packing: {e}");
            return ExitCode::FAILURE;
        }
    };
    let sample = tight_sample(args.seed, args.count);
    if let Some(path) = &args.instances {
        let body: Vec<String> = sample.iter().map(|t| t.to_json()).collect();
        if let Err(e) = fs::write(path, format!("[\n{}\n]\n", body.join(",\n"))) {
            eprintln!("packing: cannot write {path}: {e}");
            return ExitCode::FAILURE;
        }
    }
    let mut results = String::new();
    let mut bad = false;
    for &budget in &args.budgets {
        let options = PlacementOptions {
            // The time decides, not the steps.
            max_steps: u64::MAX,
            budget: Duration::from_secs_f64(budget),
            check_idle: false,
        };
        let (mut decided, mut total) = (0, 0.0);
        for (i, t) in sample.iter().enumerate() {
            if args.only.is_some_and(|o| o != i) {
                continue;
            }
            let slots = t.slots();
            let start = Instant::now();
            let report = check_placement(&slots, &t.cluster, &options);
            let seconds = start.elapsed().as_secs_f64();
            let verdict = match &report.outcome {
                PlacementOutcome::Feasible(w) => {
                    if let Err(e) = w.validate(&slots, &t.cluster) {
                        eprintln!("packing: {}: invalid witness: {e}", t.name);
                        bad = true;
                    }
                    "feasible"
                }
                PlacementOutcome::Infeasible(_) => "infeasible",
                PlacementOutcome::Undecided(_) => "undecided",
            };
            if verdict != "undecided" {
                decided += 1;
                total += seconds;
            }
            println!(
                "[packing/{}] budget={budget} nodes={} slots={} verdict={verdict} decided_by={:?} seconds={seconds:.4} steps={}",
                t.name,
                t.cluster.nodes.len(),
                slots.len(),
                report.stats.decided_by,
                report.stats.steps,
            );
            let _ = writeln!(
                results,
                "{{\"name\": \"{}\", \"budget_s\": {budget}, \"verdict\": \"{verdict}\", \"decided_by\": \"{:?}\", \"seconds\": {seconds:.6}, \"steps\": {}}}",
                t.name, report.stats.decided_by, report.stats.steps,
            );
        }
        println!(
            "[packing] budget={budget} decided={decided} of {} (decided ones took {total:.3} s in all)",
            sample.len()
        );
    }
    if let Some(path) = &args.results
        && let Err(e) = fs::write(path, results)
    {
        eprintln!("packing: cannot write {path}: {e}");
        return ExitCode::FAILURE;
    }
    if bad {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
