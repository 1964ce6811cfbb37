#!/usr/bin/env python3
"""Reading clusters: `resource-pool check` on large clusters against Python's own readers,
timed in the same run.

For the 100,000-node clusters that `cargo bench -p resource-pool-benches --bench gen_data`
writes (target/bench-data), each as TOML and as JSON:
- ours: `resource-pool check CONFIG --cluster CLUSTER --format json` as a process (start-up,
  both files read, lint, the check, its JSON), median of --runs; its peak memory (max RSS,
  `/usr/bin/time -f %M`);
- Python: the file read and parsed (`tomllib`, `json`) and verl's sum of free GPUs over it
  (what verl's check does once it has the nodes), median of --runs.
And for the live Ray clusters of 2,000 and 10,000 nodes (target/bench-data/ray-N: the three
dashboard answers in the shape Ray 2.60 sends), served by a static HTTP server of this
process on 127.0.0.1: `resource-pool check ray-N/config.toml --ray URL --format json`
(median and max RSS), and the three answers fetched alone (urllib) for the transfer's share.
And the floor under ours: `benches/io_floor.rs` (built here with `rustc -O`), a process that
reads the cluster file through one 64 KiB buffer and writes as many bytes as our answer has,
parsing nothing, timed through the same pipe: no reader can take less.

Writes --json-out (the rows) and --md-out (the section of benches/RESULTS.md). Python 3.11+,
standard library only.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import mmap
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Issue 20's targets for `check` / Python's read + sum, by the cluster file's format.
TARGET_RATIO = {"toml": 0.25, "json": 0.1}

ENDPOINTS = [
    "/api/v0/nodes?detail=1&limit=10000",
    "/api/cluster_status",
    "/api/v0/placement_groups?detail=1&limit=10000",
]


def median_time(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def verl_sum(cluster: dict) -> float:
    """verl's check once it has the nodes: the free GPUs (NPUs without a GPU key) summed."""
    total = 0.0
    for node in cluster.get("nodes", []):
        if node.get("alive", True):
            free = node.get("available", {})
            total += free.get("GPU", 0) if "GPU" in free else free.get("NPU", 0)
    return total


def run_ours(binary: Path, args: list[str]) -> bytes:
    """One run of the process, its output read whole from the pipe; exit status 0 or an error."""
    proc = subprocess.run([str(binary), *args], capture_output=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"`resource-pool {' '.join(args)}` exited {proc.returncode}:\n"
                         f"{proc.stderr.decode(errors='replace')[-2000:]}")
    return proc.stdout


def time_ours(binary: Path, args: list[str], runs: int) -> tuple[float, int, float]:
    """The median time of the process, after one run whose result is checked (feasible).
    The check stays out of the timed runs: parsing 13 MB of our JSON in Python would be
    charged to us otherwise. Also the result's size, and the median time of `cat` writing
    the same bytes through the same pipe: what handing over the answer alone costs."""
    output = run_ours(binary, args)
    result = json.loads(output)
    if result.get("feasible") is not True:
        raise SystemExit(f"`resource-pool {' '.join(args)}`: not feasible: {result.get('diagnostics')}")
    ours = median_time(lambda: run_ours(binary, args), runs)
    with tempfile.NamedTemporaryFile(suffix=".json") as saved:
        saved.write(output)
        saved.flush()
        cat = ["cat", saved.name]
        handover = median_time(lambda: subprocess.run(cat, capture_output=True, check=True), runs)
    return ours, len(output), handover


def build_floor(into: Path) -> Path:
    """`benches/io_floor.rs` built with the toolchain's rustc, optimised: the yardstick."""
    into.mkdir(parents=True, exist_ok=True)
    binary = into / "io_floor"
    subprocess.run(["rustc", "-O", "--edition", "2024", "-o", str(binary),
                    str(ROOT / "benches" / "io_floor.rs")], check=True)
    return binary


def time_floor(floor: Path, cluster: Path, answer_bytes: int, runs: int) -> float:
    """The median time of the floor process reading `cluster` and handing over `answer_bytes`."""
    command = [str(floor), str(cluster), str(answer_bytes)]
    return median_time(lambda: subprocess.run(command, capture_output=True, check=True), runs)


def fresh_page_us(pages: int = 10_240) -> float:
    """What the first touch of a fresh 4 KiB page costs here, in µs: a private anonymous mapping of
    `pages` pages written one byte a page (Python's own loop adds about 0.05 µs a page), the
    median of 5 mappings. Page faults are most of what large reads cost on a VM."""
    def touch() -> None:
        with mmap.mmap(-1, pages * 4096, flags=mmap.MAP_PRIVATE) as mapped:
            for offset in range(0, pages * 4096, 4096):
                mapped[offset] = 1
    return median_time(touch, 5) / pages * 1e6


def max_rss_kib(binary: Path, args: list[str]) -> int:
    return rss_and_faults(binary, args)[0]


def rss_and_faults(binary: Path, args: list[str]) -> tuple[int, int]:
    """Peak memory (KiB) and minor page faults of one run: each fault is a fresh page the
    process touched, which costs about 2 µs on this machine's VM."""
    proc = subprocess.run(["/usr/bin/time", "-f", "%M %R", str(binary), *args],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    rss, faults = proc.stderr.decode().strip().splitlines()[-1].split()
    return int(rss), int(faults)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves files (the query is no part of the path), without a log line per request."""

    def log_message(self, format, *args):  # noqa: A002 (the stdlib's name)
        pass


def serve(directory: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(directory)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def fetch_all(url: str) -> int:
    size = 0
    for path in ENDPOINTS:
        with urllib.request.urlopen(url + path) as reply:
            size += len(reply.read())
    return size


def fmt_s(seconds: float) -> str:
    return f"{seconds:.2f} s" if seconds >= 1 else f"{seconds * 1e3:.0f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT / "target" / "bench-data")
    parser.add_argument("--binary", type=Path, default=ROOT / "target" / "release" / "resource-pool")
    parser.add_argument("--runs", type=int, default=5, help="runs per timing (median); default 5")
    parser.add_argument("--json-out", type=Path)
    parser.add_argument("--md-out", type=Path)
    args = parser.parse_args()
    data, binary, runs = args.data, args.binary, args.runs
    floor = build_floor(ROOT / "target" / "io-floor")

    # A layout of two node-slots: on the same clusters, its check is mostly the reading
    # (the large layouts' placement lists alone are 18 MB of JSON output at 100k slots).
    small = data / "two-slots.config.toml"
    small.write_text('[pools.global_pool]\nprocess_on_nodes = [8, 8]\n\n'
                     '[mapping]\nactor_rollout = "global_pool"\n')
    files = []
    for kind in ["homogeneous", "heterogeneous"]:
        config = data / f"{kind}-feasible-100000.config.toml"
        for fmt, load in [("toml", tomllib.loads), ("json", json.loads)]:
            cluster = data / f"{kind}-100000.cluster.{fmt}"
            check = ["check", str(config), "--cluster", str(cluster), "--format", "json"]
            check_small = ["check", str(small), "--cluster", str(cluster), "--format", "json"]
            ours, output_bytes, handover = time_ours(binary, check, runs)
            ours_small, small_bytes, _ = time_ours(binary, check_small, runs)
            floor_s = time_floor(floor, cluster, output_bytes, runs)
            floor_small_s = time_floor(floor, cluster, small_bytes, runs)
            python = median_time(lambda: verl_sum(load(cluster.read_text())), runs)
            row = {"kind": kind, "format": fmt, "nodes": 100_000, "bytes": cluster.stat().st_size,
                   "ours_s": ours, "python_s": python, "ratio": ours / python,
                   "output_bytes": output_bytes, "handover_s": handover,
                   "small_s": ours_small, "small_ratio": ours_small / python,
                   "floor_s": floor_s, "floor_ratio": floor_s / python,
                   "floor_small_s": floor_small_s, "floor_small_ratio": floor_small_s / python,
                   **dict(zip(("max_rss_kib", "faults"), rss_and_faults(binary, check)))}
            files.append(row)
            print(f"{kind:<14} {fmt:<5} ours {fmt_s(ours):>8} (answer {output_bytes / 1e6:.1f} MB, "
                  f"handed over alone {fmt_s(handover)})  two slots {fmt_s(ours_small):>8}  "
                  f"python {fmt_s(python):>8}  ratio {row['ratio']:.3f} ({row['small_ratio']:.3f})  "
                  f"floor {fmt_s(floor_s)} = {row['floor_ratio']:.3f} ({row['floor_small_ratio']:.3f})  "
                  f"max RSS {row['max_rss_kib'] / 1024:.1f} MiB, {row['faults']:,} page faults", flush=True)

    rays = []
    for nodes in [2_000, 5_000, 10_000]:
        directory = data / f"ray-{nodes}"
        server, url = serve(directory)
        try:
            size = fetch_all(url)
            fetch = median_time(lambda: fetch_all(url), runs)
            check = ["check", str(directory / "config.toml"), "--ray", url, "--format", "json"]
            ours = time_ours(binary, check, runs)[0]
            rss = max_rss_kib(binary, check)
        finally:
            server.shutdown()
        row = {"nodes": nodes, "bytes": size, "fetch_s": fetch, "ours_s": ours, "max_rss_kib": rss}
        rays.append(row)
        print(f"ray {nodes:>6} nodes ({size / 1e6:.1f} MB): check {fmt_s(ours):>8}  fetch alone "
              f"{fmt_s(fetch):>8}  max RSS {rss / 1024:.1f} MiB", flush=True)

    page_us = fresh_page_us()
    print(f"a fresh 4 KiB page: {page_us:.2f} µs", flush=True)
    load = " ".join(open("/proc/loadavg").read().split()[:3])
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    result = {"files": files, "ray": rays, "fresh_page_us": page_us, "load": load, "cpus": os.cpu_count(), "cpu": cpu,
              "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "runs": runs}
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=1))
    if args.md_out:
        args.md_out.write_text(markdown(result))
    return 0


def markdown(r: dict) -> str:
    by = {(f["kind"], f["format"]): f for f in r["files"]}
    ray = {x["nodes"]: x for x in r["ray"]}
    toml, jsn, big = by[("homogeneous", "toml")], by[("homogeneous", "json")], ray[10_000]
    rows = [
        ("`check` of the 100k-node TOML / Python `tomllib` read + verl's sum", f"{toml['ratio']:.3f}",
         f"≤ {TARGET_RATIO['toml']}", toml["ratio"] <= TARGET_RATIO["toml"]),
        ("the same as JSON / Python `json` read + sum", f"{jsn['ratio']:.3f}", f"≤ {TARGET_RATIO['json']}",
         jsn["ratio"] <= TARGET_RATIO["json"]),
        ("peak memory of the 100k-node TOML `check`", f"{toml['max_rss_kib'] / 1024:.1f} MiB", "≤ 100 MiB",
         toml["max_rss_kib"] <= 100 * 1024),
        ("dashboard answers of 10k nodes, read + check", fmt_s(big["ours_s"]), "< 0.5 s", big["ours_s"] < 0.5),
    ]
    out = ["## Reading clusters", "",
           f"Measured by `benches/read_bench.py` (`scripts/bench`, or `scripts/bench reading` alone) on "
           f"{r['date']}: {r['cpus']} cores, {r['cpu']}, load average {r['load']} at the end; medians of "
           f"{r['runs']} runs, ours and Python's in the same run. Ours is the `resource-pool check ... "
           "--format json` process (start-up, both files, lint, check, JSON output); Python's is the file "
           "read and parsed and verl's free-GPU sum over it. The 100k clusters are the scenarios' "
           "`homogeneous` (8 GPU / 96 CPU, idle) and `heterogeneous` (partly busy) nodes with verl's "
           "default layout (100,000 node-slots) and the mixed pools (10,000 node-slots).", "",
           "| target | measured | target | met |", "|---|---|---|---|"]
    out += [f"| {what} | {value} | {target} | {'✅' if ok else '❌'} |" for what, value, target, ok in rows]
    out += ["", "| cluster | format | file | ours: `check` | Python: read + sum | ours / Python | ours: max RSS "
            "| ours: two node-slots | its ratio | our answer | handed over alone | ours: page faults |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for f in r["files"]:
        out.append(f"| {f['kind']} 100k | {f['format']} | {f['bytes'] / 1e6:.1f} MB | {fmt_s(f['ours_s'])} | "
                   f"{fmt_s(f['python_s'])} | {f['ratio']:.3f} | {f['max_rss_kib'] / 1024:.1f} MiB | "
                   f"{fmt_s(f['small_s'])} | {f['small_ratio']:.3f} | {f['output_bytes'] / 1e6:.1f} MB | "
                   f"{fmt_s(f['handover_s'])} | {f['faults']:,} |")
    out += ["", "The columns \"two node-slots\" check a layout of two node-slots (`global_pool = [8, 8]`) "
            "against the same clusters: the process then does little but read the cluster, so they "
            "show the reading's own cost; the targets are judged on the large layouts. \"Our answer\" "
            "is the size of the large layout's JSON result (both placements list every node-slot), and "
            "\"handed over alone\" the time `cat` takes to hand the same bytes to Python through the "
            "same pipe (`subprocess.run(..., capture_output=True)`): the part of our time that is the "
            "answer's transfer to the caller. \"Page faults\" counts the fresh 4 KiB pages the large "
            "layout's process touched (`/usr/bin/time`'s minor faults); in this run a fresh page cost "
            f"{r['fresh_page_us']:.2f} µs to touch (an anonymous mapping written a byte a page from "
            "Python), so faults alone are a large share of a large read's time here."]
    out += ["", "| cluster | format | floor: read + hand over our answer | floor / Python | floor with "
            "the two-slot answer | its ratio | the target | left by the target for all the rest |",
            "|---|---|---|---|---|---|---|---|"]
    for f in r["files"]:
        target = TARGET_RATIO[f["format"]]
        left = target * f["python_s"] - f["floor_s"]
        out.append(f"| {f['kind']} 100k | {f['format']} | {fmt_s(f['floor_s'])} | {f['floor_ratio']:.3f} | "
                   f"{fmt_s(f['floor_small_s'])} | {f['floor_small_ratio']:.3f} | ≤ {target} | "
                   f"{left * 1e3:.1f} ms |")
    out += ["", "The floor is `benches/io_floor.rs`: a process that reads the cluster file to its end "
            "through one 64 KiB buffer and writes as many bytes as our answer has, parsing nothing, "
            "timed the same way as ours. No reader can take less time. \"Left by the target\" is the "
            "target's share of Python's time less the floor: what parsing the file, the config, the "
            f"check and writing the answer may take together. For the homogeneous JSON file it is "
            f"{(TARGET_RATIO['json'] * jsn['python_s'] - jsn['floor_s']) * 1e3:.1f} ms, to parse {jsn['bytes'] / 1e6:.1f} MB "
            f"and write {jsn['output_bytes'] / 1e6:.1f} MB."]
    out += ["", "| live Ray cluster (fake dashboard) | answers | fetched alone | `check --ray` | max RSS |",
            "|---|---|---|---|---|"]
    for x in r["ray"]:
        out.append(f"| {x['nodes']:,} nodes | {x['bytes'] / 1e6:.1f} MB | {fmt_s(x['fetch_s'])} | "
                   f"{fmt_s(x['ours_s'])} | {x['max_rss_kib'] / 1024:.1f} MiB |")
    steps = [f"{b['max_rss_kib'] - a['max_rss_kib']:,} KiB for {b['nodes'] - a['nodes']:,} nodes more "
             f"({(b['max_rss_kib'] - a['max_rss_kib']) / (b['nodes'] - a['nodes']):.1f} KiB each)"
             for a, b in zip(r["ray"], r["ray"][1:])]
    per_node_bytes = (big["bytes"] - r["ray"][0]["bytes"]) / (big["nodes"] - r["ray"][0]["nodes"]) / 1024
    out += ["", f"The dashboard's answers are files of `target/bench-data/ray-N/` (generated by "
            "`benches/common/ray_bodies.rs` in Ray 2.60's shape: every field, 1 dead node in 1,000, one "
            "placed group of 8 bundles per 10 nodes) served by Python's `http.server` on 127.0.0.1; "
            "the check is verl's default layout on the idle nodes. Peak memory grows by "
            + " and by ".join(steps) + f": linear in the answers ({per_node_bytes:.1f} KiB per node).", ""]
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
