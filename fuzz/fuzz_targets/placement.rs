//! Fuzz target `placement`: structured instances through the placement check and Ray's
//! simulation; see `resource_pool_core::fuzzing::placement` for what it asserts.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../input/placement_input.rs"]
mod placement_input;

fuzz_target!(|input: placement_input::PlacementInput| {
    resource_pool_core::fuzzing::placement(&input.to_case());
});
