"""``python -m resource_pool.guard [--wait DURATION] -m MODULE ARGS...`` (or ``SCRIPT ARGS...``):
runs a verl program unchanged, and stops it before it hangs on its placement groups.

verl's resource-pool classes are wrapped in every process of the job (this one, and each
Ray worker through ``ray.init``'s ``worker_process_setup_hook``), whichever entry point
uses them (``verl.trainer.main_ppo``, a recipe's main, a project's trainer):

- when verl creates its pools (``ResourcePoolManager.create_resource_pool``), the pools,
  mapping and release it built are checked against the connected cluster in that
  release's order: a launch that can never place stops at once, with the report;
- before each pool's groups are created (``RayResourcePool.get_placement_groups``), the
  groups verl asks for are checked against what the cluster has free then: a pool that
  can never place stops the run, naming the pool, the node and what is short; one that
  waits on resources other jobs hold waits, saying on what, until it fits or ``--wait``
  runs out.

A stopped run exits with status 3 and the report on stderr; otherwise the program's own
status. See docs/python.md.
"""

import inspect
import json
import os
import re
import runpy
import sys
import threading
import time

from ._verl_probe import AfterImport, PACKAGES, role_name

EXIT_STOPPED = 3
WAIT_ENV = "RESOURCE_POOL_GUARD_WAIT"
# A file the guard appends what it saw and decided to, one JSON object a line (for tests).
LOG_ENV = "RESOURCE_POOL_GUARD_LOG"
HOOK = "resource_pool.guard.install_in_worker"
# How often a waiting pool looks at the cluster again, in seconds.
POLL = 2.0

USAGE = """usage: python -m resource_pool.guard [--wait DURATION] (-m MODULE | SCRIPT) [ARGS...]

Runs a verl program unchanged, stopping it before verl waits forever on a placement group.
--wait DURATION   how long a pool may wait on resources other jobs hold (30s, 5m, 1h);
                  without it, as long as it takes
"""


class GuardStop(Exception):
    """The guard stopped the run: the report says which pool, which node, what is short."""

    def __init__(self, report):
        super().__init__(report)
        self.report = report

    def __reduce__(self):
        return (GuardStop, (self.report,))


def say(message):
    print("resource-pool guard: " + message, file=sys.stderr, flush=True)


def record(event, **fields):
    """Appends what the guard saw and decided to the file `RESOURCE_POOL_GUARD_LOG` names."""
    path = os.environ.get(LOG_ENV)
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(dict(fields, event=event, pid=os.getpid())) + "\n")


def parse_duration(text):
    """`90`, `90s`, `5m`, `1h` as seconds."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(s|m|h)?\s*", text or "")
    if not match:
        raise ValueError("--wait: expected a duration such as 30s, 5m or 1h, got %r" % text)
    return float(match.group(1)) * {"s": 1, "m": 60, "h": 3600, None: 1}[match.group(2)]


# ---- the cluster, as Ray sees it now -----------------------------------------------------------


def cluster_now():
    """`(free, capacity)`: the alive nodes with what is free now, and with what this job
    could ever have (free plus what other jobs hold; `None` when Ray cannot say whose)."""
    import ray
    from ray._private import state

    nodes = [n for n in ray.nodes() if n.get("Alive")]
    available = state.available_resources_per_node()
    others = held_by_other_jobs()
    free, capacity = [], []
    for node in nodes:
        node_id = node["NodeID"]
        total = {k: v for k, v in node.get("Resources", {}).items() if not internal(k)}
        now = {k: v for k, v in available.get(node_id, {}).items() if not internal(k)}
        row = {
            "id": node_id,
            "address": node.get("NodeManagerAddress"),
            "head": "node:__internal_head__" in node.get("Resources", {}),
            "total": total,
        }
        free.append(dict(row, available=now))
        if others is not None:
            could = dict(now)
            for resource, amount in others.get(node_id, {}).items():
                could[resource] = min(total.get(resource, 0), could.get(resource, 0) + amount)
            capacity.append(dict(row, available=could))
    return {"nodes": free}, ({"nodes": capacity} if others is not None else None)


def internal(resource):
    return resource.startswith("node:") or resource in ("memory", "object_store_memory") or resource.startswith(
        "bundle_group_"
    ) or "_group_" in resource


def held_by_other_jobs():
    """What other jobs' placement groups and actors hold, by node id; `None` when Ray's
    state API cannot say (no dashboard)."""
    import ray

    try:
        from ray.util.state import list_actors, list_placement_groups

        job = ray.get_runtime_context().get_job_id()
        held = {}

        def add(node, resources):
            into = held.setdefault(node, {})
            for resource, amount in (resources or {}).items():
                into[resource] = into.get(resource, 0) + amount

        for group in list_placement_groups(detail=True, limit=10000, raise_on_missing_output=False):
            if group.creator_job_id != job and group.state == "CREATED":
                for bundle in group.bundles or []:
                    add(bundle.get("node_id"), bundle.get("unit_resources"))
        for actor in list_actors(detail=True, limit=10000, raise_on_missing_output=False):
            if actor.job_id != job and actor.state == "ALIVE" and not actor.placement_group_id:
                add(actor.node_id, actor.required_resources)
        return held
    except Exception:
        return None


# ---- the wrappers ------------------------------------------------------------------------------


class Guard:
    """The wrappers of one process: verl's classes, as they are imported."""

    def __init__(self, wait):
        self.wait = wait
        self.release = None
        self.wrapped = set()

    def visit(self, module):
        for value in list(vars(module).values()):
            if not isinstance(value, type) or id(value) in self.wrapped or value.__module__ != module.__name__:
                continue
            if "create_resource_pool" in vars(value) and value.__name__.endswith("ResourcePoolManager"):
                self.wrap_manager(value)
            elif "get_placement_groups" in vars(value) and value.__name__ == "RayResourcePool":
                self.wrap_pool(value, module)

    def wrap_manager(self, cls):
        self.wrapped.add(id(cls))
        original = cls.create_resource_pool
        guard = self

        def create_resource_pool(manager, *args, **kwargs):
            guard.check_launch(manager)
            return original(manager, *args, **kwargs)

        cls.create_resource_pool = create_resource_pool

    def wrap_pool(self, cls, module):
        self.wrapped.add(id(cls))
        original = cls.get_placement_groups
        guard = self

        def get_placement_groups(pool, *args, **kwargs):
            if getattr(pool, "pgs", None) is not None:
                return original(pool, *args, **kwargs)
            groups = planned_groups(pool, original, module, args, kwargs)
            if groups:
                guard.check_pool(pool, groups)
            return guard.bounded(lambda: original(pool, *args, **kwargs), pool)

        cls.get_placement_groups = get_placement_groups

    # ---- the checks ----------------------------------------------------------------------------
    def version(self):
        if self.release is None:
            import verl

            self.release = getattr(verl, "__version__", "") or ""
        return self.release

    def check_launch(self, manager):
        from . import _native

        spec = getattr(manager, "resource_pool_spec", {}) or {}
        pools = [{"name": str(k), "process_on_nodes": [int(n) for n in v]} for k, v in spec.items()]
        roles = [{"role": role_name(r), "pool": str(p)} for r, p in (getattr(manager, "mapping", {}) or {}).items()]
        mcc = getattr(manager, "max_colocate_count", None)
        free, capacity = cluster_now()
        verdict, report = _native.guard_launch_check(
            self.version(),
            json.dumps(pools),
            json.dumps(roles),
            mcc if isinstance(mcc, int) else None,
            json.dumps(capacity or free),
            capacity is not None,
        )
        record(
            "launch",
            version=self.version(),
            spec={p["name"]: p["process_on_nodes"] for p in pools},
            roles=roles,
            max_colocate_count=mcc if isinstance(mcc, int) else None,
            verdict=verdict,
        )
        if verdict == "stop":
            raise GuardStop(report)
        if verdict == "note":
            say(report)

    def check_pool(self, pool, groups):
        from . import _native

        name = getattr(pool, "name_prefix", None) or "pool"
        deadline = None if self.wait is None else time.monotonic() + self.wait
        said = None
        while True:
            free, capacity = cluster_now()
            verdict, report = _native.guard_pool_check(
                name, json.dumps(groups), json.dumps(free), None if capacity is None else json.dumps(capacity)
            )
            record("pool", pool=name, groups=groups, verdict=verdict)
            if verdict == "go":
                return
            if verdict == "stop":
                raise GuardStop(report)
            if deadline is not None and time.monotonic() > deadline:
                raise GuardStop("%s\n(waited %s; --wait ran out)" % (report, format_seconds(self.wait)))
            if report != said:
                say(report)
                said = report
            time.sleep(POLL)

    def bounded(self, create, pool):
        """Runs verl's own group creation; with --wait, its wait for the groups is bounded."""
        if self.wait is None:
            return create()
        import ray

        real_get = ray.get
        wait = self.wait

        def get(refs, *args, **kwargs):
            if kwargs.get("timeout") is not None:
                return real_get(refs, *args, **kwargs)
            try:
                return real_get(refs, *args, timeout=wait, **kwargs)
            except ray.exceptions.GetTimeoutError:
                raise GuardStop(
                    "%s's placement groups were not ready within %s (--wait)"
                    % (getattr(pool, "name_prefix", "a pool"), format_seconds(wait))
                ) from None

        ray.get = get
        try:
            return create()
        finally:
            ray.get = real_get


def format_seconds(seconds):
    return "%gs" % seconds


def planned_groups(pool, original, module, args, kwargs):
    """The groups verl's own `get_placement_groups` would ask for, `[(bundles, strategy)]`:
    it runs with `placement_group` recording instead of creating (and the pool left as it
    was). Empty where it creates them some other way."""
    real = getattr(module, "placement_group", None)
    if real is None:
        return []
    import ray

    recorded = []
    signature = inspect.signature(real)

    class Planned:
        bundle_count = 0

        def ready(self):
            return ray.put(None)

    def plan(*a, **k):
        bound = signature.bind(*a, **k)
        bound.apply_defaults()
        bundles = [dict(b) for b in bound.arguments.get("bundles") or []]
        recorded.append({"bundles": bundles, "strategy": bound.arguments.get("strategy")})
        return Planned()

    module.placement_group = plan
    try:
        original(pool, *args, **kwargs)
    except Exception:
        pass  # what follows the creation (sorting by node) needs real groups
    finally:
        module.placement_group = real
        pool.pgs = None
    return recorded


# ---- installing it -----------------------------------------------------------------------------

_installed = None
_lock = threading.Lock()


def install(wait=None):
    """Wraps verl's classes in this process, now and as they are imported."""
    global _installed
    with _lock:
        if _installed is not None:
            return _installed
        _installed = Guard(wait)
        PACKAGES.update({"verl", "recipe"})
        sys.meta_path.insert(0, AfterImport(_installed.visit))
        for name, module in list(sys.modules.items()):
            if module is not None and name.split(".")[0] in PACKAGES:
                _installed.visit(module)
        return _installed


def install_in_worker():
    """Ray's `worker_process_setup_hook` of the job: the guard in each worker process."""
    wait = os.environ.get(WAIT_ENV)
    install(float(wait) if wait else None)


def hook_ray_init(wait):
    """Makes `ray.init` start every worker of the job with the guard installed."""
    import ray

    if ray.is_initialized():
        say("Ray was started before the program: the guard covers this process only")
        return
    real_init = ray.init

    def init(*args, **kwargs):
        runtime_env = dict(kwargs.get("runtime_env") or {})
        theirs = runtime_env.get("worker_process_setup_hook")
        if theirs:
            say("the program sets worker_process_setup_hook (%s): the guard covers this process only" % theirs)
        else:
            runtime_env["worker_process_setup_hook"] = HOOK
            env_vars = dict(runtime_env.get("env_vars") or {})
            if wait is not None:
                env_vars[WAIT_ENV] = str(wait)
            if os.environ.get(LOG_ENV):
                env_vars[LOG_ENV] = os.environ[LOG_ENV]
            # The hook runs before Ray gives a worker the driver's sys.path: the package's
            # folder goes on the workers' PYTHONPATH (the same image on every node).
            ours = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
            rest = env_vars.get("PYTHONPATH", os.environ.get("PYTHONPATH", ""))
            env_vars["PYTHONPATH"] = ours + (os.pathsep + rest if rest else "")
            runtime_env["env_vars"] = env_vars
            kwargs["runtime_env"] = runtime_env
        return real_init(*args, **kwargs)

    ray.init = init


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    wait = None
    while argv and argv[0].startswith("--"):
        flag = argv.pop(0)
        if flag in ("--help",):
            print(USAGE)
            return 0
        if flag.startswith("--wait"):
            value = flag.split("=", 1)[1] if "=" in flag else (argv.pop(0) if argv else "")
            try:
                wait = parse_duration(value)
            except ValueError as error:
                print(error, file=sys.stderr)
                return 2
        elif flag == "--":
            break
        else:
            print("unknown option %s\n%s" % (flag, USAGE), file=sys.stderr)
            return 2
    if not argv or argv == ["-m"]:
        print(USAGE, file=sys.stderr)
        return 2
    # Hydra re-raises the task's exception (a GuardStop) instead of printing and exiting.
    os.environ["HYDRA_FULL_ERROR"] = "1"
    install(wait)
    hook_ray_init(wait)
    try:
        if argv[0] == "-m":
            sys.argv = [argv[1]] + argv[2:]
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        else:
            sys.argv = argv
            sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
            runpy.run_path(argv[0], run_name="__main__")
    except SystemExit as exit:
        return exit.code
    except BaseException as error:
        report = stop_report(error)
        if report is None:
            raise
        say("stopped the run before verl waits forever:\n" + report)
        return EXIT_STOPPED
    return 0


def stop_report(error):
    """The report of the GuardStop that `error` is or carries (Ray wraps one raised in an
    actor, such as verl's TaskRunner, in a RayTaskError), or None."""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, GuardStop):
            return str(getattr(error, "report", None) or getattr(error, "cause", None) or error)
        error = getattr(error, "cause", None) or error.__cause__ or error.__context__
    return None


if __name__ == "__main__":
    # The module's own classes, not __main__'s: a GuardStop raised in a Ray worker is
    # unpickled as resource_pool.guard.GuardStop.
    from resource_pool import guard

    sys.exit(guard.main())
