"""The checks of tests/guard/run.sh (see there).

    check.py main --release V --status N --seconds S --stderr FILE --seen FILE --probe FILE
    check.py wait --release V --status N --seconds S --stderr FILE --seen FILE --wait SECONDS
    check.py harness --release V --guarded FILE --plain FILE
"""

import argparse
import json
import sys

# The guard stops a hang before it creates the pool's groups: well inside this.
STOP_WITHIN_S = 120.0
GUARD_EXIT = 3


def fail(message):
    print("FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def check_main(args):
    err = open(args.stderr, encoding="utf-8", errors="replace").read()
    if args.status != GUARD_EXIT:
        fail("verl %s: exit %s, not the guard's %s; stderr ends:\n%s" % (args.release, args.status, GUARD_EXIT, err[-3000:]))
    if "stopped the run" not in err or "global_pool" not in err:
        fail("verl %s: the guard's report does not name global_pool:\n%s" % (args.release, err[-3000:]))
    if float(args.seconds) > STOP_WITHIN_S:
        fail("verl %s: stopped after %ss" % (args.release, args.seconds))
    seen = [json.loads(line) for line in open(args.seen) if line.strip()]
    launches = [s for s in seen if s.get("event") == "launch"]
    if not launches:
        fail("verl %s: the guard logged no launch" % args.release)
    probe = json.load(open(args.probe))
    probed = {p["name"]: p["process_on_nodes"] for p in probe.get("pools") or []}
    guarded = launches[0]["spec"]
    if probed != guarded:
        fail("verl %s: --python built %s, the guard saw %s" % (args.release, probed, guarded))
    roles = {r for r in probe.get("mapping") or {}}
    seen_roles = {r["role"] for r in launches[0]["roles"]}
    print(
        "ok: verl %s stopped by the guard in %ss (exit 3, global_pool named); --python and the guard agree: %s; roles %s / %s"
        % (args.release, args.seconds, guarded, sorted(roles), sorted(seen_roles))
    )


def check_wait(args):
    """A pool that waits on what another job holds: the guard says so, waits, and stops once
    --wait runs out (not before)."""
    err = open(args.stderr, encoding="utf-8", errors="replace").read()
    if args.status != GUARD_EXIT:
        fail("verl %s: exit %s while another job held the GPUs, not the guard's %s; stderr ends:\n%s" % (args.release, args.status, GUARD_EXIT, err[-3000:]))
    for said in ("waits for resources that other jobs hold", "--wait ran out", "global_pool"):
        if said not in err:
            fail("verl %s: the guard did not say %r:\n%s" % (args.release, said, err[-3000:]))
    # The worker's own words reach the driver through Ray's log monitor, which the test
    # cluster runs without; its log says what it saw each time it looked.
    seen = [json.loads(line) for line in open(args.seen) if line.strip()]
    looks = [s for s in seen if s.get("event") == "pool" and s.get("verdict") == "note"]
    if len(looks) < 2:
        fail("verl %s: the guard looked at the cluster %d times while it waited: %s" % (args.release, len(looks), seen))
    if float(args.seconds) < float(args.wait):
        fail("verl %s: stopped after %ss, before --wait %ss ran out" % (args.release, args.seconds, args.wait))
    print("ok: verl %s waited on another job's GPUs and stopped when --wait %ss ran out (%ss)" % (args.release, args.wait, args.seconds))


def check_harness(args):
    guarded = {c["id"]: c for c in json.load(open(args.guarded))["cases"]}
    plain = {c["id"]: c for c in json.load(open(args.plain))["cases"]}
    problems = []
    for case_id, before in plain.items():
        after = guarded.get(case_id)
        if after is None:
            problems.append("%s: missing under the guard" % case_id)
            continue
        if before["outcome"] == "hangs":
            pool = (before.get("pending") or {}).get("pool")
            message = after.get("message") or ""
            if not (after["outcome"] == "error" and message.startswith("GuardStop") and pool and pool in message):
                problems.append("%s: verl hangs on %s; under the guard: %s %s" % (case_id, pool, after["outcome"], message[:300]))
        elif before["outcome"] != after["outcome"]:
            problems.append(
                "%s: %s without the guard, %s with it (%s)" % (case_id, before["outcome"], after["outcome"], (after.get("message") or "")[:300])
            )
    if problems:
        fail("verl %s:\n  " % args.release + "\n  ".join(problems))
    counts = {}
    for c in plain.values():
        counts[c["outcome"]] = counts.get(c["outcome"], 0) + 1
    print("ok: verl %s, %d cases under the guard as without it, hangs stopped (%s)" % (args.release, len(plain), counts))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("what", choices=["main", "wait", "harness"])
    parser.add_argument("--release")
    parser.add_argument("--status", type=int)
    parser.add_argument("--seconds")
    parser.add_argument("--stderr")
    parser.add_argument("--seen")
    parser.add_argument("--probe")
    parser.add_argument("--wait")
    parser.add_argument("--guarded")
    parser.add_argument("--plain")
    args = parser.parse_args()
    {"main": check_main, "wait": check_wait, "harness": check_harness}[args.what](args)


if __name__ == "__main__":
    main()
