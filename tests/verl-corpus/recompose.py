#!/usr/bin/env python3
"""Composes again every corpus line whose config lives in a verl wheel, and fails when Hydra's
answer differs from the record in lines.jsonl.

    .venv/verl/base/bin/python tests/verl-corpus/recompose.py [--corpus FILE] [-v]

The lines marked `"recompose": true` by scripts/verl-corpus are those whose entry point and
every config source Hydra used are in the released verl the line runs (release V's
`verl/trainer/config`): they need neither the fetched snapshots nor the network, only the
release's files, found as tests/verl-corpus/verl_release.py says (the overlays of
scripts/verl-envs in CI; a release without an overlay is downloaded from PyPI). Each is
composed with the same code as the generator (hydra_record.compose), from an empty working
directory, and its record (composes or not, Hydra's error, the pool keys' values, the config
sources, the run mode) must be the stored one. The other lines' configs are in the snapshots
only: regenerate them with scripts/verl-corpus (see README.md).

Exit status: 0 when every record is Hydra's answer today, 1 when one differs, 2 on usage.
"""

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.dont_write_bytecode = True  # no __pycache__ beside the corpus
sys.path.insert(0, str(HERE))

import hydra_record  # noqa: E402
import verl_release  # noqa: E402

COMPARED = ["composed", "error_type", "error", "values", "config_sources", "mode", "config_name", "config_path", "config_dir", "why"]


def hydra_args(row):
    """The words Hydra parses: the argv's tail from `hydra_args_at`, or written out."""
    if "hydra_args_at" in row:
        return row["argv"][row["hydra_args_at"] :]
    return row["hydra_args"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=HERE / "lines.jsonl")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    t0 = time.time()
    rows = [json.loads(line) for line in args.corpus.read_text().splitlines() if line.strip()]
    todo = [r for r in rows if r.get("recompose")]
    if not todo:
        print("recompose: no line of the corpus is marked recompose", file=sys.stderr)
        return 1
    roots = {}
    differ = 0
    with tempfile.TemporaryDirectory(prefix="verl-recompose-") as cwd:
        for row in todo:
            version = row["verl"]["version"]
            if version not in roots:
                roots[version] = verl_release.release_root(version)
            root = roots[version]
            marker = f"<verl {version}>"
            rel = row["entry"]["file"][len(marker) + 1 :]
            placeholders = {str(root): marker, str(root.resolve()): marker}
            got = hydra_record.compose(str(root / rel), hydra_args(row), cwd, placeholders)
            want = row["hydra"]
            diff = {k: (want.get(k), got.get(k)) for k in COMPARED if want.get(k) != got.get(k)}
            if diff:
                differ += 1
                print(f"DIFFERS {row['id']} (verl {version}):", file=sys.stderr)
                for k, (w, g) in diff.items():
                    print(f"  {k}: stored {json.dumps(w)[:400]}\n  {' ' * len(k)}  Hydra  {json.dumps(g)[:400]}", file=sys.stderr)
            elif args.verbose:
                print(f"same    {row['id']} (verl {version}, composed={got.get('composed')})", file=sys.stderr)
    composed = sum(1 for r in todo if r["hydra"].get("composed"))
    print(
        f"recompose: {len(todo)} wheel-config lines of {len(rows)} ({composed} compose, "
        f"{len(todo) - composed} refused), releases {', '.join(sorted(roots))}: "
        f"{differ} differ from the record ({time.time() - t0:.1f} s)",
        file=sys.stderr,
    )
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
