//! `resource-pool inventory (--ray URL | --cluster FILE | --slurm FILE | --kubectl FILE |
//! --kuberay FILE | --local)`: the cluster as a cluster file, TOML (after a comment naming
//! the Ray version, for a live cluster) or JSON.

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
            let out = match args.format {
                ClusterFileFormat::Toml => {
                    let mut out = String::new();
                    if let Some(version) = &input.ray_version {
                        out.push_str(&format!("# read from a Ray {version} dashboard\n"));
                    }
                    out.push_str(&cluster_to_toml(&input.cluster));
                    out
                }
                // JSON has no comments, and a key for the version would not read back.
                ClusterFileFormat::Json => cluster_to_json(&input.cluster),
            };
            to_stdout(&out);
            Outcome::Ok
        }
    }
}
