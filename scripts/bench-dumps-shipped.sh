#!/usr/bin/env bash
# Benchmark (not a test): `sqlwitness import` of PostgreSQL dumps as their
# publishers ship them (plain SQL, pg_dump -Fc/-Ft/-Fd, zip), beside the
# server's own client loading the same dump into a fresh database (the
# floor: psql -f for a plain dump, pg_restore for an archive).
#
# Usage: scripts/bench-dumps-shipped.sh [--runs N] [--out DIR] [--bin PATH] DUMP...
#
# Per dump, --runs times (default 3), client and import alternating:
#   client   psql -X -q -f DUMP (or pg_restore --no-owner -d) into a new database
#   import   sqlwitness import --engine postgres: the load under the confined login,
#            the SQLite file and the copy with the dump's own types (namespace
#            swb_<name>, dropped before each run)
# timed with /usr/bin/time (wall time); the import's own steps (check, namespace,
# load, export, close; per database the SQLite file and the copy) from its report.
# Writes OUT/results.md with each run and the medians. The server is
# SQLWITNESS_POSTGRES_URL (default postgres://root@127.0.0.1:5432/test);
# --bin defaults to target/release/sqlwitness.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=3
out=bench-out/dumps-shipped
bin=target/release/sqlwitness
dumps=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) dumps+=("$1"); shift ;;
  esac
done
[ ${#dumps[@]} -gt 0 ] || { echo "give one or more dumps" >&2; exit 2; }
[ -x "$bin" ] || { echo "$bin: build it first (cargo build --release -p sqlwitness-cli)" >&2; exit 2; }
mkdir -p "$out"
url="${SQLWITNESS_POSTGRES_URL:-postgres://root@127.0.0.1:5432/test}"
base="${url%/*}"

# The clients without their notices (the dumps' own DROP … IF EXISTS).
quiet=(env "PGOPTIONS=-c client_min_messages=warning")
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
timed() { # file command...
  /usr/bin/time -f "%e" -o "$1" "${@:2}" > /dev/null 2>> "$out/stderr.log"
}

{
  echo "| dump | run | client (s) | import (s) | check | namespace | load | export (SQLite file / copy) | close |"
  echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|"
} > "$out/results.md"
summary=()
for dump in "${dumps[@]}"; do
  name=$(basename "$dump" | tr -c 'a-zA-Z0-9\n' '_' | tr 'A-Z' 'a-z')
  name=${name%_}
  kind=plain
  if [ -d "$dump" ] || head -c 5 "$dump" | grep -q PGDMP || tar tf "$dump" > /dev/null 2>&1; then
    kind=archive
  fi
  clients=(); imports=()
  for run in $(seq "$runs"); do
    db="swb_client_$name"
    "${quiet[@]}" psql -X -q "$url" -c "DROP DATABASE IF EXISTS \"$db\"" -c "CREATE DATABASE \"$db\"" > /dev/null
    if [ "$kind" = plain ]; then
      timed "$out/t" "${quiet[@]}" psql -X -q -f "$dump" "$base/$db"
    else
      timed "$out/t" "${quiet[@]}" pg_restore --no-owner -d "$base/$db" "$dump" || true
    fi
    c=$(tail -n 1 "$out/t"); clients+=("$c")
    "${quiet[@]}" psql -X -q "$url" -c "DROP DATABASE IF EXISTS \"$db\"" > /dev/null
    "${quiet[@]}" psql -X -q "$url" -c "DROP SCHEMA IF EXISTS \"swb_$name\" CASCADE" > /dev/null
    rm -rf "$out/$name"
    timed "$out/t" "$bin" import --engine postgres --server "$url" --dump "$dump" \
      --out "$out/$name/database" --db-id "$name" --namespace-prefix swb_ -q || true
    i=$(tail -n 1 "$out/t"); imports+=("$i")
    steps=$(python3 - "$out/$name/database/import-report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = r.get("steps_seconds", {})
d = r["databases"][0] if r.get("databases") else {}
f = lambda v: f"{v:.2f}"
print(" | ".join([f(s.get("check", 0)), f(s.get("namespace", 0)), f(s.get("load", 0)),
                  f"{f(s.get('export', 0))} ({f(d.get('sqlite_seconds', 0))} / {f(d.get('copy_seconds', 0))})",
                  f(s.get("close", 0))]))
PY
)
    echo "| $(basename "$dump") | $run | $c | $i | $steps |" >> "$out/results.md"
  done
  cm=$(printf '%s\n' "${clients[@]}" | median); im=$(printf '%s\n' "${imports[@]}" | median)
  summary+=("| $(basename "$dump") | $cm | $im | $(python3 -c "print(f'{$im/$cm:.1f}')") |")
  "${quiet[@]}" psql -X -q "$url" -c "DROP SCHEMA IF EXISTS \"swb_$name\" CASCADE" > /dev/null
done
{
  echo
  echo "Medians of $runs runs:"
  echo
  echo "| dump | client (s) | import (s) | import / client |"
  echo "|---|--:|--:|--:|"
  printf '%s\n' "${summary[@]}"
} >> "$out/results.md"
cat "$out/results.md"
