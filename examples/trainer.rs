//! A small trainer-like program: its roles and pools are types, the sizes come from a
//! TOML file, and the compiler has already checked that every role has a pool.
//!
//! ```text
//! cargo run --example trainer [-- path/to/pools.toml]
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

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
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/trainer_pools.toml"),
        PathBuf::from,
    );
    let pools = match Pools::from_toml_file(&path) {
        Ok(pools) => pools,
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
            "  {role:<8} -> {:<12} process_on_nodes = {:?}, {} per bundle",
            pool.name,
            pool.process_on_nodes(),
            pool.spec.bundle(),
        );
    }

    // NEXT: check the layout against a cluster file and print the placement plan, e.g.
    //
    //     let cluster = resource_pool::cluster_file::load(...)?;   // a cluster inventory
    //     let report = manager.check(&cluster);                     // placement + Ray's verdict
    //     println!("{report}");
    //
    // once the placement check (resource-pool-core/src/placement, ray_sim) lands.

    ExitCode::SUCCESS
}
