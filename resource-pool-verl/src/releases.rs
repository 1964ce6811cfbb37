//! What each verl release does with its pools: one row per release, read from that
//! release's wheel (PyPI `verl==V`, files named per row) and held to what its code does on a
//! Ray cluster (`tests/verl/`). The one place these facts are written: the launch plan
//! ([`super::launcher`]), the reader of launch lines, the suggestions, the plan and the
//! docs all take them from here.
//!
//! A row says which keys make pools (the reward keys' spelling, a teacher pool), which
//! pools get placement groups and when ([`GroupOrder`]), the CPUs per bundle
//! ([`BundleCpus`]), verl's own check before Ray ([`PreCheck`]), what holds CPUs before the
//! first group ([`Driver`]) and the accelerator's resource name ([`DeviceRule`],
//! [`LaterDevice`]). A version that is no row (a newer release, a build from git) is judged
//! by the newest row not newer than it ([`super::version::release_for`]); without a
//! version, the newest row's rules apply ([`newest`]).
//!
//! The keys a release's *config* has are another table, [`super::key_set`] (generated
//! from the same wheels); this one holds what the Python code does with them, which no
//! config file says.

use super::keys::*;

/// Which reward keys a release reads, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RewardKeys {
    /// No reward pool: `rm` goes to global_pool whenever `reward_model.enable` (verl
    /// 0.5.0's `TaskRunner.run`: `mapping[Role.RewardModel] = global_pool_id`).
    NoPool,
    /// `reward_model.{enable,enable_resource_pool,n_gpus_per_node,nnodes}` (0.6.0-0.7.0:
    /// `init_resource_pool_mgr`, `add_reward_model_worker`).
    Legacy,
    /// `reward.reward_model.*`, after `main` ran `migrate_legacy_reward_impl`
    /// (`verl/experimental/reward_loop/reward_loop.py`), which copies each legacy
    /// `reward_model.*` key that is not None over its newer twin: key by key, the legacy
    /// value wins when given (0.7.1, 0.8.0).
    NewerMigrated,
    /// `reward.reward_model.*` only: `main` no longer calls `migrate_legacy_reward_impl`,
    /// so the legacy keys (still in the config, null) are never read (0.9.0, 0.9.1).
    Newer,
}

/// What the actor_rollout workers divide their pool's accelerators by at start-up (its
/// `_build_rollout`, or `engine_workers.py`'s rollout set-up): an `assert` that stops verl
/// when the pool's size is no multiple of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RolloutWorld {
    /// `rollout.tensor_model_parallel_size` alone ("rollout world_size: N is not divisible
    /// by infer_tp: T"; verl 0.5.0's `fsdp_workers.py` and `megatron_workers.py`).
    Tp,
    /// `tensor_model_parallel_size × data_parallel_size × pipeline_model_parallel_size`
    /// ("... is not divisible by infer_world_size: W"; 0.6.0 on, `fsdp_workers.py`,
    /// `megatron_workers.py`, and `engine_workers.py` from 0.7.0).
    TpDpPp,
}

impl RolloutWorld {
    /// The keys whose values multiply into the size verl divides by.
    pub fn keys(self) -> &'static [KeyId] {
        match self {
            RolloutWorld::Tp => &[ROLLOUT_TP],
            RolloutWorld::TpDpPp => &[ROLLOUT_TP, ROLLOUT_DP, ROLLOUT_PP],
        }
    }

    /// verl's name of that size in its assertion's message.
    pub fn name(self) -> &'static str {
        match self {
            RolloutWorld::Tp => "infer_tp",
            RolloutWorld::TpDpPp => "infer_world_size",
        }
    }
}

/// Whether verl builds its rollout replicas at start-up, and which key gives them their
/// node size. Each replica (`RolloutReplica.__init__`, `verl/workers/rollout/replica.py`)
/// asserts that its size (`tensor_model_parallel_size × data_parallel_size ×
/// pipeline_model_parallel_size`), when larger than `gpus_per_node`, is a multiple of it
/// ("world_size W must be divisible by gpus_per_node G"): a replica over several nodes takes
/// whole nodes. The replicas are built, one per `world_size // W` of the actor_rollout
/// worker group, by the `AgentLoopManager` that `RayPPOTrainer.init_workers`
/// (`verl/trainer/ppo/ray_trainer.py`) creates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RolloutReplicas {
    /// None: 0.5.0 has no `replica.py`, and its async servers assert nothing of the kind.
    None,
    /// Only with `actor_rollout_ref.rollout.mode=async` (the config's default is `sync`):
    /// `init_workers` creates the `AgentLoopManager` only then; `gpus_per_node` is
    /// `trainer.n_gpus_per_node` (`agent_loop.py`, `_initialize_llm_servers`; 0.6.0, 0.6.1).
    AsyncMode,
    /// Always: `init_workers` creates the `AgentLoopManager` whatever the mode ("mode is
    /// always \"async\" since sync mode is deprecated"); `gpus_per_node` is
    /// `trainer.n_gpus_per_node` (0.7.0).
    Always,
    /// Always, with `gpus_per_node` = `actor_rollout_ref.rollout.n_gpus_per_node`, whose
    /// default is `${oc.select:trainer.n_gpus_per_node,8}` (`agent_loop.py` in 0.7.1,
    /// `verl/workers/rollout/llm_server.py`'s `LLMServerManager` from 0.8.0; 0.8.0 on
    /// refuses any mode but `async`).
    AlwaysRolloutNodes,
}

impl RolloutReplicas {
    /// The key whose value verl passes as the replicas' `gpus_per_node`, when it builds
    /// them.
    pub fn per_node_key(self) -> Option<KeyId> {
        match self {
            RolloutReplicas::None => None,
            RolloutReplicas::AsyncMode | RolloutReplicas::Always => Some(N_GPUS_PER_NODE),
            RolloutReplicas::AlwaysRolloutNodes => Some(ROLLOUT_GPUS),
        }
    }
}

/// The accelerator's resource name of the worker groups' pools: what
/// `RayResourcePool.get_placement_groups(device_name=...)` turns `trainer.device` into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DeviceRule {
    /// `trainer.device` as written: `cuda` → `GPU`, `npu` → `NPU`, any other value asked
    /// for as a resource of that name (0.5.0-0.6.1).
    AsWritten,
    /// As written, but `main`'s `auto_set_device` sets `npu` where `torch_npu` is usable,
    /// on the machine the driver starts on (0.7.0-0.8.0).
    NpuOnAscend,
    /// The platform of the process that creates the groups: `NPU` on Ascend, `GPU` on
    /// NVIDIA and ROCm and when nothing is detected; `trainer.device` is rewritten both ways
    /// (0.9).
    Platform,
}

/// The accelerator's resource name of the pools that get their groups after the worker
/// groups' (`split_resource_pool` calls `get_placement_groups` with its own device).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LaterDevice {
    /// No such pool (0.5.0-0.6.1).
    None,
    /// `GPU`, whatever `trainer.device` says (0.7.0, 0.7.1: no `device_name` passed, the
    /// default `cuda`).
    Gpu,
    /// `NPU` where `torch.npu` exists (Ascend), `GPU` elsewhere (0.8.0's
    /// `is_torch_npu_available(check_device=False)`; 0.9's platform).
    Platform,
}

/// CPUs per bundle: `max_colocate_count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "cpus")]
pub enum BundleCpus {
    /// Hard-coded in `ResourcePoolManager.create_resource_pool`: no one can set it.
    Fixed(u32),
    /// A `ResourcePoolManager` field with this default, which code that builds the manager
    /// may set; `main_ppo` passes none and no config key reaches it.
    Field(u32),
}

impl BundleCpus {
    /// The CPUs per bundle `main_ppo` runs with.
    pub fn default_cpus(self) -> u32 {
        match self {
            BundleCpus::Fixed(n) | BundleCpus::Field(n) => n,
        }
    }
}

/// When the reward model's pool gets its placement groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RewardModelGroups {
    /// With the worker groups, in the layout's order (0.5.0-0.6.1).
    WorkerGroup,
    /// Before the worker groups, from the reward loop's manager, when it shares a worker
    /// group's pool; a pool of its own makes no worker group (0.7.0 with its default
    /// `reward_model.use_reward_loop=True`).
    BeforeWorkerGroups,
    /// After the worker groups, from the reward loop's manager, whole (0.7.1 on).
    Later,
}

/// What verl does with a pool none of whose roles makes a worker group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EmptyPool {
    /// `create_colocated_worker_cls({})` raises `IndexError` when the worker-group loop
    /// reaches it, after the pools before it got their groups (0.5.0-0.7.0).
    IndexError,
    /// The loop skips it: it gets no groups (0.7.1 on: `if not class_dict: continue`).
    Skipped,
}

/// Which pools get placement groups, and when: `init_workers` (or 0.9's `_setup`) makes a
/// worker group per pool that hosts an actor, critic or reference policy (and the reward
/// model, where it is one), in the layout's order, each waiting on its groups with no
/// timeout; the reward model's and teacher's pools may come later.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct GroupOrder {
    /// When the reward model's pool gets its groups.
    pub reward_model: RewardModelGroups,
    /// Whether the teacher's pool gets its groups last, from the teacher's manager (0.8.0
    /// on; before, there is no teacher).
    pub teacher_later: bool,
    /// What becomes of a pool whose roles make no worker group.
    pub empty_pool: EmptyPool,
    /// When the reference policy gets a worker group of its own.
    pub reference: ReferenceGroup,
}

/// When `ref` (verl's `Role.RefPolicy`) gets a worker group of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReferenceGroup {
    /// Whenever it is mapped (`init_workers`, 0.5.0-0.8.0).
    Mapped,
    /// Only beside a separate actor (`Role.Actor` mapped; 0.9.1's `_setup`,
    /// `trainer_base.py:255`); otherwise it is fused into the actor's worker group.
    WithSeparateActor,
    /// Never: 0.9.0's `_setup` makes worker groups for the actor's role and the critic only.
    Never,
}

/// verl's own check in `create_resource_pool`, before any group is created.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PreCheck {
    /// The total below, then a greedy fit per pool in the layout's order: each node-slot
    /// sized as the pool's first, each on a node not yet used by that pool, nodes in the
    /// order Ray lists them (0.5.0). It refuses layouts Ray would place.
    GreedyAndTotal,
    /// The free accelerators of every alive node (`GPU` where a node has it free, else
    /// `NPU`) against the accelerators of every pool, those that get no groups included:
    /// `ValueError("Total available GPUs X is less than total desired GPUs Y")` (0.6.0 on).
    Total,
}

/// What holds CPUs from before the first group on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Driver {
    /// `main_ppo`'s `TaskRunner`, an actor of `num_cpus=1`, for the whole run; Ray puts it
    /// on the driver's node, the head under `ray job submit` (0.5.0-0.8.0).
    TaskRunner,
    /// No CPU for the `TaskRunner`, but TransferQueue's start-up (`tq.init`, the
    /// `TransferQueue>=0.1.10` verl asks for): its controller (1 CPU, beside the driver)
    /// and `units` storage units of 1 CPU each, pinned (hard node affinity) to the alive
    /// nodes round-robin in the order of their node ids (0.9).
    TransferQueue {
        /// `transfer_queue.backend.SimpleStorage.num_data_storage_units` (8).
        units: u32,
    },
}

/// One release's facts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Release {
    /// The release (`0.9.1`), as in [`super::key_set`].
    pub version: &'static str,
    /// How its entry point reads the reward keys.
    pub reward: RewardKeys,
    /// Whether `distillation.enabled` adds `teacher_pool` (`teacher` → teacher_pool).
    pub teacher_pool: bool,
    /// The accelerator's resource name of the worker groups' pools.
    pub device: DeviceRule,
    /// The accelerator's resource name of the pools that get their groups later (the
    /// reward model's, the teacher's).
    pub later_device: LaterDevice,
    /// CPUs per bundle.
    pub cpus: BundleCpus,
    /// Which pools get placement groups, and when.
    pub groups: GroupOrder,
    /// verl's own check before Ray sees the groups.
    pub pre_check: PreCheck,
    /// What holds CPUs from before the first group on.
    pub driver: Driver,
    /// What the rollout's parallel sizes multiply into, which must divide actor_rollout's
    /// pool.
    pub rollout_world: RolloutWorld,
    /// Whether its rollout replicas are built at start-up, over nodes of which size.
    pub rollout_replicas: RolloutReplicas,
    /// The files of the wheel that show the row.
    pub evidence: &'static str,
}

const V05: &str = "verl/trainer/main_ppo.py (TaskRunner.run: global_pool only, rm on it; @ray.remote(num_cpus=1) TaskRunner), verl/trainer/ppo/ray_trainer.py (ResourcePoolManager.create_resource_pool: max_colocate_count=1, _check_resource_available: total, then a greedy fit per pool of process_on_nodes[0]; init_workers: rm a worker group, no skip of an empty pool)";
const V06: &str = "verl/trainer/main_ppo.py (TaskRunner.init_resource_pool_mgr, add_reward_model_worker; ray.remote(num_cpus=1)(TaskRunner)), verl/trainer/ppo/ray_trainer.py (create_resource_pool: max_colocate_count=1; _check_resource_available: total only; init_workers: rm a worker group, no skip of an empty pool)";
const V070: &str = "verl/trainer/main_ppo.py (TaskRunner.init_resource_pool_mgr; main: auto_set_device), verl/trainer/ppo/ray_trainer.py (create_resource_pool: max_colocate_count=3; init_workers: with use_reward_loop, RewardLoopManager on the reward model's pool before the worker groups when it shares one, no skip of an empty pool), verl/single_controller/ray/base.py (split_resource_pool: get_placement_groups() with the default cuda)";
const V071: &str = "verl/trainer/main_ppo.py (main: migrate_legacy_reward_impl, auto_set_device; TaskRunner.init_resource_pool_mgr, add_reward_model_resource_pool), verl/trainer/ppo/ray_trainer.py (init_workers: if not class_dict: continue; RewardLoopManager after the worker groups), verl/single_controller/ray/base.py (create_resource_pool: max_colocate_count=3; split_resource_pool: get_placement_groups() with the default cuda), verl/experimental/reward_loop/reward_loop.py";
const V08: &str = "verl/trainer/main_ppo.py (main: migrate_legacy_reward_impl; TaskRunner.init_resource_pool_mgr, add_reward_model_resource_pool, add_teacher_model_resource_pool), verl/single_controller/ray/base.py (ResourcePoolManager.max_colocate_count: int = 3; split_resource_pool: npu if is_torch_npu_available(check_device=False)), verl/trainer/ppo/ray_trainer.py (init_workers: RewardLoopManager, then MultiTeacherModelManager), verl/experimental/reward_loop/reward_loop.py, verl/trainer/distillation/losses.py (is_distillation_enabled)";
const V09: &str = "verl/trainer/main_ppo.py (main: no migrate_legacy_reward_impl, auto_set_device from the platform; @ray.remote TaskRunnerV1: tq.init), verl/trainer/ppo/v1/trainer_base.py (_init_resource_pool_mgr, _setup: worker groups for the actor's role, the critic, and in 0.9.1 `ref` beside Role.Actor only; trainer.use_v1=True by default), verl/single_controller/ray/base.py (get_placement_groups: current_platform.ray_resource_name()), verl/plugin/platform/platform_manager.py, transfer_queue/utils/common.py (get_node_round_robin_scheduling_strategies), verl/trainer/main_ppo_v0.py (TaskRunner.init_resource_pool_mgr)";

/// The rows from 0.5.0 to 0.6.1: the reward model a worker group, CPUs fixed at 1, no
/// pool skipped, the TaskRunner's CPU, `trainer.device` as written.
const EARLY: Release = Release {
    version: "",
    reward: RewardKeys::Legacy,
    teacher_pool: false,
    device: DeviceRule::AsWritten,
    later_device: LaterDevice::None,
    cpus: BundleCpus::Fixed(1),
    groups: GroupOrder {
        reward_model: RewardModelGroups::WorkerGroup,
        teacher_later: false,
        empty_pool: EmptyPool::IndexError,
        reference: ReferenceGroup::Mapped,
    },
    pre_check: PreCheck::Total,
    driver: Driver::TaskRunner,
    rollout_world: RolloutWorld::TpDpPp,
    rollout_replicas: RolloutReplicas::AsyncMode,
    evidence: V06,
};

/// The rows from 0.7.1 on: the reward model later, 3 CPUs, empty pools skipped.
const LATE: Release = Release {
    version: "",
    reward: RewardKeys::NewerMigrated,
    teacher_pool: false,
    device: DeviceRule::NpuOnAscend,
    later_device: LaterDevice::Gpu,
    cpus: BundleCpus::Fixed(3),
    groups: GroupOrder {
        reward_model: RewardModelGroups::Later,
        teacher_later: false,
        empty_pool: EmptyPool::Skipped,
        reference: ReferenceGroup::Mapped,
    },
    pre_check: PreCheck::Total,
    driver: Driver::TaskRunner,
    rollout_world: RolloutWorld::TpDpPp,
    rollout_replicas: RolloutReplicas::AlwaysRolloutNodes,
    evidence: V071,
};

/// 0.9's rows: the platform's accelerator, the teacher last, TransferQueue's CPUs.
const V09_ROW: Release = Release {
    reward: RewardKeys::Newer,
    teacher_pool: true,
    device: DeviceRule::Platform,
    later_device: LaterDevice::Platform,
    cpus: BundleCpus::Field(3),
    groups: GroupOrder {
        teacher_later: true,
        ..LATE.groups
    },
    driver: Driver::TransferQueue { units: 8 },
    evidence: V09,
    ..LATE
};

/// Every release of the key set, oldest first.
pub const RELEASES: &[Release] = &[
    Release {
        version: "0.5.0",
        reward: RewardKeys::NoPool,
        pre_check: PreCheck::GreedyAndTotal,
        rollout_world: RolloutWorld::Tp,
        rollout_replicas: RolloutReplicas::None,
        evidence: V05,
        ..EARLY
    },
    Release {
        version: "0.6.0",
        ..EARLY
    },
    Release {
        version: "0.6.1",
        ..EARLY
    },
    Release {
        version: "0.7.0",
        reward: RewardKeys::Legacy,
        device: DeviceRule::NpuOnAscend,
        later_device: LaterDevice::Gpu,
        cpus: BundleCpus::Fixed(3),
        groups: GroupOrder {
            reward_model: RewardModelGroups::BeforeWorkerGroups,
            ..EARLY.groups
        },
        rollout_replicas: RolloutReplicas::Always,
        evidence: V070,
        ..EARLY
    },
    Release {
        version: "0.7.1",
        ..LATE
    },
    Release {
        version: "0.8.0",
        teacher_pool: true,
        later_device: LaterDevice::Platform,
        cpus: BundleCpus::Field(3),
        groups: GroupOrder {
            teacher_later: true,
            ..LATE.groups
        },
        evidence: V08,
        ..LATE
    },
    Release {
        version: "0.9.0",
        groups: GroupOrder {
            reference: ReferenceGroup::Never,
            ..V09_ROW.groups
        },
        ..V09_ROW
    },
    Release {
        version: "0.9.1",
        groups: GroupOrder {
            reference: ReferenceGroup::WithSeparateActor,
            ..V09_ROW.groups
        },
        ..V09_ROW
    },
];

/// The newest release known: whose rules apply when no version is given.
pub fn newest() -> &'static Release {
    RELEASES.last().expect("the table has rows")
}

/// The oldest release known: whose rules stand in for an older verl that is installed (a
/// fork of 0.1-0.4), said as such.
pub fn oldest() -> &'static Release {
    RELEASES.first().expect("the table has rows")
}

/// The release a check follows, and whether it stands in for a version not given (the
/// newest known).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReleaseRules {
    /// The release.
    pub release: &'static Release,
    /// Whether no version was given, and the newest release known stands in.
    pub assumed: bool,
}

impl ReleaseRules {
    /// The newest release's rules, for want of a version.
    pub fn newest() -> ReleaseRules {
        ReleaseRules {
            release: newest(),
            assumed: true,
        }
    }
}

/// The row of a release.
pub fn release(version: &str) -> Option<&'static Release> {
    RELEASES.iter().find(|r| r.version == version)
}

/// The legacy reward keys and their newer twins, in the order verl reads them.
pub const REWARD_TWINS: [(KeyId, KeyId); 4] = [
    (RM_ENABLE, NEW_RM_ENABLE),
    (RM_POOL, NEW_RM_POOL),
    (RM_GPUS, NEW_RM_GPUS),
    (RM_NNODES, NEW_RM_NNODES),
];

impl Release {
    /// Whether this release's entry point reads `key` for its pools (a key its config
    /// lacks is never read; a key it has may still be ignored, as 0.9's legacy reward
    /// keys are).
    pub fn reads(&self, key: KeyId) -> bool {
        let legacy = REWARD_TWINS.iter().any(|&(l, _)| l == key);
        let newer = REWARD_TWINS.iter().any(|&(_, n)| n == key);
        match key {
            DISTILL_ENABLE | DISTILL_GPUS | DISTILL_NNODES => self.teacher_pool,
            ROLLOUT_DP | ROLLOUT_PP => self.rollout_world.keys().contains(&key),
            ROLLOUT_GPUS => self.rollout_replicas.per_node_key() == Some(ROLLOUT_GPUS),
            _ if legacy => match self.reward {
                // 0.5.0 reads only the switch of the reward model.
                RewardKeys::NoPool => key == RM_ENABLE,
                RewardKeys::Legacy | RewardKeys::NewerMigrated => true,
                RewardKeys::Newer => false,
            },
            _ if newer => matches!(self.reward, RewardKeys::NewerMigrated | RewardKeys::Newer),
            _ => true,
        }
    }

    /// The newer key a legacy key of this release should be written as, when the release
    /// reads only the newer one.
    pub fn instead(&self, key: KeyId) -> Option<KeyId> {
        REWARD_TWINS
            .iter()
            .find(|&&(l, _)| l == key)
            .map(|&(_, n)| n)
            .filter(|&n| !self.reads(key) && self.reads(n))
    }
}
