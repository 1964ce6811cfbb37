"""Random arguments for the module's functions, run by test_random_inputs.py in a process of
its own: ``python random_inputs.py SEED CALLS``.

Each call gets arguments drawn from SEED: the shapes the functions take (pools, mappings,
cluster dicts, verl configs and overrides, config TOML), bent at random into wrong types,
odd values, deep nesting and lists and dicts that hold themselves. A call may raise what
the docs say it raises (``TypeError``, ``ValueError`` and so ``rp.ArgumentError``,
``rp.ResourcePoolError``'s kinds, ``OSError``); anything else, a panic of the native code
(``pyo3_runtime.PanicException``, a ``BaseException``) or a crash of the process ends the
run with a non-zero status. Prints ``ok SEED`` at the end.

No cluster source comes from the environment: a cluster argument is always given.
"""

import enum
import random
import sys

import resource_pool as rp
import resource_pool.verl as rv


class Role(enum.Enum):
    """A stand-in for verl's ``Role``, with a name verl does not have."""

    ActorRollout = 1
    RefPolicy = 2
    Critic = 3
    Weird = 4


ATOMS = [
    None, True, False, 0, -1, 8, 2**63, -(2**63) - 1, 10**40, 1.5, -0.0,
    float("nan"), float("inf"), "", "GPU", "CPU", "NPU", "node-1", "global_pool",
    "actor_rollout", "\x00", "é", "${oc.env:X}", "1,2", "int(2)", "str(8)", "'8'", "[8, 8]",
]
KEYS = ["id", "available", "total", "alive", "labels", "address", "nodes", "GPU", "CPU", "x",
        "trainer", "nnodes", 1, None, Role.Critic, 2.5]


class Draw:
    def __init__(self, seed: int):
        self.r = random.Random(seed)

    def atom(self):
        return self.r.choice(ATOMS)

    def value(self, depth=0):
        """Any value: an atom, or a list, tuple or dict of values; now and then one nested
        thousands deep or holding itself."""
        roll = self.r.random()
        if roll < 0.01:
            deep = self.atom()
            for _ in range(self.r.choice([79, 80, 81, 300, 3000])):
                deep = self.r.choice([[deep], {"x": deep}])
            return deep
        if roll < 0.02:
            looped = self.r.choice([[], {}])
            if isinstance(looped, list):
                looped.append(looped)
            else:
                looped["x"] = looped
            return looped
        if depth > 3 or roll < 0.5:
            return self.atom()
        kind = self.r.randrange(3)
        if kind == 0:
            return [self.value(depth + 1) for _ in range(self.r.randrange(4))]
        if kind == 1:
            return tuple(self.value(depth + 1) for _ in range(self.r.randrange(3)))
        return {self.r.choice(KEYS): self.value(depth + 1) for _ in range(self.r.randrange(4))}

    def maybe(self, good):
        """`good`, or now and then any value in its place."""
        return self.value() if self.r.random() < 0.04 else good

    def node(self):
        good = {
            "id": "n%d" % self.r.randrange(4),
            "available": {"GPU": self.r.choice([0, 4, 8, 8, 8, 8, 8.5, 0.00001]),
                          "CPU": self.r.choice([0, 96, 96, 96])},
            "total": {"GPU": 8, "CPU": 96},
            "alive": self.r.choice([True, True, False]),
            "labels": {"zone": "a"},
            "address": "127.0.0.1",
        }
        return {k: self.maybe(v) for k, v in good.items() if k == "id" or self.r.random() < 0.8}

    def cluster(self):
        cluster = self.maybe({"nodes": [self.node() for _ in range(self.r.randrange(5))]})
        if isinstance(cluster, dict) and self.r.random() < 0.05:
            cluster["extra"] = self.value()
        return {"nodes": []} if cluster is None else cluster

    def spec(self):
        return self.maybe({
            self.maybe(self.r.choice(["global_pool", "p", "p", "p", "", "é"])):
                self.r.choice([[8], [8], [8, 8], [4, 4], (4,), [0], [-1], [2**40], [], self.maybe([8])])
            for _ in range(1 + self.r.randrange(2))
        })

    def mapping(self):
        return self.maybe({
            self.r.choice(["actor_rollout", "critic", "ref", "rm", Role.ActorRollout,
                           Role.RefPolicy, Role.Weird, "bogus"]):
                self.r.choice(["global_pool", "p", "p", "x", self.maybe("p")])
            for _ in range(1 + self.r.randrange(3))
        })

    def verl_config(self):
        return self.maybe({
            "trainer": {"nnodes": self.maybe(self.r.choice([1, 2])),
                        "n_gpus_per_node": self.maybe(8)},
            "actor_rollout_ref": {"rollout": {
                "tensor_model_parallel_size": self.maybe(self.r.choice([1, 2, 3]))}},
        })

    def overrides(self):
        words = ["trainer.nnodes=2", "trainer.nnodes=str(2)", "a=", "=", "~x", "++a.b=1",
                 "trainer.nnodes=int(int(", "x=${", "trainer.n_gpus_per_node=1,2", "-m",
                 "é=1", "trainer.nnodes='2'"]
        return self.maybe([self.r.choice(words) for _ in range(self.r.randrange(4))])

    def toml(self):
        return self.r.choice([
            "[pools.p]\nprocess_on_nodes = [8]\n[mapping]\nactor_rollout = 'p'\n",
            "x =", "[[a]]\n" * 3, "a = " + "[" * 100 + "]" * 100, "\x00", "[pools.p]\nprocess_on_nodes = [" + "8, " * 1000 + "]\n",
        ])


EXPECTED = (TypeError, ValueError, rp.ResourcePoolError, OSError)


def main() -> None:
    seed, calls = int(sys.argv[1]), int(sys.argv[2])
    draw = Draw(seed)
    for _ in range(calls):
        kind = draw.r.randrange(3)
        try:
            if kind == 0:
                report = rp.check(draw.spec(), draw.mapping(),
                                  draw.maybe(draw.r.choice([1, 3])),
                                  draw.maybe(draw.r.choice(["GPU", "NPU"])),
                                  cluster=draw.cluster())
            elif kind == 1:
                report = rv.check(draw.overrides(), config=draw.verl_config(),
                                  cluster=draw.cluster(),
                                  verl_version=draw.maybe(draw.r.choice([None, "0.9.1", "0.5.0"])))
            else:
                report = rp.lint(draw.toml(), overrides=draw.overrides())
            # A report must print and convert whatever it holds.
            str(report)
            report.render(colour=True)
            report.diagnostics
            if isinstance(report, rp.Report):
                report.as_dict()
        except EXPECTED:
            pass
    print("ok", seed)


if __name__ == "__main__":
    main()
