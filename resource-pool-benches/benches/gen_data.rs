//! Writes the end-to-end scenarios (cluster and config TOML files and `manifest.json`)
//! into `target/bench-data`, or the directory given as the first argument. Prints the
//! manifest's path.
//!
//! `cargo bench -p resource-pool-benches --bench gen_data [-- DIR]`

mod common;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    // `cargo bench` passes `--bench`; the first other argument is the directory.
    let dir = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .map_or_else(common::data_dir, PathBuf::from);
    match common::write_data(&dir) {
        Ok(manifest) => {
            println!("{}", manifest.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("gen_data: cannot write {}: {e}", dir.display());
            ExitCode::FAILURE
        }
    }
}
