#!/usr/bin/env bash
# VES and R-VES: BIRD's official scripts against sqlwitness on the same
# inputs, several runs each (docs/measurements/ves-official-timing.md).
#
# BIRD mini-dev's SQLite gold and predictions on stand-in databases built
# from its dev_tables.json; BIRD dev's evaluation_ves.py against
# `sqlwitness bird-eval --data_mode dev --ves`, mini-dev's evaluation_ves.py
# (R-VES) against `sqlwitness eval --ves-runs 100`. The official scripts are
# run from copies in the work folder, never from the repository.
#
# Usage: scripts/bench-ves-timing.sh [RUNS]
#   BIRD_DEV_SRC   a checkout's folder holding BIRD dev's evaluation_ves.py
#                  (AlibabaResearch/DAMO-ConvAI: bird/llm/src)
#   MINIDEV_SRC    a checkout's folder holding mini-dev's evaluation_ves.py
#                  and evaluation_utils.py (bird-bench/mini_dev: evaluation)
#   MINIDEV        BIRD mini-dev's data folder (mini_dev_sqlite.json,
#                  dev_tables.json)
#   PRED           the SQLite predictions, BIRD JSON (default
#                  $MINIDEV/predictions/predict_mini_dev_gpt-4-turbo_sqlite.json)
#   PYTHON         a Python with numpy and func_timeout (mini-dev also
#                  imports psycopg2 and pymysql); default python3
#   SQLWITNESS     the binary (default: target/debug/sqlwitness)
#   WORK           the work folder (default: a new temporary folder)
set -euo pipefail

RUNS=${1:-3}
: "${BIRD_DEV_SRC:?set BIRD_DEV_SRC to the folder of BIRD dev evaluation_ves.py}"
: "${MINIDEV_SRC:?set MINIDEV_SRC to the folder of the mini-dev evaluation_ves.py}"
: "${MINIDEV:?set MINIDEV to the BIRD mini-dev data folder}"
PRED=${PRED:-$MINIDEV/predictions/predict_mini_dev_gpt-4-turbo_sqlite.json}
PYTHON=${PYTHON:-python3}
SQLWITNESS=${SQLWITNESS:-target/debug/sqlwitness}
SQLWITNESS=$(realpath "$SQLWITNESS")
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$WORK"
cd "$WORK"

# The inputs: stand-in databases, BIRD dev's layout (dev_gold.sql,
# predict_dev.json, a difficulty list) and mini-dev's (a gold file, JSON
# lines of difficulties), the scripts copied.
"$SQLWITNESS" stand-ins --tables "$MINIDEV/dev_tables.json" --out bench/dev_databases >/dev/null
mkdir -p golds exp minidev dev
cp "$MINIDEV/mini_dev_sqlite.json" "$MINIDEV/dev_tables.json" bench/
cp "$PRED" exp/predict_dev.json
"$PYTHON" - "$MINIDEV/mini_dev_sqlite.json" <<'EOF'
import json, sys
qs = json.load(open(sys.argv[1]))
gold = "".join(q["SQL"].strip() + "\t" + q["db_id"] + "\n" for q in qs)
open("golds/dev_gold.sql", "w").write(gold)
open("minidev/gold.sql", "w").write(gold)
json.dump([{"difficulty": q["difficulty"]} for q in qs], open("golds/dev.json", "w"))
open("minidev/diff.jsonl", "w").write(
    "".join(json.dumps({"difficulty": q["difficulty"]}) + "\n" for q in qs))
EOF
# R-VES of report.json, the official timing's and sqlwitness's.
cat >r_ves.py <<'EOF'
import json, sys
v = json.load(open(sys.argv[1]))["summary"]["engines"]["sqlite"]["ves"]
print(f'{v["official"]["r_ves"]:.2f} {v["r_ves"]:.2f}')
EOF
cp "$BIRD_DEV_SRC/evaluation_ves.py" dev/
cp "$MINIDEV_SRC/evaluation_ves.py" "$MINIDEV_SRC/evaluation_utils.py" minidev/

total() { awk -v row="$1" '$1 == row && NF == 5 { v = $NF } END { print v }'; }

printf '| run | dev script VES | sqlwitness VES (official timing) | sqlwitness VES (sqlite_steps) | mini-dev script R-VES | sqlwitness R-VES (official timing) | sqlwitness R-VES (sqlite_steps) |\n'
printf '|---:|---:|---:|---:|---:|---:|---:|\n'
for run in $(seq "$RUNS"); do
    dev=$("$PYTHON" dev/evaluation_ves.py --predicted_sql_path exp/ --ground_truth_path golds/ \
        --data_mode dev --db_root_path bench/dev_databases/ --diff_json_path golds/dev.json | total ves)
    sw=$("$SQLWITNESS" bird-eval --predicted_sql_path exp/ --ground_truth_path golds/ --data_mode dev \
        --db_root_path bench/dev_databases/ --diff_json_path golds/dev.json --ves -q 2>/dev/null)
    sw_official=$(total ves <<<"$sw")
    sw_steps=$(awk '$1 == "ves" && $2 == "(sqlite_steps)" { v = $NF } END { print v }' <<<"$sw")
    mini=$(cd minidev && "$PYTHON" evaluation_ves.py --predicted_sql_path ../exp/predict_dev.json \
        --ground_truth_path gold.sql --db_root_path ../bench/dev_databases/ \
        --diff_json_path diff.jsonl --sql_dialect SQLite --output_log_path log.txt | total R-VES)
    "$SQLWITNESS" eval --bench bench --split mini_dev --engines sqlite --pred exp/predict_dev.json \
        --compare bird --ves-runs 100 -j 1 -q --out "out-$run" >/dev/null 2>&1
    read -r r_official r_steps < <("$PYTHON" r_ves.py "out-$run/report.json")
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$run" "$dev" "$sw_official" "$sw_steps" \
        "$mini" "$r_official" "$r_steps"
done
