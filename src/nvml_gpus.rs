//! The NVIDIA GPUs of this machine from NVML (`libnvidia-ml.so.1`, the library nvidia-smi
//! itself uses), loaded at run time with the `nvml-wrapper` crate.
//!
//! NVML is asked first; when it cannot answer (the library is not installed, the driver
//! is not loaded, a query fails) the caller runs `nvidia-smi`, which then says what is
//! wrong in its own words. The GPU memory is optional, as in nvidia-smi's `[N/A]`: drivers
//! older than the `_v2` memory query give none.

use std::ffi::OsString;

use nvml_wrapper::Nvml;
use resource_pool_core::inventory::local::NvidiaGpu;

/// The environment variable that names the NVML library to load in place of the
/// system's (`libnvidia-ml.so.1`); for tests and unusual installs.
pub const NVML_LIBRARY_VAR: &str = "RESOURCE_POOL_NVML_LIBRARY";

/// More GPUs than any machine has: a library that says so is not believed.
const MAX_GPUS: u32 = 4096;

/// Where NVML is loaded from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum NvmlLibrary {
    /// Not used: nvidia-smi alone.
    #[default]
    Off,
    /// The system's library, found by the dynamic loader.
    System,
    /// This file.
    Path(OsString),
}

impl NvmlLibrary {
    /// The library [`NVML_LIBRARY_VAR`] names, else the system's.
    pub fn from_env() -> NvmlLibrary {
        match std::env::var_os(NVML_LIBRARY_VAR) {
            Some(path) if !path.is_empty() => NvmlLibrary::Path(path),
            _ => NvmlLibrary::System,
        }
    }

    /// The GPUs NVML lists, in its index order; `None` when NVML cannot be used.
    pub fn gpus(&self) -> Option<Vec<NvidiaGpu>> {
        let nvml = match self {
            NvmlLibrary::Off => return None,
            NvmlLibrary::System => Nvml::init().ok()?,
            NvmlLibrary::Path(path) => Nvml::builder().lib_path(path).init().ok()?,
        };
        let count = nvml.device_count().ok().filter(|&n| n <= MAX_GPUS)?;
        let mut gpus = Vec::new();
        for index in 0..count {
            let device = nvml.device_by_index(index).ok()?;
            gpus.push(NvidiaGpu {
                index,
                name: device.name().ok()?,
                uuid: device.uuid().ok()?,
                memory_mib: device.memory_info().ok().map(|m| m.total / (1024 * 1024)),
            });
        }
        Some(gpus)
    }
}
