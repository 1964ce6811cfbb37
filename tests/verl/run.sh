#!/usr/bin/env bash
# Runs verl's own start-up code, release by release, on real loopback Ray clusters, and records
# what it does with each resource-pool layout (tests/verl/README.md).
#
#   tests/verl/run.sh [SHAPE...]          shapes of tests/verl/shapes.json (default: all)
#   RP_VERL_RELEASES="0.5.0 0.9.1" tests/verl/run.sh two_eights
#
# For each shape: start its cluster (tests/verl/cluster.py), run every release's harness on
# tests/verl/cases/SHAPE.json, stop the cluster (always, by trap), and write
# target/verl-results/SHAPE/VERSION.json; then a table of outcomes and timings.
# Builds the environments first when missing (scripts/verl-envs; seconds when present).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/tests/verl"
RELEASES=(${RP_VERL_RELEASES:-0.5.0 0.6.1 0.7.1 0.8.0 0.9.1})
OUT="${RP_VERL_OUT:-$ROOT/target/verl-results}"
PY="$ROOT/.venv/verl/base/bin/python"
ADDRESS=127.0.0.2:27390

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
    cases="$HERE/cases/$shape.json"
    [[ -f "$cases" ]] || { log "no $cases"; exit 2; }
    mkdir -p "$OUT/$shape"
    t=$(now)
    cluster_up=1
    "$PY" "$HERE/cluster.py" up "$shape@$HERE/shapes.json" > /dev/null
    up_s=$(since "$t")
    log "$shape: cluster up in $up_s s"
    [[ $first_shape -eq 1 ]] || echo "," >> "$TIMINGS.tmp"
    first_shape=0
    printf '"%s": {"cluster_up_s": %s, "releases": {' "$shape" "$up_s" >> "$TIMINGS.tmp"
    first=1
    for v in "${RELEASES[@]}"; do
        t=$(now)
        if ! "$HERE/python" "$v" "$HERE/run_verl.py" --address "$ADDRESS" < "$cases" > "$OUT/$shape/$v.json.tmp" 2> "$OUT/$shape/$v.log"; then
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
