#!/usr/bin/env python3
"""The tight packings section of benches/RESULTS.md, from the results of one run.

    packing_report.py OURS.jsonl CPSAT.jsonl ORTOOLS_VERSION SEED > packing.md

OURS.jsonl is what `cargo bench --bench packing -- --results` writes, CPSAT.jsonl what
`benches/packing_cpsat.py --results` writes, on the same instances in the same run.
Exits 1 when the two disagree on an instance both decided: one of them is wrong.
"""

import json
import os
import statistics
import sys
import time


def load(path):
    return [json.loads(line) for line in open(path) if line.strip()]


def fmt(s):
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.1f} ms"
    return f"{s * 1e6:.0f} µs"


def main():
    ours, cpsat, ortools, seed = load(sys.argv[1]), load(sys.argv[2]), sys.argv[3], sys.argv[4]
    budgets = sorted({r["budget_s"] for r in ours} | {r["budget_s"] for r in cpsat})
    count = len({r["name"] for r in ours})
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    load_avg = " ".join(open("/proc/loadavg").read().split()[:3])
    out = []
    w = out.append
    w("<!-- PACKING:START -->")
    w(f"## Tight packings: resource-pool and OR-Tools CP-SAT on the same {count} instances")
    w("")
    w(f"Measured by `scripts/bench` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; machine: "
      f"{os.cpu_count()} cores, {cpu}, shared with other builds (noisy); load average at the end "
      f"{load_avg}; ortools {ortools}.")
    w("")
    w(f"The instances (`resource-pool-benches/benches/common/tight.rs`, seed `{seed}`): 8 to 24 idle "
      "nodes of 8 GPUs and 24 to 48 CPUs; pools of 1 to 6 node-slots of 1 to 8 GPUs at "
      "`max_colocate_count` 1 to 5 (a slot of g GPUs asks g × that many CPUs) until 90 to 100% of "
      "the GPUs are asked. Ours: `check_placement` in process, the time budget only (steps "
      "unlimited, idle check off), every `feasible` replayed through `Witness::validate`. CP-SAT "
      "(`benches/packing_cpsat.py`): one worker, the same time limit, the plain assignment model "
      "(a Boolean per slot and node that fits it alone, each slot on exactly one node, per node "
      "and resource the slots' sum at most the capacity); its placements checked too; its time is "
      "the solve alone (building the model is left out).")
    w("")
    w("| budget | solver | decided | feasible | infeasible | undecided | decided ones: total | median | slowest |")
    w("|---|---|---|---|---|---|---|---|---|")
    bad = []
    summary = {}
    for b in budgets:
        by_name = {}
        for solver, rows in (("resource-pool", ours), ("CP-SAT", cpsat)):
            rows = [r for r in rows if r["budget_s"] == b]
            by_name[solver] = {r["name"]: r["verdict"] for r in rows}
            done = [r for r in rows if r["verdict"] != "undecided"]
            times = [r["seconds"] for r in done]
            kinds = {v: sum(r["verdict"] == v for r in rows) for v in ("feasible", "infeasible", "undecided")}
            w(f"| {b:g} s | {solver} | **{len(done)} of {len(rows)}** | {kinds['feasible']} | "
              f"{kinds['infeasible']} | {kinds['undecided']} | "
              f"{fmt(sum(times)) if times else '—'} | {fmt(statistics.median(times)) if times else '—'} | "
              f"{fmt(max(times)) if times else '—'} |")
        a, c = by_name["resource-pool"], by_name["CP-SAT"]
        both = [n for n in a if n in c and "undecided" not in (a[n], c[n])]
        differ = [f"{n} at {b:g} s: ours {a[n]}, CP-SAT {c[n]}" for n in both if a[n] != c[n]]
        bad += differ

        def left(d):
            return ", ".join(sorted(n for n, v in d.items() if v == "undecided")) or "none"

        summary[b] = (len(both) - len(differ), len(both), left(a), left(c))
    w("")
    for b in budgets:
        agree, both, ours_left, cp_left = summary[b]
        w(f"At {b:g} s: both decided {both} instances and agree on {agree} of them; undecided by "
          f"resource-pool: {ours_left}; by CP-SAT: {cp_left}.")
    w("<!-- PACKING:END -->")
    print("\n".join(out))
    if bad:
        print("DISAGREEMENT: " + "; ".join(bad), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
