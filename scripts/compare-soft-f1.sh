#!/usr/bin/env bash
# Soft F1: `sqlwitness bird-eval --f1` against BIRD mini-dev's evaluation_f1.py
# on the same inputs (docs/measurements/bird-soft-f1.md): the two outputs and
# logs compared byte for byte, then each question's Soft F1 from the report
# against the script's own functions run on the same pair. The script runs
# from the folder given, never from the repository.
#
# Usage: scripts/compare-soft-f1.sh
#   MINIDEV_SRC   the folder of mini-dev's evaluation_f1.py and
#                 evaluation_utils.py (bird-bench/mini_dev: evaluation)
#   GOLD, PRED    the gold (`SQL<TAB>db_id` a line) and the predictions (BIRD
#                 JSON)
#   DB            the databases' folder (`<db_id>/<db_id>.sqlite`)
#   DIFF          the difficulties, JSON lines in the gold's order
#   PYTHON        a Python with func_timeout (and psycopg2, pymysql, which
#                 evaluation_utils imports); default python3
#   SQLWITNESS    the binary (default: target/debug/sqlwitness)
set -euo pipefail
for v in MINIDEV_SRC GOLD PRED DB DIFF; do
    if [ -z "${!v:-}" ]; then
        echo "compare-soft-f1: set $v (see the head of this script)" >&2
        exit 2
    fi
done
PYTHON=${PYTHON:-python3}
SQLWITNESS=$(realpath "${SQLWITNESS:-target/debug/sqlwitness}")
MINIDEV_SRC=$(realpath "$MINIDEV_SRC")
GOLD=$(realpath "$GOLD")
PRED=$(realpath "$PRED")
DB=$(realpath "$DB")/
DIFF=$(realpath "$DIFF")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
flags=(--predicted_sql_path "$PRED" --ground_truth_path "$GOLD" --db_root_path "$DB"
    --diff_json_path "$DIFF" --sql_dialect SQLite)

(cd "$MINIDEV_SRC" && "$PYTHON" evaluation_f1.py "${flags[@]}" --output_log_path "$WORK/official.log") \
    >"$WORK/official.out"
"$SQLWITNESS" bird-eval --f1 "${flags[@]}" --output_log_path "$WORK/sqlwitness.log" \
    --out "$WORK/report" -q >"$WORK/sqlwitness.out"
cat "$WORK/official.out"
for f in out log; do
    if cmp -s "$WORK/official.$f" "$WORK/sqlwitness.$f"; then
        echo "standard $f: identical"
    else
        echo "standard $f: DIFFERENT"
        diff "$WORK/official.$f" "$WORK/sqlwitness.$f" || true
    fi
done

cd "$MINIDEV_SRC"
"$PYTHON" - "$PRED" "$GOLD" "$DB" "$WORK/report/report.json" <<'PY'
import json, sys
from evaluation_f1 import calculate_f1_score
from evaluation_utils import execute_sql, package_sqls
from func_timeout import func_timeout

pred_path, gold_path, db, report = sys.argv[1:]
preds, _ = package_sqls(pred_path, db, mode="pred")
golds, dbs = package_sqls(gold_path, db, mode="gt")
questions = json.load(open(report))["questions"]
differ = 0
for i, (p, g) in enumerate(zip(preds, golds)):
    try:
        official = func_timeout(30, execute_sql, args=(p, g, dbs[i], "SQLite", calculate_f1_score))
    except Exception:
        official = 0
    ours = questions[i]["engines"]["sqlite"].get("soft_f1") or 0
    if abs(official - ours) > 1e-9:
        differ += 1
        print(f"question {i}: official {official}, sqlwitness {ours}")
print(f"{len(golds)} questions, {differ} with another Soft F1")
PY
