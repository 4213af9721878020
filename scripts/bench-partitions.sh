#!/usr/bin/env bash
# Measures the journal's cost and partitioned runs with one binary, back to back
# (docs/measurements/runs.md):
#  1. the journal's cost: the SQLite gold self-check of Spider dev, wall time
#     (hyperfine), against an older binary without a journal when BASE_BIN is
#     given;
#  2. Spider train (train_gold.sql, 8,659 golds) on sqlite,postgres,mysql:
#     eval and audit in one process, then as two partitions run back to back
#     plus merge, checking that the merged outputs equal the one-process ones
#     (times aside).
#
# Usage: scripts/bench-partitions.sh            (release binary in target/)
#   SQLWITNESS_BIN=… BASE_BIN=… RUNS=5 OUT=/tmp/bench-partitions
# Servers from SQLWITNESS_POSTGRES_URL / SQLWITNESS_MYSQL_URL.
set -euo pipefail

cd "$(dirname "$0")/.."
BIN=${SQLWITNESS_BIN:-target/release/sqlwitness}
BASE_BIN=${BASE_BIN:-}
RUNS=${RUNS:-5}
OUT=${OUT:-/tmp/bench-partitions}
SPIDER=${SPIDER:-../shared/data/spider}
ENGINES=${ENGINES:-sqlite,postgres,mysql}
: "${SQLWITNESS_POSTGRES_URL:?set SQLWITNESS_POSTGRES_URL}"
: "${SQLWITNESS_MYSQL_URL:?set SQLWITNESS_MYSQL_URL}"
mkdir -p "$OUT"

now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }

# The reports without what differs between two runs of one plan.
same() {
    python3 - "$1" "$2" <<'EOF'
import json, sys
def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k not in ("duration_ms", "peak_rss_bytes")}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v
a, b = (strip(json.load(open(p))) for p in sys.argv[1:])
print("identical" if a == b else "DIFFERENT")
sys.exit(0 if a == b else 1)
EOF
}

echo "== 1. journal cost: SQLite self-check of Spider dev ($RUNS runs)"
cmds=("$BIN eval --bench $SPIDER --split dev -q --out $OUT/selfcheck")
if [[ -n "$BASE_BIN" ]]; then
    cmds+=("$BASE_BIN eval --bench $SPIDER --split dev -q --out $OUT/selfcheck-base")
fi
hyperfine --warmup 1 --runs "$RUNS" -i "${cmds[@]}" --export-json "$OUT/selfcheck.json" 2>&1 | grep -v '^ *$'

echo "== 2. Spider train on $ENGINES"
echo "-- migration (not timed below)"
"$BIN" migrate --bench "$SPIDER" --split train --engines "${ENGINES#sqlite,}" -q >/dev/null || true
for cmd in eval audit; do
    extra=()
    if [[ $cmd == eval ]]; then extra=(--compare spider); fi
    rm -rf "$OUT/train-$cmd" "$OUT/train-$cmd-1" "$OUT/train-$cmd-2" "$OUT/train-$cmd-merged"
    t=$(now)
    "$BIN" "$cmd" --bench "$SPIDER" --split train --engines "$ENGINES" "${extra[@]}" -q \
        --out "$OUT/train-$cmd" 2>"$OUT/train-$cmd.log" || echo "($cmd exited $?)"
    one=$(since "$t")
    t=$(now)
    for k in 1 2; do
        "$BIN" "$cmd" --bench "$SPIDER" --split train --engines "$ENGINES" "${extra[@]}" -q \
            --partition "$k/2" --out "$OUT/train-$cmd-$k" 2>"$OUT/train-$cmd-$k.log" ||
            echo "($cmd part $k exited $?)"
    done
    parts=$(since "$t")
    t=$(now)
    "$BIN" merge --out "$OUT/train-$cmd-merged" "$OUT/train-$cmd-1" "$OUT/train-$cmd-2" \
        2>"$OUT/train-$cmd-merge.log" || echo "(merge exited $?)"
    merge=$(since "$t")
    file=report.json
    if [[ $cmd == audit ]]; then file=audit.json; fi
    verdict=$(same "$OUT/train-$cmd/$file" "$OUT/train-$cmd-merged/$file" || true)
    printf '%s: one process %.1f s; two partitions back to back %.1f s + merge %.2f s; merged vs one process: %s\n' \
        "$cmd" "$one" "$parts" "$merge" "$verdict"
    tail -n 4 "$OUT/train-$cmd.log"
done
