//! Fuzz target `verl_launch`: see `resource_pool_verl::fuzzing::verl_launch` for what it asserts.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| resource_pool_verl::fuzzing::verl_launch(data));
