#!/usr/bin/env bash
# Builds the wheel (maturin, the `dev` profile: it reuses the test build's
# compiled crates), installs it into a fresh virtual environment with
# pytest, and runs the Python tests (python/tests) against the installed
# package. SQLWITNESS_WHEEL_PROFILE=release builds the release wheel instead.
set -euo pipefail
cd "$(dirname "$0")/.."
tools="${TMPDIR:-/tmp}/sqlwitness-maturin"
if [[ ! -x "$tools/bin/maturin" ]]; then
    python3 -m venv "$tools"
    "$tools/bin/pip" install -q "maturin>=1.9.4,<2"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
profile="${SQLWITNESS_WHEEL_PROFILE:-dev}"
start=$SECONDS
if [[ "$profile" == release ]]; then
    "$tools/bin/maturin" build --release --out "$work/wheels"
else
    "$tools/bin/maturin" build --profile "$profile" --out "$work/wheels"
fi
wheel="$(ls "$work"/wheels/sqlwitness-*.whl)"
echo "wheel ($profile): $(basename "$wheel"), $(du -h "$wheel" | cut -f1), built in $((SECONDS - start)) s"
python3 -m venv "$work/venv"
start=$SECONDS
"$work/venv/bin/pip" install -q "$wheel"
echo "installed in a fresh virtual environment in $((SECONDS - start)) s"
"$work/venv/bin/pip" install -q pytest pandas tqdm
"$work/venv/bin/sqlwitness" --version
"$work/venv/bin/python" -m pytest -q -p no:cacheprovider python/tests "$@"
