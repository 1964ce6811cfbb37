//! The `resource-pool` command.
#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    resource_pool_cli::run()
}
