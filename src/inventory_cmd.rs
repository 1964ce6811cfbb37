//! `resource-pool inventory (--ray URL | --cluster FILE | --slurm FILE | --kubectl FILE |
//! --kuberay FILE | --local)`: the cluster as cluster TOML (after a comment naming the Ray
//! version, for a live cluster).

use resource_pool::cluster_file::cluster_to_toml;

use super::cluster_input::{ClusterArgs, read_cluster};
use super::{Context, Outcome, print_human, to_stdout};
use resource_pool::report::Finding;

/// Arguments of `inventory`.
#[derive(Debug, clap::Args)]
pub struct InventoryArgs {
    #[command(flatten)]
    cluster: ClusterArgs,
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
            let mut out = String::new();
            if let Some(version) = &input.ray_version {
                out.push_str(&format!("# read from a Ray {version} dashboard\n"));
            }
            out.push_str(&cluster_to_toml(&input.cluster));
            to_stdout(&out);
            Outcome::Ok
        }
    }
}
