"""``resource_pool.verl.check``: the ``resource-pool verl`` command as a function."""

from __future__ import annotations

import enum
import json
import math
import os
from typing import Any, Mapping, Optional, Sequence, Union

from . import _find_cluster, _native, _seconds, _strings, _cluster_arg, ClusterArg, Report
from ._errors import ArgumentError, ClusterError

__all__ = ["check"]


def _plain(value: Any, path: str) -> Any:
    """A config value as JSON has it, or a ``TypeError`` that names its key."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise TypeError("%s: %r has no YAML form here" % (path, value))
        return value
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if not isinstance(key, (str, int, bool)):
                raise TypeError("%s: keys are str, got %s" % (path, type(key).__name__))
            out[str(key)] = _plain(item, "%s[%r]" % (path, key))
        return out
    if isinstance(value, (list, tuple)):
        return [_plain(item, "%s[%d]" % (path, i)) for i, item in enumerate(value)]
    raise TypeError(
        "%s: expected a str, int, float, bool, None, list or dict, got %s"
        % (path, type(value).__name__)
    )


def _config_arg(config: Any) -> tuple:
    """``(path, text)``: a path as it is, verl's resolved config as JSON text (which is
    YAML, read with spans by the same reader as verl's files)."""
    if config is None:
        return None, None
    if isinstance(config, str) or hasattr(config, "__fspath__"):
        return os.fspath(config), None
    module = type(config).__module__ or ""
    if module.split(".")[0] == "omegaconf":
        # verl's own DictConfig: omegaconf is imported already, since the object exists.
        from omegaconf import OmegaConf

        config = OmegaConf.to_container(config, resolve=True)
    if isinstance(config, Mapping):
        try:
            return None, json.dumps(_plain(config, "config"), indent=2) + "\n"
        except RecursionError:
            # A dict that holds itself, or one nested past Python's recursion limit: no
            # config of verl's, and the reader refuses past 255 levels anyway.
            raise ArgumentError(
                "config: dicts and lists nested deeper than Python can walk (does one hold "
                "itself?); verl's config nests a few levels deep"
            ) from None
    raise TypeError(
        "config: expected a path to verl's YAML, a dict or an OmegaConf DictConfig, got %s"
        % type(config).__name__
    )


def check(
    overrides: Optional[Sequence[str]] = None,
    config: Union[str, "os.PathLike[str]", Mapping[str, Any], None] = None,
    cluster: ClusterArg = None,
    ray: Optional[str] = None,
    *,
    timeout: float = 10.0,
    verl_version: Optional[str] = None,
    python: Union[str, "os.PathLike[str]", bool, None] = None,
) -> Report:
    """Builds the pools verl's PPO entry point builds and checks them, as
    ``resource-pool verl [--config FILE] -- OVERRIDES...`` does.

    ``overrides`` are Hydra's (``["trainer.nnodes=2", "trainer.n_gpus_per_node=8"]``), or
    the whole launch line as words, as the command takes it (``["ray", "job", "submit",
    "--address", "http://HEAD:8265", "--", "python3", "-m", "verl.trainer.main_ppo", ...]``).
    ``config`` is verl's YAML (a path), or the resolved config ``main_ppo`` has in hand: an
    OmegaConf ``DictConfig`` or a plain dict (read without importing OmegaConf). Without
    it, verl's defaults. ``cluster``, ``ray`` and ``timeout`` are as for
    ``resource_pool.check``, and so are the errors. With neither ``cluster`` nor ``ray``, a
    launch line whose ``ray job submit`` names its dashboard (``--address URL``, or
    ``RAY_API_SERVER_ADDRESS=URL`` / ``RAY_ADDRESS=URL`` before it or in ``os.environ``,
    which Ray lets win in that order) is checked on that dashboard, before the connected Ray,
    ``RESOURCE_POOL_CLUSTER`` and ``RAY_ADDRESS``; a diagnostic says so. ``RAY_ADDRESS`` is
    not read when the job does not go there (the line removes it, or
    ``RAY_API_SERVER_ADDRESS`` overrides it).

    ``verl_version`` is ``--verl-version``: the pools and mapping are built as that verl
    release's entry point builds them (``"0.9.1"``; pass ``verl.__version__`` from inside
    verl), and keys are judged against it only. A PEP 440 version of no release
    resource-pool knows (verl from git, ``"0.9.2.dev0"``; a newer release) is judged as the
    newest known release not newer than it, which a warning names; one older than every
    known release is not judged (one ``not_judged`` notice); no PEP 440 version is
    ``rp.ArgumentError``.

    ``python`` is ``--python``: where verl imports (``python=None``, the default, in this
    interpreter; or the path of another), Hydra composes the line with the config of that
    verl and its own start-up builds the pools, in a child process (nothing of this
    process changes); they are checked as that release launches them, and
    ``verl_version`` may not be given. ``python=False``, a ``config``, or no verl to
    import: the offline reader, as ``resource-pool verl`` without ``--python``.

    ``as_dict()`` has verl's ``pools`` and ``mapping``, ``None`` when verl would stop before
    building them.
    """
    overrides = _strings(overrides, "overrides")
    seconds = _seconds(timeout)
    if verl_version is not None and not isinstance(verl_version, str):
        raise TypeError("verl_version: expected a str such as '0.9.1', got %s" % type(verl_version).__name__)
    path, text = _config_arg(config)
    interpreter = _installed_python(python, config, verl_version)
    # Without cluster= or ray=, the launch line's own dashboard comes first (the native side
    # reads the line); what the environment names is the fallback.
    # The native side reads RAY_ADDRESS only when it is the job's cluster (the line may
    # remove it, or RAY_API_SERVER_ADDRESS override it).
    from_launch = cluster is None and ray is None
    no_cluster = None
    try:
        cluster, ray = _find_cluster(cluster, ray, ray_address=not from_launch)
    except ClusterError as error:
        no_cluster = str(error)
    return _native.verl_check(
        path,
        text,
        overrides,
        _cluster_arg(cluster),
        ray,
        seconds,
        verl_version,
        from_launch,
        os.environ.get("RAY_ADDRESS"),
        no_cluster,
        os.environ.get("RAY_API_SERVER_ADDRESS"),
        interpreter,
        _probe_script() if interpreter else None,
    )


def _installed_python(python: Any, config: Any, verl_version: Optional[str]) -> Optional[str]:
    """The Python whose verl builds the pools, or ``None`` for the offline reader."""
    if python is False or (python is None and config is not None):
        return None
    if python is None or python is True:
        import importlib.util
        import sys

        if verl_version is not None or importlib.util.find_spec("verl") is None:
            return None
        return sys.executable
    if verl_version is not None:
        raise ArgumentError("python= and verl_version= exclude each other: the installed verl's version is used")
    return os.fspath(python)


def _probe_script() -> str:
    """The probe's text (this package's ``_verl_probe.py``), run with ``python -c``."""
    from importlib import resources

    return (resources.files(__package__) / "_verl_probe.py").read_text(encoding="utf-8")
