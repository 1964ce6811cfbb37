//! A resource pool: the node-slots verl turns into Ray placement groups.

use std::fmt;
use std::str::FromStr;

use super::resources::{Amount, Resources, names};

/// verl's default `max_colocate_count`: CPUs per bundle, one per colocated worker process.
pub const DEFAULT_MAX_COLOCATE_COUNT: u32 = 3;

/// The accelerator a pool asks for, by its Ray resource name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Accelerator {
    /// `GPU` (CUDA or ROCm devices).
    #[default]
    Gpu,
    /// `NPU` (Ascend devices).
    Npu,
}

impl Accelerator {
    /// Every accelerator, in the order they are listed to users.
    pub const ALL: [Accelerator; 2] = [Accelerator::Gpu, Accelerator::Npu];

    /// The Ray resource name: `GPU` or `NPU`.
    pub const fn resource_name(self) -> &'static str {
        match self {
            Accelerator::Gpu => names::GPU,
            Accelerator::Npu => names::NPU,
        }
    }
}

impl fmt::Display for Accelerator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.resource_name())
    }
}

/// The name is neither `GPU` nor `NPU`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown accelerator `{0}` (expected `GPU` or `NPU`)")]
pub struct UnknownAccelerator(pub String);

impl FromStr for Accelerator {
    type Err = UnknownAccelerator;

    fn from_str(s: &str) -> Result<Accelerator, UnknownAccelerator> {
        match s {
            "GPU" => Ok(Accelerator::Gpu),
            "NPU" => Ok(Accelerator::Npu),
            other => Err(UnknownAccelerator(other.to_owned())),
        }
    }
}

/// What one pool asks for: its node-slots and the shape of each bundle.
///
/// A node-slot of `n` is one Ray placement group, strategy `STRICT_PACK`, of `n` bundles,
/// each `{CPU: max_colocate_count, <accelerator>: 1, <accelerator_type>: 0.0001, ...
/// bundle_resources}`. Slots, also of one pool, may share a node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PoolSpec {
    /// Accelerators (bundles) per node-slot, in the order Ray sees them.
    pub process_on_nodes: Vec<u32>,
    /// `GPU` or `NPU`.
    pub accelerator: Accelerator,
    /// CPUs per bundle: verl gives each colocated worker process one CPU.
    pub max_colocate_count: u32,
    /// A custom Ray resource name (such as `accelerator_type:H100`) that every bundle
    /// requests `0.0001` of, as verl does.
    pub accelerator_type: Option<String>,
    /// More custom resources per bundle.
    pub bundle_resources: Resources,
}

impl Default for PoolSpec {
    fn default() -> PoolSpec {
        PoolSpec {
            process_on_nodes: Vec::new(),
            accelerator: Accelerator::Gpu,
            max_colocate_count: DEFAULT_MAX_COLOCATE_COUNT,
            accelerator_type: None,
            bundle_resources: Resources::new(),
        }
    }
}

/// A pool whose resources overflow Ray's fixed point.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the resources of one node-slot overflow Ray's fixed point")]
pub struct DemandOverflow;

impl PoolSpec {
    /// A pool of these node-slots with verl's defaults otherwise.
    pub fn with_slots(process_on_nodes: impl Into<Vec<u32>>) -> PoolSpec {
        PoolSpec {
            process_on_nodes: process_on_nodes.into(),
            ..PoolSpec::default()
        }
    }

    /// The resources of one bundle.
    pub fn bundle(&self) -> Resources {
        let mut bundle = self.bundle_resources.clone();
        // Saturation cannot bite: u32 counts times SCALE stay far below u64::MAX, and
        // bundle_resources were validated when they were read.
        let cpu = Amount::from_whole(u64::from(self.max_colocate_count)).unwrap_or(Amount::ZERO);
        bundle.set(names::CPU, bundle.get(names::CPU).saturating_add(cpu));
        let acc = self.accelerator.resource_name();
        bundle.set(
            acc,
            bundle
                .get(acc)
                .saturating_add(Amount::from_units(Amount::SCALE)),
        );
        if let Some(kind) = &self.accelerator_type {
            bundle.set(
                kind.clone(),
                bundle.get(kind).saturating_add(Amount::EPSILON),
            );
        }
        bundle
    }

    /// The summed resources of a node-slot of `bundles` bundles: what one STRICT_PACK
    /// group needs free on a single node.
    pub fn slot_demand(&self, bundles: u32) -> Result<Resources, DemandOverflow> {
        self.bundle()
            .checked_mul(u64::from(bundles))
            .ok_or(DemandOverflow)
    }

    /// Accelerators over every node-slot.
    pub fn total_accelerators(&self) -> u64 {
        self.process_on_nodes.iter().map(|&n| u64::from(n)).sum()
    }

    /// Whether every node-slot has the same size, as verl's workers assume (they take
    /// `process_on_nodes[0]` as the local world size).
    pub fn is_even(&self) -> bool {
        self.process_on_nodes.windows(2).all(|w| w[0] == w[1])
    }
}

/// A named pool.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ResourcePool {
    /// The pool's name (`global_pool`).
    pub name: String,
    /// What it asks for.
    pub spec: PoolSpec,
}

impl ResourcePool {
    /// A named pool.
    pub fn new(name: impl Into<String>, spec: PoolSpec) -> ResourcePool {
        ResourcePool {
            name: name.into(),
            spec,
        }
    }

    /// The pool's node-slots.
    pub fn process_on_nodes(&self) -> &[u32] {
        &self.spec.process_on_nodes
    }

    /// verl's `world_size`: accelerators over every node-slot.
    pub fn world_size(&self) -> u64 {
        self.spec.total_accelerators()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundles_follow_verl() {
        let spec = PoolSpec {
            accelerator_type: Some("accelerator_type:H100".into()),
            ..PoolSpec::with_slots([8, 8])
        };
        let bundle = spec.bundle();
        assert_eq!(bundle.get("CPU"), Amount::from_units(30_000));
        assert_eq!(bundle.get("GPU"), Amount::from_units(10_000));
        assert_eq!(bundle.get("accelerator_type:H100"), Amount::EPSILON);
        let slot = spec.slot_demand(8).unwrap();
        assert_eq!(
            slot.to_string(),
            "{CPU: 24, GPU: 8, accelerator_type:H100: 0.0008}"
        );
        assert_eq!(spec.total_accelerators(), 16);
        assert!(spec.is_even());
        assert!(!PoolSpec::with_slots([8, 4]).is_even());
    }

    #[test]
    fn npu_pools_ask_for_npus() {
        let spec = PoolSpec {
            accelerator: Accelerator::Npu,
            ..PoolSpec::with_slots([2])
        };
        let slot = spec.slot_demand(2).unwrap();
        assert_eq!(slot.get("NPU"), Amount::from_units(20_000));
        assert_eq!(slot.get("GPU"), Amount::ZERO);
        assert_eq!("NPU".parse(), Ok(Accelerator::Npu));
        assert!("gpu".parse::<Accelerator>().is_err());
    }
}
