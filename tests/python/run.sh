#!/usr/bin/env bash
# The Python module's tests, as CI runs them (scripts/test, scripts/ray-tests.sh).
#
#   tests/python/run.sh suite      build the wheel with maturin, install it into a fresh venv,
#                                  run tests/python/ there (the live tests skip: no cluster)
#   tests/python/run.sh live VENV  install the wheel built by `suite` into VENV (a Ray venv)
#                                  and run tests/python/test_live.py in it, against the cluster
#                                  that RESOURCE_POOL_RAY_URL and RESOURCE_POOL_RAY_GCS name
#
# maturin and pytest come from PyPI into .venv-py (the build's own venv, made when missing).
# The wheel is a debug build in the workspace's target dir, so that it shares the compiled
# dependencies of `cargo test`; a release wheel is what `pip install .` builds.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLS="$ROOT/.venv-py"
WHEELS="$ROOT/target/python-wheels"
FRESH="$ROOT/target/python-venv"
MATURIN_VERSION=1.16.0
PYTEST_VERSION=9.2.0
T0=$SECONDS

stamp() { printf '[python-tests +%ds] %s\n' "$((SECONDS - T0))" "$*" >&2; }

python_for_venvs() { command -v python3.11 || command -v python3; }

tools() {
    if ! "$TOOLS/bin/python" -c "import importlib.metadata as m; assert m.version('maturin') == '$MATURIN_VERSION'" 2>/dev/null; then
        stamp "installing maturin $MATURIN_VERSION into $TOOLS"
        [[ -x "$TOOLS/bin/python" ]] || "$(python_for_venvs)" -m venv "$TOOLS"
        "$TOOLS/bin/python" -m pip install --quiet --disable-pip-version-check "maturin==$MATURIN_VERSION"
    fi
}

wheel() {
    local found
    found=("$WHEELS"/resource_pool-*.whl)
    [[ -f "${found[0]}" ]] || { echo "no wheel in $WHEELS: run '$0 suite' first" >&2; exit 1; }
    echo "${found[0]}"
}

suite() {
    tools
    stamp "building the wheel (maturin build, debug)"
    rm -rf "$WHEELS"
    (cd "$ROOT" && "$TOOLS/bin/maturin" build --quiet --locked --out "$WHEELS")
    local whl
    whl="$(wheel)"
    stamp "built $(basename "$whl") ($(du -h "$whl" | cut -f1))"
    stamp "installing it into a fresh venv ($FRESH)"
    rm -rf "$FRESH"
    "$(python_for_venvs)" -m venv "$FRESH"
    "$FRESH/bin/python" -m pip install --quiet --disable-pip-version-check --no-compile \
        "$whl" "pytest==$PYTEST_VERSION" omegaconf
    stamp "running pytest tests/python"
    # The binary cargo built, when there is one, is the reference the command is compared to.
    local bin="${RESOURCE_POOL_BIN:-}"
    [[ -z "$bin" && -x "$ROOT/target/debug/resource-pool" ]] && bin="$ROOT/target/debug/resource-pool"
    (cd "$ROOT" && RESOURCE_POOL_BIN="$bin" "$FRESH/bin/python" -m pytest tests/python -q -p no:cacheprovider)
    stamp "done"
}

live() {
    local venv="${1:?VENV}"
    local whl
    whl="$(wheel)"
    stamp "installing $(basename "$whl") and pytest into $venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$whl"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "pytest==$PYTEST_VERSION"
    stamp "running pytest tests/python/test_live.py against $RESOURCE_POOL_RAY_URL"
    (cd "$ROOT" && RESOURCE_POOL_REQUIRE_RAY=1 "$venv/bin/python" -m pytest tests/python/test_live.py -q -p no:cacheprovider)
    stamp "done"
}

case "${1:-}" in
    suite) suite ;;
    live) live "${2:-}" ;;
    *) echo "usage: $0 suite | live VENV" >&2; exit 2 ;;
esac
