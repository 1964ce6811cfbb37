"""Hydra's own answer for one verl launch line: does it compose, and to what pool sizes.

Shared by `scripts/verl-corpus` (which writes the records into lines.jsonl) and
`tests/verl-corpus/recompose.py` (which composes the wheel-config lines again in CI and fails
when Hydra's answer differs from the record), so both run the very same code.

The line is composed the way `@hydra.main` composes it when verl starts, with hydra-core's
own functions (hydra 1.3, `hydra/_internal/utils.py` `_run_hydra` and `_run_app`):

- the words after the entry point are parsed by Hydra's own argument parser
  (`get_args_parser`): `--config-path`, `--config-name`, `--config-dir`, the overrides;
- the entry point's `@hydra.main(config_path, config_name, version_base)` is read from its
  file (never imported) and the file is the "calling file": a relative config path is
  relative to it, as for `python -m MODULE` or `python FILE.py`;
- the search path is Hydra's `create_automatic_config_search_path`, `--config-dir` prepended
  as `_run_hydra` does, then `Hydra.create_main_hydra2`, `get_mode` and `compose_config` in
  the run mode `_run_app` picks. `file://` search paths in the configs are relative to the
  working directory the line ran in, which the caller sets.

What is recorded: `composed` (true/false), Hydra's exception type and text when not (paths
replaced by placeholders so records do not depend on where files were), and the composed,
resolved values of the keys that size verl's pools (a key the config lacks is left out; one
whose interpolation fails to resolve records the error).

Run as a worker: `python hydra_record.py --worker` reads one JSON task a line on stdin
({"entry_file", "hydra_args", "cwd", "sys_path", "placeholders"}) and writes one JSON record
a line on stdout. One worker process per set of `sys_path` (Python caches imported
packages, and `pkg://` search paths import them).
"""

import ast
import contextlib
import io
import json
import os
import sys
import warnings

# The keys that size verl's pools or decide them, across releases and the recipes' configs.
POOL_KEYS = [
    "trainer.nnodes",
    "trainer.n_gpus_per_node",
    "trainer.device",
    "trainer.use_legacy_worker_impl",
    "reward_model.enable",
    "reward_model.enable_resource_pool",
    "reward_model.nnodes",
    "reward_model.n_gpus_per_node",
    "reward.reward_model.enable",
    "reward.reward_model.enable_resource_pool",
    "reward.reward_model.nnodes",
    "reward.reward_model.n_gpus_per_node",
    "distillation.enabled",
    "distillation.nnodes",
    "distillation.n_gpus_per_node",
    "actor_rollout_ref.rollout.tensor_model_parallel_size",
    "actor_rollout_ref.rollout.data_parallel_size",
    "actor_rollout_ref.rollout.pipeline_model_parallel_size",
    "actor_rollout_ref.rollout.mode",
    "actor_rollout_ref.rollout.n_gpus_per_node",
    "actor_rollout_ref.rollout.nnodes",
    "rollout.nnodes",
    "rollout.n_gpus_per_node",
    "algorithm.use_kl_in_reward",
    "actor_rollout_ref.actor.use_kl_loss",
]

_MISSING = object()


def read_hydra_main(entry_file):
    """The literal arguments of the `@hydra.main(...)` decorator in `entry_file`.

    Returns {"config_path", "config_name", "version_base", "line"} with `...` for an argument
    not given (Hydra's `_UNSPECIFIED_`), or None when the file has no such decorator. An
    argument that is not a literal is {"expr": source}.
    """
    with open(entry_file, "rb") as f:
        source = f.read()
    tree = ast.parse(source, filename=entry_file)
    names = {"main"} if _imports_main_from_hydra(tree) else set()
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for deco in node.decorator_list:
            if not isinstance(deco, ast.Call):
                continue
            func = deco.func
            is_hydra_main = (
                isinstance(func, ast.Attribute)
                and func.attr == "main"
                and isinstance(func.value, ast.Name)
                and func.value.id == "hydra"
            ) or (isinstance(func, ast.Name) and func.id in names)
            if not is_hydra_main:
                continue
            params = ["config_path", "config_name", "version_base"]
            found = {p: ... for p in params}
            for i, arg in enumerate(deco.args[:3]):
                found[params[i]] = _literal(arg, source)
            for kw in deco.keywords:
                if kw.arg in found:
                    found[kw.arg] = _literal(kw.value, source)
            found["line"] = deco.lineno
            found["function"] = node.name
            return found
    return None


def _imports_main_from_hydra(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "hydra":
            if any(a.name == "main" and a.asname is None for a in node.names):
                return True
    return False


def _literal(node, source):
    try:
        return ast.literal_eval(node)
    except ValueError:
        return {"expr": ast.get_source_segment(source.decode("utf-8", "replace"), node)}


def decorator_json(deco):
    """The decorator's arguments as JSON: `...` (not given) becomes the string "<unspecified>"."""
    if deco is None:
        return None
    return {k: ("<unspecified>" if v is ... else v) for k, v in deco.items()}


def _scrub(text, placeholders):
    for path, name in sorted(placeholders.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(path, name)
    return text


def _jsonable(value):
    from omegaconf import DictConfig, ListConfig, OmegaConf

    if isinstance(value, (DictConfig, ListConfig)):
        return OmegaConf.to_container(value, resolve=True)
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return repr(value)


def pool_values(cfg, placeholders):
    """The resolved values of POOL_KEYS present in `cfg`."""
    from omegaconf import OmegaConf

    values = {}
    for key in POOL_KEYS:
        parent, _, leaf = key.rpartition(".")
        try:
            node = OmegaConf.select(cfg, parent, default=_MISSING, throw_on_missing=False)
        except Exception:  # an interpolation on the way fails
            node = _MISSING
        if node is _MISSING or node is None or not OmegaConf.is_dict(node):
            continue
        if leaf not in node:
            continue
        try:
            values[key] = _jsonable(OmegaConf.select(cfg, key, throw_on_missing=True))
        except Exception as ex:  # noqa: BLE001 - the record says what OmegaConf said
            values[key] = {"error": f"{type(ex).__name__}: {_scrub(str(ex), placeholders)}"}
    return values


def compose(entry_file, hydra_args, cwd, placeholders=None):
    """Hydra's record of one line (see the module's docs)."""
    placeholders = placeholders or {}
    from hydra import version
    from hydra._internal.hydra import Hydra
    from hydra._internal.utils import (
        create_automatic_config_search_path,
        detect_task_name,
        get_args_parser,
    )
    from hydra.core.global_hydra import GlobalHydra
    from hydra.core.utils import validate_config_path
    from hydra.errors import SearchPathException
    from hydra.core.config_search_path import SearchPathQuery
    from hydra.types import RunMode
    from hydra.version import _UNSPECIFIED_  # hydra.main's default for version_base

    record = {}
    deco = read_hydra_main(entry_file)
    record["hydra_main"] = decorator_json(deco)
    if deco is None:
        record["composed"] = None
        record["why"] = "the entry point has no @hydra.main"
        return record
    for param in ("config_path", "config_name", "version_base"):
        if isinstance(deco[param], dict):
            record["composed"] = None
            record["why"] = f"@hydra.main's {param} is not a literal"
            return record

    old_cwd = os.getcwd()
    GlobalHydra.instance().clear()
    try:
        os.chdir(cwd)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            version_base = deco["version_base"]
            version.setbase(_UNSPECIFIED_ if version_base is ... else version_base)
            config_path = deco["config_path"]
            if config_path is ...:
                config_path = None if version.base_at_least("1.2") else "."
            config_name = deco["config_name"] if deco["config_name"] is not ... else None

            parser = get_args_parser()
            stderr = io.StringIO()
            try:
                with contextlib.redirect_stderr(stderr):
                    args = parser.parse_args(list(hydra_args))
            except SystemExit as ex:
                record["composed"] = False
                record["error_type"] = "argparse"
                # argparse prints its usage (named after this file), then the error: keep the error.
                said = stderr.getvalue().strip().splitlines()
                record["error"] = _scrub(said[-1], placeholders) if said else f"exit {ex.code}"
                return record

            if args.config_name is not None:
                config_name = args.config_name
            if args.config_path is not None:
                config_path = args.config_path
            record["config_name"] = config_name
            record["config_path"] = config_path
            record["config_dir"] = args.config_dir

            prints = [
                f for f in ("help", "hydra_help", "shell_completion") if getattr(args, f)
            ] + [f for f in ("cfg", "info", "experimental_rerun") if getattr(args, f) is not None]
            if prints:
                record["composed"] = None
                record["why"] = f"--{prints[0].replace('_', '-')}: Hydra prints or reruns and starts no training"
                return record

            calling_file = os.path.abspath(entry_file)
            task_name = detect_task_name(calling_file, None)
            validate_config_path(config_path)
            search_path = create_automatic_config_search_path(calling_file, None, config_path)
            if args.config_dir is not None:
                abs_config_dir = os.path.abspath(args.config_dir)
                if not os.path.isdir(abs_config_dir):
                    raise SearchPathException(
                        f"Additional config directory '{abs_config_dir}' not found"
                    )
                search_path.prepend(
                    provider="command-line",
                    path=f"file://{abs_config_dir}",
                    anchor=SearchPathQuery(provider="schema"),
                )
            hydra = Hydra.create_main_hydra2(task_name=task_name, config_search_path=search_path)
            overrides = list(args.overrides)
            num_commands = args.run + args.multirun
            if num_commands > 1:
                raise ValueError(
                    "Only one of --run, --multirun, --cfg, --info and --shell_completion can be specified"
                )
            run = args.run or num_commands == 0
            mode = hydra.get_mode(config_name=config_name, overrides=overrides)
            if mode is None:
                mode = RunMode.RUN if run else RunMode.MULTIRUN
                overrides.append("hydra.mode=RUN" if run else "hydra.mode=MULTIRUN")
            elif args.multirun and mode == RunMode.RUN:
                mode = RunMode.MULTIRUN
                overrides.append("hydra.mode=MULTIRUN")
            record["mode"] = mode.name
            cfg = hydra.compose_config(
                config_name=config_name,
                overrides=overrides,
                run_mode=mode,
                with_log_configuration=False,
            )
            record["composed"] = True
            record["config_sources"] = [
                _scrub(f"{s.provider}={s.schema}://{s.path}", placeholders)
                for s in cfg.hydra.runtime.config_sources
            ]
            record["values"] = pool_values(cfg, placeholders)
    except Exception as ex:  # noqa: BLE001 - Hydra's refusal is the record
        record["composed"] = False
        record["error_type"] = type(ex).__name__
        message = str(ex)
        cause = ex.__cause__ or ex.__context__
        if cause is not None and str(cause) and str(cause) not in message:
            message += f"\n(from {type(cause).__name__}: {cause})"
        record["error"] = _scrub(message, placeholders)
    finally:
        os.chdir(old_cwd)
        GlobalHydra.instance().clear()
    return record


def worker():
    """One task a line on stdin, one record a line on stdout (see the module's docs)."""
    first = True
    for line in sys.stdin:
        task = json.loads(line)
        if first:
            for p in reversed(task.get("sys_path", [])):
                sys.path.insert(0, p)
            first = False
        record = compose(
            task["entry_file"], task["hydra_args"], task["cwd"], task.get("placeholders")
        )
        sys.stdout.write(json.dumps(record, sort_keys=True) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    if sys.argv[1:] == ["--worker"]:
        worker()
    else:
        sys.exit("usage: hydra_record.py --worker < tasks.jsonl")
