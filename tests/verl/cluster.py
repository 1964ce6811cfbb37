#!/usr/bin/env python3
"""A throw-away multi-node Ray cluster on loopback, shaped by JSON, for running verl's own code.

Run with the base venv's Python (`.venv/verl/base/bin/python`, made by scripts/verl-envs):
the `ray` command beside it starts the raylets.

  cluster.py up SHAPE        start the nodes, wait until all are alive, print the dashboard URL
  cluster.py down            stop every process of this cluster, check with ps that none is left
  cluster.py status          print the URL, the nodes Ray lists, and the processes
  cluster.py pids            print the pids of this cluster's processes

SHAPE is a JSON object, a path to a file holding one, or NAME@FILE for one entry of a file
that maps names to shapes (tests/verl/shapes.json):

  {"nodes": [{"ip": "127.0.0.2", "num_gpus": 8, "num_cpus": 32, "resources": {"NPU": 8}}, ...]}

The first node is the head. Each node is one raylet on its own loopback address (127.0.0.1
would be replaced by the host's address: use 127.0.0.2 and up). Ports and the temp dir are
distinct from tests/ray/cluster.sh's, so both clusters can run side by side:
GCS 127.0.0.2:27390, dashboard http://127.0.0.1:29265, temp dir /tmp/rpverl, Ray client
port 20001, dashboard agents 53365 and up.

Only processes whose command line names this cluster's temp dir or GCS address, those of the
session `up` started them in, and their descendants are ever signalled, by pid.
Environment: RP_VERL_RAY_TMP, RP_VERL_GCS_PORT, RP_VERL_DASHBOARD_PORT override the defaults.
"""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RAY_TMP = os.environ.get("RP_VERL_RAY_TMP", "/tmp/rpverl")
GCS_PORT = int(os.environ.get("RP_VERL_GCS_PORT", "27390"))
DASH_PORT = int(os.environ.get("RP_VERL_DASHBOARD_PORT", "29265"))
CLIENT_PORT = 20001
AGENT_PORT0 = 53365
URL = f"http://127.0.0.1:{DASH_PORT}"
SID_FILE = Path(RAY_TMP) / "sid"
SHAPE_FILE = Path(RAY_TMP) / "shape.json"

ENV = dict(os.environ)
ENV.update(
    {
        "RAY_USAGE_STATS_ENABLED": "0",
        # No token authentication, whatever this machine holds (see tests/ray/cluster.sh).
        "RAY_AUTH_MODE": "disabled",
        # No idle Python workers: 2 cores and a few GB are the budget.
        "RAY_prestart_worker_first_driver": "0",
        "RAY_enable_worker_prestart": "0",
        "RAY_DEDUP_LOGS": "0",
        # The dashboard's cluster status follows the autoscaler monitor: refresh it every second.
        "AUTOSCALER_UPDATE_INTERVAL_S": "1",
    }
)


def log(*args):
    print(f"[verl cluster.py {time.strftime('%H:%M:%S')}]", *args, file=sys.stderr, flush=True)


def ray_bin():
    here = Path(sys.executable).parent / "ray"
    if here.exists():
        return str(here)
    return str(ROOT / ".venv" / "verl" / "base" / "bin" / "ray")


def load_shape(arg):
    if "@" in arg and not arg.lstrip().startswith("{"):
        name, path = arg.split("@", 1)
        return json.loads(Path(path).read_text())[name]
    if arg.lstrip().startswith("{"):
        return json.loads(arg)
    return json.loads(Path(arg).read_text())


# ---- processes ----------------------------------------------------------------------------
def _procs():
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read().decode(errors="replace")
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        # pid (comm) state ppid pgrp session ...
        rest = stat[stat.rfind(")") + 2 :].split()
        out[int(entry)] = {"state": rest[0], "ppid": int(rest[1]), "sid": int(rest[3]), "cmd": cmd}
    return out


def our_pids():
    sid = int(SID_FILE.read_text()) if SID_FILE.exists() else None
    procs = _procs()
    me = os.getpid()
    gcs = f"127.0.0.2:{GCS_PORT}"
    roots = set()
    for pid, p in procs.items():
        if pid == me or p["state"] == "Z" or "cluster.py" in p["cmd"]:
            continue
        cmd = p["cmd"]
        if (RAY_TMP + "/") in cmd or f"--temp-dir={RAY_TMP}" in cmd or gcs in cmd or (sid is not None and p["sid"] == sid):
            roots.add(pid)
    changed = True
    while changed:
        changed = False
        for pid, p in procs.items():
            if pid not in roots and pid != me and p["state"] != "Z" and p["ppid"] in roots:
                roots.add(pid)
                changed = True
    return sorted(roots)


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
        return stat[stat.rfind(")") + 2] != "Z"
    except OSError:
        return False


def _signal(pids, sig):
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def _stop(pids):
    if not pids:
        return
    _signal(pids, signal.SIGTERM)
    # A throw-away cluster: what has not exited after 3 s is killed.
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        left = [p for p in pids if _alive(p)]
        if not left:
            return
        time.sleep(0.25)
    log("killing stragglers:", left)
    _signal(left, signal.SIGKILL)


# ---- dashboard ----------------------------------------------------------------------------
def _get(path, timeout=3):
    with urllib.request.urlopen(URL + path, timeout=timeout) as r:
        return json.load(r)


def alive_nodes():
    nodes = _get("/api/v0/nodes?detail=1&limit=10000")["data"]["result"]["result"]
    return [n for n in nodes if n["state"] == "ALIVE"]


def wait_ready(n, timeout=120):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            alive = alive_nodes()
            status = _get("/api/cluster_status")
            usage = ((status["data"].get("clusterStatus") or {}).get("loadMetricsReport") or {}).get("usageByNode") or {}
            if len(alive) == n and all(a["node_id"] in usage for a in alive):
                return True
            last = f"{len(alive)} of {n} nodes alive"
        except Exception as error:  # not up yet
            last = repr(error)
        time.sleep(1)
    log(f"the cluster did not become ready in {timeout} s: {last}")
    return False


# ---- commands -----------------------------------------------------------------------------
def up(shape):
    nodes = shape["nodes"]
    if our_pids():
        log(f"a cluster with temp dir {RAY_TMP} is running already; stopping it first")
        down()
    Path(RAY_TMP).mkdir(parents=True, exist_ok=True)
    SHAPE_FILE.write_text(json.dumps(shape))
    start = time.monotonic()
    # In a session of their own, so that `down` finds every process by its session id.
    child = subprocess.run(
        [sys.executable, __file__, "_start"], env=ENV, start_new_session=True, stdin=subprocess.DEVNULL
    )
    if child.returncode != 0:
        down()
        sys.exit("starting the nodes failed")
    if not wait_ready(len(nodes)):
        down()
        sys.exit(1)
    log(f"up in {time.monotonic() - start:.1f} s: {len(nodes)} nodes, {URL}")
    print(URL)


def start_nodes():
    SID_FILE.write_text(str(os.getsid(0)))
    shape = json.loads(SHAPE_FILE.read_text())
    ray = ray_bin()
    head = shape["nodes"][0]["ip"]
    for i, node in enumerate(shape["nodes"]):
        args = [
            ray,
            "start",
            f"--node-ip-address={node['ip']}",
            f"--num-gpus={node.get('num_gpus', 0)}",
            f"--num-cpus={node.get('num_cpus', 1)}",
            f"--dashboard-agent-listen-port={AGENT_PORT0 + i}",
            "--object-store-memory=80000000",
            f"--temp-dir={RAY_TMP}",
            "--include-log-monitor=False",
            "--disable-usage-stats",
        ]
        if node.get("resources"):
            args.append("--resources=" + json.dumps(node["resources"]))
        if i == 0:
            args[2:2] = [
                "--head",
                f"--port={GCS_PORT}",
                "--include-dashboard=true",
                "--dashboard-host=127.0.0.1",
                f"--dashboard-port={DASH_PORT}",
                f"--ray-client-server-port={CLIENT_PORT}",
            ]
        else:
            args.insert(2, f"--address={head}:{GCS_PORT}")
        what = "head" if i == 0 else "worker"
        log(f"starting {what} {node['ip']}: GPU {node.get('num_gpus', 0)}, CPU {node.get('num_cpus', 1)}, {node.get('resources') or {}}")
        out = Path(RAY_TMP) / f"node{i}.out"
        f = open(out, "w")
        # One after another: two `ray start` side by side in one temp dir race for its
        # socket and file names (tried: a worker then times out registering with the GCS).
        t = time.monotonic()
        rc = subprocess.run(args, stdout=f, stderr=subprocess.STDOUT, env=ENV).returncode
        f.close()
        if rc != 0:
            sys.stderr.write(out.read_text())
            sys.exit(1)
        log(f"  {what} {node['ip']} started in {time.monotonic() - t:.1f} s")


def down():
    start = time.monotonic()
    pids = our_pids()
    if pids:
        log(f"stopping {len(pids)} processes")
        _stop(pids)
    time.sleep(0.5)
    pids = our_pids()
    if pids:
        log("still running after stop:", pids)
        _signal(pids, signal.SIGKILL)
        time.sleep(0.5)
        pids = our_pids()
        if pids:
            subprocess.run(["ps", "-o", "pid,args", "-p", ",".join(map(str, pids))])
            return 1
    # ps, independently of /proc parsing above: nothing names our temp dir or GCS port.
    ps = subprocess.run(["ps", "-eo", "pid=,args="], capture_output=True, text=True).stdout
    left = [
        line
        for line in ps.splitlines()
        if (RAY_TMP + "/" in line or f"--temp-dir={RAY_TMP}" in line or f":{GCS_PORT}" in line)
        and "cluster.py" not in line
    ]
    if left:
        log("ps still shows:", *left)
        return 1
    SID_FILE.unlink(missing_ok=True)
    log(f"down in {time.monotonic() - start:.1f} s; ps shows no process of {RAY_TMP}")
    return 0


def status():
    print(URL)
    try:
        for n in alive_nodes():
            print(n["node_ip"], n["state"], json.dumps(n.get("resources_total")))
    except Exception as error:
        print("dashboard:", error)
    for pid in our_pids():
        out = subprocess.run(["ps", "-o", "pid=,rss=,args=", "-p", str(pid)], capture_output=True, text=True).stdout
        print(out.rstrip()[:160])


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "up" and len(sys.argv) == 3:
        up(load_shape(sys.argv[2]))
    elif cmd == "_start":
        start_nodes()
    elif cmd == "down":
        sys.exit(down())
    elif cmd == "status":
        status()
    elif cmd == "pids":
        print("\n".join(map(str, our_pids())))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
