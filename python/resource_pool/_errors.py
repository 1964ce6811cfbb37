"""The exceptions of ``resource_pool``; the native module raises them by name."""

from __future__ import annotations

from typing import Any, Dict, List

__all__ = [
    "ResourcePoolError",
    "LayoutError",
    "ClusterError",
    "ClusterUnreachable",
    "ConfigError",
    "ArgumentError",
]


class ResourcePoolError(Exception):
    """The base of every error of ``resource_pool``.

    ``diagnostics`` lists the problems as ``Report.diagnostics`` does (dicts with ``code``,
    ``severity``, ``message``, ``help``, ``file``, ``line``, ``column``); ``str()`` is the
    report the ``resource-pool`` command prints for them.
    """

    diagnostics: List[Dict[str, Any]]

    def __init__(self, *args: object) -> None:
        super().__init__(*args)
        self.diagnostics = []


class LayoutError(ResourcePoolError, ValueError):
    """The layout is invalid, cannot be placed, or Ray would hang on it
    (``Report.raise_for_problems``). ``report`` is the report."""

    report: Any = None


class ClusterError(ResourcePoolError, ValueError):
    """The cluster cannot be used: a cluster file or dict that is not a valid cluster, or a
    dashboard that refused the request or answered what cannot be read."""


class ClusterUnreachable(ResourcePoolError, ConnectionError):
    """The Ray dashboard did not answer within the timeout (down, wrong host or port)."""


class ConfigError(ResourcePoolError, ValueError):
    """Overrides that cannot be applied to a config (``lint(..., overrides=...)``)."""


class ArgumentError(ResourcePoolError, ValueError):
    """An argument of the right type whose value the check cannot take: ``cluster=`` and
    ``ray=`` both given, a ``timeout`` that is not a positive number of seconds, an int past
    64 bits. A ``ValueError``, as these were before the class existed."""
