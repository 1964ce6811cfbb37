"""What a fixture script (verl-keys) needs: running the script itself under a Python that
has a pinned package, from a venv in its cache dir when the Python it was started with
lacks the package.

Imported by such scripts from their own folder; not a script itself.
"""

import importlib
import os
import subprocess
import sys
from pathlib import Path


def rerun_with(
    module: str, requirement: str, cache: Path, *, exact: bool = True, also: tuple[str, ...] = ()
) -> None:
    """Returns when `module` imports here (at `requirement`'s version when `exact`);
    otherwise makes `cache/venv` with `requirement` and the requirements `also` installed
    (once) and re-runs this script, with its arguments, under that venv's Python. A second
    miss inside the venv ends the script."""
    try:
        found = importlib.import_module(module)
        if not exact or found.__version__ == requirement.split("==")[1]:
            return
    except ImportError:
        pass
    flag = "PINNED_VENV_" + module.upper()
    if os.environ.get(flag):
        sys.exit(f"{requirement} is missing even in the venv")
    venv = cache / "venv"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", requirement, *also], check=True)
    os.environ[flag] = "1"
    os.execv(str(python), [str(python), *sys.argv])
