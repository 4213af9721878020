#!/usr/bin/env bash
# Benchmark (not a test): test-suite evaluation over Spider dev in `--compare spider`
# mode, sqlwitness vs a sequential Python baseline doing the work the official
# evaluator's execution path does (scripts/python_suite_baseline.py: every .sqlite of
# the suite folder, one connection per query, gold rerun for every prediction).
# Usage: scripts/bench-suite.sh [BENCH_DIR] [SUITES_DIR] [PRED_FILE]
# Builds the suites (seed 42) and a mutated prediction file (seed 2024) when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
bench="${1:-../shared/data/spider}"
suites="${2:-out/suites}"
pred="${3:-out/mutants-2024.sql}"
cargo build --release -q -p sqlwitness-cli
bin=target/release/sqlwitness
[ -f "$suites/manifest.json" ] || $bin fuzz --bench "$bench" --split dev --out "$suites" --seed 42 -q
[ -f "$pred" ] || $bin fuzz --bench "$bench" --split dev --mutants --seed 2024 --out "$pred"
out=$(mktemp -d)
echo "== sqlwitness eval --suite --compare spider"
/usr/bin/env time -f "%e s wall" $bin eval --bench "$bench" --split dev --pred "$pred" \
  --suite "$suites" --compare spider --no-witness --out "$out/rs" -q
echo "== python baseline (sequential, no gold cache)"
/usr/bin/env time -f "%e s wall" python3 scripts/python_suite_baseline.py "$bench" "$suites" "$pred"
rm -rf "$out"
