#!/usr/bin/env python3
"""OR-Tools CP-SAT on the tight packings that `cargo bench --bench packing` writes.

    packing_cpsat.py INSTANCES.json --budgets 1,10 [--results FILE]

The plain assignment model, the same for both resources: a Boolean x[s, n] per slot and
node that fits it alone, each slot on exactly one node, and per node and resource the
slots' demands at most its capacity. One worker, the time limit per instance, nothing
else tuned. A FEASIBLE answer is checked against the instance here (a wrong one fails the
run); INFEASIBLE counts as a proof, UNKNOWN as undecided.

Each result line is JSON: {"name", "budget_s", "verdict", "seconds", "status"}, where
`seconds` is the solver's own wall time (the model is built outside it).
"""

import argparse
import json
import sys
import time

from ortools.sat.python import cp_model


def solve(inst, budget):
    nodes, slots = inst["nodes"], inst["slots"]
    model = cp_model.CpModel()
    x = {}
    for s, (sg, sc) in enumerate(slots):
        for n, (ng, nc) in enumerate(nodes):
            if sg <= ng and sc <= nc:
                x[s, n] = model.new_bool_var(f"x{s}_{n}")
        model.add_exactly_one([x[s, n] for n in range(len(nodes)) if (s, n) in x])
    for n, cap in enumerate(nodes):
        for r in range(2):
            terms = [(x[s, n], slots[s][r]) for s in range(len(slots)) if (s, n) in x]
            if terms:
                model.add(sum(v * d for v, d in terms) <= cap[r])
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = budget
    start = time.perf_counter()
    status = solver.solve(model)
    seconds = time.perf_counter() - start
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        used = [[0, 0] for _ in nodes]
        for (s, n), v in x.items():
            if solver.value(v):
                for r in range(2):
                    used[n][r] += slots[s][r]
        placed = sum(solver.value(v) for v in x.values())
        if placed != len(slots) or any(u[r] > nodes[n][r] for n, u in enumerate(used) for r in range(2)):
            raise SystemExit(f"{inst['name']}: CP-SAT's placement does not check")
        verdict = "feasible"
    elif status == cp_model.INFEASIBLE:
        verdict = "infeasible"
    else:
        verdict = "undecided"
    return verdict, seconds, solver.status_name(status)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("instances")
    p.add_argument("--budgets", default="1,10")
    p.add_argument("--results")
    a = p.parse_args()
    instances = json.load(open(a.instances))
    out = []
    for budget in [float(b) for b in a.budgets.split(",")]:
        decided, total = 0, 0.0
        for inst in instances:
            verdict, seconds, status = solve(inst, budget)
            if verdict != "undecided":
                decided += 1
                total += seconds
            print(f"[cpsat/{inst['name']}] budget={budget:g} nodes={len(inst['nodes'])} "
                  f"slots={len(inst['slots'])} verdict={verdict} status={status} seconds={seconds:.4f}",
                  flush=True)
            out.append(json.dumps({"name": inst["name"], "budget_s": budget, "verdict": verdict,
                                   "seconds": round(seconds, 6), "status": status}))
        print(f"[cpsat] budget={budget:g} decided={decided} of {len(instances)} "
              f"(decided ones took {total:.3f} s in all)", flush=True)
    if a.results:
        open(a.results, "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    sys.exit(main())
