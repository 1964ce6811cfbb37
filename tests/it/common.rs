//! Running the `resource-pool` binary from integration tests, the same way everywhere: in
//! the package's directory, without colour, and with none of the variables it reads from
//! the environment (`RAY_ADDRESS`, every `RESOURCE_POOL_*`), so that the developer's shell
//! cannot change a test's outcome. Tests that are about those variables set them again.
//!
//! Each test file that uses this has `mod common;`; not every file uses every helper.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// The binary, with a clean environment (see the module docs).
pub fn resource_pool() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_resource-pool"));
    command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env_remove("RAY_ADDRESS")
        .env_remove("RAY_API_SERVER_ADDRESS");
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("RESOURCE_POOL_") {
            command.env_remove(name);
        }
    }
    command
}

/// Runs the binary with `args` and no input.
pub fn run(args: &[&str]) -> Output {
    resource_pool()
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

/// Runs the binary with `args`, writing `stdin` (or nothing) to its standard input.
pub fn run_with_stdin(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = resource_pool()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut input = child.stdin.take().expect("stdin");
    // A command that fails before it reads its input (a usage error) closes the pipe: what
    // it did not read is not the test's failure, its exit status and output say the rest.
    match input.write_all(stdin.unwrap_or("").as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other.expect("stdin written"),
    }
    drop(input);
    child.wait_with_output().expect("the binary ends")
}

/// What the binary printed on stdout, as JSON.
pub fn json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}
