"""Check verl's GPU/NPU resource-pool layout before Ray hangs on it.

The names are verl's own (``ResourcePoolManager(resource_pool_spec, mapping,
max_colocate_count)``)::

    import resource_pool as rp

    report = rp.check(
        resource_pool_spec={"global_pool": [8, 8], "reward_pool": [4]},
        mapping={"actor_rollout": "global_pool", "critic": "global_pool", "rm": "reward_pool"},
        cluster="cluster.toml",           # or a dict, or ray="http://HEAD:8265"
    )
    print(report)                         # what `resource-pool check` prints
    report.raise_for_problems()           # rp.LayoutError unless report.ok

With neither ``cluster`` nor ``ray``, the check reads the live cluster: the dashboard of the
Ray cluster this process is connected to (after ``ray.init``), else the cluster file
``RESOURCE_POOL_CLUSTER`` names, else ``RAY_ADDRESS`` when it is an http URL.

The check runs the same code as the ``resource-pool`` command (also in this package), with
the GIL released. See docs/python.md.
"""

from __future__ import annotations

import enum
import math
import os
import sys
from typing import Any, Dict, Iterable, Mapping, Optional, Sequence, Tuple, Union

from . import _native
from ._errors import (
    ArgumentError,
    ClusterError,
    ClusterUnreachable,
    ConfigError,
    LayoutError,
    ResourcePoolError,
)
from ._native import LintReport, Report

__version__: str = _native.__version__

__all__ = [
    "check",
    "lint",
    "verl",
    "Report",
    "LintReport",
    "ResourcePoolError",
    "LayoutError",
    "ClusterError",
    "ClusterUnreachable",
    "ConfigError",
    "ArgumentError",
    "dashboard_url",
    "__version__",
]

PathLike = Union[str, "os.PathLike[str]"]
ClusterArg = Union[PathLike, Mapping[str, Any], None]

#: The variable that names a cluster file when no cluster is given (as for the CLI).
CLUSTER_VARIABLE = "RESOURCE_POOL_CLUSTER"


def dashboard_url() -> Optional[str]:
    """The dashboard URL of the Ray cluster this process is connected to, or ``None``.

    Ray is never imported here: a process that has not imported it and called ``ray.init``
    has no connection. The URL is the one the head publishes in the GCS (``webui:url`` of
    the ``dashboard`` namespace, which Ray's own drivers read when they connect), else, in
    a driver only, the driver node's ``address_info["webui_url"]``. A worker's (an actor's,
    such as verl's ``TaskRunner``) ``address_info`` holds Ray's default ``127.0.0.1:8265``
    whatever the head's dashboard is, so it is never read there.
    """
    ray = sys.modules.get("ray")
    if ray is None:
        return None
    try:
        if not ray.is_initialized():
            return None
    except Exception:
        return None
    url = None
    try:
        from ray.experimental.internal_kv import _internal_kv_get

        raw = _internal_kv_get("webui:url", namespace="dashboard")
        url = raw.decode() if isinstance(raw, bytes) else raw
    except Exception:
        url = None
    if not url:
        try:
            private = ray._private.worker
            worker = private.global_worker
            if worker.mode == getattr(private, "SCRIPT_MODE", 0):
                url = worker.node.address_info["webui_url"]
        except Exception:
            url = None
    if not url:
        return None
    return url if "://" in url else "http://" + url


def _is_dashboard_url(address: str) -> bool:
    """Whether an address is a dashboard's URL: an http or https scheme in any case, spaces
    around it ignored (the rule of the native side, ``is_dashboard_url``)."""
    scheme, sep, _ = address.strip().partition("://")
    return bool(sep) and scheme.lower() in ("http", "https")


def _find_cluster(
    cluster: ClusterArg, ray: Optional[str], ray_address: bool = True
) -> Tuple[ClusterArg, Optional[str]]:
    """Where to read the cluster when neither argument is given; ``ray_address=False``
    leaves ``RAY_ADDRESS`` to the caller."""
    if cluster is not None or ray is not None:
        return cluster, ray
    url = dashboard_url()
    if url:
        return None, url
    path = os.environ.get(CLUSTER_VARIABLE)
    if path:
        return path, None
    address = os.environ.get("RAY_ADDRESS", "") if ray_address else ""
    if _is_dashboard_url(address):
        return None, address
    raise ClusterError(
        "no cluster to check against: pass cluster= (a cluster file or dict) or ray= (the "
        "dashboard's http URL), call it after ray.init(), set RESOURCE_POOL_CLUSTER to a "
        "cluster file, or RAY_ADDRESS to the dashboard's http URL"
    )


def _seconds(timeout: Any) -> float:
    """``timeout`` as a float; a type that is not a number is a ``TypeError`` as for any
    argument (``float("10")`` would take a str). Its value is checked whatever the cluster
    source, so that a script tested with a cluster file does not fail only once it reads
    a dashboard."""
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise TypeError(
            "timeout: expected a number of seconds, got %s" % type(timeout).__name__
        )
    seconds = float(timeout)
    if not (math.isfinite(seconds) and seconds > 0):
        raise ArgumentError("timeout: expected a positive number of seconds, got %r" % timeout)
    return seconds


def _as_dict(value: Any) -> Any:
    """A mapping that is not a dict as the dict the native side reads; anything else as it
    is (the native side says what is wrong with it)."""
    if isinstance(value, Mapping) and not isinstance(value, dict):
        return dict(value)
    return value


def _cluster_arg(cluster: ClusterArg) -> Any:
    """A cluster mapping as a dict; paths as they are."""
    if hasattr(cluster, "__fspath__"):
        return os.fspath(cluster)
    return _as_dict(cluster)


def check(
    resource_pool_spec: Mapping[str, Sequence[int]],
    mapping: Mapping[Union[str, enum.Enum], str],
    max_colocate_count: Optional[int] = None,
    accelerator: str = "GPU",
    cluster: ClusterArg = None,
    ray: Optional[str] = None,
    *,
    timeout: float = 10.0,
    verl_version: Optional[str] = None,
) -> Report:
    """Checks verl's pools on a cluster, as ``resource-pool check`` does.

    ``resource_pool_spec`` and ``mapping`` are ``ResourcePoolManager``'s: pool name to the
    accelerators of each node-slot (``{"global_pool": [8, 8]}``), role to pool name. Roles
    are strings (``"actor_rollout"``, ``"ref"``) or members of verl's ``Role`` enum, taken
    by name (``Role.RefPolicy`` is ``"ref"``); verl need not be importable.

    The layout is checked as ``verl_version``'s release launches it (pass
    ``verl.__version__``; without it, the newest release resource-pool knows, which the
    report names): which pools get placement groups and in what order (the worker groups'
    in ``resource_pool_spec``'s order, the reward model's and teacher's later from 0.7.1
    and 0.8.0), the CPUs per bundle (``max_colocate_count``: ``None`` is the release's own,
    a value is what code that builds ``ResourcePoolManager`` itself passes), verl's own
    check, and the CPUs it holds before the first group.

    ``cluster`` is a cluster file's path or a dict of the same shape
    (``{"nodes": [{"id": "a", "available": {"GPU": 8, "CPU": 96}}]}``); ``ray`` a dashboard
    URL (``http://HEAD:8265``), read within ``timeout`` seconds. With neither, see the
    module's docs.

    Raises ``TypeError`` for arguments of the wrong type (naming the argument and key),
    ``ArgumentError`` for values it cannot take (``cluster`` and ``ray`` both, a timeout
    that is not positive, an int past 64 bits), ``OSError`` for a cluster file that cannot
    be read, ``ClusterError`` for one that is not a valid cluster, ``ClusterUnreachable``
    when the dashboard does not answer in time.
    """
    seconds = _seconds(timeout)
    cluster, ray = _find_cluster(cluster, ray)
    if ray is not None and not isinstance(ray, str):
        raise TypeError("ray: expected the dashboard's URL (str), got %s" % type(ray).__name__)
    if verl_version is not None and not isinstance(verl_version, str):
        raise TypeError("verl_version: expected a str such as '0.9.1', got %s" % type(verl_version).__name__)
    return _native.check(
        _as_dict(resource_pool_spec),
        _as_dict(mapping),
        max_colocate_count,
        accelerator,
        _cluster_arg(cluster),
        ray,
        seconds,
        verl_version,
    )


def lint(
    path_or_text: Union[PathLike, str],
    *,
    overrides: Optional[Sequence[str]] = None,
    any_roles: bool = False,
) -> LintReport:
    """Lints a config as ``resource-pool lint`` does.

    ``path_or_text`` is a path (a ``pathlib.Path``, or a ``str`` with no ``=`` and no line
    break) or the config's TOML text. ``overrides`` are ``--set``'s ``KEY=VALUE`` strings;
    ``any_roles`` accepts any role name in ``[mapping]`` (``--roles any``).

    Raises ``OSError`` for a file that cannot be read, ``ConfigError`` for overrides that
    cannot be applied.
    """
    overrides = _strings(overrides, "overrides")
    if hasattr(path_or_text, "__fspath__"):
        return _native.lint(os.fspath(path_or_text), None, overrides, bool(any_roles))
    if not isinstance(path_or_text, str):
        raise TypeError(
            "path_or_text: expected a path or the config's TOML text, got %s"
            % type(path_or_text).__name__
        )
    if "\n" in path_or_text or "=" in path_or_text:
        return _native.lint(None, path_or_text, overrides, bool(any_roles))
    return _native.lint(path_or_text, None, overrides, bool(any_roles))


def _strings(values: Optional[Sequence[str]], name: str) -> list:
    """A list of ``key=value`` strings argument (``None`` is empty)."""
    if values is None:
        return []
    expected = "%s: expected a list of 'key=value' strings" % name
    if isinstance(values, str):
        raise TypeError(
            "%s, got a single str (split a command line into its words with shlex.split(line))"
            % expected
        )
    if isinstance(values, Mapping):
        raise TypeError(
            "%s, got %s (write each item as 'key=value': [f'{k}={v}' for k, v in d.items()])"
            % (expected, type(values).__name__)
        )
    if isinstance(values, bytes) or not isinstance(values, Iterable):
        raise TypeError("%s, got %s" % (expected, type(values).__name__))
    out = []
    for i, value in enumerate(values):
        if not isinstance(value, str):
            raise TypeError("%s[%d]: expected a str, got %s" % (name, i, type(value).__name__))
        out.append(value)
    return out


from . import verl  # noqa: E402  (verl.check uses the helpers above)
