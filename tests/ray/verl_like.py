#!/usr/bin/env python3
"""Creates Ray placement groups exactly as verl does, and reports what Ray made of them.

verl (``verl/single_controller/ray/base.py``) turns each node-slot of a resource pool into
one STRICT_PACK placement group of ``n`` bundles ``{"CPU": max_colocate_count, "GPU": 1}``
(``"NPU"`` on Ascend), plus ``{accelerator_type: 0.0001}`` per bundle when the pool names an
accelerator type. It creates the pools in order, all slots of a pool at once, and then
waits for them with no timeout. This harness does the same, with a bounded wait instead:
a pool whose groups are not all placed within the wait is where verl would hang, and the
pools after it are never created.

Standard library and ``ray`` only. It speaks JSON lines: one command per line on stdin,
one answer per line on stdout (Ray's own chatter goes to stderr).

  {"cmd": "view"}
      -> {"nodes": [{"id", "ip", "alive", "total": {...}, "available": {...}}]}
         (Ray's GCS view: ray.nodes() and the per-node available resources)
  {"cmd": "hold", "holds": [{"ip": "127.0.0.3", "resources": {"GPU": 4, "CPU": 16}}]}
      -> {"ok": true, "groups": [...]}   one group per hold, pinned with node:<ip>
  {"cmd": "pools", "pools": [{"name", "slots": [4, 4], "accelerator": "GPU",
          "max_colocate_count": 3, "accelerator_type": null}], "wait_s": 2.5}
      -> {"all_placed": bool, "slots": [{"pool", "slot", "attempted", "placed", "node_ip",
          "state", "scheduling_state", "name"}]}
  {"cmd": "clear"}  removes every group this harness made, waits until Ray shows it
  {"cmd": "quit"}

Usage: verl_like.py --address 127.0.0.2:26390 --node-ip 127.0.0.2
"""

import argparse
import json
import sys
import time


def log(*args):
    print("[verl_like]", *args, file=sys.stderr, flush=True)


class Harness:
    def __init__(self, ray, address, node_ip):
        self.ray = ray
        from ray.util import placement_group, remove_placement_group
        from ray.util.placement_group import placement_group_table

        self.placement_group = placement_group
        self.remove_placement_group = remove_placement_group
        self.placement_group_table = placement_group_table
        ray.init(
            address=address,
            _node_ip_address=node_ip,
            log_to_driver=False,
            logging_level="ERROR",
            namespace="resource-pool-live-tests",
        )
        self.groups = []

    # ---- Ray's view -------------------------------------------------------------
    def ip_of(self):
        return {n["NodeID"]: n["NodeManagerAddress"] for n in self.ray.nodes()}

    def view(self):
        from ray._private import state

        available = state.available_resources_per_node()
        nodes = []
        for n in self.ray.nodes():
            nodes.append(
                {
                    "id": n["NodeID"],
                    "ip": n["NodeManagerAddress"],
                    "alive": bool(n["Alive"]),
                    "total": n.get("Resources") or {},
                    "available": available.get(n["NodeID"], {}),
                }
            )
        return {"nodes": nodes}

    # ---- Holding resources on one node ------------------------------------------
    def hold(self, holds):
        made = []
        for i, hold in enumerate(holds):
            bundle = dict(hold["resources"])
            bundle["node:" + hold["ip"]] = 0.001
            name = "hold-%d-%s" % (len(self.groups), hold["ip"])
            pg = self.placement_group([bundle], strategy="STRICT_PACK", name=name)
            self.groups.append(pg)
            ready, _ = self.ray.wait([pg.ready()], timeout=10)
            if not ready:
                return {"ok": False, "error": "hold %d on %s was not placed" % (i, hold["ip"])}
            made.append({"name": name, "id": pg.id.hex(), "ip": hold["ip"]})
        return {"ok": True, "groups": made}

    # ---- verl's pools --------------------------------------------------------------
    def pools(self, pools, wait_s):
        slots = []
        all_placed = True
        ip_of = self.ip_of()
        for pool_index, pool in enumerate(pools):
            accelerator = pool.get("accelerator", "GPU")
            mcc = pool.get("max_colocate_count", 3)
            accelerator_type = pool.get("accelerator_type")
            process_on_nodes = pool["slots"]
            if not all_placed:
                # verl would still be waiting on an earlier pool: this one is never made.
                for slot, _ in enumerate(process_on_nodes):
                    slots.append({"pool": pool_index, "slot": slot, "attempted": False, "placed": False})
                continue
            prefix = "%sverl_group_%s:" % (pool["name"], "_".join(str(c) for c in process_on_nodes))
            pgs = []
            for slot, count in enumerate(process_on_nodes):
                bundle = {"CPU": mcc, accelerator: 1}
                if accelerator_type:
                    bundle[accelerator_type] = 0.0001
                pg = self.placement_group([dict(bundle) for _ in range(count)], strategy="STRICT_PACK", name=prefix + str(slot))
                self.groups.append(pg)
                pgs.append(pg)
            # verl: ray.get([pg.ready() for pg in pgs]) with no timeout; we bound it.
            deadline = time.monotonic() + wait_s
            pending = {pg.id.hex(): pg.ready() for pg in pgs}
            while pending and time.monotonic() < deadline:
                ready, _ = self.ray.wait(list(pending.values()), num_returns=1, timeout=max(0.0, deadline - time.monotonic()))
                for ref in ready:
                    for key, value in list(pending.items()):
                        if value == ref:
                            del pending[key]
            for slot, pg in enumerate(pgs):
                table = self.placement_group_table(pg)
                placed = table.get("state") == "CREATED"
                node_ids = set((table.get("bundles_to_node_id") or {}).values())
                node_ip = ip_of.get(next(iter(node_ids))) if placed and len(node_ids) == 1 else None
                stats = table.get("stats") or {}
                slots.append(
                    {
                        "pool": pool_index,
                        "slot": slot,
                        "attempted": True,
                        "placed": placed,
                        "node_ip": node_ip,
                        "state": table.get("state"),
                        "scheduling_state": stats.get("scheduling_state"),
                        "name": prefix + str(slot),
                    }
                )
                if not placed:
                    all_placed = False
        return {"all_placed": all_placed, "slots": slots}

    def clear(self):
        for pg in self.groups:
            try:
                self.remove_placement_group(pg)
            except Exception as error:  # already removed
                log("remove failed:", error)
        self.groups = []
        # Wait until the GCS shows every alive node idle again.
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            view = self.view()["nodes"]
            idle = all(
                abs(n["available"].get(k, 0.0) - v) < 1e-9
                for n in view
                if n["alive"]
                for k, v in n["total"].items()
                if k in ("CPU", "GPU", "NPU") or ":" in k and not k.startswith("node:")
            )
            if idle:
                return {"ok": True}
            time.sleep(0.1)
        return {"ok": False, "error": "the cluster did not become idle in 15 s"}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--address", required=True, help="GCS address, such as 127.0.0.2:26390")
    parser.add_argument("--node-ip", required=True, help="the head's node IP, to attach the driver to its raylet")
    args = parser.parse_args()

    import ray

    harness = Harness(ray, args.address, args.node_ip)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            command = json.loads(line)
            cmd = command.get("cmd")
            if cmd == "view":
                answer = harness.view()
            elif cmd == "hold":
                answer = harness.hold(command["holds"])
            elif cmd == "pools":
                answer = harness.pools(command["pools"], float(command.get("wait_s", 2.5)))
            elif cmd == "clear":
                answer = harness.clear()
            elif cmd == "quit":
                harness.clear()
                print(json.dumps({"ok": True}), flush=True)
                break
            else:
                answer = {"error": "unknown command %r" % cmd}
        except Exception as error:  # report, keep serving
            answer = {"error": "%s: %s" % (type(error).__name__, error)}
        print(json.dumps(answer), flush=True)
    ray.shutdown()


if __name__ == "__main__":
    main()
