#!/usr/bin/env bash
# The scores demonstration on Spider dev, three engines: two runs of
# synthetic predictions (scripts/make-predictions.py), `eval --baseline`,
# `sqlwitness diff`, strict vs Spider verdicts, and the HTML screenshot.
# Every output stays in WORK_DIR; docs/measurements/scores.md has the
# figures of a run. WORK_DIR/sample-40/report.json is the kind of report
# crates/sqlwitness-report/tests/outputs/ holds for the schema test.
#
#   SQLWITNESS_POSTGRES_URL=… SQLWITNESS_MYSQL_URL=… scripts/score-demo.sh [WORK_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
spider=${SPIDER:-../shared/data/spider}
bin=${SQLWITNESS_BIN:-target/debug/sqlwitness}
[ -n "${SQLWITNESS_BIN:-}" ] || cargo build -q -p sqlwitness-cli || exit 1
engines=sqlite,postgres,mysql
python3 scripts/make-predictions.py "$spider/dev.json" "$work/predA" --seed 1
python3 scripts/make-predictions.py "$spider/dev.json" "$work/predB" \
    --degrade "$work/predA/predictions.jsonl" --rate 0.03 --seed 7
cp "$work"/predA/*.ids "$work/predB/"
run() { # name pred-dir extra-args…
    local name=$1 pred=$2; shift 2
    "$bin" eval --bench "$spider" --split dev --pred "$pred/predictions.jsonl" \
        --infeasible "$pred/infeasible.ids" --calibrate-on "$pred/calibrate.ids" \
        --engines "$engines" --out "$work/$name" -q "$@"
    echo "eval $name: exit $?"
}
run runA "$work/predA" --legacy
run runB "$work/predB" --baseline "$work/runA/report.json" --tolerance 0.01
run runAspider "$work/predA" --compare spider
"$bin" diff "$work/runA/report.json" "$work/runB/report.json" --tolerance 0.01 > "$work/diff-A-B.md"
echo "diff A B --tolerance 0.01: exit $?"
"$bin" diff "$work/runA/report.json" "$work/runB/report.json" --tolerance 0.05 > /dev/null
echo "diff A B --tolerance 0.05: exit $?"
"$bin" diff "$work/runA/report.json" "$work/runAspider/report.json" > "$work/diff-A-strict-vs-spider.md"
echo "diff strict spider: exit $?"
head -40 "$work/predA/predictions.jsonl" > "$work/predA40.jsonl"
"$bin" eval --bench "$spider" --split dev --pred "$work/predA40.jsonl" --limit 40 \
    --infeasible "$work/predA/infeasible.ids" --calibrate-on "$work/predA/calibrate.ids" \
    --engines "$engines" --out "$work/sample-40" -q
scripts/render-report.sh "$work/runA/report.html" "$work/runA.png" 1400,2000
echo "outputs in $work"
