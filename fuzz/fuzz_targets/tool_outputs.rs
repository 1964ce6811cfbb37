//! Fuzz target `tool_outputs`: see `resource_pool_inventory::fuzzing::tool_outputs` for what it
//! asserts (Slurm, kubectl, nvidia-smi, npu-smi and /proc/meminfo outputs, and KubeRay
//! manifests).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| resource_pool_inventory::fuzzing::tool_outputs(data));
