//! The structured input of the `placement` fuzz target, decoded with `arbitrary`.
//!
//! Shared by the target and by the root package's `tests/corpus_replay.rs` (through
//! `#[path]`), so a corpus file replays as the very instance the fuzzer ran.

use arbitrary::Arbitrary;
use resource_pool_core::fuzzing::PlacementCase;
use resource_pool_core::{Amount, Cluster, Node, NodeSlot, Resources};

/// The most nodes of an instance.
pub const MAX_NODES: usize = 12;
/// The most node-slots of an instance.
pub const MAX_SLOTS: usize = 24;
/// The most pools the slots are spread over.
pub const MAX_POOLS: u8 = 4;

/// A few resource names, so that demands and capacities meet.
#[derive(Arbitrary, Clone, Copy, Debug)]
pub enum Name {
    Gpu,
    Cpu,
    Npu,
    AcceleratorType,
}

impl Name {
    fn as_str(self) -> &'static str {
        match self {
            Name::Gpu => "GPU",
            Name::Cpu => "CPU",
            Name::Npu => "NPU",
            Name::AcceleratorType => "accelerator_type:H100",
        }
    }
}

/// An amount: mostly small whole numbers (tight packings), sometimes Ray's fixed-point
/// units, sometimes anything up to `u64::MAX` (overflowing sums).
#[derive(Arbitrary, Clone, Copy, Debug)]
pub enum AmountInput {
    Whole(u8),
    Units(u16),
    Raw(u64),
}

impl AmountInput {
    fn amount(self) -> Amount {
        match self {
            AmountInput::Whole(n) => Amount::from_units(u64::from(n % 33) * Amount::SCALE),
            AmountInput::Units(n) => Amount::from_units(u64::from(n)),
            AmountInput::Raw(n) => Amount::from_units(n),
        }
    }
}

fn resources(items: &[(Name, AmountInput)]) -> Resources {
    items
        .iter()
        .map(|(name, amount)| (name.as_str(), amount.amount()))
        .collect()
}

/// One node.
#[derive(Arbitrary, Debug)]
pub struct NodeInput {
    pub alive: bool,
    pub available: Vec<(Name, AmountInput)>,
    pub total: Option<Vec<(Name, AmountInput)>>,
}

/// One node-slot.
#[derive(Arbitrary, Debug)]
pub struct SlotInput {
    pub pool: u8,
    pub demand: Vec<(Name, AmountInput)>,
}

/// A whole instance.
#[derive(Arbitrary, Debug)]
pub struct PlacementInput {
    pub nodes: Vec<NodeInput>,
    pub slots: Vec<SlotInput>,
    pub check_idle: bool,
}

impl PlacementInput {
    /// The instance: at most [`MAX_NODES`] nodes and [`MAX_SLOTS`] slots, slots grouped
    /// by pool in pool order as verl creates them.
    pub fn to_case(&self) -> PlacementCase {
        let nodes = self
            .nodes
            .iter()
            .take(MAX_NODES)
            .enumerate()
            .map(|(i, n)| Node {
                alive: n.alive,
                total: n.total.as_deref().map(resources),
                ..Node::new(format!("n{i}"), resources(&n.available))
            })
            .collect();
        let mut slots: Vec<(u8, Resources)> = self
            .slots
            .iter()
            .take(MAX_SLOTS)
            .map(|s| (s.pool % MAX_POOLS, resources(&s.demand)))
            .collect();
        slots.sort_by_key(|(pool, _)| *pool);
        let mut next = [0usize; MAX_POOLS as usize];
        let slots = slots
            .into_iter()
            .map(|(pool, demand)| {
                let slot = next[usize::from(pool)];
                next[usize::from(pool)] += 1;
                let gpus = demand.get("GPU").units() / Amount::SCALE;
                let bundles = u32::try_from(gpus.max(1)).unwrap_or(u32::MAX);
                NodeSlot {
                    pool: usize::from(pool),
                    slot,
                    bundles,
                    demand,
                }
            })
            .collect();
        PlacementCase {
            slots,
            cluster: Cluster::new(nodes),
            check_idle: self.check_idle,
        }
    }
}
