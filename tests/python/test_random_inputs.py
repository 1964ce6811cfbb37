"""Random arguments never crash Python nor panic the native code (random_inputs.py).

Each seed runs in a process of its own, so that a crash (a dict holding itself once ran the
native stack out: SIGSEGV) fails one test with its seed instead of taking the suite down.
The seeds are fixed: a failure reproduces with ``python tests/python/random_inputs.py SEED
CALLS`` in the venv the suite installed.
"""

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import clean_env

DRIVER = Path(__file__).with_name("random_inputs.py")
CALLS = 400


@pytest.mark.parametrize("seed", range(8))
def test_random_arguments_raise_only_documented_errors(seed):
    done = subprocess.run(
        [sys.executable, str(DRIVER), str(seed), str(CALLS)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=clean_env(),
        timeout=300,
        check=False,
    )
    output = done.stdout.decode(errors="replace")
    assert done.returncode == 0 and output.endswith(f"ok {seed}\n"), (
        f"seed {seed}: exit status {done.returncode}\n{output[-3000:]}"
    )
