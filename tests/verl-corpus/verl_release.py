"""Where a released verl's files are: the folder that holds its `verl/` package.

Used by scripts/verl-corpus and tests/verl-corpus/recompose.py alike. In order:

1. `$RP_VERL_WHEELS/V/verl` (a folder of unpacked wheels, one sub-folder per release);
2. the release's overlay of tests/verl (`.venv/verl/V/verl`, made by scripts/verl-envs;
   `$RP_VERL_ENVS` moves it), what CI has;
3. PyPI's wheel: `pip download --no-deps verl==V` into target/verl-corpus/wheels, unpacked
   beside it (the wheel is pure Python: its config folder is all Hydra reads).
"""

import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The releases the corpus composes against (those scripts/verl-keys knows).
RELEASES = ["0.5.0", "0.6.0", "0.6.1", "0.7.0", "0.7.1", "0.8.0", "0.9.0", "0.9.1"]
NEWEST = RELEASES[-1]


def release_root(version: str, download: bool = True) -> Path:
    """The folder whose `verl/` is release `version`'s package."""
    wheels = os.environ.get("RP_VERL_WHEELS")
    if wheels and (Path(wheels) / version / "verl").is_dir():
        return Path(wheels) / version
    envs = Path(os.environ.get("RP_VERL_ENVS", ROOT / ".venv" / "verl"))
    if (envs / version / "verl" / "trainer" / "config").is_dir():
        return envs / version
    cache = ROOT / "target" / "verl-corpus"
    unpacked = cache / f"verl-{version}"
    if (unpacked / "verl").is_dir():
        return unpacked
    if not download:
        raise FileNotFoundError(f"no verl {version} (set RP_VERL_WHEELS or run scripts/verl-envs {version})")
    whl_dir = cache / "wheels"
    whl_dir.mkdir(parents=True, exist_ok=True)
    found = sorted(whl_dir.glob(f"verl-{version}-*.whl"))
    if not found:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(whl_dir), f"verl=={version}"],
            check=True,
        )
        found = sorted(whl_dir.glob(f"verl-{version}-*.whl"))
    tmp = unpacked.with_name(unpacked.name + ".part")
    with zipfile.ZipFile(found[0]) as z:
        z.extractall(tmp)
    tmp.rename(unpacked)
    return unpacked
