//! The examples run and say what README says they say. `cargo test` builds examples
//! beside the test binaries, so they are run from there. The trainer draws its plan, so it
//! needs the `report` feature (on in a workspace build: the CLI turns it on).
#![cfg(feature = "report")]

use std::path::PathBuf;
use std::process::Command;

fn example(name: &str) -> PathBuf {
    let deps = std::env::current_exe().expect("test binary path");
    let dir = deps
        .parent()
        .and_then(|d| d.parent())
        .expect("target profile dir");
    dir.join("examples").join(name)
}

#[test]
fn the_trainer_loads_its_pools_checks_them_and_prints_the_plan() {
    let output = Command::new(example("trainer"))
        .output()
        .expect("cargo test builds the trainer example");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("critic         -> global_pool"), "{stdout}");
    // What `resource-pool check` prints: Ray's plan and the summary line.
    assert!(stdout.contains("Ray places it:"), "{stdout}");
    assert!(
        stdout.contains("check: placeable; Ray places (0 errors, 0 warnings)"),
        "{stdout}"
    );
    let node_c = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("node-c"))
        .unwrap_or_default();
    assert!(node_c.contains("GPU B0 B0 B0 B0 "), "{stdout}");
    assert!(node_c.ends_with("CPU 4/48"), "{stdout}");
}

#[test]
fn the_trainer_fails_on_a_cluster_that_cannot_hold_it() {
    let root = env!("CARGO_MANIFEST_DIR");
    let output = Command::new(example("trainer"))
        .arg(format!("{root}/../examples/trainer_pools.toml"))
        .arg(format!("{root}/../examples/clusters/cpu_starved.toml"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("resource_pool::placement::"), "{stderr}");
}
