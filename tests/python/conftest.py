"""Shared helpers of the Python suite: the repository's sample files and the reference CLI.

The reference CLI is ``RESOURCE_POOL_BIN`` when set (scripts/test sets the binary cargo
built), else the ``resource-pool`` command the wheel installed beside this Python.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
CLUSTERS = EXAMPLES / "clusters"
CONFIGS = EXAMPLES / "configs"

# Variables that would choose a cluster, a format or colours behind a test's back.
_AMBIENT = [
    "RAY_ADDRESS",
    "RAY_API_SERVER_ADDRESS",
    "RESOURCE_POOL_CLUSTER",
    "RESOURCE_POOL_COLOR",
    "RESOURCE_POOL_FORMAT",
    "RESOURCE_POOL_SET",
    "RESOURCE_POOL_ROLES",
    "NO_COLOR",
    "CLICOLOR_FORCE",
    "CLICOLOR",
]


def venv_command() -> Path:
    """The ``resource-pool`` command the wheel put beside this interpreter."""
    return Path(sys.executable).parent / "resource-pool"


def reference_cli() -> str:
    return os.environ.get("RESOURCE_POOL_BIN") or str(venv_command())


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in _AMBIENT}
    env.update(extra)
    return env


def run_cli(args, cwd=ROOT, command=None, merged=True):
    """Runs the CLI; with ``merged``, stderr and stdout in one stream, in the order a
    terminal shows them."""
    return subprocess.run(
        [command or reference_cli(), *[str(a) for a in args]],
        cwd=str(cwd),
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if merged else subprocess.PIPE,
        text=True,
        timeout=60,
    )


@pytest.fixture(autouse=True)
def _no_ambient_cluster(monkeypatch):
    for name in _AMBIENT:
        monkeypatch.delenv(name, raising=False)
