//! Replays every fuzz corpus file that is committed (fuzz/seeds/TARGET/ and the crash
//! reproducers in fuzz/regressions/TARGET/) through the same checks as the fuzz targets,
//! so that `cargo test` guards what fuzzing found, on any toolchain.

use std::fs;
use std::path::{Path, PathBuf};

use arbitrary::{Arbitrary, Unstructured};
use resource_pool_core::fuzzing;
use resource_pool_inventory::fuzzing as inventory;
use resource_pool_verl::fuzzing as verl;

#[path = "../../fuzz/input/placement_input.rs"]
#[allow(dead_code)]
mod placement_input;

/// A fuzz target's body.
type Target = fn(&[u8]);

/// The fuzz targets, by directory name, and their bodies.
const TARGETS: &[(&str, Target)] = &[
    ("config_toml", fuzzing::config_toml),
    ("cluster_toml", inventory::cluster_toml),
    ("cluster_json", inventory::cluster_json),
    ("ray_json", inventory::ray_json),
    ("placement", placement),
    ("verl_launch", verl::verl_launch),
    ("tool_outputs", inventory::tool_outputs),
];

/// As libfuzzer-sys decodes a structured input: the whole input, rejected when too short.
fn placement(bytes: &[u8]) {
    if let Ok(input) =
        placement_input::PlacementInput::arbitrary_take_rest(Unstructured::new(bytes))
    {
        fuzzing::placement(&input.to_case());
    }
}

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

/// The files of `fuzz/KIND/TARGET/`, sorted; none when the directory does not exist.
fn files(kind: &str, target: &str) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(fuzz_dir().join(kind).join(target)) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("a readable directory entry").path())
        .collect();
    files.retain(|p| p.is_file());
    files.sort();
    files
}

/// Runs every file of one kind; the names of those that panic.
fn replay(kind: &str) -> Vec<String> {
    let mut failed = Vec::new();
    for (target, run) in TARGETS {
        for path in files(kind, target) {
            let bytes = fs::read(&path).expect("a readable corpus file");
            if std::panic::catch_unwind(|| run(&bytes)).is_err() {
                failed.push(path.display().to_string());
            }
        }
    }
    failed
}

#[test]
fn every_seed_passes_the_fuzz_checks() {
    let failed = replay("seeds");
    assert!(
        failed.is_empty(),
        "seeds that fail the fuzz checks: {failed:#?}"
    );
    // The seeds come from examples/ and tests/data (scripts/fuzz-seeds): every target has some.
    for (target, _) in TARGETS {
        assert!(
            !files("seeds", target).is_empty(),
            "fuzz/seeds/{target}/ is empty"
        );
    }
}

#[test]
fn every_regression_passes_the_fuzz_checks() {
    let failed = replay("regressions");
    assert!(
        failed.is_empty(),
        "crash reproducers that fail again: {failed:#?}"
    );
}

#[test]
fn no_directory_of_an_unknown_target() {
    for kind in ["seeds", "regressions"] {
        let Ok(entries) = fs::read_dir(fuzz_dir().join(kind)) else {
            continue;
        };
        for entry in entries {
            let name = entry.expect("a readable directory entry").file_name();
            let name = name.to_string_lossy();
            assert!(
                TARGETS.iter().any(|(t, _)| *t == name),
                "fuzz/{kind}/{name}/ is not a fuzz target: its files would never be replayed"
            );
        }
    }
}
