//! What Ray does with a layout's groups, and what would make it place them: the fields of
//! the Ray diagnostics (`ray::hangs`, `ray::depends_on_ties`), worded for where the layout
//! was written ([`LayoutWording`]).

use std::fmt;

use serde::Serialize;

use super::diagnostics::SlotRef;
use super::wording::LayoutWording;
use crate::model::NodeName;
use crate::placement::NearestNode;
use crate::ray_sim::PendingState;

/// What Ray does with one group, in creation order (JSON: an object with `kind`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RayStep {
    /// Ray places the group on a node.
    Placed {
        /// The group's node-slot.
        group: SlotRef,
        /// The node (JSON: its id).
        node: NodeName,
    },
    /// The group pends forever.
    Pends {
        /// The group's node-slot.
        group: SlotRef,
        /// Ray's scheduling state.
        state: PendingState,
        /// The node that comes closest then, and what it lacks.
        nearest: Option<NearestNode>,
    },
}

impl fmt::Display for RayStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RayStep::Placed { group, node } => write!(f, "{group} → {node}"),
            RayStep::Pends {
                group,
                state,
                nearest,
            } => write!(
                f,
                "{group} pends, {state} ({})",
                nearest_or_none(nearest.as_ref())
            ),
        }
    }
}

/// What Ray does, group by group, in verl's order: the first steps, and whether more
/// followed (shown as `…`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct RayOrder {
    /// The steps shown.
    pub steps: Vec<RayStep>,
    /// Whether steps after these were left out.
    pub truncated: bool,
}

impl fmt::Display for RayOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, step) in self.steps.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{step}")?;
        }
        if self.truncated {
            f.write_str(", …")?;
        }
        Ok(())
    }
}

/// What makes Ray place every group (JSON: an object with `kind`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RayAdvice {
    /// Create the pools in this order.
    PoolOrder {
        /// The pools, first created first.
        pools: Vec<String>,
        /// Where the layout was written, which says how its pools are reordered. Wording
        /// only: JSON has the order (`pools`) and nothing else.
        #[serde(skip)]
        written: LayoutWording,
    },
    /// No pool order works: pin each group to a node of a placement (the first ones shown).
    Pin {
        /// Group by group, the node of a placement.
        pins: Vec<Pin>,
    },
    /// Nothing found: make the layout fit first, or give Ray room.
    MakeRoom,
}

/// The start of the pin advice, before the pins.
const PIN_ADVICE: &str = "no pool order makes Ray place it; pin the groups to nodes (for example with a custom resource per node in bundle_resources): ";

/// One group pinned to a node.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Pin {
    /// The group's node-slot.
    pub group: SlotRef,
    /// The node (JSON: its id).
    pub node: NodeName,
}

impl fmt::Display for RayAdvice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RayAdvice::PoolOrder { pools, written } => write!(
                f,
                "Ray places every group when the pools are created in this order: {} ({})",
                pools.join(", "),
                written.how_to_reorder()
            ),
            RayAdvice::Pin { pins } => {
                f.write_str(PIN_ADVICE)?;
                for (i, pin) in pins.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{} → {}", pin.group, pin.node)?;
                }
                Ok(())
            }
            RayAdvice::MakeRoom => f.write_str(
                "Make the layout fit first (see the placement errors), or give Ray room: fewer or smaller node-slots",
            ),
        }
    }
}

/// The nearest node and what it lacks, or that none is alive.
pub(super) fn nearest_or_none(nearest: Option<&NearestNode>) -> String {
    nearest.map_or_else(|| "no node is alive".to_owned(), |n| n.to_string())
}
