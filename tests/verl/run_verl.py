#!/usr/bin/env python3
"""Runs one verl release's OWN start-up code against a live Ray cluster and records what it
does with a resource-pool layout: placed, hangs (on which pool), refused by verl's own
pre-check, or another error.

    tests/verl/python V tests/verl/run_verl.py --address 127.0.0.2:27390 < cases.json > results.json

Cases (a JSON list; see tests/verl/README.md and tests/verl/cases/*.json):

  {"id", "kind": "layout", "spec": {"global_pool": [8]}, "mapping": {"actor_rollout": "global_pool"},
   "max_colocate_count": null, "device": "cuda", "hold": [...], "npu_platform": false}
  {"id", "kind": "launch", "overrides": ["trainer.nnodes=2"], "hold": [...], "npu_platform": false}

What runs is verl's code: `main_ppo.main` (Hydra's wrapper peeled off, the config composed with
Hydra's compose API over the wheel's own verl/trainer/config), its `run_ppo`, its TaskRunner's
`run` (in this process, see below), verl's ResourcePoolManager with its own pre-check, and the
release's trainer start-up (`RayPPOTrainer.init_workers`, or 0.9's v1 `PPOTrainer.init`) in the
release's own order. Replaced, and only these (each is explained with file:line in the README):

  * the TaskRunner actor: an idle actor with verl's own resource options holds what it would
    hold, and the runner's `run` is executed here, synchronously, instead of in that actor;
  * 0.9's TransferQueue `tq.init`: an idle actor with the controller's options, and one
    pinned placement group per storage unit on the node TransferQueue's own round-robin picks;
  * worker classes: trivial subclasses of verl's `Worker` with the same names;
  * the worker-group class: a recorder that calls verl's real
    `resource_pool.get_placement_groups(strategy=..., device_name=...)` with the arguments the
    real RayWorkerGroup passes, and creates no actors;
  * the managers made after the worker groups (reward loop / reward model, teacher, agent loop /
    LLM server, checkpoint): recorders that call verl's real `split_resource_pool` (hence
    `get_placement_groups`) on the pool they were given, exactly when the real ones would;
  * tokenizer, processor, datasets, reward functions and `fit`: not needed to place groups.

verl waits on `ray.get([pg.ready() ...])` with no timeout; here that wait, and only it, gets
a timeout (--hang-timeout): a timeout is outcome "hangs" on that pool.

Cases with "npu_platform": true run in a second process of this script, started with the
stand-in `torch_npu` (tests/verl/npu_stub) first on PYTHONPATH: verl picks its platform once
per process.
"""

import argparse
import contextlib
import dataclasses
import inspect
import io
import json
import logging
import os
import subprocess
import sys
import time
import traceback
from pathlib import Path

T0 = time.monotonic()
HERE = Path(__file__).resolve().parent
NPU_STUB = HERE / "npu_stub"

# Roles as verl's Role enum stringifies them (0.6+: str(Role.X)), and the member names.
CANON = {
    "actor": "Actor",
    "rollout": "Rollout",
    "actor_rollout": "ActorRollout",
    "critic": "Critic",
    "ref": "RefPolicy",
    "rm": "RewardModel",
    "actor_rollout_ref": "ActorRolloutRef",
    "env": "Env",
    "teacher": "TeacherModel",
}
CANON_OF = {v: k for k, v in CANON.items()}
INTERNAL = ("node:", "memory", "object_store_memory")

# What every real launch line sets and verl's config validation insists on (batch and micro
# batch sizes); added to every case where the release's config has the key. Pool-neutral.
BASE_OVERRIDES = [
    # Batch sizes every world size of the cases divides (1, 2, 3, 4, 6, 8, 12, 16, 24 GPUs:
    # verl's validate_config asserts train_batch_size * rollout.n % n_gpus == 0, and the
    # defaults 1024/256 fail on 3 nodes of 8), so a layout is never refused for its data.
    "data.train_batch_size=1680",
    "actor_rollout_ref.actor.ppo_mini_batch_size=240",
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4",
    "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4",
    "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=4",
    "critic.ppo_micro_batch_size_per_gpu=4",
    "reward_model.micro_batch_size_per_gpu=4",
    "reward.reward_model.micro_batch_size_per_gpu=4",
]
MODEL_PATH_KEYS = [
    "actor_rollout_ref.model.path",
    "critic.model.path",
    "critic.model.tokenizer_path",
    "reward_model.model.path",
    "reward_model.model.input_tokenizer",
    "reward.reward_model.model_path",
    "reward.reward_model.model.path",
    "distillation.teacher_models.teacher_model.model_path",
]


def log(*args):
    print("[run_verl]", *args, file=sys.stderr, flush=True)


# ---- outcomes -------------------------------------------------------------------------------
# BaseException, so that no `except Exception` in verl swallows them.
class Hang(BaseException):
    def __init__(self, pool, group, state, message):
        super().__init__(message)
        self.pool, self.group, self.state = pool, group, state


class Refused(BaseException):
    pass


class Reached(BaseException):
    """verl got past its start-up: it would now train."""


class NotModelled(BaseException):
    """A branch whose placement behaviour this harness does not reproduce."""


# ---- the harness ----------------------------------------------------------------------------
class Harness:
    def __init__(self, args):
        self.args = args
        self.hang_s = args.hang_timeout
        import ray

        self.ray = ray
        from ray.util.placement_group import placement_group, placement_group_table, remove_placement_group

        self.placement_group = placement_group
        self.placement_group_table = placement_group_table
        self.remove_placement_group = remove_placement_group

        t = time.monotonic()
        import verl

        self.verl = verl
        self.release = verl.__version__
        self._import_verl()
        self.import_s = time.monotonic() - t
        ray.init(
            address=args.address,
            _node_ip_address=args.node_ip,
            namespace="rpverl",
            log_to_driver=False,
            logging_level=logging.ERROR,
            configure_logging=False,
        )

        @ray.remote
        class Idle:
            """Holds what the actor it stands for would hold; runs nothing."""

            def node(self):
                return ray.get_runtime_context().get_node_id()

        self.Idle = Idle
        self._install_patches()
        self.case = None

    # ---- imports ------------------------------------------------------------------------------
    def _import_verl(self):
        import importlib

        self.base = importlib.import_module("verl.single_controller.ray.base")
        self.main_ppo = importlib.import_module("verl.trainer.main_ppo")
        self.ray_trainer = importlib.import_module("verl.trainer.ppo.ray_trainer")
        self.Role = self.ray_trainer.Role
        self.RPM = self.ray_trainer.ResourcePoolManager
        self.RayResourcePool = self.base.RayResourcePool
        self.v1 = None
        try:
            self.v1 = importlib.import_module("verl.trainer.ppo.v1.trainer_base")
        except ModuleNotFoundError:
            pass
        self.optional = {}
        for name in (
            "verl.trainer.main_ppo_v0",
            "verl.experimental.reward_loop",
            "verl.experimental.reward_loop.reward_loop",
            "verl.experimental.reward_loop.reward_model",
            "verl.experimental.agent_loop",
            "verl.experimental.teacher_loop",
            "verl.workers.rollout.llm_server",
            "verl.checkpoint_engine",
            "verl.trainer.ppo.v1",
            "verl.single_controller.ray.megatron",
            "verl.workers.fsdp_workers",
            "verl.workers.megatron_workers",
            "verl.workers.engine_workers",
            "verl.workers.roles",
        ):
            try:
                self.optional[name] = importlib.import_module(name)
            except Exception as error:  # absent in this release, or needs what is not installed
                self.optional[name] = None
                log(f"{name}: not importable ({type(error).__name__}: {str(error)[:120]})")
        from hydra import compose, initialize_config_dir

        self.compose = compose
        config_dir = os.path.join(os.path.dirname(self.verl.__file__), "trainer", "config")
        self._hydra = initialize_config_dir(config_dir=config_dir, version_base=None)
        self._hydra.__enter__()

    # ---- replacing a class wherever verl's modules hold it ------------------------------------
    def replace_everywhere(self, original, replacement, skip=()):
        n = 0
        for name, mod in list(sys.modules.items()):
            if mod is None or not (name.startswith("verl") or name.startswith("transfer_queue")) or name in skip:
                continue
            for key, value in list(vars(mod).items()):
                if value is original:
                    setattr(mod, key, replacement)
                    n += 1
        return n

    def _install_patches(self):
        h = self
        ray = self.ray
        base = self.base

        # 1. get_placement_groups: record, and bound verl's wait on pg.ready().
        original_gpg = self.RayResourcePool.get_placement_groups
        original_pg = base.placement_group

        def recording_placement_group(*args, **kwargs):
            pg = original_pg(*args, **kwargs)
            bundles = kwargs.get("bundles", args[0] if args else None)
            h.case["pgs"].append(pg)
            if h.case["current"] is not None:
                h.case["current"]["pgs"].append(pg)
                h.case["current"]["bundles"].append(bundles)
            return pg

        base.placement_group = recording_placement_group

        def get_placement_groups(pool, *args, **kwargs):
            name = pool.name_prefix
            if pool.pgs is not None:
                return original_gpg(pool, *args, **kwargs)
            bound = inspect.signature(original_gpg).bind(pool, *args, **kwargs)
            bound.apply_defaults()
            request = {
                "pool": name,
                "strategy": bound.arguments.get("strategy"),
                "device_name": bound.arguments.get("device_name"),
                "by": h.case["caller"],
                "pgs": [],
                "bundles": [],
            }
            h.case["current"] = request
            original_get = ray.get

            def bounded_get(refs, *a, **k):
                if "timeout" in k:
                    return original_get(refs, *a, **k)
                # The hang timeout, cut short once a group is INFEASIBLE (decided against the
                # nodes' totals, which nothing in a case changes: it waits forever).
                deadline = time.monotonic() + h.hang_s
                while True:
                    try:
                        return original_get(refs, *a, timeout=min(0.25, max(0.01, deadline - time.monotonic())), **k)
                    except ray.exceptions.GetTimeoutError:
                        if time.monotonic() >= deadline or h.infeasible(request["pgs"]):
                            raise h._hang(request) from None

            ray.get = bounded_get
            try:
                return original_gpg(pool, *args, **kwargs)
            finally:
                ray.get = original_get
                h.case["current"] = None
                h.case["requests"].append(request)

        self.RayResourcePool.get_placement_groups = get_placement_groups

        # 2. create_resource_pool: verl's pre-check raising ValueError is "refused".
        original_crp = self.RPM.create_resource_pool

        from ray._private import state as ray_state

        original_arpn = ray_state.available_resources_per_node

        def seen_available(*a, **k):
            # What verl's check reads, in the order it reads it (0.5.0's greedy fit depends on it).
            out = original_arpn(*a, **k)
            ips = h.node_ips()
            h.case["check_saw"] = [
                {"node": ips.get(nid, nid), **{r: v for r, v in res.items() if r in ("GPU", "NPU", "CPU")}} for nid, res in out.items()
            ]
            return out

        def create_resource_pool(manager, *args, **kwargs):
            h.case["manager"] = manager
            ray_state.available_resources_per_node = seen_available
            try:
                return original_crp(manager, *args, **kwargs)
            except ValueError as error:
                raise Refused(str(error)) from None
            finally:
                ray_state.available_resources_per_node = original_arpn

        self.RPM.create_resource_pool = create_resource_pool

        # 3. worker classes -> trivial subclasses of verl's Worker with the same names.
        from verl.single_controller.base import Worker

        self.trivial_workers = {}
        for modname in ("verl.workers.fsdp_workers", "verl.workers.megatron_workers", "verl.workers.engine_workers", "verl.workers.roles"):
            mod = self.optional.get(modname)
            if mod is None:
                continue
            for cname in ("ActorRolloutRefWorker", "AsyncActorRolloutRefWorker", "CriticWorker", "RewardModelWorker", "TrainingWorker"):
                orig = getattr(mod, cname, None)
                if isinstance(orig, type):
                    trivial = self.trivial_workers.get(cname) or type(cname, (Worker,), {"__module__": __name__})
                    self.trivial_workers[cname] = trivial
                    self.replace_everywhere(orig, trivial)
        # Where a worker module does not import here (megatron without megatron-core), its
        # import inside main_ppo is served by a module of the same trivial classes (README: stubs).
        import types

        import importlib.util

        for modname in ("verl.workers.fsdp_workers", "verl.workers.megatron_workers"):
            # Only a module this release has but that does not import here (megatron_workers
            # in 0.5.0-0.7.1); a module the release does not have stays absent.
            if self.optional.get(modname) is None and importlib.util.find_spec(modname) is not None:
                fake = types.ModuleType(modname)
                for cname in ("ActorRolloutRefWorker", "AsyncActorRolloutRefWorker", "CriticWorker", "RewardModelWorker"):
                    trivial = self.trivial_workers.get(cname) or type(cname, (Worker,), {"__module__": __name__})
                    self.trivial_workers[cname] = trivial
                    setattr(fake, cname, trivial)
                sys.modules[modname] = fake
                self.stubbed_modules = getattr(self, "stubbed_modules", []) + [modname]

        # 4. the worker-group class -> the recorder.
        Recorder = make_worker_group_recorder(self)
        self.replace_everywhere(base.RayWorkerGroup, Recorder, skip=("verl.single_controller.ray.base",))
        meg = self.optional.get("verl.single_controller.ray.megatron")
        if meg is not None and hasattr(meg, "NVMegatronRayWorkerGroup"):
            self.replace_everywhere(meg.NVMegatronRayWorkerGroup, Recorder, skip=("verl.single_controller.ray.megatron",))

        # 5. managers created after the worker groups -> recorders.
        for modname, cname, factory in (
            ("verl.experimental.reward_loop", "RewardLoopManager", make_reward_loop_recorder),
            ("verl.experimental.teacher_loop", "MultiTeacherModelManager", make_teacher_recorder),
            ("verl.experimental.agent_loop", "AgentLoopManager", make_rollout_manager_recorder),
            ("verl.workers.rollout.llm_server", "LLMServerManager", make_rollout_manager_recorder),
            ("verl.trainer.ppo.v1", "AgentLoopManagerTQ", make_rollout_manager_recorder),
            ("verl.checkpoint_engine", "CheckpointEngineManager", make_null_recorder),
        ):
            mod = self.optional.get(modname)
            orig = getattr(mod, cname, None) if mod is not None else None
            if isinstance(orig, type):
                self.replace_everywhere(orig, factory(self, cname))

        # 6. what start-up needs only for training: no tokenizer, data, reward functions, fit.
        for mod in (self.main_ppo, self.optional.get("verl.trainer.main_ppo_v0")):
            if mod is None:
                continue
            for fname in ("create_rl_dataset", "create_rl_sampler"):
                if hasattr(mod, fname):
                    setattr(mod, fname, lambda *a, **k: None)

        def fit(*a, **k):
            raise Reached()

        self.ray_trainer.RayPPOTrainer._create_dataloader = lambda *a, **k: None
        self.ray_trainer.RayPPOTrainer.fit = fit
        if self.v1 is not None:
            P = self.v1.PPOTrainer
            P._init_dataloader = lambda self_: None
            P.fit = fit
            for cls in vars(self.optional["verl.trainer.ppo.v1"]).values():
                if isinstance(cls, type) and issubclass(cls, P) and "fit" in vars(cls):
                    cls.fit = fit

        # 7. the TaskRunner actor -> an idle actor with verl's options; run() here.
        self.runner_classes = {}
        from ray.actor import ActorClass

        for mod in (self.main_ppo, self.optional.get("verl.trainer.main_ppo_v0")):
            if mod is None:
                continue
            for name in ("TaskRunner", "TaskRunnerV1"):
                obj = getattr(mod, name, None)
                if isinstance(obj, ActorClass):
                    user_cls = obj.__ray_metadata__.modified_class.__bases__[0]
                    setattr(mod, name, RunnerCapture(self, user_cls, dict(obj._default_options)))
                elif isinstance(obj, type):
                    self.runner_classes[id(obj)] = obj
        self.main_ppo.ray = RayProxy(self)
        v0 = self.optional.get("verl.trainer.main_ppo_v0")
        if v0 is not None:
            v0.ray = RayProxy(self)

        # 8. 0.9: TransferQueue's init -> idle stand-ins holding what its actors hold.
        try:
            import transfer_queue as tq

            self.tq = tq
            tq.init = lambda conf=None: h._tq_init(conf)
            tq.close = lambda *a, **k: None
        except ImportError:
            self.tq = None

    # ---- hang analysis ------------------------------------------------------------------------
    def node_ips(self):
        return {n["NodeID"]: n["NodeManagerAddress"] for n in self.ray.nodes()}

    def pg_state(self, pg):
        table = self.placement_group_table(pg)
        state = table.get("state")
        stats = table.get("stats") or {}
        nodes = set((table.get("bundles_to_node_id") or {}).values())
        return state, stats.get("scheduling_state"), nodes

    def infeasible(self, pgs):
        """Whether a group of these is INFEASIBLE (twice in a row, 50 ms apart)."""
        for _ in range(2):
            if not any(self.pg_state(pg)[1] == "INFEASIBLE" for pg in pgs):
                return False
            time.sleep(0.05)
        return True

    def _hang(self, request):
        ips = self.node_ips()
        for idx, pg in enumerate(request["pgs"]):
            state, sched, _ = self.pg_state(pg)
            if state != "CREATED":
                return Hang(request["pool"], idx, sched or state, f"placement group {idx} of pool {request['pool']} not placed after {self.hang_s} s: {sched or state}")
        return Hang(request["pool"], None, "UNKNOWN", f"pool {request['pool']}: ray.get timed out, yet every group shows CREATED ({ips})")

    # ---- side actors (TaskRunner, TransferQueue) ----------------------------------------------
    RESOURCE_OPTIONS = ("num_cpus", "num_gpus", "resources", "memory", "accelerator_type", "scheduling_strategy", "label_selector")

    def start_idle(self, what, options, wait_s=None):
        opts = {k: v for k, v in options.items() if k in self.RESOURCE_OPTIONS}
        actor = self.Idle.options(**opts).remote()
        self.case["actors"].append(actor)
        try:
            node_id = self.ray.get(actor.node.remote(), timeout=wait_s or self.args.actor_timeout)
        except self.ray.exceptions.GetTimeoutError:
            raise Hang(f"<{what}>", None, "PENDING_CREATION", f"{what} actor ({opts}) was not scheduled in {wait_s or self.args.actor_timeout} s") from None
        ip = self.node_ips().get(node_id)
        self.case["side"].append({"what": what, "options": _jsonable(opts), "node": ip})
        return ip

    def hold_pinned(self, what, ip, resources, timeout=None):
        bundle = dict(resources)
        bundle[f"node:{ip}"] = 0.001
        pg = self.placement_group([bundle], strategy="STRICT_PACK")
        self.case["pgs"].append(pg)
        ref = pg.ready()
        deadline = time.monotonic() + (timeout or self.args.hold_timeout)
        while True:
            ready, _ = self.ray.wait([ref], timeout=min(0.25, max(0.01, deadline - time.monotonic())))
            if ready or time.monotonic() >= deadline or self.infeasible([pg]):
                break
        if not ready:
            state, sched, _ = self.pg_state(pg)
            raise Hang(f"<{what}>", None, sched or state, f"{what} on {ip} ({resources}) could not be held")
        return pg

    def _tq_init(self, conf):
        """What TransferQueue's init (transfer_queue/interface.py:143) holds: a controller actor
        with its own options, and one actor per storage unit with a hard node affinity from its
        own round-robin (storage/bootstrap/simple_storage_bootstrap.py:65)."""
        from importlib import resources as ir

        from omegaconf import OmegaConf

        tq = self.tq
        final = OmegaConf.merge(OmegaConf.load(ir.files("transfer_queue") / "config.yaml"), conf or {})
        from transfer_queue.controller import TransferQueueController

        self.start_idle("TransferQueueController", dict(TransferQueueController._default_options))
        backend = final.backend.storage_backend
        if backend != "SimpleStorage":
            raise NotModelled(f"TransferQueue storage backend {backend}")
        from transfer_queue.storage.simple_storage import SimpleStorageUnit
        from transfer_queue.utils.common import get_node_round_robin_scheduling_strategies

        sconf = final.backend.SimpleStorage
        n = int(sconf.num_data_storage_units)
        strategies = get_node_round_robin_scheduling_strategies(n, required_node_resource=sconf.get("required_node_resource"))
        ips = self.node_ips()
        unit = dict(SimpleStorageUnit._default_options)
        res = {"CPU": unit.get("num_cpus", 1)}
        res.update(unit.get("resources") or {})
        # Where each unit goes, recorded before any is held (the record says on which node a
        # unit that cannot start was pinned); verl's own wait on a unit (tq.init ->
        # process_zmq_server_info, a ray.get per unit in rank order, transfer_queue/utils/
        # zmq_utils.py:674) has no bound: like verl's pg.ready(), it gets the hang timeout.
        nodes = [ips[s.node_id] for s in strategies]
        self.case["side"].append({"what": "TransferQueueStorageUnit", "options": _jsonable(unit), "nodes": nodes})
        for i, ip in enumerate(nodes):
            try:
                self.hold_pinned(f"TransferQueueStorageUnit#{i}", ip, res, timeout=self.hang_s)
            except Hang:
                self._tq_unit_for_real(i, unit, strategies[i])
                raise
        return final

    def _tq_unit_for_real(self, i, unit, strategy):
        """A unit whose pinned stand-in could not be placed, as Ray treats the real one: an
        actor with SimpleStorageUnit's options and TransferQueue's own hard node affinity
        (soft=False). Ray 2.60 queues it while its node is busy (verl waits forever: the Hang
        raised by the caller stands), but fails it at once with ActorUnschedulableError when
        the node can never fit it (a 0-CPU node): tq.init then raises, and verl's start-up
        with it. Measured with TransferQueue 0.1.11's own tq.init on both (README)."""
        opts = {k: v for k, v in unit.items() if k in self.RESOURCE_OPTIONS}
        opts["scheduling_strategy"] = strategy
        actor = self.Idle.options(**opts).remote()
        self.case["actors"].append(actor)
        try:
            self.ray.get(actor.node.remote(), timeout=self.hang_s)
        except self.ray.exceptions.GetTimeoutError:
            return  # pending: a hang, as the stand-in said
        except self.ray.exceptions.RayError as error:
            self.case["side"].append({"what": f"TransferQueueStorageUnit#{i}", "options": _jsonable(opts), "error": type(error).__name__})
            error.rp_where = "transfer_queue/utils/zmq_utils.py:674 (tq.init, main_ppo.py:149)"
            raise error from None

    # ---- cluster state ------------------------------------------------------------------------
    def wait_idle(self, timeout=20):
        from ray._private import state

        deadline = time.monotonic() + timeout
        while True:
            avail = state.available_resources_per_node()
            busy = []
            for n in self.ray.nodes():
                if not n["Alive"]:
                    continue
                for k, v in (n.get("Resources") or {}).items():
                    if k.startswith(INTERNAL) or "_group_" in k:
                        continue
                    a = avail.get(n["NodeID"], {}).get(k, 0.0)
                    if abs(a - v) > 1e-6:
                        busy.append(f"{n['NodeManagerAddress']} {k} {a}/{v}")
            if not busy:
                return None
            if time.monotonic() > deadline:
                return busy
            time.sleep(0.2)

    def cleanup(self):
        for actor in self.case["actors"]:
            try:
                self.ray.kill(actor)
            except Exception:
                pass
        for pg in self.case["pgs"]:
            try:
                self.remove_placement_group(pg)
            except Exception:
                pass
        return self.wait_idle()

    # ---- config -------------------------------------------------------------------------------
    def probe(self):
        """The release's config with no override: which keys it has (composed once)."""
        if getattr(self, "_probe", None) is None:
            self._probe = self.compose(config_name="ppo_trainer")
        return self._probe

    def has_key(self, cfg, dotted):
        from omegaconf import OmegaConf

        return OmegaConf.select(cfg, dotted, default="__absent__") != "__absent__"

    def layout_overrides(self, case, roles):
        """Config switches so that the trainer's own flags (use_critic, use_rm, reference policy)
        agree with the roles of the case's mapping."""
        probe = self.probe()
        out = []
        names = {CANON_OF.get(r.name, r.name) for r in roles}
        if self.has_key(probe, "critic.enable"):
            out.append(f"critic.enable={'critic' in names}")
        else:
            out.append("algorithm.adv_estimator=" + ("gae" if "critic" in names else "grpo"))
        use_ref = "ref" in names or "actor_rollout_ref" in names
        out.append(f"actor_rollout_ref.actor.use_kl_loss={use_ref}")
        out.append("algorithm.use_kl_in_reward=False")
        spec = case["spec"]
        pool_of = {CANON_OF.get(r.name, r.name): p for r, p in roles.items()}
        actor_pool = next((pool_of[n] for n in ("actor_rollout", "actor_rollout_ref", "actor") if n in pool_of), None)
        if actor_pool in spec and spec[actor_pool]:
            out += [f"trainer.nnodes={len(spec[actor_pool])}", f"trainer.n_gpus_per_node={spec[actor_pool][0]}"]
        rm = "rm" in names
        prefix = "reward.reward_model" if self.has_key(probe, "reward.reward_model.enable") else "reward_model"
        out.append(f"{prefix}.enable={rm}")
        if rm and self.has_key(probe, f"{prefix}.enable_resource_pool"):
            separate = pool_of["rm"] != actor_pool
            out.append(f"{prefix}.enable_resource_pool={separate}")
            if separate and spec.get(pool_of["rm"]):
                out += [f"{prefix}.nnodes={len(spec[pool_of['rm']])}", f"{prefix}.n_gpus_per_node={spec[pool_of['rm']][0]}"]
        # The teacher (0.8+): distillation on, its pool's size as the teacher pool's, as main_ppo
        # builds `teacher_pool = [distillation.n_gpus_per_node] * distillation.nnodes`.
        if self.has_key(probe, "distillation.enabled"):
            teacher = "teacher" in names
            out.append(f"distillation.enabled={teacher}")
            if teacher and spec.get(pool_of["teacher"]):
                out += [f"distillation.nnodes={len(spec[pool_of['teacher']])}", f"distillation.n_gpus_per_node={spec[pool_of['teacher']][0]}"]
        if case.get("device"):
            out.append(f"trainer.device={case['device']}")
        return out

    def case_overrides(self, overrides, result):
        """A case's Hydra overrides; one written "?key=value" is kept only where this release's
        config has the key (so one case file serves releases whose keys moved)."""
        probe = None
        out = []
        for o in overrides:
            if o.startswith("?"):
                probe = probe or self.probe()
                key = o[1:].split("=", 1)[0].lstrip("+~")
                if not self.has_key(probe, key):
                    result.setdefault("dropped_overrides", []).append(o[1:])
                    continue
                o = o[1:]
            out.append(o)
        return out

    def base_overrides(self):
        if not hasattr(self, "_base_overrides"):
            probe = self.probe()
            out = [o for o in BASE_OVERRIDES if self.has_key(probe, o.split("=")[0])]
            # The weightless model directory for every model path the config has.
            from tiny_model import make_tiny_model

            self.model_dir = make_tiny_model()
            for key in MODEL_PATH_KEYS:
                if self.has_key(probe, key):
                    out.append(f"{key}={self.model_dir}")
            self._base_overrides = out
        return list(self._base_overrides)

    def resolve_roles(self, mapping):
        roles = {}
        for key, pool in mapping.items():
            member = None
            for r in self.Role:
                if key in (CANON_OF.get(r.name), r.name, str(r)):
                    member = r
                    break
            if member is None:
                raise KeyError(f"role {key!r} is not in this release's Role enum ({[r.name for r in self.Role]})")
            roles[member] = pool
        return roles

    # ---- one case -----------------------------------------------------------------------------
    def run_case(self, case):
        t = time.monotonic()
        self.case = {
            "pgs": [],
            "actors": [],
            "requests": [],
            "side": [],
            "current": None,
            "caller": None,
            "manager": None,
            "notes": [],
        }
        result = {
            "id": case["id"],
            "kind": case.get("kind", "layout"),
            "release": self.release,
            "outcome": None,
            "message": None,
            "spec": None,
            "mapping": None,
            "max_colocate_count": None,
            "bundle": None,
            "created": [],
            "pending": None,
            "placements": {},
            "driver_node": None,
        }
        busy = self.wait_idle(timeout=20)
        if busy:
            result.update(outcome="error", message=f"cluster not idle before the case: {busy}")
            return result
        try:
            for i, hold in enumerate(case.get("hold") or []):
                self.hold_pinned(f"hold#{i}", hold["node_ip"], hold["resources"])
            overrides = self.case_overrides(case.get("overrides") or [], result)
            layout = None
            if case.get("kind", "layout") == "layout":
                roles = self.resolve_roles(case["mapping"])
                overrides = self.layout_overrides(case, roles) + overrides
                layout = (case["spec"], roles, case.get("max_colocate_count"))
            overrides = self.base_overrides() + overrides
            result["overrides"] = overrides
            config = self.compose(config_name="ppo_trainer", overrides=overrides)
            with contextlib.redirect_stdout(sys.stderr):
                self.run_main(config, layout)
            result["outcome"] = "error"
            result["message"] = "verl's main returned without reaching fit()"
        except Reached:
            result["outcome"] = "placed"
        except Hang as hang:
            result["outcome"] = "hangs"
            result["message"] = str(hang)
            result["pending"] = {"pool": hang.pool, "group": hang.group, "state": hang.state}
        except Refused as refused:
            result["outcome"] = "refused"
            result["message"] = str(refused)
        except NotModelled as nm:
            result["outcome"] = "error"
            result["message"] = f"not modelled by this harness: {nm}"
        except Exception as error:
            result["outcome"] = "error"
            result["message"] = f"{type(error).__name__}: {error}"
            result["where"] = getattr(error, "rp_where", None) or _where(error)
        finally:
            self._collect(result)
            busy = self.cleanup()
            if busy:
                result["cleanup"] = f"cluster not idle after the case: {busy}"
        result["seconds"] = round(time.monotonic() - t, 2)
        return result

    def run_main(self, config, layout):
        """verl's own `main` (Hydra's decorator peeled off), with the layout of a "layout" case
        handed to the trainer where the release's main_ppo would hand its own."""
        self.layout = layout
        main = inspect.unwrap(self.main_ppo.main)
        main(config)

    def make_layout_manager(self, spec, roles, mcc):
        fields = {f.name for f in dataclasses.fields(self.RPM)}
        kwargs = {"resource_pool_spec": {k: list(v) for k, v in spec.items()}, "mapping": dict(roles)}
        if mcc is not None:
            if "max_colocate_count" in fields:
                kwargs["max_colocate_count"] = mcc
            else:
                self.case["notes"].append(f"max_colocate_count={mcc} not passed: this release's ResourcePoolManager has no such field")
        return self.RPM(**kwargs)

    def layout_role_worker_mapping(self, roles):
        # Roles that get a worker group: all but the reward model (0.7+: served by the reward
        # loop) and the teacher (0.8+: teacher manager).
        out = {}
        from verl.single_controller.base import Worker

        for role in roles:
            if role.name == "TeacherModel" or (role.name == "RewardModel" and self._rm_is_manager()):
                continue
            cls = self.trivial_workers.get("ActorRolloutRefWorker") or type("ActorRolloutRefWorker", (Worker,), {})
            out[role] = self.ray.remote(cls)
        return out

    def _rm_is_manager(self):
        # 0.5-0.6: the reward model is a worker-group role of init_workers; 0.7+: the reward
        # loop's manager serves it from its pool.
        return "RewardLoopManager" in inspect.getsource(self.ray_trainer.RayPPOTrainer.init_workers) or self.v1 is not None

    def _collect(self, result):
        m = self.case["manager"]
        if m is not None:
            result["spec"] = {k: list(v) for k, v in m.resource_pool_spec.items()}
            result["mapping"] = {CANON_OF.get(r.name, r.name): p for r, p in (m.mapping or {}).items()}
            pools = list(m.resource_pool_dict.values())
            if pools:
                result["max_colocate_count"] = pools[0].max_colocate_count
        ips = self.node_ips()
        for req in self.case["requests"]:
            result["created"].append(req["pool"])
            if result["bundle"] is None and req["bundles"]:
                result["bundle"] = req["bundles"][0][0]
            places = []
            for pg in req["pgs"]:
                state, _, nodes = self.pg_state(pg)
                places.append(ips.get(next(iter(nodes))) if state == "CREATED" and len(nodes) == 1 else None)
            result["placements"][req["pool"]] = places
        result["requests"] = [
            {"pool": r["pool"], "strategy": r["strategy"], "device_name": r["device_name"], "by": r["by"], "groups": len(r["pgs"]), "bundle": r["bundles"][0][0] if r["bundles"] else None}
            for r in self.case["requests"]
        ]
        result["side"] = self.case["side"]
        if self.case.get("check_saw") is not None:
            result["check_saw"] = self.case["check_saw"]
        for s in self.case["side"]:
            if s["what"] == "TaskRunner":
                result["driver_node"] = s["node"]
        if self.case["notes"]:
            result["notes"] = self.case["notes"]


# ---- the TaskRunner: verl's options on an idle actor, run() executed here --------------------
class RunnerCapture:
    """Stands for the TaskRunner actor class: `.options(...)` merges like ActorClass.options,
    `.remote()` starts an idle actor with the merged options (what Ray would hold for the
    runner) and returns a handle whose methods run in this process."""

    def __init__(self, h, user_cls, opts):
        self.h, self.user_cls, self._opts = h, user_cls, dict(opts)

    def options(self, **kwargs):
        merged = dict(self._opts)
        merged.update(kwargs)
        return RunnerCapture(self.h, self.user_cls, merged)

    def remote(self, *args, **kwargs):
        self.h.start_idle("TaskRunner", self._opts)
        return RunnerHandle(self.h, self.user_cls(*args, **kwargs))


class FakeRef:
    def __init__(self, value):
        self.value = value


class RunnerHandle:
    def __init__(self, h, instance):
        self.h, self.instance = h, instance

    def __getattr__(self, name):
        method = getattr(self.instance, name)
        h = self.h

        class M:
            def remote(self_, *args, **kwargs):
                if name == "run" and h.layout is not None:
                    _patch_layout(h, self.instance)
                try:
                    return FakeRef(method(*args, **kwargs))
                finally:
                    _unpatch_layout(h)

        return M()


def _patch_layout(h, runner):
    """For a "layout" case: the release's own main_ppo builds its spec and mapping; at the hand-off
    to the trainer (RayPPOTrainer's constructor, or 0.9's `_init_resource_pool_mgr`) the case's
    spec, mapping and max_colocate_count take their place."""
    spec, roles, mcc = h.layout
    h._saved = []
    T = h.ray_trainer.RayPPOTrainer
    orig_init = T.__init__

    def init(self, *args, **kwargs):
        bound = inspect.signature(orig_init).bind(self, *args, **kwargs)
        bound.arguments["resource_pool_manager"] = h.make_layout_manager(spec, roles, mcc)
        bound.arguments["role_worker_mapping"] = h.layout_role_worker_mapping(roles)
        return orig_init(*bound.args, **bound.kwargs)

    T.__init__ = init
    h._saved.append((T, "__init__", orig_init))
    if h.v1 is not None:
        P = h.v1.PPOTrainer
        orig_mgr = P._init_resource_pool_mgr

        def init_mgr(self):
            orig_mgr(self)  # verl's own, for the role classes it picks; then the case's layout
            self.mapping = dict(roles)
            self.role_worker_mapping = h.layout_role_worker_mapping(roles)
            self.resource_pool_manager = h.make_layout_manager(spec, roles, mcc)

        P._init_resource_pool_mgr = init_mgr
        h._saved.append((P, "_init_resource_pool_mgr", orig_mgr))


def _unpatch_layout(h):
    for obj, name, value in getattr(h, "_saved", []):
        setattr(obj, name, value)
    h._saved = []


class RayProxy:
    """main_ppo's `ray`: already initialised (this driver joined the cluster); `ray.remote(...)`
    of the TaskRunner class captures its options; `ray.get` of our runner's result returns it."""

    def __init__(self, h):
        self._h = h

    def __getattr__(self, name):
        return getattr(self._h.ray, name)

    def is_initialized(self):
        return True

    def get(self, ref, *a, **k):
        if isinstance(ref, FakeRef):
            return ref.value
        return self._h.ray.get(ref, *a, **k)

    def remote(self, *args, **kwargs):
        h = self._h
        if len(args) == 1 and not kwargs and isinstance(args[0], type):
            cls = args[0]
            if id(cls) in h.runner_classes:
                return RunnerCapture(h, cls, {})
            return h.ray.remote(cls)

        def decorator(cls):
            if id(cls) in h.runner_classes:
                return RunnerCapture(h, cls, kwargs)
            return h.ray.remote(**kwargs)(cls)

        return decorator


# ---- recorders --------------------------------------------------------------------------------
class Null:
    """Answers every call and attribute with itself: what verl does with the managers and
    worker groups after start-up (init_model, get_client, sleep_replicas...) places nothing."""

    def __init__(self, label="null"):
        self._label = label

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Null(f"{self._label}.{name}")

    def __call__(self, *a, **k):
        return Null(self._label + "()")

    def __iter__(self):
        return iter(())

    def __len__(self):
        return 0

    def __bool__(self):
        return False


def make_worker_group_recorder(h):
    class RecordingWorkerGroup:
        """Stands for verl's RayWorkerGroup (verl/single_controller/ray/base.py): its __init__ takes
        device_name from kwargs (default "cuda") and, for a pool it was given (not detached
        workers), calls resource_pool.get_placement_groups(strategy="STRICT_PACK" if bin_pack
        else "PACK", device_name=self.device_name). Creates no actors."""

        def __init__(self, resource_pool=None, ray_cls_with_init=None, bin_pack=True, name_prefix=None, detached=False, worker_names=None, worker_handles=None, **kwargs):
            self.device_name = kwargs.get("device_name", "cuda")
            self.resource_pool = resource_pool
            self._world_size = 0
            if resource_pool is not None:
                strategy = "PACK"
                if bin_pack:
                    strategy = "STRICT_PACK"
                saved = h.case["caller"]
                h.case["caller"] = "RayWorkerGroup"
                try:
                    resource_pool.get_placement_groups(strategy=strategy, device_name=self.device_name)
                finally:
                    h.case["caller"] = saved
                self._world_size = resource_pool.world_size

        @property
        def world_size(self):
            return self._world_size

        def spawn(self, prefix_set):
            return {prefix: Null(f"wg[{prefix}]") for prefix in prefix_set}

        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            return Null(f"wg.{name}")

    return RecordingWorkerGroup


def _rollout_world_size(h, rollout):
    # 0.7.x: tensor parallel only (reward_model.py _initialize_llm_servers); 0.8+: tp * dp * pp.
    mod = h.optional.get("verl.experimental.reward_loop.reward_model")
    src = inspect.getsource(mod.RewardModelManager._initialize_llm_servers) if mod is not None else ""
    tp = int(rollout.tensor_model_parallel_size)
    if "data_parallel_size" in src:
        return tp * int(rollout.get("data_parallel_size", 1)) * int(rollout.get("pipeline_model_parallel_size", 1)), True
    return tp, False


def make_reward_loop_recorder(h, cname):
    class RecordingRewardLoopManager:
        """Stands for RewardLoopManager (verl/experimental/reward_loop/reward_loop.py): with the
        reward model enabled it builds a RewardModelManager, whose _initialize_llm_servers
        splits the pool it was given with split_resource_pool (-> get_placement_groups)."""

        def __init__(self, config, rm_resource_pool=None, **kwargs):
            rm = config.reward.reward_model
            self.reward_loop_workers = Null("reward_loop_workers")
            self.reward_loop_worker_handles = None
            if not rm.enable:
                return
            rws, asserts = _rollout_world_size(h, rm.rollout)
            if rm_resource_pool is None:
                raise NotModelled("reward model in standalone mode (no resource pool)")
            world = rm_resource_pool.world_size
            if asserts:
                assert world // rws > 0, f"Not enough GPUs to run the reward model. world_size ({world}) < rollout_world_size ({rws})."
            saved = h.case["caller"]
            h.case["caller"] = "RewardModelManager"
            try:
                h.base.split_resource_pool(rm_resource_pool, split_size=rws)
            finally:
                h.case["caller"] = saved

        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            return Null(f"reward_loop.{name}")

    return RecordingRewardLoopManager


def make_teacher_recorder(h, cname):
    class RecordingTeacherManager:
        """Stands for MultiTeacherModelManager (verl/experimental/teacher_loop/teacher_model.py):
        split_resource_pool(pool, split_size=[teacher.world_size ...])."""

        def __init__(self, config, resource_pool, **kwargs):
            from verl.utils.config import omega_conf_to_dataclass

            dc = omega_conf_to_dataclass(config.distillation)
            sizes = [t.world_size for t in dc.teacher_models.values()]
            saved = h.case["caller"]
            h.case["caller"] = "MultiTeacherModelManager"
            try:
                h.base.split_resource_pool(resource_pool, split_size=sizes)
            finally:
                h.case["caller"] = saved

        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            return Null(f"teacher.{name}")

    return RecordingTeacherManager


def make_rollout_manager_recorder(h, cname):
    class RecordingRolloutManager:
        """Stands for AgentLoopManager / LLMServerManager / AgentLoopManagerTQ: given the actor's
        worker group (hybrid rollout, the default), their replicas run in the worker group's
        actors and create no placement group; without one they would make standalone pools."""

        def __init__(self, *args, **kwargs):
            config = kwargs.get("config", args[0] if args else None)
            wg = kwargs.get("worker_group", args[1] if len(args) > 1 else None)
            if cname in ("AgentLoopManager", "LLMServerManager") and "worker_group" in kwargs and wg is None:
                raise NotModelled(f"{cname} without a worker group (standalone rollout)")

        @classmethod
        def create(cls, *args, **kwargs):
            return cls(*args, **kwargs)

        @classmethod
        def create_empty(cls, *args, **kwargs):
            return Null(cname)

        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            return Null(f"{cname}.{name}")

    return RecordingRolloutManager


def make_null_recorder(h, cname):
    class RecordingNull:
        def __init__(self, *a, **k):
            pass

        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            return Null(f"{cname}.{name}")

    return RecordingNull


# ---- helpers ------------------------------------------------------------------------------------
def _jsonable(obj):
    try:
        json.dumps(obj)
        return obj
    except TypeError:
        if isinstance(obj, dict):
            return {k: _jsonable(v) for k, v in obj.items()}
        return repr(obj)


def _where(error):
    frames = traceback.extract_tb(error.__traceback__)
    verl_frames = [f for f in frames if "/verl/" in f.filename]
    f = (verl_frames or frames)[-1] if frames else None
    if f is None:
        return None
    path = f.filename
    i = path.rfind("/verl/")
    return f"{path[i + 1:] if i >= 0 else path}:{f.lineno}"


def run_child_for_npu(args, cases):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(NPU_STUB) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["RP_VERL_NPU_CHILD"] = "1"
    cmd = [sys.executable, __file__, "--address", args.address, "--node-ip", args.node_ip, "--hang-timeout", str(args.hang_timeout)]
    t = time.monotonic()
    out = subprocess.run(cmd, input=json.dumps(cases), capture_output=True, text=True, env=env)
    sys.stderr.write(out.stderr[-4000:] if out.returncode else "")
    if out.returncode != 0:
        return None, time.monotonic() - t, f"npu child exited {out.returncode}: {out.stderr[-2000:]}"
    return json.loads(out.stdout), time.monotonic() - t, None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--address", required=True)
    parser.add_argument("--node-ip", default="127.0.0.2", help="attach the driver to this node's raylet (the head)")
    parser.add_argument("--hang-timeout", type=float, default=4.0, help="seconds verl's pg.ready() wait may take before it counts as a hang")
    parser.add_argument("--actor-timeout", type=float, default=30.0, help="seconds for an idle stand-in actor to start")
    parser.add_argument("--hold-timeout", type=float, default=10.0)
    args = parser.parse_args()
    cases = json.load(sys.stdin)
    child = os.environ.get("RP_VERL_NPU_CHILD") == "1"
    here = [c for c in cases if child or not c.get("npu_platform")]
    npu = [] if child else [c for c in cases if c.get("npu_platform")]

    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # verl prints its config; only our JSON goes to stdout
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    results = {}
    doc = {"release": None, "platform": "npu stand-in" if child else "default", "startup_s": None, "cases": []}
    h = None
    if here:
        h = Harness(args)
        doc["release"] = h.release
        doc["import_s"] = round(h.import_s, 2)
        doc["startup_s"] = round(time.monotonic() - T0, 2)
        doc["stubbed_modules"] = getattr(h, "stubbed_modules", [])
        log(f"verl {h.release}: started in {doc['startup_s']} s ({'npu stand-in' if child else 'default platform'})")
        for case in here:
            r = h.run_case(case)
            r["npu_platform"] = bool(case.get("npu_platform"))
            log(f"{case['id']}: {r['outcome']} in {r['seconds']} s {r.get('message') or ''}")
            results[case["id"]] = r
    if npu:
        sub, secs, err = run_child_for_npu(args, npu)
        doc["npu_process_s"] = round(secs, 2)
        if sub is None:
            for c in npu:
                results[c["id"]] = {"id": c["id"], "outcome": "error", "message": err, "npu_platform": True}
        else:
            doc["npu_startup_s"] = sub.get("startup_s")
            doc["release"] = doc["release"] or sub.get("release")
            for r in sub["cases"]:
                results[r["id"]] = r
    doc["cases"] = [results[c["id"]] for c in cases]
    doc["total_s"] = round(time.monotonic() - T0, 2)
    real_stdout.write(json.dumps(doc, indent=1) + "\n")
    real_stdout.flush()
    if h is not None and getattr(h, "model_dir", None):
        import shutil

        shutil.rmtree(h.model_dir, ignore_errors=True)
    # Ray's atexit handlers can take seconds; the driver is done.
    os._exit(0)


if __name__ == "__main__":
    main()
