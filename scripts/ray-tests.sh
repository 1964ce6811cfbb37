#!/usr/bin/env bash
# The live Ray tests: start a 3-node Ray 2.60 cluster on loopback, run the `ray_live` tests
# (`cargo test --test it ray_live::`) against it, and stop the cluster whatever happens
# (EXIT trap), leaving no process behind. Installs ray[default]==2.60.0 into .venv when missing.
#
# Usage: scripts/ray-tests.sh [extra cargo test args]
# Budget: about 3 minutes and 1.5 GB on a 2-core machine.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CLUSTER="$ROOT/tests/ray/cluster.sh"
T0=$SECONDS

stamp() { printf '[ray-tests %s +%ds] %s\n' "$(date +%H:%M:%S)" "$((SECONDS - T0))" "$*" >&2; }

cleanup() {
    local rc=$?
    stamp "stopping the cluster"
    bash "$CLUSTER" down || rc=1
    stamp "done (exit $rc) in $((SECONDS - T0)) s"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cd "$ROOT"
# Build first, so that compile time does not count against the cluster's life.
stamp "building the live tests"
cargo test --test it --no-run

stamp "starting the cluster"
URL="$(bash "$CLUSTER" up | tail -n 1)"
stamp "cluster up at $URL"

export RESOURCE_POOL_RAY_URL="$URL"
export RESOURCE_POOL_REQUIRE_RAY=1
export RESOURCE_POOL_RAY_GCS="127.0.0.2:${RP_RAY_GCS_PORT:-26390}"
export RESOURCE_POOL_RAY_PYTHON="${RP_RAY_VENV:-$ROOT/.venv}/bin/python"
stamp "running cargo test --test it ray_live::"
cargo test --test it "$@" -- ray_live:: --nocapture --test-threads=2
stamp "live tests passed"

# ---- The Python module's live test (issue 19; tests/python/run.sh) ----------------------
# With RESOURCE_POOL_PYTHON_LIVE=1 (scripts/test, after it built the wheel): a driver that
# ray.init()s, checks with rp.check and no URL, then creates the groups as verl does.
if [[ "${RESOURCE_POOL_PYTHON_LIVE:-}" == 1 ]]; then
    bash "$ROOT/tests/python/run.sh" live "${RP_RAY_VENV:-$ROOT/.venv}"
    stamp "Python live test passed"
fi
