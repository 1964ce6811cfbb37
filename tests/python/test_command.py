"""The wheel: the ``resource-pool`` command on the venv's PATH, stubs and ``py.typed``."""

import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import resource_pool as rp
from conftest import CLUSTERS, CONFIGS, ROOT, clean_env, reference_cli, run_cli, venv_command


def test_the_command_is_installed_beside_python():
    command = venv_command()
    assert command.is_file() and os.access(command, os.X_OK)
    out = subprocess.run([command, "--version"], stdout=subprocess.PIPE, text=True, check=True)
    assert out.stdout == "resource-pool %s\n" % rp.__version__


def test_the_command_runs_the_cli(tmp_path):
    command = str(venv_command())
    cases = [
        (["check", CONFIGS / "small_pool_first.toml", "--cluster", CLUSTERS / "big_and_small.toml"], 1),
        (["check", CONFIGS / "large_pool_first.toml", "--cluster", CLUSTERS / "big_and_small.toml"], 0),
        (["check", CONFIGS / "large_pool_first.toml", "--cluster", tmp_path / "missing.toml"], 2),
        (["lint", "resource-pool-core/tests/data/lint/many_problems.toml", "--format", "json"], 1),
        (["no-such-command"], 2),
    ]
    for args, status in cases:
        ours = run_cli(args, command=command)
        assert ours.returncode == status, (args, ours.stdout)
        if os.environ.get("RESOURCE_POOL_BIN"):
            # The binary cargo built prints the same, byte for byte.
            theirs = run_cli(args, command=os.environ["RESOURCE_POOL_BIN"])
            assert (ours.returncode, ours.stdout) == (theirs.returncode, theirs.stdout), args
    helped = run_cli(["--help"], command=command)
    assert helped.returncode == 0 and "Usage: resource-pool" in helped.stdout


def test_python_dash_m_runs_the_command():
    out = subprocess.run(
        [sys.executable, "-m", "resource_pool", "--version"],
        stdout=subprocess.PIPE, text=True, env=clean_env(), check=True,
    )
    assert out.stdout.startswith("resource-pool ")


def test_the_package_is_typed_abi3_and_installed_not_the_source():
    package = resources.files("resource_pool")
    names = {entry.name for entry in package.iterdir()}
    assert {"py.typed", "_native.pyi", "__init__.py", "verl.py"} <= names
    native = [n for n in names if n.startswith("_native") and n.endswith(".so")]
    assert native == ["_native.abi3.so"], names
    # The suite tests the installed wheel, never python/ of the checkout.
    assert ROOT / "python" not in Path(rp.__file__).parents
