#!/usr/bin/env bash
# Benchmark (not a test): `eval` of golds that return hundreds of thousands
# of rows, on every engine. Generates (once, cached in OUT) a Spider-layout
# benchmark of one SQLite table of N rows (integer key, short text, real,
# date as text) and two questions that return every row (one unordered,
# matched by the prediction; one ordered, predicted in the reverse order),
# then runs `eval` (`--jobs 1` unless told) on SQLite alone and on every engine,
# timed with /usr/bin/time (wall time, peak RSS of the client).
#
# Usage: scripts/bench-large-result.sh [--rows N] [--out DIR] [--bin PATH] [--engines LIST]
#                                      [--max-result-mb LIST] [--jobs N]
# Default N = 500,000; --bin target/release/sqlwitness; the servers from
# SQLWITNESS_<ENGINE>_URL. Each run is made once per --max-result-mb value
# (default "64,400"): at 64 MB (the default) the 500,000-row results are
# over the limit and compared by their rows' keys; at 400 MB they are held
# as values. --jobs (default 1) is eval's: questions judged at once.
set -euo pipefail
cd "$(dirname "$0")/.."

rows=500000
out=bench-out/large-result
bin=target/release/sqlwitness
engines=sqlite,postgres,mysql,mariadb
limits=64,400
jobs=1
while [ $# -gt 0 ]; do
  case "$1" in
    --rows) rows="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    --engines) engines="$2"; shift 2 ;;
    --max-result-mb) limits="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
bench="$out/bench-$rows"
if [ ! -f "$bench/database/bigres/bigres.sqlite" ]; then
  mkdir -p "$bench/database/bigres"
  python3 - "$bench" "$rows" <<'PY'
import json, random, sqlite3, sys
bench, rows = sys.argv[1], int(sys.argv[2])
random.seed(1)
c = sqlite3.connect(f"{bench}/database/bigres/bigres.sqlite")
c.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, score REAL, d TEXT)")
c.executemany("INSERT INTO t VALUES (?,?,?,?)",
              ((i, "name%06d" % random.randrange(10**6), random.random() * 100,
                "2020-%02d-%02d" % (1 + i % 12, 1 + i % 28)) for i in range(rows)))
c.commit()
json.dump([{"db_id": "bigres", "question": "every row", "query": "SELECT id, name, score, d FROM t"},
           {"db_id": "bigres", "question": "every row by id", "query": "SELECT id, name, score, d FROM t ORDER BY id"}],
          open(f"{bench}/dev.json", "w"))
cols = ["id", "name", "score", "d"]
json.dump([{"db_id": "bigres", "table_names_original": ["t"], "table_names": ["t"],
            "column_names_original": [[-1, "*"]] + [[0, c] for c in cols],
            "column_names": [[-1, "*"]] + [[0, c] for c in cols],
            "column_types": ["text", "number", "text", "number", "text"],
            "primary_keys": [1], "foreign_keys": []}], open(f"{bench}/tables.json", "w"))
open(f"{bench}/pred.sql", "w").write(
    "SELECT id, name, score, d FROM t\nSELECT id, name, score, d FROM t ORDER BY id DESC\n")
PY
fi
results="$out/results.md"
echo "| engines | rows | --jobs | --max-result-mb | wall | peak RSS | verdicts |" > "$results"
echo "|---|---:|---:|---:|---:|---:|---|" >> "$results"
for e in sqlite "$engines"; do
  # Migrate first (not timed), so that the timed run is the comparison.
  "$bin" migrate --bench "$bench" --engines "$e" -q >/dev/null 2>&1 || true
  for mb in ${limits//,/ }; do
    rm -rf "$out/run"
    /usr/bin/time -f "%e %M" -o "$out/time.txt" "$bin" eval --bench "$bench" --pred "$bench/pred.sql" \
      --engines "$e" --out "$out/run" -q --max-result-mb "$mb" --jobs "$jobs" >/dev/null 2>&1 || true
    read -r wall rss < "$out/time.txt"
    verdicts=$(python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
print("; ".join(", ".join(f"{e} {o['"'"'verdict'"'"']}" + (f" ({o['"'"'reason'"'"']})" if o.get("reason") else "")
                          for e, o in sorted(q["engines"].items())) for q in r["questions"]))' "$out/run/report.json")
    echo "| $e | $rows | $jobs | $mb | ${wall} s | $((rss / 1024)) MB | $verdicts |" >> "$results"
  done
done
cat "$results"
