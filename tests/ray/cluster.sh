#!/usr/bin/env bash
# A throw-away multi-node Ray cluster on loopback, for the live tests (Ray 2.60.0 by default;
# RP_RAY_VERSION=2.41.0 for verl's lowest supported Ray).
#
#   tests/ray/cluster.sh up             create the version's venv if missing, start 3 raylets, wait until ready
#   tests/ray/cluster.sh down           stop every process of this cluster, check none is left
#   tests/ray/cluster.sh status         print the dashboard URL and the processes
#   tests/ray/cluster.sh kill-node IP   stop one worker raylet (SIGTERM): Ray marks the node dead
#   tests/ray/cluster.sh kill-dashboard stop the dashboard process only
#   tests/ray/cluster.sh pids           print the pids of the cluster's processes
#   tests/ray/cluster.sh venv           create the version's venv if missing, print its path
#
# Nodes (one raylet per loopback address; 127.0.0.1 would be replaced by the host's address):
#   127.0.0.2  head:   GPU 8, CPU 32
#   127.0.0.3  worker: GPU 8, CPU 32, accelerator_type:H100 1, my_custom 2
#   127.0.0.4  worker: NPU 8, CPU 32 (no GPU)
#
# Only processes whose command line names this cluster's temp dir are ever signalled, by pid.
# Environment: RP_RAY_VERSION (2.60.0), RP_RAY_TMP (temp dir, default /tmp/rpray),
# RP_RAY_GCS_PORT (26390), RP_RAY_DASHBOARD_PORT (28265), RP_RAY_VENV (default
# .venv/ray-MAJOR.MINOR at the repository root, one venv per Ray version).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
RAY_VERSION="${RP_RAY_VERSION:-2.60.0}"
VENV="${RP_RAY_VENV:-$ROOT/.venv/ray-${RAY_VERSION%.*}}"
RAY_TMP="${RP_RAY_TMP:-/tmp/rpray}"
GCS_PORT="${RP_RAY_GCS_PORT:-26390}"
DASH_PORT="${RP_RAY_DASHBOARD_PORT:-28265}"
HEAD_IP=127.0.0.2
URL="http://127.0.0.1:$DASH_PORT"

export RAY_USAGE_STATS_ENABLED=0
# No token authentication, whatever this machine holds: a head that finds a token in
# ~/.ray/auth_token turns it on ("Set RAY_AUTH_MODE=disabled to opt out") and then refuses
# the workers started here (seen with Ray 2.60 after `ray get-auth-token --generate`).
export RAY_AUTH_MODE=disabled
# No idle Python workers: the tests start no tasks, and 2 cores and ~2 GB are the budget.
export RAY_prestart_worker_first_driver=0
export RAY_enable_worker_prestart=0
export RAY_DEDUP_LOGS=0
# The dashboard's cluster status follows the autoscaler monitor: refresh it every second.
export AUTOSCALER_UPDATE_INTERVAL_S=1

log() { printf '[cluster.sh %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

ensure_venv() {
    if [[ -x "$VENV/bin/ray" ]] && "$VENV/bin/python" -c "import ray, ray.dashboard; assert ray.__version__ == '$RAY_VERSION'" 2>/dev/null; then
        return
    fi
    log "installing ray[default]==$RAY_VERSION into $VENV"
    local py
    py="$(command -v python3.11 || command -v python3)"
    [[ -x "$VENV/bin/python" ]] || "$py" -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "ray[default]==$RAY_VERSION"
}

# Pids of this cluster's processes: those whose command line names our temp dir or our GCS
# address, those of the session `up` started them in, and all their descendants.
our_pids() {
    local sid=""
    [[ -f "$RAY_TMP/sid" ]] && sid="$(cat "$RAY_TMP/sid")"
    ps -eo pid=,ppid=,sid=,stat=,args= | awk -v tmp="$RAY_TMP" -v gcs="$HEAD_IP:$GCS_PORT" \
        -v sid="$sid" -v self="$$" -v bpid="$BASHPID" '
        {
            pid = $1; ppid[pid] = $2; cmd = $0
            if ($4 ~ /^Z/) next
            if (pid == self || pid == bpid || cmd ~ /cluster\.sh/ || cmd ~ / awk /) next
            if (index(cmd, tmp "/") || index(cmd, "--temp-dir=" tmp) || index(cmd, gcs) || (sid != "" && $3 == sid)) root[pid] = 1
            all[pid] = 1
        }
        END {
            changed = 1
            while (changed) {
                changed = 0
                for (p in all) if (!(p in root) && (ppid[p] in root)) { root[p] = 1; changed = 1 }
            }
            for (p in root) print p
        }'
}

signal_pids() {
    local sig="$1"; shift
    local pid
    for pid in "$@"; do kill "-$sig" "$pid" 2>/dev/null || true; done
}

# Whether a pid is a running process (zombies count as gone).
alive() {
    local state
    state="$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null || true)"
    [[ -n "$state" && "$state" != Z ]]
}

stop_pids() {
    # SIGTERM, then SIGKILL whatever is left after a grace period.
    local pids=("$@")
    [[ ${#pids[@]} -gt 0 ]] || return 0
    signal_pids TERM "${pids[@]}"
    local i left
    for i in $(seq 1 24); do
        left=()
        for pid in "${pids[@]}"; do alive "$pid" && left+=("$pid"); done
        [[ ${#left[@]} -eq 0 ]] && return 0
        sleep 0.25
    done
    log "killing stragglers: ${left[*]}"
    signal_pids KILL "${left[@]}"
}

wait_ready() {
    # The dashboard answers, and lists the 3 nodes alive with their usage.
    local deadline=$((SECONDS + 90))
    while (( SECONDS < deadline )); do
        if "$VENV/bin/python" - "$URL" <<'EOF' 2>/dev/null; then return 0; fi
import json, sys, urllib.request
url = sys.argv[1]
nodes = json.load(urllib.request.urlopen(url + "/api/v0/nodes?detail=1&limit=100", timeout=3))
alive = [n for n in nodes["data"]["result"]["result"] if n["state"] == "ALIVE"]
status = json.load(urllib.request.urlopen(url + "/api/cluster_status", timeout=3))
usage = ((status["data"].get("clusterStatus") or {}).get("loadMetricsReport") or {}).get("usageByNode") or {}
sys.exit(0 if len(alive) == 3 and all(n["node_id"] in usage for n in alive) else 1)
EOF
        sleep 1
    done
    log "the cluster did not become ready in 90 s"
    return 1
}

up() {
    ensure_venv
    if [[ -n "$(our_pids)" ]]; then
        log "a cluster with temp dir $RAY_TMP is running already; stopping it first"
        down
    fi
    mkdir -p "$RAY_TMP"
    local start=$SECONDS
    # In a session of their own, so that `down` finds every process by its session id.
    setsid -w "$BASH" "${BASH_SOURCE[0]}" _start
    wait_ready
    log "up in $((SECONDS - start)) s: $URL"
    echo "$URL"
}

start_nodes() {
    ps -o sid= -p $$ | tr -d ' ' > "$RAY_TMP/sid"
    local ray="$VENV/bin/ray"
    log "starting head $HEAD_IP (GPU 8, CPU 32), dashboard $URL"
    "$ray" start --head --node-ip-address=$HEAD_IP --port="$GCS_PORT" \
        --num-gpus=8 --num-cpus=32 \
        --include-dashboard=true --dashboard-host=127.0.0.1 --dashboard-port="$DASH_PORT" \
        --dashboard-agent-listen-port=52365 \
        --object-store-memory=80000000 --temp-dir="$RAY_TMP" --disable-usage-stats \
        --include-log-monitor=False \
        > "$RAY_TMP/head.out" 2>&1 || { cat "$RAY_TMP/head.out" >&2; return 1; }
    log "starting worker 127.0.0.3 (GPU 8, CPU 32, accelerator_type:H100, my_custom)"
    "$ray" start --address="$HEAD_IP:$GCS_PORT" --node-ip-address=127.0.0.3 \
        --num-gpus=8 --num-cpus=32 --resources='{"accelerator_type:H100": 1, "my_custom": 2}' \
        --labels='{"zone": "z1"}' \
        --dashboard-agent-listen-port=52366 --object-store-memory=80000000 --temp-dir="$RAY_TMP" \
        --include-log-monitor=False \
        > "$RAY_TMP/worker3.out" 2>&1 || { cat "$RAY_TMP/worker3.out" >&2; return 1; }
    log "starting worker 127.0.0.4 (NPU 8, CPU 32)"
    "$ray" start --address="$HEAD_IP:$GCS_PORT" --node-ip-address=127.0.0.4 \
        --num-gpus=0 --num-cpus=32 --resources='{"NPU": 8}' \
        --dashboard-agent-listen-port=52367 --object-store-memory=80000000 --temp-dir="$RAY_TMP" \
        --include-log-monitor=False \
        > "$RAY_TMP/worker4.out" 2>&1 || { cat "$RAY_TMP/worker4.out" >&2; return 1; }
}

down() {
    local start=$SECONDS
    local pids
    mapfile -t pids < <(our_pids)
    if [[ ${#pids[@]} -gt 0 ]]; then
        log "stopping ${#pids[@]} processes"
        # Workers first, so that the head sees them leave; then everything.
        stop_pids "${pids[@]}"
    fi
    sleep 0.5
    mapfile -t pids < <(our_pids)
    if [[ ${#pids[@]} -gt 0 ]]; then
        log "still running after stop: ${pids[*]}"
        signal_pids KILL "${pids[@]}"
        sleep 0.5
        mapfile -t pids < <(our_pids)
        if [[ ${#pids[@]} -gt 0 ]]; then
            ps -o pid,args -p "$(IFS=,; echo "${pids[*]}")" >&2 || true
            return 1
        fi
    fi
    rm -f "$RAY_TMP/sid"
    log "down in $((SECONDS - start)) s; no process of $RAY_TMP is left"
}

kill_node() {
    local ip="$1" pids=() pid cmd
    for pid in $(our_pids); do
        cmd="$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null || true)"
        [[ "$cmd" == *raylet/raylet* && "$cmd" == *"--node_ip_address=$ip "* ]] && pids+=("$pid")
    done
    [[ ${#pids[@]} -gt 0 ]] || { log "no raylet for $ip"; return 1; }
    log "stopping raylet of $ip: ${pids[*]}"
    stop_pids "${pids[@]}"
}

kill_dashboard() {
    local pids=() pid cmd
    for pid in $(our_pids); do
        cmd="$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null || true)"
        [[ "$cmd" == *dashboard/dashboard.py* ]] && pids+=("$pid")
    done
    [[ ${#pids[@]} -gt 0 ]] || { log "no dashboard process"; return 1; }
    log "stopping the dashboard: ${pids[*]}"
    stop_pids "${pids[@]}"
}

case "${1:-}" in
    up) up ;;
    _start) start_nodes ;;
    down) down ;;
    status)
        echo "$URL"
        for pid in $(our_pids); do ps -o pid=,rss=,args= -p "$pid" | cut -c1-160; done
        ;;
    kill-node) kill_node "${2:?IP}" ;;
    kill-dashboard) kill_dashboard ;;
    pids) our_pids ;;
    venv) ensure_venv; echo "$VENV" ;;
    *) echo "usage: $0 up|down|status|kill-node IP|kill-dashboard|pids|venv" >&2; exit 2 ;;
esac
