"""What the verl installed in this Python builds from a launch line.

Hydra composes the line (the entry point's own ``@hydra.main``, run with ``--cfg job``:
its config folder, ``--config-path``/``--config-name``, every override), then the entry
point's task function runs in this process, without Ray, until verl constructs its
``ResourcePoolManager``: the pools, mapping and ``max_colocate_count`` are verl's own.
Only what start-up needs for training, not for the pools, is stood in for (tokenizer,
datasets, reward functions, TransferQueue); Ray's actors run here, synchronously.

``resource-pool verl --python PYTHON -- LINE`` runs this file with ``PYTHON -c`` in the
folder the command runs in; ``resource_pool.verl.check`` runs it with ``sys.executable``.
The request is the one argument (JSON); the answer is one JSON object on stdout (everything
verl prints goes to stderr).
"""

import contextlib
import importlib
import importlib.abc
import io
import json
import os
import runpy
import sys
import traceback

# Functions that start-up calls before the pools only to train: replaced wherever a verl
# module holds them (the defining module too, for imports inside a function body).
# `copy_to_local` is replaced by `Probe.local_copy`.
STAND_INS = {
    "load_reward_manager": lambda *args, **kwargs: None,
    "create_rl_dataset": lambda *args, **kwargs: None,
    "create_rl_sampler": lambda *args, **kwargs: None,
}
# Methods of trainers that read data before the pools (0.6-0.8 `_create_dataloader`, 0.9's
# v1 trainer `_init_tokenizer`/`_init_dataloader`/`_init_dump_executor`).
METHOD_STAND_INS = ("_create_dataloader", "_init_tokenizer", "_init_dataloader", "_init_dump_executor")
# The top-level packages whose modules get the stand-ins: verl's, its recipes', and the
# entry point's own (set at start).
PACKAGES = {"verl", "recipe", "transfer_queue"}
# The config keys returned with the answer (verl's spelling in each release).
CONFIG_KEYS = (
    "trainer.device",
    "trainer.nnodes",
    "trainer.n_gpus_per_node",
    "reward_model.enable",
    "reward_model.enable_resource_pool",
    "reward.reward_model.enable",
    "reward.reward_model.enable_resource_pool",
)


class Reached(BaseException):
    """verl constructed its ResourcePoolManager: the answer is in hand."""

    def __init__(self, manager, where):
        super().__init__("reached")
        self.manager = manager
        self.where = where


class NeedsRay(Exception):
    """Start-up asked Ray for something before the pools that cannot run here."""


class LocalRef:
    """What a local actor's method returned, as Ray's ObjectRef would hold it."""

    def __init__(self, value):
        self.value = value


class LocalMethod:
    def __init__(self, method):
        self._method = method

    def remote(self, *args, **kwargs):
        return LocalRef(self._method(*args, **kwargs))

    def options(self, *args, **kwargs):
        return self


class LocalActor:
    """An actor class's instance made here; `handle.method.remote(...)` runs it now."""

    def __init__(self, instance):
        self._instance = instance

    def __getattr__(self, name):
        return LocalMethod(getattr(self._instance, name))


class LocalActorClass:
    def __init__(self, actor_class):
        self._actor_class = actor_class

    def remote(self, *args, **kwargs):
        modified = self._actor_class.__ray_metadata__.modified_class
        user_class = getattr(modified, "__ray_actor_class__", None) or modified.__bases__[0]
        return LocalActor(user_class(*args, **kwargs))

    def options(self, *args, **kwargs):
        return self


def dotted(config, key):
    """A composed config's value at a dotted key; `None` where it has none."""
    node = config
    for part in key.split("."):
        if not hasattr(node, "get"):
            return None
        node = node.get(part)
        if node is None:
            return None
    return node if isinstance(node, (str, int, float, bool)) else None


def role_name(role):
    """A role as verl's Role enum names it (`ActorRollout`), else as written."""
    return getattr(role, "name", None) or str(role)


def frame_of(tb_or_frame, skip_file):
    """`module.function` and `file:line` of the innermost frame not in `skip_file`."""
    frames = traceback.extract_tb(tb_or_frame) if tb_or_frame else []
    for frame in reversed(frames):
        if frame.filename != skip_file:
            return "%s:%d" % (frame.filename, frame.lineno), frame.name
    return None, None


class AfterImport(importlib.abc.MetaPathFinder):
    """Calls `visit(module)` on each module of `PACKAGES` once it is executed."""

    def __init__(self, visit):
        self.visit = visit
        self.busy = set()

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] not in PACKAGES or name in self.busy:
            return None
        self.busy.add(name)
        try:
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(name, path, target)
                if spec is not None:
                    break
            else:
                return None
        finally:
            self.busy.discard(name)
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        visit, exec_module = self.visit, loader.exec_module

        def exec_and_visit(module):
            exec_module(module)
            visit(module)

        try:
            loader.exec_module = exec_and_visit
        except (AttributeError, TypeError):
            return spec
        return spec


def tiny_model():
    """A model folder with no weights (a Qwen2 `config.json` and a word-level tokenizer)
    that verl's config code reads where the line's model is not on this machine. Its head
    counts divide every tensor-parallel size up to 64."""
    import tempfile

    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast, Qwen2Config

    folder = tempfile.mkdtemp(prefix="resource-pool-model-")
    words = ["<pad>", "<s>", "</s>", "<unk>"] + [chr(c) for c in range(ord("a"), ord("z") + 1)]
    tokenizer = Tokenizer(models.WordLevel(vocab={w: i for i, w in enumerate(words)}, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, bos_token="<s>", eos_token="</s>", pad_token="<pad>", unk_token="<unk>"
    )
    fast.chat_template = "{% for m in messages %}{{ m['content'] }} {% endfor %}"
    fast.save_pretrained(folder)
    Qwen2Config(
        vocab_size=64,
        hidden_size=128,
        intermediate_size=256,
        num_hidden_layers=1,
        num_attention_heads=64,
        num_key_value_heads=64,
        max_position_embeddings=256,
        architectures=["Qwen2ForCausalLM"],
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=0,
    ).save_pretrained(folder)
    return folder


class Probe:
    def __init__(self, request):
        self.request = request
        self.manager_classes = []
        self.here = os.path.abspath(__file__) if "__file__" in globals() else "<probe>"
        self.model = None
        self.stood_in = []

    def local_copy(self, path, *args, **kwargs):
        """verl's `copy_to_local` where nothing is copied: a local path as it is, any other
        (a cluster path, a hub name, `hdfs://`) the tiny model, noted in the answer."""
        if os.path.exists(os.path.expanduser(str(path))):
            return path
        if self.model is None:
            self.model = tiny_model()
        if str(path) not in self.stood_in:
            self.stood_in.append(str(path))
        return self.model

    # ---- the stand-ins and the stop ------------------------------------------------------
    def visit(self, module):
        if module.__name__.split(".")[0] == "transfer_queue":
            for name in ("init", "close"):
                if callable(getattr(module, name, None)):
                    setattr(module, name, lambda *args, **kwargs: None)
        for key, value in list(vars(module).items()):
            if key == "copy_to_local" and callable(value):
                setattr(module, key, self.local_copy)
            elif key in STAND_INS and callable(value):
                setattr(module, key, STAND_INS[key])
            elif isinstance(value, type) and value.__module__ == module.__name__:
                self.visit_class(value)

    def visit_class(self, cls):
        for name in METHOD_STAND_INS:
            if name in vars(cls):
                setattr(cls, name, lambda self, *args, **kwargs: None)
        if cls.__name__.endswith("ResourcePoolManager") and "__init__" in vars(cls):
            self.stop_at_construction(cls)

    def stop_at_construction(self, cls):
        original = cls.__init__
        probe = self

        def init(manager, *args, **kwargs):
            original(manager, *args, **kwargs)
            where = traceback.extract_stack(limit=2)[0]
            raise Reached(manager, "%s:%d (%s)" % (where.filename, where.lineno, where.name))

        cls.__init__ = init
        probe.manager_classes.append(cls)

    def replace_ray(self):
        import ray
        import ray._private.worker as worker
        from ray.actor import ActorClass
        from ray.remote_function import RemoteFunction

        def init(*args, **kwargs):
            return None

        real_get = ray.get

        def get(refs, *args, **kwargs):
            if isinstance(refs, LocalRef):
                return refs.value
            if isinstance(refs, list) and all(isinstance(r, LocalRef) for r in refs):
                return [r.value for r in refs]
            raise NeedsRay("ray.get of a task or actor started before the pools")

        def remote_task(self, *args, **kwargs):
            raise NeedsRay("a Ray task (%s) started before the pools" % getattr(self, "_function_name", "?"))

        ray.init = worker.init = init
        ray.get = worker.get = get
        ActorClass.remote = lambda self, *a, **k: LocalActorClass(self).remote(*a, **k)
        ActorClass.options = lambda self, *a, **k: LocalActorClass(self)
        RemoteFunction.remote = remote_task
        del real_get

    def install(self):
        self.replace_ray()
        sys.meta_path.insert(0, AfterImport(self.visit))
        for name, module in list(sys.modules.items()):
            if module is not None and name.split(".")[0] in PACKAGES:
                self.visit(module)

    # ---- the entry point ------------------------------------------------------------------
    def import_entry(self, captured):
        """Imports the entry point (not as `__main__`), recording its `@hydra.main`s."""
        import hydra

        real_main = hydra.main

        def capturing_main(*args, **kwargs):
            decorate = real_main(*args, **kwargs)

            def decorator(task):
                wrapped = decorate(task)
                captured.append((task, wrapped, kwargs.get("config_path", args[0] if args else None),
                                 kwargs.get("config_name", args[1] if len(args) > 1 else None)))
                return wrapped

            return decorator

        hydra.main = capturing_main
        try:
            entry = self.request["entry"]
            if "module" in entry:
                PACKAGES.add(entry["module"].split(".")[0])
                sys.path.insert(0, os.getcwd())
                module = importlib.import_module(entry["module"])
                return getattr(module, "__file__", None)
            script = os.path.abspath(entry["script"])
            sys.path.insert(0, os.path.dirname(script))
            runpy.run_path(script, run_name="__resource_pool_probe__")
            return script
        finally:
            hydra.main = real_main

    def compose(self, wrapped, entry_text):
        """The config Hydra composes for the line: its `--cfg job`, as Hydra prints it."""
        from omegaconf import OmegaConf

        sys.argv = [entry_text, "--cfg", "job"] + list(self.request["args"])
        printed = io.StringIO()
        os.environ["HYDRA_FULL_ERROR"] = "1"
        with contextlib.redirect_stdout(printed):
            try:
                wrapped()
            except SystemExit as exit:
                if exit.code not in (0, None):
                    raise
        config = OmegaConf.create(printed.getvalue())
        OmegaConf.set_struct(config, True)
        return config

    def run(self):
        answer = {"outcome": None}
        try:
            import verl
        except Exception as error:
            return {"outcome": "no_verl", "message": "%s: %s" % (type(error).__name__, error)}
        answer["verl"] = {"version": getattr(verl, "__version__", None), "path": os.path.dirname(verl.__file__)}
        self.install()
        captured = []
        try:
            entry_file = self.import_entry(captured)
        except Exception as error:
            return dict(answer, **self.failure("entry_fails", error))
        mains = [c for c in captured if entry_file and c[0].__code__.co_filename == entry_file] or captured[-1:]
        if not mains:
            return dict(answer, outcome="no_hydra_main")
        task, wrapped, config_path, config_name = mains[-1]
        answer["hydra"] = {"main": "%s.%s" % (task.__module__, task.__name__), "config_path": config_path, "config_name": config_name}
        try:
            config = self.compose(wrapped, entry_file or "")
        except Exception as error:
            return dict(answer, **self.failure("hydra_refuses", error))
        answer["config"] = {key: dotted(config, key) for key in CONFIG_KEYS}
        answer["stand_in_model_for"] = self.stood_in
        try:
            task(config)
        except Reached as reached:
            return dict(answer, **self.built(reached))
        except NeedsRay as error:
            return dict(answer, **self.failure("needs_ray", error))
        except Exception as error:
            return dict(answer, **self.failure("verl_stops", error))
        finally:
            if self.model is not None:
                import shutil

                shutil.rmtree(self.model, ignore_errors=True)
        return dict(answer, outcome="no_pools")

    def built(self, reached):
        manager = reached.manager
        spec = getattr(manager, "resource_pool_spec", {}) or {}
        mapping = getattr(manager, "mapping", {}) or {}
        mcc = getattr(manager, "max_colocate_count", None)
        return {
            "outcome": "built",
            "built_at": reached.where,
            "pools": [{"name": str(name), "process_on_nodes": [int(n) for n in counts]} for name, counts in spec.items()],
            "mapping": [{"role": role_name(role), "pool": str(pool)} for role, pool in mapping.items()],
            "max_colocate_count": mcc if isinstance(mcc, int) else None,
        }

    def failure(self, outcome, error):
        where, function = frame_of(error.__traceback__, self.here)
        return {
            "outcome": outcome,
            "error_type": type(error).__name__,
            "message": str(error).strip(),
            "where": where,
            "function": function,
        }


def main():
    request = json.loads(sys.argv[1])
    # Everything verl prints goes to stderr; stdout carries the answer alone.
    answer_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        answer = Probe(request).run()
    except Exception as error:  # the probe's own failure: said, never a traceback alone
        answer = {"outcome": "probe_fails", "error_type": type(error).__name__, "message": str(error)}
    with os.fdopen(answer_fd, "w") as out:
        out.write(json.dumps(answer) + "\n")


if __name__ == "__main__":
    main()
