//! The `resource-pool` command.

fn main() -> std::process::ExitCode {
    resource_pool_cli::run()
}
