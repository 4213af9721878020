#!/usr/bin/env bash
# Installs the package into a fresh virtual environment with pytest and runs
# the Python tests (python/tests) against the installed package.
#
# The wheel installed is SQLWITNESS_WHEEL when set (a wheel built before,
# e.g. by scripts/build-wheel.sh: CI installs the release wheel so, and runs
# the tests with no Rust toolchain on PATH); otherwise one built here with
# maturin in the `dev` profile (it reuses the test build's compiled crates;
# SQLWITNESS_WHEEL_PROFILE=release builds the release wheel instead).
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [[ -n "${SQLWITNESS_WHEEL:-}" ]]; then
    wheel="$SQLWITNESS_WHEEL"
    echo "wheel: $(basename "$wheel"), $(du -h "$wheel" | cut -f1)"
else
    tools="${TMPDIR:-/tmp}/sqlwitness-maturin"
    if [[ ! -x "$tools/bin/maturin" ]]; then
        python3 -m venv "$tools"
        "$tools/bin/pip" install -q "maturin>=1.9.4,<2"
    fi
    profile="${SQLWITNESS_WHEEL_PROFILE:-dev}"
    start=$SECONDS
    if [[ "$profile" == release ]]; then
        "$tools/bin/maturin" build --release --out "$work/wheels"
    else
        "$tools/bin/maturin" build --profile "$profile" --out "$work/wheels"
    fi
    wheel="$(ls "$work"/wheels/sqlwitness-*.whl)"
    echo "wheel ($profile): $(basename "$wheel"), $(du -h "$wheel" | cut -f1), built in $((SECONDS - start)) s"
fi
python3 -m venv "$work/venv"
start=$SECONDS
"$work/venv/bin/pip" install -q "$wheel"
echo "installed in a fresh virtual environment in $((SECONDS - start)) s"
"$work/venv/bin/pip" install -q pytest pandas tqdm
# The installed package runs without a Rust toolchain: cargo and rustc are
# left off PATH while the tests run.
no_rust_path="$(printf '%s' "$PATH" | tr ':' '\n' | grep -v -e '\.cargo' -e 'rustup' | paste -sd: -)"
PATH="$no_rust_path" "$work/venv/bin/sqlwitness" --version
if PATH="$no_rust_path" command -v cargo >/dev/null; then
    echo "warning: cargo is still on PATH ($(PATH="$no_rust_path" command -v cargo))"
fi
PATH="$no_rust_path" "$work/venv/bin/python" -m pytest -q -p no:cacheprovider python/tests "$@"
