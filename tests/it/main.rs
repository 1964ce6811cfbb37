//! The command line's integration tests, as one test binary (one link instead of one per
//! file): each module was a file of its own under `tests/` and keeps its name, so
//! `cargo test --test it verl_cli::` runs what `--test verl_cli` ran.

// Not every module uses every helper.
#[allow(dead_code)]
mod common;

mod ci_formats;
mod cli;
mod cli_settings;
mod corpus_replay;
mod docs_examples;
mod hostile_input;
mod inventory_sources;
mod kubectl_inventory;
mod kuberay_inventory;
mod local_inventory;
mod node_names;
mod plan_picture;
mod pre_commit_hook;
mod ray_http;
mod ray_live;
mod schema;
mod suggest_cli;
mod verl_cli;
mod verl_corpus;
mod verl_python;
mod verl_versions;
