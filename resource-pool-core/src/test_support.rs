//! Helpers shared by the unit tests of the placement check and the Ray simulation.

use crate::model::{Amount, Node, Resources};

/// A whole number of resource units.
pub(crate) fn whole(n: u64) -> Amount {
    Amount::from_units(n * Amount::SCALE)
}

/// `{GPU: gpu, CPU: cpu}`.
pub(crate) fn res(gpu: u64, cpu: u64) -> Resources {
    Resources::new()
        .with("GPU", whole(gpu))
        .with("CPU", whole(cpu))
}

/// An alive node with `gpu` GPUs and `cpu` CPUs free.
pub(crate) fn node(id: &str, gpu: u64, cpu: u64) -> Node {
    Node::new(id, res(gpu, cpu))
}
