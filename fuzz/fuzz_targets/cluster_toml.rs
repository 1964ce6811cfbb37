//! Fuzz target `cluster_toml`: see `resource_pool_inventory::fuzzing::cluster_toml` for what it asserts.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| resource_pool_inventory::fuzzing::cluster_toml(data));
