#!/usr/bin/env bash
# The drop-ins' speed: `sqlwitness spider-eval` against the Spider test-suite
# evaluator's evaluation.py, `sqlwitness bird-eval` against BIRD dev's
# evaluation.py and evaluation_ves.py and BIRD mini-dev's evaluation_ex.py,
# evaluation_f1.py and evaluation_ves.py, on the same inputs, several runs each; prints each
# command's mean wall time (and σ) for both and the ratio
# (docs/measurements/dropin-speed.md).
# The official scripts run from the folders given, never from the repository.
#
# Usage: scripts/bench-dropins.sh [RUNS]   (default 3)
#   SPIDER_EVAL_SRC  a copy of test-suite-sql-eval (evaluation.py and its
#                    modules; nltk's punkt data or the workaround in
#                    docs/measurements/official-spider-evaluator.md)
#   SPIDER_GOLD, SPIDER_PRED, SPIDER_DB, SPIDER_TABLE
#                    Spider's gold (`SQL<TAB>db_id` a line), predictions
#                    (one a line), database folder and tables.json; every
#                    database the gold names must be there (the official
#                    evaluator stops on a missing one)
#   BIRD_DEV_SRC     the folder of BIRD dev's evaluation.py and
#                    evaluation_ves.py (DAMO-ConvAI: bird/llm/src)
#   MINIDEV_SRC      the folder of mini-dev's evaluation_ex.py,
#                    evaluation_f1.py, evaluation_ves.py and evaluation_utils.py (mini_dev:
#                    evaluation)
#   BIRD_GOLD, BIRD_PRED, BIRD_DB, BIRD_QUESTIONS
#                    BIRD's gold (`SQL<TAB>db_id`), predictions (BIRD JSON),
#                    database folder and questions (a JSON array with
#                    `difficulty`, as mini_dev_sqlite.json)
#   PYTHON           the Python that runs the official scripts (numpy,
#                    func_timeout, sqlparse, nltk; mini-dev also imports
#                    psycopg2 and pymysql); default python3
#   SQLWITNESS       the binary (default: target/debug/sqlwitness)
#   SKIP_VES=1       leave the VES commands out (they time 100 runs a
#                    question)
set -euo pipefail

RUNS=${1:-3}
for v in SPIDER_EVAL_SRC SPIDER_GOLD SPIDER_PRED SPIDER_DB SPIDER_TABLE BIRD_DEV_SRC MINIDEV_SRC \
    BIRD_GOLD BIRD_PRED BIRD_DB BIRD_QUESTIONS; do
    if [ -z "${!v:-}" ]; then
        echo "bench-dropins: set $v (see the head of this script)" >&2
        exit 2
    fi
done
PYTHON=${PYTHON:-python3}
SQLWITNESS=$(realpath "${SQLWITNESS:-target/debug/sqlwitness}")
abs() { realpath "$1"; }
SPIDER_EVAL_SRC=$(abs "$SPIDER_EVAL_SRC")
SPIDER_GOLD=$(abs "$SPIDER_GOLD")
SPIDER_PRED=$(abs "$SPIDER_PRED")
SPIDER_DB=$(abs "$SPIDER_DB")
SPIDER_TABLE=$(abs "$SPIDER_TABLE")
BIRD_DEV_SRC=$(abs "$BIRD_DEV_SRC")
MINIDEV_SRC=$(abs "$MINIDEV_SRC")
BIRD_DB=$(abs "$BIRD_DB")/
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# BIRD dev's scripts read fixed names under their path prefixes, and the
# difficulties as a JSON array; mini-dev's read them as JSON lines.
mkdir -p "$WORK/gold" "$WORK/pred"
cp "$BIRD_GOLD" "$WORK/gold/dev_gold.sql"
cp "$BIRD_PRED" "$WORK/pred/predict_dev.json"
"$PYTHON" - "$BIRD_QUESTIONS" "$WORK" <<'EOF'
import json, sys
qs = json.load(open(sys.argv[1]))
json.dump([{"difficulty": q["difficulty"]} for q in qs], open(sys.argv[2] + "/diff.json", "w"))
open(sys.argv[2] + "/diff.jsonl", "w").write(
    "".join(json.dumps({"difficulty": q["difficulty"]}) + "\n" for q in qs))
EOF

# Mean and σ of the wall seconds of RUNS runs of a command.
timed() {
    local times=() t0
    for _ in $(seq "$RUNS"); do
        t0=$(date +%s%N)
        "$@" >/dev/null 2>&1 || { echo "bench-dropins: failed: $*" >&2; exit 1; }
        times+=("$(( $(date +%s%N) - t0 ))")
    done
    printf '%s\n' "${times[@]}" | awk '{ s += $1 / 1e9; q += ($1 / 1e9) ^ 2; n++ }
        END { m = s / n; v = q / n - m * m; printf "%.4f %.4f\n", m, (v > 0 ? sqrt(v) : 0) }'
}

row() {
    local name=$1 official=$2 ours=$3
    read -r om os <<<"$official"
    read -r sm ss <<<"$ours"
    awk -v n="$name" -v om="$om" -v os="$os" -v sm="$sm" -v ss="$ss" \
        'BEGIN { printf "| %s | %.3f s ± %.3f | %.3f s ± %.3f | %.1f× |\n", n, om, os, sm, ss, om / sm }'
}

spider() ( cd "$SPIDER_EVAL_SRC" && "$PYTHON" evaluation.py "$@" )
bird_dev() ( cd "$BIRD_DEV_SRC" && "$PYTHON" "$@" )
minidev() ( cd "$MINIDEV_SRC" && "$PYTHON" "$@" )

SPIDER_FLAGS=(--gold "$SPIDER_GOLD" --pred "$SPIDER_PRED" --db "$SPIDER_DB" --table "$SPIDER_TABLE")
DEV_FLAGS=(--predicted_sql_path "$WORK/pred/" --ground_truth_path "$WORK/gold/" --data_mode dev
    --db_root_path "$BIRD_DB" --diff_json_path "$WORK/diff.json")
MINIDEV_FLAGS=(--predicted_sql_path "$BIRD_PRED" --ground_truth_path "$BIRD_GOLD"
    --db_root_path "$BIRD_DB" --diff_json_path "$WORK/diff.jsonl" --sql_dialect SQLite
    --output_log_path "$WORK/log.txt")

echo "| command | official | sqlwitness | official / sqlwitness |"
echo "|---|---:|---:|---:|"
for etype in exec match all; do
    row "spider-eval --etype $etype" \
        "$(timed spider "${SPIDER_FLAGS[@]}" --etype "$etype")" \
        "$(timed "$SQLWITNESS" spider-eval "${SPIDER_FLAGS[@]}" --etype "$etype" -q)"
done
row "bird-eval (mini-dev evaluation_ex.py)" \
    "$(timed minidev evaluation_ex.py "${MINIDEV_FLAGS[@]}")" \
    "$(timed "$SQLWITNESS" bird-eval "${MINIDEV_FLAGS[@]}" -q)"
row "bird-eval --f1 (mini-dev evaluation_f1.py)" \
    "$(timed minidev evaluation_f1.py "${MINIDEV_FLAGS[@]}")" \
    "$(timed "$SQLWITNESS" bird-eval "${MINIDEV_FLAGS[@]}" --f1 -q)"
row "bird-eval --data_mode dev (evaluation.py)" \
    "$(timed bird_dev evaluation.py "${DEV_FLAGS[@]}")" \
    "$(timed "$SQLWITNESS" bird-eval "${DEV_FLAGS[@]}" -q)"
if [ -z "${SKIP_VES:-}" ]; then
    row "bird-eval --data_mode dev --ves (evaluation_ves.py)" \
        "$(timed bird_dev evaluation_ves.py "${DEV_FLAGS[@]}")" \
        "$(timed "$SQLWITNESS" bird-eval "${DEV_FLAGS[@]}" --ves -q)"
    row "bird-eval --ves (mini-dev evaluation_ves.py)" \
        "$(timed minidev evaluation_ves.py "${MINIDEV_FLAGS[@]}")" \
        "$(timed "$SQLWITNESS" bird-eval "${MINIDEV_FLAGS[@]}" --ves -q)"
fi
