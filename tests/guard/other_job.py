"""Another Ray job that holds resources until it is killed (tests/guard/run.sh): it creates
one STRICT_PACK placement group per argument (a JSON list of bundles), each placed before
the next is asked for, prints "held", and sleeps.

    python tests/guard/other_job.py ADDRESS '[{"GPU": 8, "CPU": 9}]' '[{"CPU": 2, "guard_head": 1}]'
"""

import json
import sys
import time

import ray
from ray.util.placement_group import placement_group


def main():
    address, groups = sys.argv[1], [json.loads(g) for g in sys.argv[2:]]
    ray.init(address=address, logging_level="ERROR")
    held = []
    for bundles in groups:
        group = placement_group(bundles, strategy="STRICT_PACK")
        ray.get(group.ready(), timeout=60)
        held.append(group)
    print("held", flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
