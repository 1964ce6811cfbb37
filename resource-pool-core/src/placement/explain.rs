//! Why no placement exists, in the user's terms.

use std::fmt;

use crate::model::{Amount, Cluster, DisplayName, NodeSlot, ResourceName};

use super::problem::{Problem, SlotType, VecMap, fill_vector, fits};

/// One resource a node is short of.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Lack {
    /// The resource, as Ray spells it.
    pub resource: String,
    /// What the node has free.
    pub free: Amount,
    /// What the slot needs.
    pub needed: Amount,
}

impl fmt::Display for Lack {
    /// `GPU 6 of 8`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} of {}", self.resource, self.free, self.needed)
    }
}

/// The node that comes closest to holding a slot, and what it lacks.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct NearestNode {
    /// Its index in `cluster.nodes` (not in JSON: the id names it).
    #[serde(skip)]
    pub node: usize,
    /// The node's id.
    pub id: String,
    /// Its address, when known (not in JSON: words only, see [`DisplayName`]).
    #[serde(skip)]
    pub address: Option<String>,
    /// Every resource it is short of (free of needed); empty when it would fit.
    pub lacks: Vec<Lack>,
}

impl fmt::Display for NearestNode {
    /// `node-b: GPU 6 of 8, CPU 16 of 24`, `127.0.0.13 (5f0a544b…): GPU 0 of 4`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.display_name())?;
        for (i, lack) in self.lacks.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{lack}")?;
        }
        Ok(())
    }
}

impl NearestNode {
    /// How people read the node's name.
    pub fn display_name(&self) -> DisplayName<'_> {
        DisplayName::new(&self.id, self.address.as_deref())
    }
}

/// What `avail` lacks for `demand` (vectors over `names`).
pub(crate) fn lacks(names: &[ResourceName], demand: &[u64], avail: &[u64]) -> Vec<Lack> {
    names
        .iter()
        .zip(demand.iter().zip(avail))
        .filter(|(_, (d, a))| a < d)
        .map(|(name, (&d, &a))| Lack {
            resource: name.to_string(),
            free: Amount::from_units(a),
            needed: Amount::from_units(d),
        })
        .collect()
}

/// The nearest of `candidates` (node index, its available vector over `names`): fewest
/// short resources, then the smallest sum of relative shortfalls, then the lowest index.
pub(crate) fn nearest<'a>(
    names: &[ResourceName],
    demand: &[u64],
    candidates: impl IntoIterator<Item = (usize, &'a [u64])>,
    cluster: &Cluster,
) -> Option<NearestNode> {
    let mut best: Option<(usize, f64, usize, &'a [u64])> = None;
    for (node, avail) in candidates {
        let mut short = 0usize;
        let mut gap = 0.0f64;
        for (&d, &a) in demand.iter().zip(avail) {
            if a < d {
                short += 1;
                gap += (d - a) as f64 / d as f64;
            }
        }
        let better = match best {
            None => true,
            Some((s, g, n, _)) => (short, gap, node)
                .partial_cmp(&(s, g, n))
                .is_some_and(|o| o.is_lt()),
        };
        if better {
            best = Some((short, gap, node, avail));
        }
    }
    let (_, _, node, avail) = best?;
    let n = cluster.nodes.get(node)?;
    Some(NearestNode {
        node,
        id: n.id.clone(),
        address: n.address.clone(),
        lacks: lacks(names, demand, avail),
    })
}

/// Slots of one demand that fit no alive node at all.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct UnfitSlots {
    /// The slots (indices into the checked slots), all of the same demand.
    pub slots: Vec<usize>,
    /// Their demand, over the resources they ask for.
    pub demand: crate::model::Resources,
    /// The nearest alive node and what it lacks; `None` when no node is alive.
    pub nearest: Option<NearestNode>,
}

/// A resource whose total demand exceeds what all alive nodes have free.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ShortTotal {
    /// The resource's name, as Ray spells it.
    pub resource: String,
    /// The sum over every slot.
    pub needed: Amount,
    /// The sum over alive nodes (saturating).
    pub free: Amount,
}

impl fmt::Display for ShortTotal {
    /// `GPU: 20 needed, 16 free on alive nodes`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} needed, {} free on alive nodes",
            self.resource, self.needed, self.free
        )
    }
}

/// Every slot fits some node alone, the totals suffice, but not all slots fit together.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NotTogether {
    /// The largest part found that does fit together (slot indices, sorted). Found by
    /// greedy packing, so it is a lower bound on the largest part, not always the largest.
    pub fits: Vec<usize>,
    /// The other slots.
    pub left_out: Vec<usize>,
}

/// One reason why no placement exists.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum InfeasibleReason {
    /// (a) Slots that fit no alive node, each alone.
    SlotFitsNoNode(UnfitSlots),
    /// (b) A resource runs out in total.
    ResourceRunsOut(ShortTotal),
    /// (c) Every slot fits alone, but not all together.
    NotTogether(NotTogether),
}

impl fmt::Display for InfeasibleReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InfeasibleReason::SlotFitsNoNode(u) => {
                let n = u.slots.len();
                let which = if n == 1 {
                    "a node-slot".to_owned()
                } else {
                    format!("{n} node-slots")
                };
                write!(f, "{which} of {} fit no alive node", u.demand)?;
                match &u.nearest {
                    Some(near) => write!(f, "; the nearest is {near}"),
                    None => f.write_str("; no node is alive"),
                }
            }
            InfeasibleReason::ResourceRunsOut(s) => write!(f, "{s}"),
            InfeasibleReason::NotTogether(t) => write!(
                f,
                "every node-slot fits some node alone, but not all together: at most {} of {} \
                 were found to fit together",
                t.fits.len(),
                t.fits.len() + t.left_out.len()
            ),
        }
    }
}

/// Whether an infeasible layout would fit the idle cluster (`busy_now`, `never` or
/// `unknown` in JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IdleFit {
    /// It would fit if nothing else held resources: busy now.
    BusyNow,
    /// It would not fit even the idle cluster: never.
    Never,
    /// The idle check ran out of budget.
    Unknown,
}

impl fmt::Display for IdleFit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IdleFit::BusyNow => "busy now: it would fit the idle cluster",
            IdleFit::Never => "never: it does not fit even the idle cluster",
            IdleFit::Unknown => "unknown whether it would fit the idle cluster",
        })
    }
}

/// (a): slot types that fit no alive node, each with its nearest node.
pub(crate) fn unfit_slots(
    problem: &Problem,
    slots: &[NodeSlot],
    cluster: &Cluster,
) -> Vec<UnfitSlots> {
    let unfit: Vec<&SlotType> = problem
        .types
        .iter()
        .filter(|t| !problem.classes.iter().any(|c| fits(&t.demand, &c.cap)))
        .collect();
    if unfit.is_empty() {
        return Vec::new();
    }
    let names = &problem.names;
    // Alive nodes grouped by their (unreduced) available vectors.
    let mut groups: VecMap<()> = VecMap::default();
    let mut reps: Vec<(usize, Vec<u64>)> = Vec::new();
    let mut buf = vec![0u64; names.len()];
    for (i, node) in cluster.nodes.iter().enumerate() {
        if !node.alive {
            continue;
        }
        fill_vector(&node.available, names, &mut buf);
        if !groups.contains_key(buf.as_slice()) {
            groups.insert(buf.clone(), ());
            reps.push((i, buf.clone()));
        }
    }
    unfit
        .into_iter()
        .map(|t| UnfitSlots {
            slots: t.slots.iter().collect(),
            demand: t
                .slots
                .first()
                .and_then(|i| slots.get(i))
                .map(|s| s.demand.clone())
                .unwrap_or_default(),
            nearest: nearest(
                names,
                &t.demand,
                reps.iter().map(|(n, a)| (*n, a.as_slice())),
                cluster,
            ),
        })
        .collect()
}

/// (b): resources whose total demand exceeds the free total over alive nodes.
pub(crate) fn short_totals(problem: &Problem) -> Vec<ShortTotal> {
    (0..problem.dims())
        .filter(|&r| problem.need[r] > problem.free[r])
        .map(|r| ShortTotal {
            resource: problem.names[r].to_string(),
            needed: Amount::from_units(problem.need[r]),
            free: Amount::from_units(problem.free[r]),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Node;
    use crate::test_support::res;

    #[test]
    fn texts_read_like_the_issue() {
        let mut near = NearestNode {
            node: 1,
            id: "node-b".into(),
            address: Some("10.0.0.2".into()),
            lacks: vec![
                Lack {
                    resource: "GPU".into(),
                    free: Amount::from_units(60_000),
                    needed: Amount::from_units(80_000),
                },
                Lack {
                    resource: "CPU".into(),
                    free: Amount::from_units(160_000),
                    needed: Amount::from_units(240_000),
                },
            ],
        };
        assert_eq!(near.to_string(), "node-b: GPU 6 of 8, CPU 16 of 24");
        // A Ray node id is named by its address; JSON keeps the id alone.
        near.id = "5f0a544bbf97a58613e20dcd890be334820af9041f50d366b23d1f40".into();
        assert_eq!(
            near.to_string(),
            "10.0.0.2 (5f0a544b…): GPU 6 of 8, CPU 16 of 24"
        );
        let json = serde_json::to_value(&near).unwrap();
        assert_eq!(json["id"], near.id.as_str());
        assert!(json.get("address").is_none());
        let short = ShortTotal {
            resource: "GPU".into(),
            needed: Amount::from_units(200_000),
            free: Amount::from_units(160_000),
        };
        assert_eq!(short.to_string(), "GPU: 20 needed, 16 free on alive nodes");
    }

    #[test]
    fn the_nearest_node_lacks_least() {
        let cluster = Cluster::new(vec![
            Node::new("node-a", res(2, 8)),
            Node::new("node-b", res(6, 16)),
            Node::new("node-c", res(8, 8)),
        ]);
        let slot = NodeSlot {
            pool: 0,
            slot: 0,
            bundles: 8,
            demand: res(8, 24),
        };
        let slots = [slot];
        let unfit = unfit_slots(&Problem::build(&slots, &cluster), &slots, &cluster);
        assert_eq!(unfit.len(), 1);
        // node-c lacks only CPU: one short resource beats two.
        let near = unfit[0].nearest.as_ref().map(|n| n.to_string());
        assert_eq!(near.as_deref(), Some("node-c: CPU 8 of 24"));
        assert!(unfit_slots(&Problem::build(&[], &cluster), &[], &cluster).is_empty());
    }
}
