#!/usr/bin/env bash
# Benchmark (not a test): wall time of the SQLite gold self-check over Spider dev,
# next to a sequential Python baseline that does the same work the way the official
# evaluator does it (one sqlite3 connection per query, gold and prediction run one
# after the other, fetchall, compare).
# Usage: scripts/bench-selfcheck.sh [BENCH_DIR]   (default ../shared/data/spider)
set -euo pipefail
cd "$(dirname "$0")/.."
bench="${1:-../shared/data/spider}"
cargo build --release -q -p sqlwitness-cli
bin=target/release/sqlwitness
out=$(mktemp -d)
cmd_rs="$bin eval --bench $bench --split dev --out $out/rs -q"
cmd_py="python3 scripts/python_baseline.py $bench"
if command -v hyperfine >/dev/null 2>&1; then
  hyperfine --warmup 1 --runs 5 "$cmd_rs" "$cmd_py"
else
  echo "(hyperfine not installed: apt-get install hyperfine; timing single runs)"
  for c in "$cmd_rs" "$cmd_py"; do
    echo "== $c"; /usr/bin/env time -f "%e s wall, %M KiB max RSS" $c >/dev/null
  done
fi
rm -rf "$out"
