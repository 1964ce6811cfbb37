#!/usr/bin/env python3
"""Generates cases for the harness (tests/verl/run_verl.py), seeded and deterministic: the same
seed, shapes and counts give the same files, byte for byte.

    generate.py [--seed N] [--layouts N] [--launches N] [--sample N] --out DIR [SHAPE...]

writes DIR/SHAPE.json for every shape of tests/verl/shapes.json (or those named): `--layouts`
random layouts and `--launches` random launch lines per shape, interleaved (two layouts, then
a launch, ...). With `--sample N`, only the first N cases of each shape's list (the same list,
so a sample is always a prefix of the full set with the same seed).

What varies (tests/verl/README.md, "Generated cases"):

  layout  1-4 pools in a random order, 1-3 node-slots each of the sizes that matter on the
          shape (powers of two up to the largest node, and every node's own count), now and
          then of uneven sizes; roles actor_rollout (always) and each of critic / ref / rm /
          teacher now and then, on a pool of their own or sharing one; now and then a pool no
          role maps to; now and then max_colocate_count 1-5; now and then a hold (some
          accelerators and/or CPUs of one node held: a busy cluster).
  launch  trainer.nnodes / trainer.n_gpus_per_node (or their defaults); now and then a reward
          model pool written as reward_model.* (verl <= 0.6), reward.reward_model.* (0.7+) or
          both; now and then a teacher pool (distillation.*, 0.8+); on Ascend, now and then
          trainer.device=npu. Keys a release does not have are written "?key=value": the
          harness drops them for that release (and records it), and so does compare.py.

The platform is realistic: `npu_platform` (the stand-in torch_npu) exactly when the shape's
nodes declare NPUs and no GPU. Pools that host the reward model or the teacher have an even
world size of equal node-slots (verl splits them by the rollout's tensor-parallel size, 2 by
default, and the teacher's by its pool size: an odd one is an AssertionError of verl's, not a
placement question).
"""

import argparse
import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
POOL_OF_ROLE = {
    "actor_rollout": "global_pool",
    "critic": "critic_pool",
    "ref": "ref_pool",
    "rm": "reward_pool",
    "teacher": "teacher_pool",
}
EXTRA_ROLES = ["critic", "ref", "rm", "teacher"]


class Shape:
    def __init__(self, name, doc):
        self.name = name
        self.nodes = doc["nodes"]
        npus = [int((n.get("resources") or {}).get("NPU", 0)) for n in self.nodes]
        gpus = [int(n.get("num_gpus", 0)) for n in self.nodes]
        self.npu = any(npus) and not any(gpus)
        self.accel = "NPU" if self.npu else "GPU"
        self.counts = npus if self.npu else gpus
        self.cpus = [int(n.get("num_cpus", 1)) for n in self.nodes]
        self.capacity = sum(self.counts)
        biggest = max(self.counts)
        sizes = {s for s in (1, 2, 4, 8, 16) if s <= biggest} | {c for c in self.counts if c > 0}
        self.sizes = sorted(sizes)

    def size(self, rng, even=False):
        sizes = [s for s in self.sizes if not even or s % 2 == 0]
        # The larger sizes are where pools contend for nodes: weigh them up.
        weights = [1 + min(s, 8) // 2 for s in sizes]
        return rng.choices(sizes, weights=weights)[0]

    def hold(self, rng):
        """Some accelerators and/or CPUs of one node (that has them) held."""
        candidates = [i for i, n in enumerate(self.nodes) if self.counts[i] > 0 or self.cpus[i] > 1]
        i = rng.choice(candidates)
        res = {}
        if self.counts[i] > 0 and rng.random() < 0.6:
            res[self.accel] = rng.randint(1, self.counts[i])
        if self.cpus[i] > 1 and (not res or rng.random() < 0.6):
            res["CPU"] = rng.randint(1, self.cpus[i] - 1)
        if not res:
            res[self.accel] = 1
        return [{"node_ip": self.nodes[i]["ip"], "resources": res}]


def layout_case(rng, shape, n):
    for _attempt in range(20):
        # The teacher less often: it exists from verl 0.8 on (earlier releases cannot map it).
        extras = [r for r in EXTRA_ROLES if rng.random() < (0.15 if r == "teacher" else 0.35)]
        roles = ["actor_rollout"] + extras
        spare = rng.random() < 0.2
        n_role_pools = rng.randint(1, min(len(roles), 4 - int(spare)))
        rng.shuffle(roles)
        groups = [[r] for r in roles[:n_role_pools]]  # one pool each
        for r in roles[n_role_pools:]:
            rng.choice(groups).append(r)
        # A pool is named after the first of its roles in verl's order (the actor's: global_pool).
        order_of = ["actor_rollout"] + EXTRA_ROLES
        pool_roles = {}
        for g in groups:
            g.sort(key=order_of.index)
            pool_roles[POOL_OF_ROLE[g[0]]] = g
        if spare:
            pool_roles["spare_pool"] = []
        order = list(pool_roles)
        rng.shuffle(order)
        spec = {}
        for pool in order:
            hosted = pool_roles[pool]
            slots = rng.choices([1, 2, 3], weights=[5, 3, 1])[0]
            if "rm" in hosted or "teacher" in hosted:
                spec[pool] = [shape.size(rng, even=True)] * slots
            elif slots > 1 and rng.random() < 0.15:
                spec[pool] = [shape.size(rng) for _ in range(slots)]
            else:
                spec[pool] = [shape.size(rng)] * slots
        asked = sum(sum(v) for v in spec.values())
        # Mostly layouts verl's sum check lets through; some over it.
        if asked <= shape.capacity or rng.random() < 0.25:
            break
    mapping = {r: p for p, rs in pool_roles.items() for r in rs}
    mapping = {r: mapping[r] for r in ["actor_rollout"] + EXTRA_ROLES if r in mapping}
    mcc = rng.randint(1, 5) if rng.random() < 0.35 else None
    hold = shape.hold(rng) if rng.random() < 0.3 else []
    device = "npu" if shape.npu else "cuda"
    if shape.npu and rng.random() < 0.15:
        device = "cuda"  # trainer.device=cuda on an Ascend machine: a mistake people make
    parts = ["+".join(f"{p.split('_')[0]}{v}" for p, v in spec.items()).replace(" ", "")]
    if mcc is not None:
        parts.append(f"mcc{mcc}")
    if hold:
        parts.append("hold")
    return {
        "id": f"g{n:03d}_layout_" + "_".join(parts).replace("[", "").replace("]", "").replace(",", "-"),
        "kind": "layout",
        "spec": spec,
        "mapping": mapping,
        "max_colocate_count": mcc,
        "device": device,
        "hold": hold,
        "npu_platform": shape.npu,
        "generated": True,
    }


def launch_case(rng, shape, n):
    overrides = []
    tags = []
    rm = rng.random() < 0.4
    nnodes = rng.choices([1, 2, 3], weights=[4, 4, 1])[0]
    gpus = shape.size(rng, even=rm)
    if rng.random() < 0.8 or nnodes != 1:
        overrides.append(f"trainer.nnodes={nnodes}")
        tags.append(f"n{nnodes}")
    if rng.random() < 0.8 or gpus != 8:
        overrides.append(f"trainer.n_gpus_per_node={gpus}")
        tags.append(f"g{gpus}")
    if rm:
        spelling = rng.choice(["reward_model", "reward.reward_model", "both"])
        prefixes = ["reward_model", "reward.reward_model"] if spelling == "both" else [spelling]
        own_pool = rng.random() < 0.7
        rm_gpus, rm_nodes = shape.size(rng, even=True), rng.choices([1, 2], weights=[3, 1])[0]
        for prefix in prefixes:
            overrides.append(f"?{prefix}.enable=True")
            if own_pool:
                overrides += [
                    f"?{prefix}.enable_resource_pool=True",
                    f"?{prefix}.n_gpus_per_node={rm_gpus}",
                    f"?{prefix}.nnodes={rm_nodes}",
                ]
        tags.append(("rmpool" if own_pool else "rm") + {"reward_model": "Old", "reward.reward_model": "New", "both": "Both"}[spelling])
    if rng.random() < 0.3:
        t_gpus, t_nodes = shape.size(rng, even=True), rng.choices([1, 2], weights=[3, 1])[0]
        overrides += ["?distillation.enabled=True", f"?distillation.nnodes={t_nodes}", f"?distillation.n_gpus_per_node={t_gpus}"]
        tags.append("teacher")
    if shape.npu and rng.random() < 0.5:
        overrides.append("trainer.device=npu")
        tags.append("npu")
    hold = shape.hold(rng) if rng.random() < 0.25 else []
    if hold:
        tags.append("hold")
    return {
        "id": f"g{n:03d}_launch_" + ("_".join(tags) or "default"),
        "kind": "launch",
        "overrides": overrides,
        "hold": hold,
        "npu_platform": shape.npu,
        "generated": True,
    }


def cases_for(shape, seed, layouts, launches):
    rng = random.Random(f"{seed}:{shape.name}")
    out = []
    kinds = []
    # Interleaved, so that any prefix has both kinds: L L R L L R ...
    li = ri = 0
    while li < layouts or ri < launches:
        if li < layouts and (ri >= launches or len(kinds) % 3 != 2):
            kinds.append("layout")
            li += 1
        else:
            kinds.append("launch")
            ri += 1
    for n, kind in enumerate(kinds):
        out.append(layout_case(rng, shape, n) if kind == "layout" else launch_case(rng, shape, n))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=20261207)
    parser.add_argument("--layouts", type=int, default=20)
    parser.add_argument("--launches", type=int, default=10)
    parser.add_argument("--sample", type=int, default=None, help="only the first N cases of each shape")
    parser.add_argument("--shapes-file", default=str(HERE / "shapes.json"))
    parser.add_argument("--out", required=True)
    parser.add_argument("shapes", nargs="*")
    args = parser.parse_args()
    shapes = json.loads(Path(args.shapes_file).read_text())
    names = args.shapes or list(shapes)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name in names:
        if name not in shapes:
            raise SystemExit(f"no shape {name!r} in {args.shapes_file}")
        cases = cases_for(Shape(name, shapes[name]), args.seed, args.layouts, args.launches)
        if args.sample is not None:
            cases = cases[: args.sample]
        text = "[\n" + ",\n".join(" " + json.dumps(c) for c in cases) + "\n]\n"
        (out / f"{name}.json").write_text(text)
        print(f"{name}: {len(cases)} cases -> {out / (name + '.json')}")


if __name__ == "__main__":
    main()
