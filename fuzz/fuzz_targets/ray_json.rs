//! Fuzz target `ray_json`: see `resource_pool_inventory::fuzzing::ray_json` for what it asserts.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| resource_pool_inventory::fuzzing::ray_json(data));
