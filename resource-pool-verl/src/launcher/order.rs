//! Which pools get placement groups, and in what order, by a release's [`GroupOrder`](crate::releases::GroupOrder):
//! `init_workers` (0.9's `_setup`) makes one worker group per pool that hosts a worker
//! group's role, in the layout's order, each waiting on its groups with no timeout; the
//! reward model's manager and the teacher's create their pools' groups before or after.

use resource_pool_core::check::Creation;
use resource_pool_core::model::PoolId;

use super::Layout;
use crate::releases::{EmptyPool, ReferenceGroup, Release, RewardModelGroups};

/// The roles whose pools get worker groups in every release: the actor with rollout (and
/// reference policy), the critic, the reference policy (`init_workers`'
/// `resource_pool_to_cls`). The reward model is one where the release says so.
pub const WORKER_GROUP_ROLES: &[&str] = &[
    "actor",
    "actor_rollout",
    "actor_rollout_ref",
    "critic",
    "ref",
];

/// verl's names of the roles created by a manager of their own.
const REWARD_MODEL: &str = "rm";
/// The reference policy, and the separate actor 0.9.1 gives it a worker group beside.
const REFERENCE: &str = "ref";
const ACTOR: &str = "actor";
const TEACHER: &str = "teacher";

/// The order of a launch.
pub(super) struct Order {
    /// The stages: the pools a manager creates before the worker groups (0.7.0's reward
    /// model), the worker groups' pools, then each later manager's pool.
    pub(super) creation: Creation,
    /// Per pool, whether a manager (the reward model's, the teacher's) creates its groups,
    /// not a worker group: its accelerator follows the release's [`LaterDevice`].
    ///
    /// [`LaterDevice`]: crate::releases::LaterDevice
    pub(super) by_manager: Vec<bool>,
    /// The pool whose empty worker group stops verl (`IndexError`).
    pub(super) stops_at: Option<PoolId>,
}

/// The order `release` creates `layout`'s pools in.
pub(super) fn order(release: &Release, layout: &Layout<'_>) -> Order {
    let groups = release.groups;
    let reference = match groups.reference {
        ReferenceGroup::Mapped => true,
        ReferenceGroup::WithSeparateActor => layout.pool_of(ACTOR).is_some(),
        ReferenceGroup::Never => false,
    };
    let worker_role = |role: &str| {
        (WORKER_GROUP_ROLES.contains(&role) && (role != REFERENCE || reference))
            || (role == REWARD_MODEL && groups.reward_model == RewardModelGroups::WorkerGroup)
    };
    let hosts_worker_group = |pool: PoolId| layout.roles_of(pool).any(worker_role);
    let mut stages: Vec<Vec<PoolId>> = Vec::new();
    let mut by_manager = vec![false; layout.pools.len()];
    // 0.7.0's reward loop: a reward model sharing a worker group's pool gets its groups
    // first; one on a pool of its own makes no worker group.
    if groups.reward_model == RewardModelGroups::BeforeWorkerGroups
        && let Some(pool) = layout
            .pool_of(REWARD_MODEL)
            .filter(|&p| hosts_worker_group(p))
    {
        stages.push(vec![pool]);
        by_manager[pool] = true;
    }
    let created = |stages: &[Vec<PoolId>], pool| stages.iter().flatten().any(|&p| p == pool);
    let mut workers = Vec::new();
    let mut stops_at = None;
    for pool in 0..layout.pools.len() {
        if created(&stages, pool) {
            continue;
        }
        if hosts_worker_group(pool) {
            workers.push(pool);
        } else if groups.empty_pool == EmptyPool::IndexError {
            stops_at = Some(pool);
            break;
        }
    }
    stages.push(workers);
    let mut later = |role: &str, stages: &mut Vec<Vec<PoolId>>| {
        if let Some(pool) = layout.pool_of(role).filter(|&p| !created(stages, p)) {
            stages.push(vec![pool]);
            by_manager[pool] = true;
        }
    };
    if stops_at.is_none() {
        if groups.reward_model == RewardModelGroups::Later {
            later(REWARD_MODEL, &mut stages);
        }
        if groups.teacher_later {
            later(TEACHER, &mut stages);
        }
    }
    stages.retain(|stage| !stage.is_empty());
    Order {
        creation: Creation { stages },
        by_manager,
        stops_at,
    }
}
