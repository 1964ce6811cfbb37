//! How a verl release launches a layout on a cluster, by its row of the release table
//! ([`crate::releases`]): which pools get placement groups and in what order, with how many
//! CPUs per bundle and which accelerator, what verl holds before the first group, and what
//! verl itself refuses or stops on before Ray could hang. The check then runs on what this
//! says ([`Launch::check_options`]); verl's findings are [`LaunchDiagnostic`]s.
//!
//! The same plan serves a config file checked for verl (`check --verl-version`), the pools
//! verl's entry point builds from a launch line (`verl`), and Python.

mod diagnostics;
mod holds;
mod order;
mod pre_check;
mod run;

pub use diagnostics::{HeldBy, LaunchDiagnostic, Refusal, VerlRelease};
pub use holds::Hold;
pub use order::WORKER_GROUP_ROLES;
pub use pre_check::admits;
pub use run::{LaunchCheck, Outcome, check_launch};

use resource_pool_core::check::{CheckOptions, CheckReport, Creation, SlotSpans};
use resource_pool_core::model::{
    Accelerator, Cluster, PoolId, PoolSpec, ResourcePool, ResourcePoolManager, RoleKey, names,
};
use resource_pool_core::ray_sim::RayVerdict;
use resource_pool_core::source::to_source_span;

use crate::releases::{BundleCpus, DeviceRule, LaterDevice, Release, ReleaseRules};
use crate::roles::VERL_ROLES;

/// A layout as verl is given it: pools in the layout's order and which role each hosts.
pub struct Layout<'a> {
    /// The pools, in the layout's order (the spec's, the dict's, the file's).
    pub pools: &'a [ResourcePool],
    /// Each role, by verl's name for it, and its pool.
    pub mapping: Vec<(&'static str, PoolId)>,
    /// Whether each pool's `max_colocate_count` was written, not left to a default: a
    /// release that fixes it then says the written value is not read.
    pub cpus_written: Vec<bool>,
}

impl<'a> Layout<'a> {
    /// A manager's layout: roles by verl's names (an alias such as `reward_model` is `rm`;
    /// a name verl does not have is no role of verl's and makes no group).
    pub fn of<R: RoleKey>(manager: &'a ResourcePoolManager<R>) -> Layout<'a> {
        let pools = manager.pools();
        let mapping = manager
            .mapping()
            .filter_map(|(role, pool)| {
                let name = role.key_name();
                let verl = VERL_ROLES
                    .iter()
                    .find(|r| r.name == name || r.aliases.contains(&name.as_ref()))?;
                let id = pools.iter().position(|p| p.name == pool.name)?;
                Some((verl.name, id))
            })
            .collect();
        Layout {
            pools,
            mapping,
            cpus_written: vec![false; pools.len()],
        }
    }

    /// The pool of a role, by verl's name.
    pub fn pool_of(&self, role: &str) -> Option<PoolId> {
        self.mapping
            .iter()
            .find(|(r, _)| *r == role)
            .map(|&(_, p)| p)
    }

    /// The roles a pool hosts.
    pub fn roles_of(&self, pool: PoolId) -> impl Iterator<Item = &'static str> + '_ {
        self.mapping
            .iter()
            .filter(move |(_, p)| *p == pool)
            .map(|&(r, _)| r)
    }
}

/// How a release launches a layout on a cluster.
#[derive(Clone, Debug)]
pub struct Launch {
    /// The release whose rules these are.
    pub release: &'static Release,
    /// Whether the release was chosen as the newest known, no version being given.
    pub release_assumed: bool,
    /// The pools as the release builds them: its CPUs per bundle and accelerators.
    pub pools: Vec<ResourcePool>,
    /// Which pools get placement groups, and in what order.
    pub creation: Creation,
    /// The pool whose worker group `IndexError` stops verl at (it hosts no role of a
    /// worker group, and the release does not skip such a pool), reached once the pools
    /// of `creation` got their groups.
    pub stops_at: Option<PoolId>,
    /// The cluster the groups see: what verl holds before the first group taken off each
    /// node's available CPUs.
    pub cluster: Cluster,
    /// The same once other work is gone (verl's own holds placed on it as on `cluster`),
    /// when other work holds part of `cluster` now: what the suggestions' idle answer sees.
    pub idle: Option<Cluster>,
    /// What verl holds before the first group, and where.
    pub holds: Vec<Hold>,
    /// What verl finds or does before Ray sees a group: its own check's refusal, a driver
    /// that cannot start, CPUs per bundle or an accelerator other than written.
    pub findings: Vec<LaunchDiagnostic>,
}

/// `cluster` with no other work on it and what `release` holds first held on it, when other
/// work holds part of `cluster` now (or `None`).
fn idle_cluster(
    release: &Release,
    cluster: &Cluster,
    spans: &dyn SlotSpans,
    model_holds: bool,
) -> Option<Cluster> {
    let idle = cluster.idle().filter(|_| cluster.busy())?;
    match model_holds {
        // The findings are the cluster's now, not the idle one's.
        true => Some(holds::hold(release, &idle, spans, &mut Vec::new()).0),
        false => Some(idle),
    }
}

impl Launch {
    /// Plans the launch of `layout` on `cluster` by `rules`' release; `spans` place the
    /// findings.
    pub fn plan(
        rules: ReleaseRules,
        layout: &Layout<'_>,
        cluster: &Cluster,
        spans: &dyn SlotSpans,
    ) -> Launch {
        Launch::plan_with(rules, layout, cluster, spans, true)
    }

    /// Plans the launch on a live cluster read after verl started (the guard): what verl
    /// holds before its first group is held already, in what the cluster says is free.
    pub fn plan_live(
        rules: ReleaseRules,
        layout: &Layout<'_>,
        cluster: &Cluster,
        spans: &dyn SlotSpans,
    ) -> Launch {
        Launch::plan_with(rules, layout, cluster, spans, false)
    }

    fn plan_with(
        rules: ReleaseRules,
        layout: &Layout<'_>,
        cluster: &Cluster,
        spans: &dyn SlotSpans,
        model_holds: bool,
    ) -> Launch {
        let release = rules.release;
        let mut findings = Vec::new();
        let order = order::order(release, layout);
        let ascend = is_ascend(cluster);
        let pools = built_pools(release, layout, &order, ascend, spans, &mut findings);
        let (held_cluster, holds) = match model_holds {
            true => holds::hold(release, cluster, spans, &mut findings),
            false => (cluster.clone(), Vec::new()),
        };
        let idle = idle_cluster(release, cluster, spans, model_holds);
        // verl's own check runs once what it holds first has started: not at all when that
        // waits or fails (0.9's `tq.init` comes before `create_resource_pool`).
        let driver_stops = findings.iter().any(LaunchDiagnostic::stops_before_ray);
        if let Some(refusal) =
            pre_check::refusal(release, &pools, &held_cluster, spans).filter(|_| !driver_stops)
        {
            findings.insert(0, refusal);
        }
        Launch {
            release,
            release_assumed: rules.assumed,
            pools,
            creation: order.creation,
            stops_at: order.stops_at,
            cluster: held_cluster,
            idle,
            holds,
            findings,
        }
    }

    /// The check's options for this launch: `options` with its creation order.
    pub fn check_options(&self, options: &CheckOptions) -> CheckOptions {
        CheckOptions {
            creation: Some(self.creation.clone()),
            ..options.clone()
        }
    }

    /// Whether verl stops before Ray sees any group: its own check refuses the layout, or
    /// its driver cannot start.
    pub fn stops_before_ray(&self) -> bool {
        self.findings.iter().any(LaunchDiagnostic::stops_before_ray)
    }

    /// verl's findings once Ray's verdict is known: `IndexError` at the pool that stops verl,
    /// when every group before it is placed (a pool before it that hangs stops verl
    /// first).
    pub fn after_ray(
        &self,
        report: &CheckReport,
        spans: &dyn SlotSpans,
    ) -> Option<LaunchDiagnostic> {
        let pool = self.stops_at?;
        (report.ray.verdict == RayVerdict::Places).then(|| LaunchDiagnostic::StopsAtPool {
            release: self.version(),
            pool: self.pools[pool].name.clone(),
            span: spans.pool_span(pool).map(|s| to_source_span(&s)),
        })
    }

    /// The release, as findings name it.
    pub fn version(&self) -> VerlRelease {
        VerlRelease(self.release.version)
    }

    /// The words of the plan's title: `verl 0.9.1's order`.
    pub fn order_name(&self) -> String {
        format!("verl {}'s order", self.release.version)
    }
}

/// Whether the cluster runs on Ascend: its alive nodes declare NPUs and none a GPU. verl
/// detects its accelerator on the machine its driver starts on (`torch_npu` importable, in
/// 0.9 even with no NPU in that machine, such as a CPU-only head of the same image), so a
/// cluster of Ascend nodes is taken to run verl with `torch_npu` everywhere.
fn is_ascend(cluster: &Cluster) -> bool {
    let declares = |node: &resource_pool_core::model::Node, name: &str| {
        !node.available.get(name).is_zero()
            || node.total.as_ref().is_some_and(|t| !t.get(name).is_zero())
    };
    cluster.alive().any(|n| declares(n, names::NPU))
        && !cluster.alive().any(|n| declares(n, names::GPU))
}

/// The pools as `release` builds them: its CPUs per bundle (a written value it does not
/// read is said), and the accelerator its rules give the worker groups' pools and the
/// later ones (one other than written is said).
fn built_pools(
    release: &'static Release,
    layout: &Layout<'_>,
    order: &order::Order,
    ascend: bool,
    spans: &dyn SlotSpans,
    findings: &mut Vec<LaunchDiagnostic>,
) -> Vec<ResourcePool> {
    let mut pools = Vec::with_capacity(layout.pools.len());
    for (id, pool) in layout.pools.iter().enumerate() {
        let mut spec: PoolSpec = pool.spec.clone();
        if let BundleCpus::Fixed(cpus) = release.cpus
            && spec.max_colocate_count != cpus
        {
            if layout.cpus_written.get(id).copied().unwrap_or(false) {
                findings.push(LaunchDiagnostic::BundleCpusFixed {
                    release: VerlRelease(release.version),
                    pool: pool.name.clone(),
                    written: spec.max_colocate_count,
                    cpus,
                    span: spans.pool_span(id).map(|s| to_source_span(&s)),
                });
            }
            spec.max_colocate_count = cpus;
        }
        let accelerator = if order.by_manager[id] {
            later_accelerator(release.later_device, ascend, spec.accelerator)
        } else {
            worker_accelerator(release.device, ascend, spec.accelerator)
        };
        if accelerator != spec.accelerator && order.creation.creates(id) {
            findings.push(LaunchDiagnostic::AcceleratorChosen {
                release: VerlRelease(release.version),
                pool: pool.name.clone(),
                written: spec.accelerator.resource_name(),
                used: accelerator.resource_name(),
                ascend,
                span: spans.pool_span(id).map(|s| to_source_span(&s)),
            });
        }
        spec.accelerator = accelerator;
        pools.push(ResourcePool::new(pool.name.clone(), spec));
    }
    pools
}

/// The accelerator of a worker group's pool written as `written`.
fn worker_accelerator(rule: DeviceRule, ascend: bool, written: Accelerator) -> Accelerator {
    match rule {
        DeviceRule::AsWritten => written,
        DeviceRule::NpuOnAscend if ascend => Accelerator::Npu,
        DeviceRule::NpuOnAscend => written,
        DeviceRule::Platform if ascend => Accelerator::Npu,
        DeviceRule::Platform => Accelerator::Gpu,
    }
}

/// The accelerator of a pool that gets its groups later, written as `written`.
fn later_accelerator(rule: LaterDevice, ascend: bool, written: Accelerator) -> Accelerator {
    match rule {
        LaterDevice::None => written,
        LaterDevice::Gpu => Accelerator::Gpu,
        LaterDevice::Platform if ascend => Accelerator::Npu,
        LaterDevice::Platform => Accelerator::Gpu,
    }
}

#[cfg(test)]
mod tests;
