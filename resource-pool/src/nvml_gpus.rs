//! The NVIDIA GPUs of this machine from NVML (`libnvidia-ml.so.1`, the library nvidia-smi
//! itself uses), loaded at run time with the `nvml-wrapper` crate.
//!
//! NVML is asked first; when it cannot answer (the library is not installed, the driver
//! is not loaded, a query fails, no answer within [`NVML_TIMEOUT`]) the caller runs
//! `nvidia-smi`, which then says what is wrong in its own words. The GPU memory is optional, as in nvidia-smi's `[N/A]`: drivers
//! older than the `_v2` memory query give none.

use std::ffi::OsString;
use std::sync::mpsc;
use std::time::Duration;

use nvml_wrapper::Nvml;
use resource_pool_inventory::local::NvidiaGpu;

/// The environment variable that names the NVML library to load in place of the
/// system's (`libnvidia-ml.so.1`); for tests and unusual installs.
pub const NVML_LIBRARY_VAR: &str = "RESOURCE_POOL_NVML_LIBRARY";

/// How long `--local` waits for NVML, as long as it waits for a tool.
pub const NVML_TIMEOUT: Duration = Duration::from_secs(10);

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

    /// The GPUs NVML lists, in its index order; `None` when NVML cannot be used, or does
    /// not answer within `timeout` (a wedged driver can block a call forever: the call is
    /// then left on its own thread, and the caller goes on without it).
    pub fn gpus_within(&self, timeout: Duration) -> Option<Vec<NvidiaGpu>> {
        if *self == NvmlLibrary::Off {
            return None;
        }
        let (sender, receiver) = mpsc::channel();
        let library = self.clone();
        std::thread::Builder::new()
            .name("nvml".into())
            .spawn(move || {
                let _ = sender.send(library.gpus());
            })
            .ok()?;
        receiver.recv_timeout(timeout).ok().flatten()
    }

    /// The GPUs NVML lists, in its index order; `None` when NVML cannot be used. Blocks
    /// as long as NVML does: [`gpus_within`](Self::gpus_within) bounds the wait.
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
