//! What each verl release's PPO entry point does with the pool keys: one row per release,
//! read from that release's wheel (PyPI `verl==V`, files named per row). `--verl-version V`
//! builds the layout by V's row; without it, [`VerlSettings`](super::VerlSettings) reads
//! the keys as written (see `reward_keys` there).
//!
//! The keys a release's *config* has are another table, [`super::key_set`] (generated
//! from the same wheels); this one holds what the Python code does with them, which no
//! config file says: whether a reward pool exists, which spelling of the reward keys
//! `main_ppo` reads, whether a teacher pool exists, whether `trainer.device` is detected.

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

/// One release's facts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Release {
    /// The release (`0.9.1`), as in [`super::key_set`].
    pub version: &'static str,
    /// How its entry point reads the reward keys.
    pub reward: RewardKeys,
    /// Whether `distillation.enabled` adds `teacher_pool` (`teacher` → teacher_pool).
    pub teacher_pool: bool,
    /// Whether `main` calls `auto_set_device` (`trainer.device=npu` where `torch_npu` is).
    pub auto_device: bool,
    /// What the rollout's parallel sizes multiply into, which must divide actor_rollout's
    /// pool.
    pub rollout_world: RolloutWorld,
    /// Whether its rollout replicas are built at start-up, over nodes of which size.
    pub rollout_replicas: RolloutReplicas,
    /// The files of the wheel that show the row.
    pub evidence: &'static str,
}

const V05: &str = "verl/trainer/main_ppo.py (TaskRunner.run: global_pool only, rm on it)";
const V06: &str =
    "verl/trainer/main_ppo.py (TaskRunner.init_resource_pool_mgr, add_reward_model_worker)";
const V071: &str = "verl/trainer/main_ppo.py (main: migrate_legacy_reward_impl; TaskRunner.init_resource_pool_mgr, add_reward_model_resource_pool), verl/experimental/reward_loop/reward_loop.py";
const V08: &str = "verl/trainer/main_ppo.py (main: migrate_legacy_reward_impl; TaskRunner.init_resource_pool_mgr, add_reward_model_resource_pool, add_teacher_model_resource_pool), verl/experimental/reward_loop/reward_loop.py, verl/trainer/distillation/losses.py (is_distillation_enabled)";
const V09: &str = "verl/trainer/main_ppo.py (main: no migrate_legacy_reward_impl), verl/trainer/ppo/v1/trainer_base.py (_init_resource_pool_mgr, trainer.use_v1=True by default), verl/trainer/main_ppo_v0.py (TaskRunner.init_resource_pool_mgr)";

macro_rules! release {
    ($v:literal, $reward:ident, teacher $t:literal, auto_device $a:literal, rollout $w:ident, replicas $r:ident, $evidence:expr) => {
        Release {
            version: $v,
            reward: RewardKeys::$reward,
            teacher_pool: $t,
            auto_device: $a,
            rollout_world: RolloutWorld::$w,
            rollout_replicas: RolloutReplicas::$r,
            evidence: $evidence,
        }
    };
}

/// Every release of the key set, oldest first.
pub const RELEASES: &[Release] = &[
    release!("0.5.0", NoPool, teacher false, auto_device false, rollout Tp, replicas None, V05),
    release!("0.6.0", Legacy, teacher false, auto_device false, rollout TpDpPp, replicas AsyncMode, V06),
    release!("0.6.1", Legacy, teacher false, auto_device false, rollout TpDpPp, replicas AsyncMode, V06),
    release!("0.7.0", Legacy, teacher false, auto_device true, rollout TpDpPp, replicas Always, V06),
    release!("0.7.1", NewerMigrated, teacher false, auto_device true, rollout TpDpPp, replicas AlwaysRolloutNodes, V071),
    release!("0.8.0", NewerMigrated, teacher true, auto_device true, rollout TpDpPp, replicas AlwaysRolloutNodes, V08),
    release!("0.9.0", Newer, teacher true, auto_device true, rollout TpDpPp, replicas AlwaysRolloutNodes, V09),
    release!("0.9.1", Newer, teacher true, auto_device true, rollout TpDpPp, replicas AlwaysRolloutNodes, V09),
];

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
