#!/usr/bin/env bash
# The guard (`python -m resource_pool.guard`, docs/python.md) with verl's released wheels on a
# loopback Ray cluster (tests/verl/cluster.py), release by release:
#
#   1. verl's own `-m verl.trainer.main_ppo`, run under the guard as a user runs it, on a
#      cluster where `trainer.nnodes=2` hangs (the head has 8 CPUs: no group of 8 bundles fits
#      it): the guard stops the run from inside verl's TaskRunner actor within seconds, exit
#      status 3, naming global_pool; the pools the guard saw are the ones
#      `resource-pool verl --python` builds for the same line (tests/guard/check.py).
#      Then another job holds the GPUs: the guard says the pool waits on it, and stops once
#      `--wait` runs out.
#   2. the harness (tests/verl/run_verl.py: verl's own start-up on every case of a shape)
#      under the guard: what verl places or refuses comes out the same as without the guard
#      (scripts/verl-compare's sample, run before: its cases and results), and every case verl hangs
#      on is stopped by the guard naming the pool, before the harness's hang timeout.
#
#   tests/guard/run.sh                 both, all five releases
#   RP_VERL_RELEASES="0.9.1" tests/guard/run.sh
#   RP_GUARD_WAIT_RELEASES="0.5.0 0.9.1" tests/guard/run.sh   (the --wait test on these only)
#
# Needs the verl environments (scripts/verl-envs) and the wheel of `tests/python/run.sh
# suite` (target/python-wheels), which is installed into .venv/verl/rp-site (--no-deps).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/tests/guard"
RELEASES=(${RP_VERL_RELEASES:-0.5.0 0.6.1 0.7.1 0.8.0 0.9.1})
ENVS="${RP_VERL_ENVS:-$ROOT/.venv/verl}"
PY="$ENVS/base/bin/python"
# Part 2 replays the cases and results of scripts/verl-compare's sample (run before it).
OUT="${RP_VERL_OUT:-$ROOT/target/verl-compare/sample}"
CASES="${RP_VERL_CASES:-$OUT/cases}"
GUARD_OUT="$ROOT/target/guard-results"
SITE="$ENVS/rp-site"
BIN="${RP_BIN:-$ROOT/target/debug/resource-pool}"
ADDRESS=127.0.0.2:27390
SHAPES=(${RP_GUARD_SHAPES:-big_and_small zero_cpu_head})
# The releases of the --wait test (1b): every one unless RP_GUARD_WAIT_RELEASES says fewer.
WAIT_RELEASES=(${RP_GUARD_WAIT_RELEASES:-${RELEASES[@]}})

log() { printf '[guard run.sh %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

wheel=("$ROOT"/target/python-wheels/resource_pool-*.whl)
[[ -f "${wheel[0]}" ]] || { echo "no wheel in target/python-wheels: run tests/python/run.sh suite" >&2; exit 1; }
rm -rf "$SITE"
"$PY" -m pip install --quiet --disable-pip-version-check --no-deps --no-compile --target "$SITE" "${wheel[0]}"
export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}"
rm -rf "$GUARD_OUT" && mkdir -p "$GUARD_OUT"
# Hydra writes outputs/DATE/TIME in the working directory: here, not in the checkout.
cd "$GUARD_OUT"

OTHER=""
down() {
    [[ -n "$OTHER" ]] && kill "$OTHER" 2>/dev/null
    "$PY" "$ROOT/tests/verl/cluster.py" down >/dev/null 2>&1 || true
}
trap down EXIT

# ---- 1. verl's own main_ppo under the guard ----------------------------------------------------
MODEL="$GUARD_OUT/model"
DATA="$GUARD_OUT/data.parquet"
"$PY" "$HERE/fixtures.py" "$MODEL" "$DATA"
down
"$PY" "$ROOT/tests/verl/cluster.py" up "cpu_short_head@$HERE/shapes.json" >/dev/null
line_of() { # trainer.nnodes -> the line, in $line
    line=(-m verl.trainer.main_ppo "trainer.nnodes=$1" trainer.n_gpus_per_node=8
        "actor_rollout_ref.model.path=$MODEL" "critic.model.path=$MODEL"
        "data.train_files=$DATA" "data.val_files=$DATA" data.train_batch_size=16
        actor_rollout_ref.actor.ppo_mini_batch_size=16 critic.ppo_mini_batch_size=16
        actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4
        actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4
        critic.ppo_micro_batch_size_per_gpu=4
        trainer.logger=console)
}
for v in "${RELEASES[@]}"; do
    for nodes in 2; do
        line_of "$nodes"
        log "verl $v: main_ppo trainer.nnodes=$nodes under the guard"
        start=$(date +%s.%N)
        set +e
        RAY_ADDRESS=$ADDRESS RESOURCE_POOL_GUARD_LOG="$GUARD_OUT/$v.seen.jsonl" timeout 600 \
            "$ROOT/tests/verl/python" "$v" -m resource_pool.guard "${line[@]}" \
            >"$GUARD_OUT/$v.main.out" 2>"$GUARD_OUT/$v.main.err"
        status=$?
        set -e
        seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
        log "verl $v: exit $status after ${seconds}s"
        printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$ROOT/tests/verl/python" "$v" >"$GUARD_OUT/python-$v"
        chmod +x "$GUARD_OUT/python-$v"
        (cd "$GUARD_OUT" && "$BIN" verl --python "$GUARD_OUT/python-$v" --format json \
            --cluster "$HERE/cpu_short_head.toml" -- python3 "${line[@]}" >"$GUARD_OUT/$v.probe.json" || true)
        "$PY" "$HERE/check.py" main --release "$v" --status "$status" --seconds "$seconds" \
            --stderr "$GUARD_OUT/$v.main.err" --seen "$GUARD_OUT/$v.seen.jsonl" --probe "$GUARD_OUT/$v.probe.json"
        (cd "$GUARD_OUT" && "$ROOT/tests/verl/python" "$v" "$HERE/python_api.py" "$v" "$HERE/cpu_short_head.toml" \
            "$GUARD_OUT/$v.probe.json" python3 "${line[@]}")
    done
done

# ---- 1b. a pool that waits on another job ------------------------------------------------------
# Another job holds the worker's GPUs and two of the head's CPUs: verl's own check still counts
# 8 free GPUs (the head's), but no node fits a group of trainer.nnodes=1 until the other job
# ends. The guard says what it waits on, and stops when --wait runs out.
WAIT_S=15
"$PY" "$HERE/other_job.py" "$ADDRESS" '[{"GPU": 8, "CPU": 9}]' '[{"CPU": 2, "guard_head": 1}]' \
    >"$GUARD_OUT/other_job.out" 2>&1 &
OTHER=$!
for _ in $(seq 60); do grep -q held "$GUARD_OUT/other_job.out" && break; sleep 1; done
grep -q held "$GUARD_OUT/other_job.out" || { cat "$GUARD_OUT/other_job.out" >&2; exit 1; }
line_of 1
for v in "${WAIT_RELEASES[@]}"; do
    log "verl $v: main_ppo trainer.nnodes=1 under the guard --wait ${WAIT_S}s, another job holding the GPUs"
    start=$(date +%s.%N)
    set +e
    RAY_ADDRESS=$ADDRESS RESOURCE_POOL_GUARD_LOG="$GUARD_OUT/$v.wait.jsonl" timeout 600 \
        "$ROOT/tests/verl/python" "$v" -m resource_pool.guard --wait "${WAIT_S}s" \
        "${line[@]}" >"$GUARD_OUT/$v.wait.out" 2>"$GUARD_OUT/$v.wait.err"
    status=$?
    set -e
    seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    "$PY" "$HERE/check.py" wait --release "$v" --status "$status" --seconds "$seconds" \
        --stderr "$GUARD_OUT/$v.wait.err" --seen "$GUARD_OUT/$v.wait.jsonl" --wait "$WAIT_S"
done
kill "$OTHER" 2>/dev/null || true
OTHER=""
down

# ---- 2. the harness under the guard -----------------------------------------------------------
for shape in "${SHAPES[@]}"; do
    "$PY" "$ROOT/tests/verl/cluster.py" up "$shape@$ROOT/tests/verl/shapes.json" >/dev/null
    for v in "${RELEASES[@]}"; do
        log "verl $v: the harness on $shape under the guard"
        "$ROOT/tests/verl/python" "$v" -m resource_pool.guard "$ROOT/tests/verl/run_verl.py" --address "$ADDRESS" \
            <"$CASES/$shape.json" >"$GUARD_OUT/$shape.$v.json" 2>"$GUARD_OUT/$shape.$v.log" || true
        "$PY" "$HERE/check.py" harness --release "$v" --guarded "$GUARD_OUT/$shape.$v.json" --plain "$OUT/$shape/$v.json"
    done
    down
done
log "all guard checks passed"
