//! Fuzz target `cluster_json`: see `resource_pool_inventory::fuzzing::cluster_json` for what it asserts.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| resource_pool_inventory::fuzzing::cluster_json(data));
