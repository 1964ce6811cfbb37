#!/usr/bin/env bash
# Runs verl's own start-up code, release by release, on real loopback Ray clusters, and records
# what it does with each resource-pool layout (tests/verl/README.md).
#
#   tests/verl/run.sh [SHAPE...]          shapes of tests/verl/shapes.json (default: all)
#   RP_VERL_RELEASES="0.5.0 0.9.1" tests/verl/run.sh two_eights
#
# For each shape: start its cluster (tests/verl/cluster.py), capture the idle cluster with our
# own `resource-pool inventory --ray` (target/verl-results/SHAPE/inventory.json: Ray's node
# ids, addresses, the head; compare.py checks our tool on it), run every release's harness on
# the shape's cases, stop the cluster (always, by trap), and write
# target/verl-results/SHAPE/VERSION.json (and the cases run, SHAPE/cases.json); then a table
# of outcomes and timings. Builds the environments first when missing (scripts/verl-envs;
# seconds when present).
#
# Environment: RP_VERL_RELEASES (default all five), RP_VERL_OUT (target/verl-results),
# RP_VERL_CASES (the directory of SHAPE.json case files; default tests/verl/cases),
# RP_VERL_HANG_TIMEOUT (the harness's --hang-timeout, default its own 4 s), RP_BIN (our
# binary, default target/debug/resource-pool; without it no inventory is captured),
# RP_VERL_ENVS (.venv/verl).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/tests/verl"
RELEASES=(${RP_VERL_RELEASES:-0.5.0 0.6.1 0.7.1 0.8.0 0.9.1})
OUT="${RP_VERL_OUT:-$ROOT/target/verl-results}"
CASES="${RP_VERL_CASES:-$HERE/cases}"
BIN="${RP_BIN:-$ROOT/target/debug/resource-pool}"
PY="${RP_VERL_ENVS:-$ROOT/.venv/verl}/base/bin/python"
ADDRESS=127.0.0.2:27390
DASHBOARD=http://127.0.0.1:29265
HARNESS_ARGS=()
[[ -z "${RP_VERL_HANG_TIMEOUT:-}" ]] || HARNESS_ARGS+=(--hang-timeout "$RP_VERL_HANG_TIMEOUT")

log() { printf '[verl run.sh %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

t=$(now)
"$ROOT/scripts/verl-envs" "${RELEASES[@]}"
ENV_S=$(since "$t")

if [[ $# -gt 0 ]]; then SHAPES=("$@"); else mapfile -t SHAPES < <("$PY" -c "import json; print('\n'.join(json.load(open('$HERE/shapes.json'))))"); fi

cluster_up=0
stop_cluster() {
    if [[ $cluster_up -eq 1 ]]; then
        "$PY" "$HERE/cluster.py" down || log "cluster.py down reported processes left"
        cluster_up=0
    fi
}
trap stop_cluster EXIT
trap 'exit 130' INT TERM

mkdir -p "$OUT"
TIMINGS="$OUT/timings.json"
echo "{\"env_s\": $ENV_S, \"shapes\": {" > "$TIMINGS.tmp"
first_shape=1
for shape in "${SHAPES[@]}"; do
    cases="$CASES/$shape.json"
    [[ -f "$cases" ]] || { log "no $cases"; exit 2; }
    mkdir -p "$OUT/$shape"
    # No result of an earlier run may stand in for this one's.
    for v in "${RELEASES[@]}"; do rm -f "$OUT/$shape/$v.json" "$OUT/$shape/$v.json.tmp"; done
    rm -f "$OUT/$shape/inventory.json"
    cp "$cases" "$OUT/$shape/cases.json"
    t=$(now)
    cluster_up=1
    "$PY" "$HERE/cluster.py" up "$shape@$HERE/shapes.json" > /dev/null
    up_s=$(since "$t")
    log "$shape: cluster up in $up_s s"
    # The idle cluster as our own inventory reads it (nothing is held yet: no harness ran).
    if [[ -x "$BIN" ]]; then
        if "$BIN" inventory --ray "$DASHBOARD" --format json > "$OUT/$shape/inventory.json.tmp"; then
            mv "$OUT/$shape/inventory.json.tmp" "$OUT/$shape/inventory.json"
        else
            log "$shape: resource-pool inventory --ray $DASHBOARD failed"
            rm -f "$OUT/$shape/inventory.json.tmp"
        fi
    else
        log "$shape: no $BIN (cargo build): no inventory.json captured"
    fi
    [[ $first_shape -eq 1 ]] || echo "," >> "$TIMINGS.tmp"
    first_shape=0
    printf '"%s": {"cluster_up_s": %s, "releases": {' "$shape" "$up_s" >> "$TIMINGS.tmp"
    first=1
    for v in "${RELEASES[@]}"; do
        t=$(now)
        if ! "$HERE/python" "$v" "$HERE/run_verl.py" --address "$ADDRESS" ${HARNESS_ARGS[@]+"${HARNESS_ARGS[@]}"} < "$cases" > "$OUT/$shape/$v.json.tmp" 2> "$OUT/$shape/$v.log"; then
            log "$shape: verl $v harness failed; see $OUT/$shape/$v.log"
            tail -5 "$OUT/$shape/$v.log" >&2
            continue
        fi
        mv "$OUT/$shape/$v.json.tmp" "$OUT/$shape/$v.json"
        s=$(since "$t")
        log "$shape: verl $v done in $s s -> $OUT/$shape/$v.json"
        [[ $first -eq 1 ]] || printf ', ' >> "$TIMINGS.tmp"
        first=0
        printf '"%s": %s' "$v" "$s" >> "$TIMINGS.tmp"
    done
    t=$(now)
    stop_cluster
    printf '}, "cluster_down_s": %s}' "$(since "$t")" >> "$TIMINGS.tmp"
done
echo "}}" >> "$TIMINGS.tmp"
mv "$TIMINGS.tmp" "$TIMINGS"
"$PY" "$HERE/summarize.py" "$OUT" "${SHAPES[@]}"
