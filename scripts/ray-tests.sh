#!/usr/bin/env bash
# The live Ray tests, once per Ray version verl supports: for each version, start a 3-node
# Ray cluster on loopback, run the live tests against it, and stop it before the next one
# (one cluster at a time keeps memory in budget); the cluster is stopped whatever happens
# (EXIT trap), leaving no process behind. Each version lives in its own venv
# (.venv/ray-MAJOR.MINOR), installed with pip when missing.
#
# Usage: scripts/ray-tests.sh [extra cargo test args]
# Environment: RP_RAY_VERSIONS (default "2.60.0 2.41.0": the newest and the oldest verified).
# At the end it prints the wall time and the peak memory of the whole stage: the memory of
# this script's process tree (cargo, the tests, the Python harness) plus the cluster's
# processes, sampled every half second, as PSS (what they really take: shared pages split
# among the processes mapping them) and as RSS summed per process (an overcount).
# Budget: 6 minutes and 2 GB on a 2-core machine.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CLUSTER="$ROOT/tests/ray/cluster.sh"
VERSIONS="${RP_RAY_VERSIONS:-2.60.0 2.41.0}"
T0=$SECONDS
PEAK_FILE="$(mktemp)"
echo "0 0" > "$PEAK_FILE"

stamp() { printf '[ray-tests %s +%ds] %s\n' "$(date +%H:%M:%S)" "$((SECONDS - T0))" "$*" >&2; }

# Pids of this script's descendants.
tree_pids() {
    ps -eo pid=,ppid= | awk -v root="$$" '
        { parent[$1] = $2 }
        END {
            for (p in parent) {
                q = p
                while (q != "" && q != 0 && q != root) q = parent[q]
                if (q == root && p != root) print p
            }
        }'
}

# "RSS PSS" in KiB, summed over the given pids (PSS shares pages among the processes that
# map them, so it does not count Ray's shared libraries once per process).
memory_of() {
    local pid rss=0 pss=0 r p
    for pid in "$@"; do
        read -r r p < <(awk '/^Rss:/ {r = $2} /^Pss:/ {p = $2} END {print r + 0, p + 0}' \
            "/proc/$pid/smaps_rollup" 2>/dev/null || echo "0 0")
        rss=$((rss + r)); pss=$((pss + p))
    done
    echo "$rss $pss"
}

sample_memory() {
    local peak_rss=0 peak_pss=0 rss pss
    while sleep 0.5; do
        read -r rss pss < <(memory_of $( (tree_pids; bash "$CLUSTER" pids 2>/dev/null) | sort -u))
        (( rss > peak_rss )) && peak_rss=$rss
        (( pss > peak_pss )) && peak_pss=$pss
        echo "$peak_rss $peak_pss" > "$PEAK_FILE"
    done
}

SAMPLER=""
cleanup() {
    local rc=$?
    stamp "stopping the cluster"
    bash "$CLUSTER" down || rc=1
    [[ -n "$SAMPLER" ]] && kill "$SAMPLER" 2>/dev/null
    local peak_rss peak_pss
    read -r peak_rss peak_pss < "$PEAK_FILE" || true
    rm -f "$PEAK_FILE"
    stamp "done (exit $rc) in $((SECONDS - T0)) s; peak memory: $((${peak_pss:-0} / 1024)) MiB PSS ($((${peak_rss:-0} / 1024)) MiB RSS summed per process); Ray $VERSIONS"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cd "$ROOT"
sample_memory &
SAMPLER=$!

# Build first, so that compile time does not count against the clusters' life.
stamp "building the live tests"
cargo test --test it --no-run

for version in $VERSIONS; do
    export RP_RAY_VERSION="$version"
    venv="$(bash "$CLUSTER" venv | tail -n 1)"
    stamp "Ray $version: starting the cluster"
    URL="$(bash "$CLUSTER" up | tail -n 1)"
    stamp "Ray $version: cluster up at $URL"
    (
        export RESOURCE_POOL_RAY_URL="$URL"
        export RESOURCE_POOL_REQUIRE_RAY=1
        export RESOURCE_POOL_RAY_VERSION="$version"
        export RESOURCE_POOL_RAY_GCS="127.0.0.2:${RP_RAY_GCS_PORT:-26390}"
        export RESOURCE_POOL_RAY_PYTHON="$venv/bin/python"
        # ---- The Python module's live test (issue 19; tests/python/run.sh) ----------------
        # With RESOURCE_POOL_PYTHON_LIVE=1 (scripts/test, after it built the wheel), while the
        # Ray 2.60 cluster is up: a driver that ray.init()s, checks with rp.check and no URL,
        # then creates the groups as verl does. Before the Rust tests: they end by stopping a
        # node and the dashboard (the dead-node and dashboard-down cases).
        if [[ "${RESOURCE_POOL_PYTHON_LIVE:-}" == 1 && "$version" == 2.60.* ]]; then
            bash "$ROOT/tests/python/run.sh" live "$venv"
            stamp "Ray $version: Python live test passed"
        fi
        stamp "Ray $version: running cargo test --test it ray_live::"
        cargo test --test it "$@" -- --ignored ray_live:: --nocapture --test-threads=2
    )
    stamp "Ray $version: live tests passed; stopping the cluster"
    bash "$CLUSTER" down
done
stamp "live tests passed on Ray $VERSIONS"
