#!/usr/bin/env bash
# Benchmark (not a test): `eval` of golds that return hundreds of thousands
# of rows, on every engine. Generates (once, cached in OUT) a Spider-layout
# benchmark of one SQLite table of N rows (integer key, short text, real,
# date as text) and two questions that return every row (one unordered,
# matched by the prediction; one ordered, predicted in the reverse order),
# then runs `eval` with `--jobs 1` on SQLite alone and on every engine,
# timed with /usr/bin/time (wall time, peak RSS of the client).
#
# Usage: scripts/bench-large-result.sh [--rows N] [--out DIR] [--bin PATH] [--engines LIST]
# Default N = 500,000; --bin target/release/sqlwitness; the servers from
# SQLWITNESS_<ENGINE>_URL. The result limit is raised to 400 MB
# (--max-result-mb): at the default 64 MB such a gold is a resource_limit
# gold error.
set -euo pipefail
cd "$(dirname "$0")/.."

rows=500000
out=bench-out/large-result
bin=target/release/sqlwitness
engines=sqlite,postgres,mysql,mariadb
while [ $# -gt 0 ]; do
  case "$1" in
    --rows) rows="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    --engines) engines="$2"; shift 2 ;;
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
echo "| engines | rows | wall | peak RSS |" > "$results"
echo "|---|---:|---:|---:|" >> "$results"
for e in sqlite "$engines"; do
  rm -rf "$out/run"
  # Migrate first (not timed), so that the timed run is the comparison.
  "$bin" migrate --bench "$bench" --engines "$e" -q >/dev/null 2>&1 || true
  /usr/bin/time -f "%e %M" -o "$out/time.txt" "$bin" eval --bench "$bench" --pred "$bench/pred.sql" \
    --engines "$e" --out "$out/run" -q --max-result-mb 400 --jobs 1 >/dev/null 2>&1 || true
  read -r wall rss < "$out/time.txt"
  echo "| $e | $rows | ${wall} s | $((rss / 1024)) MB |" >> "$results"
done
cat "$results"
