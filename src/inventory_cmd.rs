//! `resource-pool inventory (--ray URL | --cluster FILE | --slurm FILE | --local ...)`: the
//! cluster as a cluster file, TOML or JSON.

use resource_pool::inventory::cluster_file::{cluster_to_json, cluster_to_toml};

use super::cluster_input::{ClusterArgs, read_cluster};
use super::{Context, Outcome, print_human, to_stdout};
use resource_pool::report::Finding;

/// The format of the cluster file printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ClusterFileFormat {
    /// `[[nodes]]` tables.
    Toml,
    /// `{"nodes": [...]}`, one node a line.
    Json,
}

/// Arguments of `inventory`.
#[derive(Debug, clap::Args)]
pub struct InventoryArgs {
    #[command(flatten)]
    cluster: ClusterArgs,
    /// The cluster file's format: both read back with `--cluster` (JSON reads faster).
    #[arg(long, value_enum, default_value_t = ClusterFileFormat::Toml)]
    format: ClusterFileFormat,
}

/// Prints the cluster as a cluster file on stdout; what the source noticed goes to stderr.
pub fn run(args: &InventoryArgs, context: &Context) -> Outcome {
    match read_cluster(&args.cluster, context) {
        Err(findings) => {
            print_human(&findings, context);
            Outcome::Unreadable
        }
        Ok(input) => {
            let mut findings = input.findings;
            findings.extend(input.notes.into_iter().map(Finding::bare));
            print_human(&findings, context);
            to_stdout(&match args.format {
                ClusterFileFormat::Toml => cluster_to_toml(&input.cluster),
                ClusterFileFormat::Json => cluster_to_json(&input.cluster),
            });
            Outcome::Ok
        }
    }
}
