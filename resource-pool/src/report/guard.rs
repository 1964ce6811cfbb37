//! The guard's two checks (`python -m resource_pool.guard`, the Python package): verl's
//! pools when it creates them, on the live cluster in its release's order; and one pool's
//! placement groups, as verl is about to ask Ray for them, on what is free then. The
//! Python side reads Ray and wraps verl; what it decides is decided here.

use std::collections::BTreeMap;

use resource_pool_core::check::{CheckOptions, NoSpans};
use resource_pool_core::model::{Amount, Cluster, NodeSlot, Resources, names};
use resource_pool_core::placement::NearestNode;
use resource_pool_core::ray_sim::{RaySimOptions, RayVerdict, simulate};
use resource_pool_verl::installed::{BuiltPool, BuiltRole, ProbeAnswer, ProbeOutcome};
use resource_pool_verl::launcher::Layout;
use resource_pool_verl::launcher::{Launch, Outcome, check_launch};
use resource_pool_verl::releases::{ReleaseRules, oldest};
use resource_pool_verl::version::rules_for;

use super::run::CheckRun;
use super::verl_run::verl_findings;
use crate::verl::manager_from_parts;

/// What the guard does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GuardKind {
    /// Go on: verl places it (or stops on its own, as it would anyway).
    Go,
    /// Go on, saying `text` (a verdict that depends on Ray's ties, a wait).
    Note,
    /// Stop the run with `text`: verl would wait forever.
    Stop,
}

/// The guard's verdict and what it says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GuardVerdict {
    /// What to do.
    pub kind: GuardKind,
    /// The report (empty for `Go`).
    pub text: String,
}

impl GuardVerdict {
    fn go() -> GuardVerdict {
        GuardVerdict {
            kind: GuardKind::Go,
            text: String::new(),
        }
    }
}

/// verl's pools (`pools`, `roles`, the manager's `max_colocate_count` where it has one),
/// as `version` of verl launches them on `cluster`: what the alive nodes could give this
/// job (free now, plus what other jobs hold when `capacity_known`; free now otherwise).
/// A launch that hangs there stops, unless whose resources they are is unknown (a note).
pub fn guard_launch(
    version: &str,
    pools: Vec<BuiltPool>,
    roles: Vec<BuiltRole>,
    max_colocate_count: Option<u32>,
    cluster: Cluster,
    capacity_known: bool,
) -> GuardVerdict {
    let answer = ProbeAnswer {
        outcome: ProbeOutcome::Built,
        verl: None,
        hydra: None,
        config: BTreeMap::from([(
            "trainer.device".to_owned(),
            serde_json::json!(if ascend(&cluster) { "npu" } else { "cuda" }),
        )]),
        stand_in_model_for: Vec::new(),
        built_at: None,
        pools,
        mapping: roles,
        max_colocate_count,
        error_type: None,
        message: None,
        raised_at: None,
    };
    let pools = answer.pools();
    let (roles, _) = answer.mapping();
    let Ok(manager) = manager_from_parts(&pools, &roles) else {
        // A layout verl's own manager refuses (an empty pool): verl says so itself.
        return GuardVerdict::go();
    };
    let rules = match rules_for(Some(version)) {
        Ok((rules, _)) => rules,
        Err(_) => ReleaseRules {
            release: oldest(),
            assumed: true,
        },
    };
    let mapping = (roles.iter())
        .filter_map(|(role, pool)| Some((*role, pools.iter().position(|p| &p.name == pool)?)))
        .collect();
    let plan_layout = Layout {
        pools: &pools,
        mapping,
        cpus_written: vec![false; pools.len()],
    };
    let launch = Launch::plan_live(rules, &plan_layout, &cluster, &NoSpans);
    let options = CheckOptions::default();
    let Ok(checked) = check_launch(&manager, launch, &NoSpans, &options) else {
        return GuardVerdict::go();
    };
    let outcome = checked.outcome();
    let kind = match outcome {
        Outcome::Hangs if capacity_known => GuardKind::Stop,
        Outcome::Hangs | Outcome::DependsOnTies | Outcome::Undecided => GuardKind::Note,
        _ => return GuardVerdict::go(),
    };
    let findings = verl_findings(&checked, None);
    let run = CheckRun::checked(findings, checked.report, checked.launch.cluster);
    let human = run.human(false);
    let mut text = format!("{}{}{}", human.diagnostics, human.plan, human.summary);
    if kind == GuardKind::Note && outcome == Outcome::Hangs {
        text.push_str(
            "Ray's state API cannot say which jobs hold what (no dashboard): the run goes on; --wait bounds its wait\n",
        );
    }
    GuardVerdict { kind, text }
}

/// Whether the cluster's alive nodes declare NPUs and no GPU (verl on Ascend).
fn ascend(cluster: &Cluster) -> bool {
    let declares = |name: &str| {
        cluster.alive().any(|n| {
            !n.available.get(name).is_zero()
                || n.total.as_ref().is_some_and(|t| !t.get(name).is_zero())
        })
    };
    declares(names::NPU) && !declares(names::GPU)
}

/// One placement group verl is about to create: its bundles and strategy.
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
pub struct PlannedGroup {
    /// The bundles, each resource name to amount.
    pub bundles: Vec<BTreeMap<String, f64>>,
    /// Ray's strategy (`STRICT_PACK`).
    pub strategy: Option<String>,
}

/// Whether pool `pool`'s groups place on what is `free` now: they fit (go on), wait on
/// what other jobs hold (`capacity`: free plus their holdings; a note), or never place
/// (stop). Groups of a strategy other than `STRICT_PACK` are not judged.
pub fn guard_pool(
    pool: &str,
    groups: &[PlannedGroup],
    free: &Cluster,
    capacity: Option<&Cluster>,
) -> GuardVerdict {
    let Some(slots) = slots_of(groups) else {
        return GuardVerdict::go();
    };
    let options = RaySimOptions {
        suggest_fixes: false,
        ..RaySimOptions::default()
    };
    let now = simulate(&slots, free, &options);
    if now.verdict == RayVerdict::Places {
        return GuardVerdict::go();
    }
    let later = capacity.map(|c| (c, simulate(&slots, c, &options)));
    let (kind, first) = match &later {
        Some((_, report)) if report.verdict == RayVerdict::Hangs => {
            (GuardKind::Stop, "can never place")
        }
        Some(_) => (GuardKind::Note, "waits for resources that other jobs hold"),
        None => (
            GuardKind::Note,
            "waits (Ray's state API cannot say who holds the rest)",
        ),
    };
    let judged = match (&later, kind) {
        (Some((cluster, report)), GuardKind::Stop) => (*cluster, report),
        _ => (free, &now),
    };
    let mut text = format!("pool {pool} {first}");
    if let Some((slot, pending)) = judged.1.representative.first_pending() {
        let demand = &slots[slot].demand;
        text.push_str(&format!(
            ": its group {slot} needs {demand} on one node; {}",
            nearest_text(pending.nearest.as_ref(), judged.0)
        ));
    }
    GuardVerdict { kind, text }
}

/// What the nearest node has and lacks, in words.
fn nearest_text(nearest: Option<&NearestNode>, cluster: &Cluster) -> String {
    match nearest {
        Some(node) => format!("the nearest node is {node}"),
        None if cluster.alive().next().is_none() => "no node is alive".to_owned(),
        None => "no node comes close".to_owned(),
    }
}

/// verl's groups as node-slots of one pool: each group's bundles summed. `None` when a
/// group is not `STRICT_PACK` or an amount is not one of Ray's.
fn slots_of(groups: &[PlannedGroup]) -> Option<Vec<NodeSlot>> {
    let mut slots = Vec::with_capacity(groups.len());
    for (slot, group) in groups.iter().enumerate() {
        if group.strategy.as_deref().unwrap_or("PACK") != "STRICT_PACK" {
            return None;
        }
        let mut demand = Resources::new();
        for bundle in &group.bundles {
            for (name, &amount) in bundle {
                let amount = Amount::from_f64_rounded(amount).ok()?;
                let sum = demand.get(name.as_str()).checked_add(amount)?;
                demand.set(name.as_str(), sum);
            }
        }
        slots.push(NodeSlot {
            pool: 0,
            slot,
            bundles: u32::try_from(group.bundles.len()).ok()?,
            demand,
        });
    }
    Some(slots)
}

/// A pool's groups as verl asks for them, for the tests.
#[cfg(test)]
fn groups_of(
    counts: &[u32],
    accelerator: resource_pool_core::model::Accelerator,
    cpus: u32,
) -> Vec<PlannedGroup> {
    let spec = resource_pool_core::model::PoolSpec {
        accelerator,
        max_colocate_count: cpus,
        ..resource_pool_core::model::PoolSpec::with_slots(counts.to_vec())
    };
    let bundle: BTreeMap<String, f64> = BTreeMap::from([
        ("CPU".to_owned(), f64::from(spec.max_colocate_count)),
        (spec.accelerator.resource_name().to_owned(), 1.0),
    ]);
    (counts.iter())
        .map(|&n| PlannedGroup {
            bundles: vec![bundle.clone(); n as usize],
            strategy: Some("STRICT_PACK".to_owned()),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use resource_pool_core::model::{Accelerator, Node};

    fn node(id: &str, gpus: i64, cpus: i64, free_gpus: i64, free_cpus: i64) -> Node {
        let r = |g: i64, c: i64| {
            Resources::new()
                .with(names::GPU, Amount::from_i64(g).unwrap())
                .with(names::CPU, Amount::from_i64(c).unwrap())
        };
        Node {
            total: Some(r(gpus, cpus)),
            ..Node::new(id, r(free_gpus, free_cpus))
        }
    }

    #[test]
    fn a_pool_that_fits_what_is_free_goes_on() {
        let free = Cluster::new(vec![node("a", 8, 32, 8, 32)]);
        let v = guard_pool(
            "global_pool",
            &groups_of(&[8], Accelerator::Gpu, 3),
            &free,
            Some(&free),
        );
        assert_eq!(v.kind, GuardKind::Go);
    }

    #[test]
    fn a_pool_short_of_cpus_for_good_stops_naming_the_node() {
        // 8 bundles of 3 CPUs need 24; the node has 16 in all.
        let free = Cluster::new(vec![node("a", 8, 16, 8, 15)]);
        let v = guard_pool(
            "global_pool",
            &groups_of(&[8], Accelerator::Gpu, 3),
            &free,
            Some(&free),
        );
        assert_eq!(v.kind, GuardKind::Stop, "{}", v.text);
        assert!(
            v.text.contains("pool global_pool can never place"),
            "{}",
            v.text
        );
        assert!(v.text.contains("a: "), "{}", v.text);
    }

    #[test]
    fn a_pool_that_others_hold_waits() {
        let free = Cluster::new(vec![node("a", 8, 32, 0, 32)]);
        let capacity = Cluster::new(vec![node("a", 8, 32, 8, 32)]);
        let v = guard_pool(
            "global_pool",
            &groups_of(&[8], Accelerator::Gpu, 3),
            &free,
            Some(&capacity),
        );
        assert_eq!(v.kind, GuardKind::Note, "{}", v.text);
        assert!(v.text.contains("other jobs hold"), "{}", v.text);
        let v = guard_pool(
            "global_pool",
            &groups_of(&[8], Accelerator::Gpu, 3),
            &free,
            None,
        );
        assert_eq!(v.kind, GuardKind::Note, "{}", v.text);
    }

    #[test]
    fn a_pack_group_is_not_judged() {
        let free = Cluster::new(vec![node("a", 8, 32, 0, 0)]);
        let mut groups = groups_of(&[8], Accelerator::Gpu, 3);
        groups[0].strategy = Some("PACK".to_owned());
        assert_eq!(
            guard_pool("p", &groups, &free, Some(&free)).kind,
            GuardKind::Go
        );
    }

    #[test]
    fn a_launch_that_fragments_stops_in_the_releases_order() {
        // The 4-GPU critic pool goes first to the emptiest node (the 8-GPU one); the
        // 8-GPU pool then fits nowhere. With what other jobs hold unknown, a note.
        let cluster = Cluster::new(vec![node("big", 8, 32, 8, 32), node("small", 4, 16, 4, 16)]);
        let pools = vec![
            BuiltPool {
                name: "critic_pool".into(),
                process_on_nodes: vec![4],
            },
            BuiltPool {
                name: "global_pool".into(),
                process_on_nodes: vec![8],
            },
        ];
        let roles = vec![
            BuiltRole {
                role: "ActorRollout".into(),
                pool: "global_pool".into(),
            },
            BuiltRole {
                role: "Critic".into(),
                pool: "critic_pool".into(),
            },
        ];
        let v = guard_launch(
            "0.9.1",
            pools.clone(),
            roles.clone(),
            Some(3),
            cluster.clone(),
            true,
        );
        assert_eq!(v.kind, GuardKind::Stop, "{}", v.text);
        let v = guard_launch("0.9.1", pools, roles, Some(3), cluster, false);
        assert_eq!(v.kind, GuardKind::Note, "{}", v.text);
    }
}
