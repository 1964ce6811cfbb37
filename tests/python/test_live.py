"""The check inside a Ray driver, against the live loopback cluster of scripts/ray-tests.sh.

A driver ``ray.init``s (tests/ray/verl_like.py's harness, which then creates the groups
exactly as verl does), calls ``rp.check`` with no URL (it finds the dashboard of the cluster
it is connected to), and the verdict must equal what Ray then does with the groups.

Runs when ``RESOURCE_POOL_RAY_URL`` (the dashboard) and ``RESOURCE_POOL_RAY_GCS`` (the GCS
address) are set; with ``RESOURCE_POOL_REQUIRE_RAY=1`` a missing cluster fails the test.
"""

import os
import subprocess
import sys
import time

import pytest

import resource_pool as rp
from conftest import ROOT, clean_env, venv_command

URL = os.environ.get("RESOURCE_POOL_RAY_URL")
GCS = os.environ.get("RESOURCE_POOL_RAY_GCS")
KEYS = ("GPU", "NPU", "CPU")


@pytest.fixture(scope="module")
def harness():
    if not (URL and GCS):
        if os.environ.get("RESOURCE_POOL_REQUIRE_RAY") == "1":
            pytest.fail("RESOURCE_POOL_RAY_URL and RESOURCE_POOL_RAY_GCS are required")
        pytest.skip("no live Ray cluster (scripts/ray-tests.sh starts one)")
    ray = pytest.importorskip("ray")
    sys.path.insert(0, str(ROOT / "tests" / "ray"))
    from verl_like import Harness

    harness = Harness(ray, GCS, GCS.split(":")[0])
    yield harness
    harness.clear()
    ray.shutdown()


def _our_view():
    """What our inventory of the dashboard says is available, by node address."""
    import tomllib

    out = subprocess.run(
        [str(venv_command()), "inventory", "--ray", URL],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env(), timeout=30,
    )
    assert out.returncode == 0, out.stderr
    nodes = tomllib.loads(out.stdout)["nodes"]
    return {
        n["address"]: {k: float(n["available"].get(k, 0)) for k in KEYS}
        for n in nodes
        if n.get("alive", True)
    }


def _converge(harness):
    """Waits until the dashboard's view equals the GCS's (cluster status lags ~3 s)."""
    deadline = time.monotonic() + 20
    while True:
        theirs = {
            n["ip"]: {k: float(n["available"].get(k, 0)) for k in KEYS}
            for n in harness.view()["nodes"]
            if n["alive"]
        }
        ours = _our_view()
        if ours == theirs:
            return
        if time.monotonic() > deadline:
            pytest.fail("the dashboard never caught up with the GCS:\nours   %s\ntheirs %s" % (ours, theirs))
        time.sleep(0.25)


def test_the_driver_finds_its_dashboard(harness):
    assert rp.dashboard_url().rstrip("/") == URL.rstrip("/")


SCENARIOS = {
    # Two 8-GPU node-slots: the head and the H100 worker.
    "places": ({"global_pool": [8, 8]}, {"actor_rollout": "global_pool"}, "GPU"),
    # [4, 4] spread over both GPU nodes (the emptiest node wins), then [8] fits nowhere.
    "hangs": (
        {"global_pool": [4, 4], "reward_pool": [8]},
        {"actor_rollout": "global_pool", "rm": "reward_pool"},
        "GPU",
    ),
    # The Ascend worker.
    "npu": ({"global_pool": [8]}, {"actor_rollout": "global_pool"}, "NPU"),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_the_verdict_in_the_driver_equals_rays(harness, name):
    spec, mapping, accelerator = SCENARIOS[name]
    _converge(harness)
    # The harness asks for the accelerator as written, as verl 0.8.0 does on a cluster with
    # GPUs (0.9 asks for the platform's, GPU here, whatever is written).
    report = rp.check(resource_pool_spec=spec, mapping=mapping, accelerator=accelerator, verl_version="0.8.0")
    assert report.ray_version == harness.ray.__version__
    # Then verl creates its groups, pool after pool, and waits.
    made = harness.pools(
        [
            {"name": pool, "slots": slots, "accelerator": accelerator, "max_colocate_count": 3}
            for pool, slots in spec.items()
        ],
        wait_s=3.0,
    )
    try:
        assert report.ray in ("places", "hangs"), str(report)
        assert (report.ray == "places") == made["all_placed"], (str(report), made)
        assert report.ok == made["all_placed"]
        if made["all_placed"]:
            # Ray put each group where the check said it would (up to ties between equal
            # nodes, which there are none of here).
            ip_of = {n["id"]: n["ip"] for n in harness.view()["nodes"]}
            ours = sorted((p["pool"], p["slot"], ip_of[p["node"]]) for p in report.ray_placement)
            theirs = sorted(
                (list(spec)[s["pool"]], s["slot"], s["node_ip"]) for s in made["slots"] if s["placed"]
            )
            if name != "places":  # the two 8-GPU nodes tie for the first group
                assert ours == theirs
            else:
                assert sorted(ip for *_, ip in ours) == sorted(ip for *_, ip in theirs)
    finally:
        assert harness.clear()["ok"]
