//! `resource-pool check CONFIG --cluster CLUSTER.toml`

/// Arguments of `check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {}

/// Checks a config against a cluster.
pub fn run(_args: &CheckArgs, _context: &super::Context) -> super::Outcome {
    super::Outcome::Unreadable
}
