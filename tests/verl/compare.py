#!/usr/bin/env python3
"""Holds our tool's verdicts to what verl's own code did (tests/verl/README.md, "Comparing").

    compare.py [--results DIR] [--bin PATH] [--json OUT] [--quiet] [SHAPE...]

For every shape in the results directory (target/verl-results: SHAPE/inventory.json, the idle
cluster as `resource-pool inventory --ray` read it; SHAPE/cases.json, the cases run;
SHAPE/VERSION.json, what each release did) and every case result:

  * the cluster: the idle inventory minus the case's holds (taken off `available` of the node
    at the hold's address; `total` kept), written as a cluster file;
  * a "layout" case: a config of the case's pools in order (`process_on_nodes`,
    `max_colocate_count` only when the case gave one, `accelerator = "NPU"` when the case's
    `trainer.device` is npu) and its mapping, run as
    `resource-pool check CONFIG --cluster CLUSTER --verl-version V --format json`;
  * a "launch" case: the same overrides (less those the harness dropped for this release: the
    "?key=value" ones whose key the release's config does not have) to
    `resource-pool verl --verl-version V --cluster CLUSTER --format json -- OVERRIDES`.

Matches (verl's outcome <-> ours):

  refused                          refused; or a `verl::pre_check_order` warning (0.5.0's greedy
                                   check refuses in some orders of the nodes), whatever Ray does
  error IndexError (0.5/0.6)       stops, at the pool verl stopped at (the first pool of the
                                   spec that got no groups)
  hangs on pool P, group g, S      hangs or depends_on_ties, the first pending group P[g] in S
  hangs on <TaskRunner>, <TransferQueueController>, <TransferQueueStorageUnit#k>
                                   driver_waits, for the same holder (and unit)
  placed                           places (depends_on_ties too: verl took a branch that places;
                                   shown as "ties")

Reported, not failed: whether the nodes of the placed groups agree (Ray breaks ties between
equally scored nodes in no fixed order), and whether the pools that got groups agree.

Left out, by rule (not counted): cases whose platform does not fit our model (our tool assumes
the machines run verl with torch_npu exactly when the cluster's nodes declare NPUs and no
GPU: the NPU stand-in on a cluster with GPUs, or NPU nodes without it); a role the release
does not have (the teacher before 0.8: verl's Role has no TeacherModel, nobody can write it);
what the harness does not model (it says so). A hold the harness could not place is an
invalid case (shown, not counted).

Exit status: 0 when every compared case agrees, 1 on any disagreement, 2 on missing inputs.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RELEASES = ["0.5.0", "0.6.1", "0.7.1", "0.8.0", "0.9.1"]
SIDE = {
    "<TaskRunner>": "task_runner",
    "<TransferQueueController>": "transfer_queue_controller",
}


# ---- inputs of ours ----------------------------------------------------------------------------
def cluster_for(inventory, holds):
    """The idle inventory less the case's holds (available only; totals kept)."""
    nodes = json.loads(json.dumps(inventory["nodes"]))
    for hold in holds or []:
        node = next((n for n in nodes if n.get("address") == hold["node_ip"]), None)
        if node is None:
            raise ValueError(f"hold on {hold['node_ip']}: no such node in the inventory")
        for res, amount in hold["resources"].items():
            left = float(node["available"].get(res, 0)) - float(amount)
            node["available"][res] = max(0, int(left) if left == int(left) else left)
    return {"nodes": nodes}


def toml_str(s):
    return json.dumps(s)  # a JSON string is a TOML basic string for these names


def config_for(case):
    lines = []
    for pool, slots in case["spec"].items():
        lines.append(f"[pools.{toml_str(pool)}]")
        lines.append(f"process_on_nodes = [{', '.join(str(int(n)) for n in slots)}]")
        if case.get("max_colocate_count") is not None:
            lines.append(f"max_colocate_count = {int(case['max_colocate_count'])}")
        if (case.get("device") or "cuda") == "npu":
            lines.append('accelerator = "NPU"')
        lines.append("")
    lines.append("[mapping]")
    for role, pool in case["mapping"].items():
        lines.append(f"{role} = {toml_str(pool)}")
    return "\n".join(lines) + "\n"


def overrides_for(case, result):
    dropped = set(result.get("dropped_overrides") or [])
    out = []
    for o in case.get("overrides") or []:
        if o.startswith("?"):
            if o[1:] in dropped:
                continue
            o = o[1:]
        out.append(o)
    return out


PENDING_LINE = re.compile(r"PENDING (\S+)\[(\d+)\].*?\b(NO_RESOURCES|INFEASIBLE)\b")


def pending_from_human(argv):
    """The first `PENDING pool[slot] ... STATE` line of the same command's human output. Our
    JSON names the pending group only in `ray::hangs` / `ray::depends_on_ties` /
    `verl::ray_hangs`, which are not given when no placement exists at all (the placement
    diagnostics are, and `ray` says hangs); the picture for people names it."""
    human = [a for a in argv if a not in ("--format", "json")]
    i = human.index("--") if "--" in human else len(human)
    human[i:i] = ["--color", "never"]
    env = dict(os.environ, NO_COLOR="1")
    env.pop("RESOURCE_POOL_CLUSTER", None)
    env.pop("RAY_ADDRESS", None)
    proc = subprocess.run(human, capture_output=True, text=True, env=env)
    m = PENDING_LINE.search(proc.stdout)
    if not m:
        return None
    return {"pool": m.group(1), "slot": int(m.group(2)), "state": m.group(3)}


def run_ours(binary, case, result, cluster_path, config_path, release):
    if case.get("kind", "layout") == "layout":
        argv = [binary, "check", str(config_path), "--cluster", str(cluster_path), "--verl-version", release, "--format", "json"]
    else:
        argv = [binary, "verl", "--verl-version", release, "--cluster", str(cluster_path), "--format", "json", "--"]
        argv += overrides_for(case, result)
    env = dict(os.environ, NO_COLOR="1")
    env.pop("RESOURCE_POOL_CLUSTER", None)
    env.pop("RAY_ADDRESS", None)
    proc = subprocess.run(argv, capture_output=True, text=True, env=env)
    if proc.returncode not in (0, 1):
        return argv, None, f"exit {proc.returncode}: {proc.stderr.strip()[-600:]}"
    try:
        return argv, json.loads(proc.stdout), None
    except json.JSONDecodeError as error:
        return argv, None, f"not JSON ({error}): {proc.stdout[:300]}"


# ---- reading ours ------------------------------------------------------------------------------
def diags(out, code):
    return [d for d in out.get("diagnostics") or [] if d.get("code") == code]


def first_pends(steps):
    for step in steps or []:
        if step.get("kind") == "pends":
            g = step.get("group") or {}
            return {"pool": g.get("pool"), "slot": g.get("slot"), "state": step.get("state")}
    return None


def ours_of(out):
    """Our verdict: outcome, where verl stops, the first pending group, the holder that pends,
    the 0.5.0 order warning, placements, pools with groups. `verl.outcome` when the output has
    it; else the same from the diagnostics (LaunchCheck::outcome's rule: verl's pre-check, a
    holder that pends, a pool that stops verl, then Ray's verdict)."""
    verl = out.get("verl") if isinstance(out.get("verl"), dict) else None
    derived = verl is None or "outcome" not in verl
    if not derived:
        outcome = verl["outcome"]
        stops_at = verl.get("stops_at")
    elif diags(out, "resource_pool::verl::pre_check"):
        outcome, stops_at = "refused", None
    elif diags(out, "resource_pool::verl::driver_pends"):
        outcome, stops_at = "driver_waits", None
    elif diags(out, "resource_pool::verl::driver_fails"):
        outcome, stops_at = "driver_fails", None
    elif diags(out, "resource_pool::verl::stops_at_pool"):
        outcome, stops_at = "stops", diags(out, "resource_pool::verl::stops_at_pool")[0]["data"].get("pool")
    else:
        outcome, stops_at = out.get("ray") or "undecided", None
    pending = None
    for d in diags(out, "resource_pool::ray::hangs"):
        data = d.get("data") or {}
        pending = first_pends((data.get("order") or {}).get("steps")) or {"pool": data.get("pool"), "slot": data.get("slot"), "state": data.get("state")}
        break
    if pending is None:
        for d in diags(out, "resource_pool::ray::depends_on_ties"):
            pending = first_pends(((d.get("data") or {}).get("hanging") or {}).get("steps"))
            break
    if pending is None:
        for d in diags(out, "resource_pool::verl::ray_hangs"):
            data = d.get("data") or {}
            pending = {"pool": data.get("pool"), "slot": data.get("slot"), "state": data.get("state")}
            break
    pends_by = [(d.get("data") or {}) for d in diags(out, "resource_pool::verl::driver_pends")]
    fails_by = [(d.get("data") or {}) for d in diags(out, "resource_pool::verl::driver_fails")]
    creation = None
    if verl is not None and verl.get("creation") is not None:
        creation = [p for stage in verl["creation"] for p in stage]
    return {
        "outcome": outcome,
        "derived": derived,
        "stops_at": stops_at,
        "pending": pending,
        "pends_by": pends_by[0] if pends_by else None,
        "fails_by": fails_by[0] if fails_by else None,
        "order_warning": bool(diags(out, "resource_pool::verl::pre_check_order")),
        "ray_placement": out.get("ray_placement") or [],
        "creation": creation,
        "codes": [d.get("code") for d in out.get("diagnostics") or []],
    }


# ---- the rules -----------------------------------------------------------------------------------
def cluster_is_ascend(inventory):
    total = lambda n, r: float((n.get("total") or n.get("available") or {}).get(r, 0))
    nodes = [n for n in inventory["nodes"] if n.get("alive", True)]
    return any(total(n, "NPU") > 0 for n in nodes) and not any(total(n, "GPU") > 0 for n in nodes)


def exclusion(case, result, inventory):
    ascend = cluster_is_ascend(inventory)
    stub = bool(case.get("npu_platform"))
    if stub and not ascend:
        return "platform: the NPU stand-in (torch_npu) on a cluster with GPUs; our tool runs verl with torch_npu only where the nodes declare NPUs and no GPU"
    if ascend and not stub:
        return "platform: NPU nodes (no GPU) but verl without torch_npu; our tool assumes torch_npu on Ascend nodes"
    msg = result.get("message") or ""
    if result.get("outcome") == "error" and "is not in this release's Role enum" in msg:
        m = re.search(r"role '([^']+)'", msg)
        role = m.group(1) if m else "?"
        return f"role: `{role}` does not exist in verl {result.get('release')} (its Role enum has no such member): nobody can map it"
    if result.get("outcome") == "error" and msg.startswith("not modelled by this harness"):
        return "harness: " + msg
    return None


def invalid(result):
    p = result.get("pending") or {}
    if result.get("outcome") == "hangs" and str(p.get("pool", "")).startswith("<hold#"):
        return f"the case's own hold could not be placed ({p.get('state')})"
    if result.get("outcome") == "error" and (result.get("message") or "").startswith("cluster not idle"):
        return result["message"]
    return None


def verl_stop_pool(result):
    """Where 0.5.0/0.6.1's init_workers fails: the first pool, in resource_pool_dict (the
    spec's) order, that got no groups: its worker group is created from no class."""
    created = set(result.get("created") or [])
    for pool in (result.get("spec") or {}):
        if pool not in created:
            return pool
    return None


def verl_text(result):
    o = result["outcome"]
    if o == "hangs":
        p = result.get("pending") or {}
        g = "" if p.get("group") is None else f"[{p['group']}]"
        return f"hangs {p.get('pool')}{g} {p.get('state')}"
    if o == "error":
        return f"error {(result.get('message') or '')[:90]} ({result.get('where')})"
    return o


def ours_text(ours):
    o = ours["outcome"]
    if o in ("hangs", "depends_on_ties"):
        p = ours["pending"]
        if not p:
            return f"{o} (no pending group named)"
        return f"{o} {p['pool']}[{p['slot']}] {p['state']}" + (" (from the human output)" if ours.get("pending_from") else "")
    if o == "stops":
        return f"stops at {ours['stops_at']}"
    if o == "driver_fails" and ours.get("fails_by"):
        return f"driver_fails ({json.dumps(ours['fails_by'].get('by'))} on {ours['fails_by'].get('node')})"
    if o == "driver_waits" and ours["pends_by"]:
        return f"driver_waits ({json.dumps(ours['pends_by'].get('by'))} on {ours['pends_by'].get('node')})"
    return o + (" (+pre_check_order)" if ours["order_warning"] else "")


def judge(result, ours):
    """(agrees, how): how is a short word for the table."""
    v = result["outcome"]
    o = ours["outcome"]
    if v == "refused":
        if o == "refused":
            return True, "ok"
        if ours["order_warning"]:
            return True, "ok(order)"
        return False, "DIS"
    if v == "placed":
        if o == "places":
            return True, "ok"
        if o == "depends_on_ties":
            return True, "ok(ties)"
        return False, "DIS"
    if v == "hangs":
        p = result.get("pending") or {}
        pool = str(p.get("pool"))
        if pool.startswith("<"):
            if o != "driver_waits" or not ours["pends_by"]:
                return False, "DIS"
            by = ours["pends_by"].get("by")
            if pool.startswith("<TransferQueueStorageUnit#"):
                unit = int(pool[len("<TransferQueueStorageUnit#") : -1])
                return (by == {"storage_unit": unit}), ("ok" if by == {"storage_unit": unit} else "DIS")
            return (by == SIDE.get(pool)), ("ok" if by == SIDE.get(pool) else "DIS")
        if o not in ("hangs", "depends_on_ties"):
            if ours["order_warning"] and result.get("release") == "0.5.0" and o == "refused":
                return False, "DIS"
            return False, "DIS"
        q = ours["pending"] or {}
        same = q.get("pool") == p.get("pool") and q.get("slot") == p.get("group") and q.get("state") == p.get("state")
        return same, ("ok" if same else "DIS") + ("(ties)" if same and o == "depends_on_ties" else "")
    if v == "error":
        msg = result.get("message") or ""
        # TransferQueue's ActorUnschedulableError: verl 0.9's start-up fails at once where a
        # storage unit is pinned to a node that can never fit it; ours names the same unit.
        if msg.startswith("ActorUnschedulableError"):
            units = [s["what"] for s in result.get("side") or [] if s.get("error") == "ActorUnschedulableError"]
            unit = int(units[0][len("TransferQueueStorageUnit#"):]) if units else None
            by = (ours.get("fails_by") or {}).get("by")
            same = o == "driver_fails" and unit is not None and by == {"storage_unit": unit}
            return same, "ok" if same else "DIS"
        if msg.startswith("IndexError"):
            stop = verl_stop_pool(result)
            same = o == "stops" and ours["stops_at"] == stop
            return same, "ok" if same else "DIS"
        return False, "DIS"
    return False, "DIS"


def placements_of_ours(ours, inventory):
    addr = {n["id"]: n.get("address") for n in inventory["nodes"]}
    out = {}
    for row in ours["ray_placement"]:
        out.setdefault(row["pool"], {})[row["slot"]] = addr.get(row["node"], row["node"])
    return out


def placement_note(result, ours, inventory):
    """Whether the groups verl placed went where ours did; whether the pools with groups agree."""
    notes = []
    mine = placements_of_ours(ours, inventory)
    theirs = {p: ips for p, ips in (result.get("placements") or {}).items()}
    differ = []
    for pool, ips in theirs.items():
        for slot, ip in enumerate(ips):
            if ip is None:
                continue
            m = mine.get(pool, {}).get(slot)
            if m != ip:
                differ.append(f"{pool}[{slot}] verl {ip} ours {m}")
    if differ:
        notes.append("nodes differ: " + "; ".join(differ))
    if result["outcome"] == "placed" and ours["outcome"] == "places":
        created = set(result.get("created") or [])
        placed = set(mine) if ours["creation"] is None else set(ours["creation"])
        if created != placed:
            notes.append(f"pools with groups differ: verl {sorted(created)} ours {sorted(placed)}")
    elif ours["creation"] is not None and result["outcome"] == "placed":
        pass
    return notes


# ---- main ------------------------------------------------------------------------------------------
def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", default=str(ROOT / "target" / "verl-results"))
    parser.add_argument("--bin", default=os.environ.get("RP_BIN", str(ROOT / "target" / "debug" / "resource-pool")))
    parser.add_argument("--json", default=None, help="write every comparison here (default RESULTS/compare.json)")
    parser.add_argument("--quiet", action="store_true", help="only the totals and the disagreements")
    parser.add_argument("shapes", nargs="*")
    args = parser.parse_args()

    results = Path(args.results)
    if not Path(args.bin).exists():
        print(f"compare.py: no binary {args.bin} (cargo build --locked)", file=sys.stderr)
        return 2
    shapes = args.shapes or sorted(p.name for p in results.iterdir() if p.is_dir() and (p / "cases.json").exists())
    if not shapes:
        print(f"compare.py: no results in {results} (tests/verl/run.sh)", file=sys.stderr)
        return 2
    work = results / "ours"
    rows = []
    missing = []
    derived_seen = False
    human_seen = []
    for shape in shapes:
        d = results / shape
        inv_path, cases_path = d / "inventory.json", d / "cases.json"
        if not inv_path.exists() or not cases_path.exists():
            missing.append(f"{shape}: {'inventory.json' if not inv_path.exists() else 'cases.json'} missing")
            continue
        inventory = json.loads(inv_path.read_text())
        cases = {c["id"]: c for c in json.loads(cases_path.read_text())}
        for release in RELEASES:
            f = d / f"{release}.json"
            if not f.exists():
                missing.append(f"{shape}: no {release}.json")
                continue
            doc = json.loads(f.read_text())
            for result in doc["cases"]:
                case = cases.get(result["id"])
                if case is None:
                    missing.append(f"{shape}/{release}: case {result['id']} not in cases.json")
                    continue
                result.setdefault("release", release)
                row = {"shape": shape, "release": release, "id": result["id"], "kind": case.get("kind", "layout"), "verl": verl_text(result)}
                rows.append(row)
                why = exclusion(case, result, inventory)
                if why:
                    row.update(status="excluded", why=why)
                    continue
                bad = invalid(result)
                if bad:
                    row.update(status="invalid", why=bad)
                    continue
                cdir = work / shape / result["id"]
                cdir.mkdir(parents=True, exist_ok=True)
                cluster_path = cdir / "cluster.json"
                cluster_path.write_text(json.dumps(cluster_for(inventory, case.get("hold"))) + "\n")
                config_path = cdir / "layout.toml"
                if row["kind"] == "layout":
                    config_path.write_text(config_for(case))
                argv, out, err = run_ours(args.bin, case, result, cluster_path, config_path, release)
                (cdir / f"{release}.json").write_text(json.dumps(out, indent=1) if out is not None else json.dumps({"error": err}))
                row["command"] = " ".join(a if a.replace("/", "").replace(".", "").replace("_", "").replace("-", "").replace("=", "").isalnum() else repr(a) for a in argv)
                if out is None:
                    row.update(status="disagree", how="DIS", ours=f"tool failed: {err}")
                    continue
                ours = ours_of(out)
                derived_seen |= ours["derived"]
                if ours["outcome"] in ("hangs", "depends_on_ties") and ours["pending"] is None:
                    ours["pending"] = pending_from_human(argv)
                    ours["pending_from"] = "human output"
                    human_seen.append(f"{shape}/{result['id']}@{release}")
                agrees, how = judge(result, ours)
                row.update(status="agree" if agrees else "disagree", how=how, ours=ours_text(ours), notes=placement_note(result, ours, inventory))
    # ---- the table ---------------------------------------------------------------------------
    out_lines = []
    for shape in shapes:
        srows = [r for r in rows if r["shape"] == shape]
        if not srows:
            continue
        ids = list(dict.fromkeys(r["id"] for r in srows))
        out_lines.append(f"\n### {shape}\n")
        out_lines.append("| case | " + " | ".join(RELEASES) + " |")
        out_lines.append("|---|" + "---|" * len(RELEASES))
        for cid in ids:
            cells = []
            for rel in RELEASES:
                r = next((x for x in srows if x["id"] == cid and x["release"] == rel), None)
                if r is None:
                    cells.append("")
                elif r["status"] in ("excluded", "invalid"):
                    cells.append(r["status"][:5] + ".")
                else:
                    cell = f"{r['how']} {r['verl']}"
                    if r.get("notes"):
                        cell += " †"
                    cells.append(cell.replace("|", "/"))
            out_lines.append(f"| {cid} | " + " | ".join(cells) + " |")
    compared = [r for r in rows if r["status"] in ("agree", "disagree")]
    agree = [r for r in compared if r["status"] == "agree"]
    disagree = [r for r in compared if r["status"] == "disagree"]
    excluded = [r for r in rows if r["status"] == "excluded"]
    invalids = [r for r in rows if r["status"] == "invalid"]
    noted = [r for r in compared if r.get("notes")]
    if not args.quiet:
        print("\n".join(out_lines))
        print("\n(cells: ok / ok(order) / ok(ties) / DIS, then what verl did; † = placement note below; exclu. = left out by rule; inval. = the case's hold could not be placed)")
    print("\n## Totals\n")
    for shape in shapes:
        c = [r for r in compared if r["shape"] == shape]
        a = [r for r in c if r["status"] == "agree"]
        e = [r for r in excluded if r["shape"] == shape]
        print(f"- {shape}: agree {len(a)} of {len(c)}" + (f" ({len(e)} excluded)" if e else ""))
    for rel in RELEASES:
        c = [r for r in compared if r["release"] == rel]
        a = [r for r in c if r["status"] == "agree"]
        print(f"- verl {rel}: agree {len(a)} of {len(c)}")
    print(f"\n**agree {len(agree)} of {len(compared)}** ({len(excluded)} excluded, {len(invalids)} invalid)")
    if derived_seen:
        print("\nnote: `check --format json` printed no `verl` object; the outcome of layout cases was derived from its diagnostics (verl::pre_check, verl::driver_pends, verl::stops_at_pool, then `ray`).")
    if human_seen:
        print(f"\nnote: for {len(human_seen)} results our JSON said `hangs` but named no pending group (no `ray::hangs` diagnostic: no placement exists); the pending group and state were read from the same command's human output (`PENDING pool[slot] ... STATE`): {', '.join(human_seen[:8])}{' ...' if len(human_seen) > 8 else ''}")
    if excluded:
        print("\n## Excluded (by rule)\n")
        reasons = {}
        for r in excluded:
            reasons.setdefault(r["why"], []).append(f"{r['shape']}/{r['id']}@{r['release']}")
        for why, which in reasons.items():
            print(f"- {why}: {len(which)}: {', '.join(which[:12])}{' ...' if len(which) > 12 else ''}")
    if invalids:
        print("\n## Invalid cases\n")
        for r in invalids:
            print(f"- {r['shape']}/{r['id']}@{r['release']}: {r['why']}")
    if noted and not args.quiet:
        print("\n## Placement notes (reported, not failed)\n")
        for r in noted:
            print(f"- {r['shape']}/{r['id']}@{r['release']}: " + "; ".join(r["notes"]))
    if disagree:
        print("\n## Disagreements\n")
        for r in disagree:
            print(f"- {r['shape']}/{r['id']}@{r['release']}: verl {r['verl']}; ours {r.get('ours')}\n    {r.get('command', '')}")
    if missing:
        print("\n## Missing\n")
        for m in missing:
            print(f"- {m}")
    Path(args.json or results / "compare.json").write_text(json.dumps(rows, indent=1) + "\n")
    if disagree:
        return 1
    if missing and not compared:
        return 2
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
