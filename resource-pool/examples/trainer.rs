//! A small trainer-like program: its roles and pools are types, the sizes come from a
//! TOML file, and the compiler has already checked that every role has a pool.
//!
//! ```text
//! cargo run -p resource-pool --features report --example trainer [-- path/to/pools.toml [path/to/cluster.toml]]
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use resource_pool::check::CheckOptions;
use resource_pool::inventory::{FileSource, InventorySource};
use resource_pool::report::CheckRun;
use resource_pool::{PoolSpec, ResourcePools, Role};

/// The parts of this trainer.
#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[role(rename_all = "snake_case")]
enum TrainerRole {
    ActorRollout,
    Critic,
    #[role(rename = "ref")]
    RefPolicy,
    #[role(rename = "rm")]
    RewardModel,
}

/// Where they run, in the order the pools are created. Leaving a role out, or listing one
/// twice, does not compile.
#[derive(ResourcePools, Debug)]
#[resource_pools(role = TrainerRole)]
struct Pools {
    #[pool(roles(ActorRollout, Critic, RefPolicy))]
    global_pool: PoolSpec,
    #[pool(roles(RewardModel), max_colocate_count = 1)]
    reward_pool: PoolSpec,
}

fn main() -> ExitCode {
    let path = std::env::args_os().nth(1).map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/trainer_pools.toml"),
        PathBuf::from,
    );
    let pools = match Pools::from_toml_file_with_warnings(&path) {
        Ok((pools, warnings)) => {
            if !warnings.is_empty() {
                eprintln!("{:?}", miette::Report::new(warnings));
            }
            pools
        }
        Err(err) => {
            // Spanned diagnostics, pointing into the file.
            eprintln!("{:?}", miette::Report::new(err));
            return ExitCode::FAILURE;
        }
    };
    let manager = pools.into_manager();

    println!("pools of {}:", path.display());
    for role in TrainerRole::ALL {
        // Cannot fail: every role has a pool.
        let pool = manager.get_resource_pool(*role);
        println!(
            "  {role:<14} -> {:<12} process_on_nodes = {:?}, {} per bundle",
            pool.name,
            pool.process_on_nodes(),
            pool.spec.bundle(),
        );
    }

    // Before creating any placement group: can this cluster hold the layout, and will Ray
    // place it in the order verl creates it?
    let cluster_path = std::env::args_os().nth(2).map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/clusters/three_nodes.toml"),
        PathBuf::from,
    );
    let cluster = match FileSource::new(&cluster_path).load() {
        Ok(inventory) => inventory.cluster,
        Err(err) => {
            eprintln!("{err}");
            return ExitCode::FAILURE;
        }
    };
    // The CLI's whole check (the cluster's findings, placement, Ray's order, a suggested
    // layout when it does not fit), printed as `resource-pool check` prints it.
    let run = CheckRun::check_manager(&manager, cluster, &CheckOptions::default());
    let printed = run.human(false);
    eprint!("{}", printed.diagnostics);
    print!("{}{}", printed.plan, printed.summary);
    if !run.passes() {
        return ExitCode::FAILURE;
    }

    ExitCode::SUCCESS
}
