#!/usr/bin/env python3
"""Prints the outcomes of target/verl-results as a Markdown table, one row per case and one
column per release: placed / hangs(pool#group STATE) / refused / error.

    summarize.py [RESULTS_DIR] [SHAPE...]
"""
import json
import sys
from pathlib import Path

out = Path(sys.argv[1] if len(sys.argv) > 1 else "target/verl-results")
shapes = sys.argv[2:] or sorted(p.name for p in out.iterdir() if p.is_dir())
releases = ["0.5.0", "0.6.1", "0.7.1", "0.8.0", "0.9.1"]


def cell(c):
    o = c["outcome"]
    if o == "hangs":
        p = c.get("pending") or {}
        g = "" if p.get("group") is None else f"#{p['group']}"
        return f"hangs {p.get('pool')}{g} {p.get('state')}"
    if o == "placed":
        where = ";".join(f"{k}@{','.join((ip or '?').split('.')[-1] for ip in v)}" for k, v in (c.get("placements") or {}).items())
        return f"placed {where}" if where else "placed"
    if o == "refused":
        return "refused"
    return "error: " + (c.get("message") or "")[:60].replace("|", "/").replace("\n", " ")


timings = {}
if (out / "timings.json").exists():
    timings = json.loads((out / "timings.json").read_text())
for shape in shapes:
    docs = {}
    for v in releases:
        f = out / shape / f"{v}.json"
        if f.exists():
            docs[v] = json.loads(f.read_text())
    if not docs:
        continue
    cols = [v for v in releases if v in docs]
    print(f"\n### {shape}\n")
    print("| case | " + " | ".join(cols) + " |")
    print("|---|" + "---|" * len(cols))
    ids = [c["id"] for c in next(iter(docs.values()))["cases"]]
    for cid in ids:
        row = []
        for v in cols:
            c = next((x for x in docs[v]["cases"] if x["id"] == cid), None)
            row.append(cell(c) if c else "")
        print(f"| {cid} | " + " | ".join(row) + " |")
    t = timings.get("shapes", {}).get(shape, {})
    line = ", ".join(
        f"{v}: {t.get('releases', {}).get(v, '?')} s (start-up {docs[v].get('startup_s')} s"
        + (f", npu process {docs[v].get('npu_process_s')} s" if docs[v].get("npu_process_s") else "")
        + f", cases {sum(c.get('seconds') or 0 for c in docs[v]['cases']):.1f} s)"
        for v in cols
    )
    print(f"\ncluster up {t.get('cluster_up_s', '?')} s, down {t.get('cluster_down_s', '?')} s; per release: {line}")
