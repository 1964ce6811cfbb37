#!/usr/bin/env python3
"""A 10,000-node check from Python against the same check by the CLI, in one run.

Runs in a venv where the wheel is installed (build both release: `pip install .` and
`cargo build --release --bin resource-pool`), and prints medians and ratios:

  python benches/python_vs_cli.py --cli target/release/resource-pool [--nodes 10000] [--runs 9]

The data: NODES nodes of 8 GPUs and 96 CPUs, and verl's layout `global_pool = [8] * NODES`
(every role on it): the check, Ray's simulation and both placements over every node. Timed:

- cli:          `resource-pool check CONFIG --cluster CLUSTER --format json` (a process:
                start, read, check, JSON out)
- rp.check:     `rp.check(spec, mapping, cluster=CLUSTER)` in this process (read, check,
                the JSON result; its fields become Python objects at the first look)
- rp.check+fields: the same, then every field read (20,000 placement dicts made)
- rp.check+str: the same, plus `str(report)` (the human report, as the CLI prints by default),
                against `cli human` (the CLI's default output)
- rp.check dict: the cluster as a Python dict (written as TOML, then read by the core)
- wheel command: the wheel's `resource-pool` entry point (Python starts, then the CLI's code)
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import resource_pool as rp


def medians(variants, runs):
    """The median seconds of each variant; runs go round-robin over the variants, so that
    a change of load on a shared machine weighs on all of them alike."""
    for fn in variants.values():
        fn()  # warm: page cache, imports
    times = {name: [] for name in variants}
    for _ in range(runs):
        for name, fn in variants.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def _fields(report):
    """Every field of the JSON result, as Python objects (made at the first look)."""
    return (report.ok, report.feasible, report.ray, report.placement, report.ray_placement, report.diagnostics)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", required=True, help="the resource-pool binary (release)")
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    n = args.nodes

    nodes = [
        {"id": "node-%05d" % i, "available": {"GPU": 8, "CPU": 96}, "total": {"GPU": 8, "CPU": 96}}
        for i in range(n)
    ]
    spec = {"global_pool": [8] * n}
    mapping = {"actor_rollout": "global_pool", "critic": "global_pool", "ref": "global_pool"}
    with tempfile.TemporaryDirectory() as tmp:
        cluster = Path(tmp) / "cluster.toml"
        cluster.write_text(
            "".join(
                '[[nodes]]\nid = "%s"\navailable = { GPU = 8, CPU = 96 }\ntotal = { GPU = 8, CPU = 96 }\n\n' % node["id"]
                for node in nodes
            )
        )
        report = rp.check(spec, mapping, cluster=str(cluster))
        assert report.ok and report.ray == "places", report
        config = Path(tmp) / "config.toml"
        config.write_text(report.config)
        wheel_command = str(Path(sys.executable).parent / "resource-pool")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("RESOURCE_POOL_", "RAY_"))}

        def cli(command, *extra):
            def run():
                subprocess.run(
                    [command, "check", str(config), "--cluster", str(cluster), *extra],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False,
                )
            return run

        timings = medians(
            {
                "cli json": cli(args.cli, "--format", "json"),
                "rp.check": lambda: rp.check(spec, mapping, cluster=str(cluster)),
                "rp.check+fields": lambda: _fields(rp.check(spec, mapping, cluster=str(cluster))),
                "cli human": cli(args.cli),
                "rp.check+str": lambda: str(rp.check(spec, mapping, cluster=str(cluster))),
                "rp.check dict": lambda: rp.check(spec, mapping, cluster={"nodes": nodes}),
                "wheel command json": cli(wheel_command, "--format", "json"),
            },
            args.runs,
        )
    print("%d nodes, %d node-slots; median of %d runs each, round-robin, same machine, same run" % (n, n, args.runs))
    for name, seconds in timings.items():
        print("  %-20s %8.1f ms" % (name, seconds * 1000))
    print("ratios (Python / CLI; <= 1.0 means Python costs no more):")
    print("  rp.check      / cli json  = %.2f" % (timings["rp.check"] / timings["cli json"]))
    print("  rp.check+fields / cli json = %.2f" % (timings["rp.check+fields"] / timings["cli json"]))
    print("  rp.check+str  / cli human = %.2f" % (timings["rp.check+str"] / timings["cli human"]))
    print("  rp.check dict / cli json  = %.2f" % (timings["rp.check dict"] / timings["cli json"]))
    print("  wheel command / cli json  = %.2f" % (timings["wheel command json"] / timings["cli json"]))


if __name__ == "__main__":
    main()
