//! How a generated cluster shrinks: greedily, one simpler cluster at a time, starting over
//! from each simpler cluster that still fails, until no single step is simpler and still
//! failing. The steps, in the order tried: one node fewer, one dead node fewer, a node less
//! busy, a smaller node shape, fewer accelerators, fewer CPUs, a dead node moved toward the
//! first. proptest's own combinators shrink each part once, in order, and never go back,
//! so a cluster could keep a node that only became removable after the others shrank.
//!
//! The result is minimal in the sense a property test needs: removing any node, reviving a
//! dead one, freeing what is busy or shrinking any node makes the property pass.

use proptest::strategy::ValueTree;

use super::clusters::{ClusterSpec, TestCluster};

/// One node as drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct NodeDraw {
    /// The index of its shape (shapes sorted smallest first).
    pub(super) shape: usize,
    pub(super) accelerators: u32,
    pub(super) cpus: u32,
    /// Percent of the accelerators and CPUs held.
    pub(super) busy: u8,
}

/// A whole cluster as drawn: its nodes, and which of them are dead (each entry picks one
/// of the nodes still alive, by its value modulo their count).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Draws {
    pub(super) nodes: Vec<NodeDraw>,
    pub(super) dead: Vec<u32>,
}

/// The value tree of [`ClusterStrategy`](super::ClusterStrategy).
pub struct ClusterTree {
    spec: ClusterSpec,
    /// The simplest cluster known to fail.
    accepted: Draws,
    /// The simpler cluster being tried, if any.
    candidate: Option<Draws>,
    /// How many of `accepted`'s steps have been tried.
    tried: usize,
}

impl ClusterTree {
    pub(super) fn new(spec: ClusterSpec, draws: Draws) -> ClusterTree {
        ClusterTree {
            spec,
            accepted: draws,
            candidate: None,
            tried: 0,
        }
    }

    /// The next untried step from `accepted`, as the candidate.
    fn next_candidate(&mut self) -> bool {
        let steps = steps(&self.spec, &self.accepted);
        match steps.into_iter().nth(self.tried) {
            Some(step) => {
                self.tried += 1;
                self.candidate = Some(step);
                true
            }
            None => {
                self.candidate = None;
                false
            }
        }
    }
}

impl ValueTree for ClusterTree {
    type Value = TestCluster;

    fn current(&self) -> TestCluster {
        self.spec
            .build(self.candidate.as_ref().unwrap_or(&self.accepted))
    }

    /// The current cluster fails: keep it, and try its simplest step.
    fn simplify(&mut self) -> bool {
        if let Some(candidate) = self.candidate.take() {
            self.accepted = candidate;
            self.tried = 0;
        }
        self.next_candidate()
    }

    /// The candidate passes: drop it and try the next step of the last failing cluster;
    /// `false`, with that cluster current, when none is left.
    fn complicate(&mut self) -> bool {
        self.candidate = None;
        self.next_candidate()
    }
}

/// Every cluster one step simpler than `draws`, in the order they are tried.
fn steps(spec: &ClusterSpec, draws: &Draws) -> Vec<Draws> {
    let mut out = Vec::new();
    let with = |change: &dyn Fn(&mut Draws)| {
        let mut next = draws.clone();
        change(&mut next);
        next
    };
    let n = draws.nodes.len();
    if n > spec.min_nodes {
        for i in (0..n).rev() {
            out.push(with(&|d| {
                d.nodes.remove(i);
            }));
        }
    }
    if draws.dead.len() > spec.min_dead {
        for i in (0..draws.dead.len()).rev() {
            out.push(with(&|d| {
                d.dead.remove(i);
            }));
        }
    }
    for (i, node) in draws.nodes.iter().enumerate() {
        for busy in smaller(u32::from(node.busy), 0) {
            // Busy is at most 100, so the smaller values fit a u8.
            out.push(with(&|d| d.nodes[i].busy = busy as u8));
        }
    }
    // Sizes: of every node at once when the cluster is homogeneous, else node by node.
    let groups: Vec<Vec<usize>> = if spec.homogeneous {
        vec![(0..n).collect()]
    } else {
        (0..n).map(|i| vec![i]).collect()
    };
    for group in &groups {
        let Some(&first) = group.first() else {
            continue;
        };
        let node = draws.nodes[first];
        for shape in 0..node.shape {
            let (accelerators, cpus) = spec.smallest(shape);
            out.push(with(&|d| {
                for &i in group {
                    d.nodes[i] = NodeDraw {
                        shape,
                        accelerators,
                        cpus,
                        ..d.nodes[i]
                    };
                }
            }));
        }
        let (least_accelerators, least_cpus) = spec.smallest(node.shape);
        for accelerators in smaller(node.accelerators, least_accelerators) {
            out.push(with(&|d| {
                for &i in group {
                    d.nodes[i].accelerators = accelerators;
                }
            }));
        }
        for cpus in smaller(node.cpus, least_cpus) {
            out.push(with(&|d| {
                for &i in group {
                    d.nodes[i].cpus = cpus;
                }
            }));
        }
    }
    for (i, &dead) in draws.dead.iter().enumerate() {
        for value in smaller(dead, 0) {
            out.push(with(&|d| d.dead[i] = value));
        }
    }
    out
}

/// Smaller values than `value`, down to `least`: the least, halfway, one less (each once).
fn smaller(value: u32, least: u32) -> Vec<u32> {
    let mut out = Vec::new();
    if value <= least {
        return out;
    }
    for candidate in [least, least + (value - least) / 2, value - 1] {
        if candidate < value && !out.contains(&candidate) {
            out.push(candidate);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::smaller;

    #[test]
    fn smaller_values_go_down_to_the_least() {
        assert_eq!(smaller(8, 4), [4, 6, 7]);
        assert_eq!(smaller(5, 4), [4]);
        assert!(smaller(4, 4).is_empty());
        assert_eq!(smaller(1, 0), [0]);
    }
}
