#!/usr/bin/env bash
# Benchmark (not a test): DuckDB beside SQLite and beside DuckDB's own bulk
# load, with a release build.
#
# Usage: scripts/bench-duckdb.sh [--rows 4M] [--runs 3] [--spider DIR] [--out DIR] [--bin PATH]
#
#   selfcheck  the gold self-check of Spider dev (DIR, default ../shared/data/spider) on
#              SQLite and on DuckDB (its copies made first, then current: --no-migrate),
#              RUNS runs each, alternating
#   floor      DuckDB's own bulk load of a BIRD-like database of ROWS rows
#              (scripts/bench-scale-data.py, as scripts/bench-scale.sh makes it): each
#              table written as CSV by sqlite3, then CREATE TABLE … AS SELECT * FROM
#              read_csv(…) in one DuckDB file, through DuckDB's own Python package (PyPI
#              `duckdb`, installed in a virtual environment under the temporary folder)
#   migrate    sqlwitness migrate --engines duckdb of the same database into an empty folder
#              (keys declared, the copy read back and verified)
#
# Every step is timed with /usr/bin/time: wall time, CPU time (user + system: steadier than
# wall time on a shared machine) and peak RSS. Output: OUT/results.md.
set -euo pipefail
cd "$(dirname "$0")/.."
rows=4M runs=3 spider=../shared/data/spider out=out/bench-duckdb bin=target/release/sqlwitness
while [ $# -gt 0 ]; do
  case "$1" in
    --rows) rows=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --spider) spider=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[ -x "$bin" ] || cargo build --release -q -p sqlwitness-cli
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
md="$out/results.md"
timed() { # label command… → "label wall_s rss_kb user_s sys_s" on stdout, the command's output in the log
  local label=$1; shift
  /usr/bin/time -f "$label %e %M %U %S" -o "$work/t" "$@" >>"$out/log.txt" 2>&1
  cat "$work/t"
}
{
  echo "# DuckDB beside SQLite and beside DuckDB's own bulk load"
  echo
  echo "$("$bin" --version), $(nproc) cores, $(date -u +%Y-%m-%d)"
  echo
  echo "## Spider dev self-check ($runs runs each)"
  echo
  echo "| engine | wall (s) | CPU (s) | peak RSS (MB) |"
  echo "|---|--:|--:|--:|"
} >"$md"
copies="$work/copies"
"$bin" eval --bench "$spider" --split dev --engines duckdb --server "duckdb=duckdb:$copies" \
  -q --out "$work/first" >>"$out/log.txt" 2>&1
for _ in $(seq "$runs"); do
  timed sqlite "$bin" eval --bench "$spider" --split dev --engines sqlite -q --out "$work/s"
  timed duckdb "$bin" eval --bench "$spider" --split dev --engines duckdb --no-migrate \
    --server "duckdb=duckdb:$copies" -q --out "$work/d"
done | awk '{printf "| %s | %.2f | %.2f | %.0f |\n", $1, $2, $4 + $5, $3 / 1024}' >>"$md"

# A BIRD-like database, as scripts/bench-scale.sh generates it.
scale="${TMPDIR:-/tmp}/sqlwitness-bench-scale/$rows"
db_id="swscale_$(tr 'A-Z.' 'a-zp' <<<"$rows")"
python3 scripts/bench-scale-data.py generate --rows "$rows" --db-id "$db_id" --out "$scale"
sqlite_file="$scale/database/$db_id/$db_id.sqlite"
total=$(python3 -c 'import json, sys; print(sum(json.load(open(sys.argv[1]))["tables"].values()))' "$scale/manifest.json")
venv="${TMPDIR:-/tmp}/sqlwitness-duckdb-py"
[ -x "$venv/bin/python" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q duckdb; }
floor() {
  local csvs="$work/csv" tables
  mkdir -p "$csvs"
  tables=$(sqlite3 "$sqlite_file" "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
  for t in $tables; do
    sqlite3 -csv -header "$sqlite_file" "SELECT * FROM \"$t\"" >"$csvs/$t.csv"
  done
  "$venv/bin/python" - "$work/floor.duckdb" "$csvs" $tables <<'PY'
import sys, duckdb
path, folder, tables = sys.argv[1], sys.argv[2], sys.argv[3:]
con = duckdb.connect(path)
for t in tables:
    con.execute(f'CREATE TABLE "{t}" AS SELECT * FROM read_csv(\'{folder}/{t}.csv\', header = true)')
con.close()
PY
}
export -f floor
export sqlite_file work venv
{
  echo
  echo "## $rows rows ($total rows in all): DuckDB's own bulk load and sqlwitness migrate"
  echo
  echo "| step | wall (s) | CPU (s) | peak RSS (MB) | rows/s |"
  echo "|---|--:|--:|--:|--:|"
} >>"$md"
{
  timed floor bash -c floor
  timed migrate "$bin" migrate --bench "$scale" --engines duckdb --server "duckdb=duckdb:$work/mig" \
    --log-dir "$work/miglog" -q
} | awk -v n="$total" '{printf "| %s | %.2f | %.2f | %.0f | %.0f |\n", $1, $2, $4 + $5, $3 / 1024, n / $2}' >>"$md"
cat "$md"
