//! Fuzz target `config_toml`: see `resource_pool_core::fuzzing::config_toml` for what it asserts.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| resource_pool_core::fuzzing::config_toml(data));
