#!/usr/bin/env python3
"""Side by side: the check verl runs today against `resource-pool check`.

Reads the scenarios that `cargo bench -p resource-pool-benches --bench gen_data` writes
(target/bench-data/manifest.json plus TOML files), and for each one:

- verl's check as verl runs it today (verl/single_controller/ray/base.py): the sum of free
  GPU (or NPU when a node has no GPU key) over all nodes against the sum of all
  node-slots; it raises ValueError when short. Timed on the node dict in memory, as verl
  gets it from Ray, and again with the file's parse (tomllib) included;
- verl's earlier greedy first-fit (removed in 2025): per pool, `process_on_nodes[0]`
  GPUs on `len(process_on_nodes)` nodes, each node visited once, first fit;
- ours: `target/release/resource-pool check CONFIG --cluster CLUSTER --format json`, run
  as a process (start-up, both parses, lint, check and JSON output included), and
  `resource-pool inventory --cluster CLUSTER` (parse and print back) beside it.

Prints one row per scenario: medians, the ratio ours/verl, and whether each check
catches the layout (a layout built to fail: fewer GPUs than slots, fragmentation, CPU
shortage, the wrong accelerator, a Ray-order hang). With --json-out, writes the rows for
scripts/bench. Python 3.11+, standard library only.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class VerlError(ValueError):
    """What verl raises."""


def available_per_node(cluster: dict) -> dict[str, dict[str, float]]:
    """The shape of `ray._private.state.available_resources_per_node()`."""
    return {
        n["id"]: dict(n.get("available", {}))
        for n in cluster.get("nodes", [])
        if n.get("alive", True)
    }


def resource_pool_spec(config: dict) -> dict[str, list[int]]:
    """verl's `resource_pool_spec`: pool name -> process_on_nodes."""
    spec = {}
    for name, pool in config.get("pools", {}).items():
        if "process_on_nodes" in pool:
            spec[name] = list(pool["process_on_nodes"])
        else:
            spec[name] = [pool["gpus_per_node"]] * pool["nnodes"]
    return spec


def verl_available_gpus(nodes: dict[str, dict[str, float]]) -> dict[str, float]:
    # verl: GPU when the node has the key, else NPU.
    return {
        node: (info.get("GPU", 0) if "GPU" in info else info.get("NPU", 0))
        for node, info in nodes.items()
    }


def verl_sum_check(nodes: dict[str, dict[str, float]], spec: dict[str, list[int]]) -> None:
    """verl's check today (`_check_resource_available`)."""
    total_available = sum(verl_available_gpus(nodes).values())
    total_required = sum(n for slots in spec.values() for n in slots)
    if total_available < total_required:
        raise VerlError(
            f"Total available GPUs {total_available} is less than total desired GPUs {total_required}"
        )


def verl_greedy_check(nodes: dict[str, dict[str, float]], spec: dict[str, list[int]]) -> None:
    """verl's removed greedy first-fit: reads only process_on_nodes[0], visits each node
    once per pool."""
    free = verl_available_gpus(nodes)
    for name, process_on_nodes in spec.items():
        num_gpus, num_nodes = process_on_nodes[0], len(process_on_nodes)
        for node, gpus in free.items():
            if gpus >= num_gpus:
                free[node] -= num_gpus
                num_nodes -= 1
                if num_nodes == 0:
                    break
        if num_nodes > 0:
            raise VerlError(f"Resource pool {name}: {num_gpus}*{len(process_on_nodes)} cannot be satisfied")


def catches(check, nodes, spec) -> bool:
    try:
        check(nodes, spec)
    except VerlError:
        return True
    return False


def median_time(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run_process(binary: Path, config: Path, cluster: Path) -> subprocess.CompletedProcess:
    """One `resource-pool check` process, its output read whole from the pipe: what is timed."""
    return subprocess.run(
        [str(binary), "check", str(config), "--cluster", str(cluster), "--format", "json"],
        capture_output=True,
        check=False,
    )


def run_ours(binary: Path, config: Path, cluster: Path) -> tuple[int, dict | None]:
    """One process and its JSON result, parsed here (not timed: see `run_process`)."""
    proc = run_process(binary, config, cluster)
    try:
        out = json.loads(proc.stdout)
    except json.JSONDecodeError:
        out = None
    return proc.returncode, out


def run_inventory(binary: Path, cluster: Path) -> None:
    subprocess.run(
        [str(binary), "inventory", "--cluster", str(cluster)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )


def fmt_s(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} µs"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT / "target" / "bench-data")
    parser.add_argument("--binary", type=Path, default=ROOT / "target" / "release" / "resource-pool")
    parser.add_argument("--runs", type=int, default=5, help="runs per timing (median); default 5")
    parser.add_argument("--sizes", type=str, default="", help="comma-separated node counts (default all)")
    parser.add_argument("--json-out", type=Path, help="write the rows as JSON here")
    args = parser.parse_args()

    manifest_path = args.data / "manifest.json"
    if not manifest_path.exists():
        print(f"no {manifest_path}: run `cargo bench -p resource-pool-benches --bench gen_data`", file=sys.stderr)
        return 2
    if not args.binary.exists():
        print(f"no {args.binary}: run `cargo build --release`", file=sys.stderr)
        return 2
    sizes = {int(s) for s in args.sizes.split(",") if s}
    manifest = [e for e in json.loads(manifest_path.read_text()) if not sizes or e["size"] in sizes]

    rows = []
    parsed_clusters: dict[str, tuple[dict, float]] = {}
    inventory_times: dict[str, float] = {}
    header = (
        f"{'scenario':<32} {'nodes':>7} {'slots':>6} {'expect':<18} {'verl sum':>10} {'verl+parse':>11} "
        f"{'ours e2e':>10} {'ours/verl+parse':>15} {'verl':>5} {'greedy':>6} {'ours':>6}"
    )
    print(header)
    print("-" * len(header))
    for entry in manifest:
        cluster_path = args.data / entry["cluster"]
        config_path = args.data / entry["config"]
        if entry["cluster"] not in parsed_clusters:
            text = cluster_path.read_bytes()
            parse_s = median_time(lambda: tomllib.loads(text.decode()), max(1, min(args.runs, 3)))
            parsed_clusters[entry["cluster"]] = (tomllib.loads(text.decode()), parse_s)
            inventory_times[entry["cluster"]] = median_time(
                lambda: run_inventory(args.binary, cluster_path), args.runs
            )
        cluster, parse_s = parsed_clusters[entry["cluster"]]
        config = tomllib.loads(config_path.read_text())
        spec = resource_pool_spec(config)
        nodes = available_per_node(cluster)

        verl_s = median_time(lambda: catches(verl_sum_check, nodes, spec), args.runs)
        verl_parse_s = parse_s + verl_s
        ours_s = median_time(lambda: run_process(args.binary, config_path, cluster_path), args.runs)
        code, out = run_ours(args.binary, config_path, cluster_path)

        should_fail = entry["expect"] != "places"
        verl_fails = catches(verl_sum_check, nodes, spec)
        greedy_fails = catches(verl_greedy_check, nodes, spec)
        feasible = out.get("feasible") if isinstance(out, dict) else None
        # Caught: the check fails with a decided verdict. An undecided placement or Ray
        # simulation (budget out) fails the check too, but proves nothing: reported, not
        # counted.
        ray = out.get("ray") if isinstance(out, dict) else None
        codes = [d.get("code") or "" for d in out.get("diagnostics", [])] if isinstance(out, dict) else []
        ours_undecided = code != 0 and (
            feasible is None or ray == "undecided" or any(c.endswith("::undecided") for c in codes)
        )
        ours_fails = code != 0 and not ours_undecided
        row = {
            **entry,
            "verl_sum_s": verl_s,
            "verl_parse_s": parse_s,
            "ours_e2e_s": ours_s,
            "ours_inventory_s": inventory_times[entry["cluster"]],
            "ratio_ours_verl_parse": ours_s / verl_parse_s,
            "ratio_ours_verl_sum": ours_s / verl_s if verl_s > 0 else None,
            "should_fail": should_fail,
            "verl_fails": verl_fails,
            "greedy_fails": greedy_fails,
            "ours_fails": ours_fails,
            "ours_exit": code,
            "ours_feasible": feasible,
            "ours_undecided": ours_undecided,
            "ours_ray": ray,
            "ours_codes": codes,
        }
        rows.append(row)

        def mark(fails: bool, undecided: bool = False) -> str:
            # "yes" caught a bad layout, "no" missed it, "ok" passed a good one,
            # "FALSE" rejected a good one.
            if undecided:
                return "undec"
            if should_fail:
                return "yes" if fails else "no"
            return "FALSE" if fails else "ok"

        print(
            f"{entry['scenario']:<32} {entry['nodes']:>7} {entry['slots']:>6} {entry['expect']:<18} "
            f"{fmt_s(verl_s):>10} {fmt_s(verl_parse_s):>11} {fmt_s(ours_s):>10} "
            f"{row['ratio_ours_verl_parse']:>15.2f} {mark(verl_fails):>5} {mark(greedy_fails):>6} "
            f"{mark(ours_fails, ours_undecided):>5}",
            flush=True,
        )

    bad = [r for r in rows if r["should_fail"]]
    print()
    print(
        f"bad layouts caught: verl sum check {sum(r['verl_fails'] for r in bad)}/{len(bad)}, "
        f"greedy first-fit {sum(r['greedy_fails'] for r in bad)}/{len(bad)}, "
        f"resource-pool {sum(r['ours_fails'] for r in bad)}/{len(bad)} "
        f"(undecided within the budget: {sum(r['ours_undecided'] for r in bad)})"
    )
    good = [r for r in rows if not r["should_fail"]]
    print(
        f"good layouts rejected: verl sum check {sum(r['verl_fails'] for r in good)}/{len(good)}, "
        f"greedy first-fit {sum(r['greedy_fails'] for r in good)}/{len(good)}, "
        f"resource-pool {sum(r['ours_fails'] for r in good)}/{len(good)}"
    )
    if args.json_out:
        args.json_out.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
