#!/usr/bin/env bash
# Measures how far past its time limit a PostgreSQL statement that ignores
# its cancel runs, with every other core of the machine busy: the recursive
# string and array doublings, as a prediction (`eval --timeout 2`, RUNS times
# each) and as a dump statement (`import --statement-timeout 2`, RUNS times
# each); and the client memory of one large dump statement (a single INSERT of
# 100 MB and 200 MB in rows of 10 kB, so that writing the SQLite file after the
# load needs little; peak RSS beside the peak of a one-line dump). A
# benchmark, not a test: the numbers go in docs/measurements/hostile-dumps.md.
#
#   scripts/bench-limits.sh [OUT_DIR] [RUNS]     (default out/limits, 10)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-out/limits}"
runs="${2:-10}"
url="${SQLWITNESS_POSTGRES_URL:-postgres://root@127.0.0.1:5432/test}"
rm -rf "$out" && mkdir -p "$out"
out="$(cd "$out" && pwd)"
cargo build --release -q -p sqlwitness-cli
bin="$PWD/target/release/sqlwitness"
psql "$url" -Atc 'select version()'

# Every core but one busy for the length of the measurement.
burners=()
for _ in $(seq 2 "$(nproc)"); do
  (while :; do :; done) &
  burners+=($!)
done
trap 'kill "${burners[@]}" 2>/dev/null || true' EXIT

strings="WITH RECURSIVE c(n, s) AS (SELECT 1, CAST('x' AS TEXT) UNION ALL SELECT n + 1, concat(s, s) FROM c WHERE n < 40) SELECT max(length(s)) FROM c"
arrays="WITH RECURSIVE c(n, a) AS (SELECT 1, ARRAY[1] UNION ALL SELECT n + 1, a || a FROM c WHERE n < 40) SELECT max(cardinality(a)) FROM c"

# As predictions: one question on concert_singer, every other line abstains.
bench=examples/spider-dev
for name in strings arrays; do
  sql="${!name}"
  python3 - "$sql" "$out/pred-$name.sql" <<'PY'
import sys
lines = [sys.argv[1]] + [""] * 1033
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
PY
  for i in $(seq 1 "$runs"); do
    "$bin" eval --bench "$bench" --split dev --db concert_singer --limit 1 --engines postgres \
      --server "postgres=$url" --timeout 2 --pred "$out/pred-$name.sql" \
      --out "$out/eval-$name-$i" -q >/dev/null 2>&1 || true
    python3 - "$out/eval-$name-$i/report.json" "$name" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))["questions"][0]["engines"]["postgres"]
p = o.get("pred") or {}
print(f"prediction {sys.argv[2]:8} {p.get('duration_ms', 0):7.0f} ms  {o['verdict']} {p.get('error_class') or ''}")
PY
  done
done

# As dump statements.
for name in strings arrays; do
  printf 'CREATE TABLE t (x int);\n%s;\n' "${!name}" > "$out/dump-$name.sql"
  for i in $(seq 1 "$runs"); do
    start=$(date +%s.%N)
    "$bin" import --engine postgres --server "$url" --no-source-copy --db-id d \
      --statement-timeout 2 --out "$out/import-$name-$i" --dump "$out/dump-$name.sql" \
      >/dev/null 2>"$out/import-$name-$i.log" || true
    end=$(date +%s.%N)
    echo "dump       $name $(python3 -c "print(f'{($end - $start) * 1000:7.0f}')") ms (the whole import)  $(grep -o 'ran past the limit[^;]*\|temp_file_limit[^)]*' "$out/import-$name-$i.log" | head -1)"
  done
done
kill "${burners[@]}" 2>/dev/null || true

# Client memory of one large statement.
printf 'CREATE TABLE t (id int, s text);\nINSERT INTO t VALUES (1, %s);\n' "'x'" > "$out/tiny.sql"
/usr/bin/time -v "$bin" import --engine postgres --server "$url" --no-source-copy --db-id tiny \
  --out "$out/import-tiny" --dump "$out/tiny.sql" 2> "$out/tiny.log" >/dev/null
base=$(awk '/Maximum resident/ {print $6}' "$out/tiny.log")
for mb in 100 200; do
  python3 - "$mb" "$out/big$mb.sql" <<'PY'
import sys
mb, path = int(sys.argv[1]), sys.argv[2]
with open(path, "w") as f:
    f.write("CREATE TABLE t (id int, s text);\nINSERT INTO t VALUES ")
    size, i = 0, 0
    while size < mb * 2**20:
        r = f"({i},'{'x' * 10000}')"
        f.write(("," if i else "") + r)
        size += len(r) + 1
        i += 1
    f.write(";\n")
PY
  /usr/bin/time -v "$bin" import --engine postgres --server "$url" --no-source-copy --db-id big \
    --out "$out/import-big$mb" --dump "$out/big$mb.sql" 2> "$out/big$mb.log" >/dev/null
  peak=$(awk '/Maximum resident/ {print $6}' "$out/big$mb.log")
  python3 -c "print(f'one statement of $mb MB: peak RSS {$peak / 1024:.0f} MiB, {($peak - $base) / 1024:.0f} MiB above a one-line dump ({$base / 1024:.0f} MiB): {($peak - $base) / 1024 / $mb:.2f} x the statement')"
done
