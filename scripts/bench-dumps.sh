#!/usr/bin/env bash
# Benchmark (not a test): `sqlwitness import` of generated dumps, beside the
# engine's own client loading the same dump (the floor: what loading alone
# costs; sqlwitness loads through the same server and then writes SQLite).
#
# Usage: scripts/bench-dumps.sh [--rows N] [--per-insert K] [--out DIR] [--bin PATH]
#
# Generates (once, cached in OUT) a PostgreSQL dump in pg_dump's plain format
# (COPY … FROM stdin blocks) and a MySQL dump in mysqldump's style (multi-row
# INSERTs of K rows, default 1,000; --per-insert 1 writes one statement a
# row, as mysqldump --skip-extended-insert does) of one fact table of N rows (integer key, foreign
# key, text, numeric(10,2), double, timestamp, a NULL in one row of ten) and
# a small dimension table. Then, per engine (PostgreSQL 5432, MySQL 3307,
# MariaDB 3306, from SQLWITNESS_<ENGINE>_URL or the local defaults):
#   floor    psql -f DUMP into a fresh database / mysql < DUMP into a fresh database
#   import   sqlwitness import (load under the confined login, write SQLite, verify),
#            and the load alone as its report gives it (load_seconds)
# timed with /usr/bin/time (wall time, peak RSS of the client). Writes
# OUT/results.md. Default N = 1,000,000; --bin defaults to target/release/sqlwitness.
set -euo pipefail
cd "$(dirname "$0")/.."

rows=1000000
per_insert=1000
out=bench-out/dumps
bin=target/release/sqlwitness
while [ $# -gt 0 ]; do
  case "$1" in
    --rows) rows="$2"; shift 2 ;;
    --per-insert) per_insert="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[ -x "$bin" ] || { echo "$bin: build it first (cargo build --release -p sqlwitness-cli)" >&2; exit 2; }
mkdir -p "$out"
pg_url="${SQLWITNESS_POSTGRES_URL:-postgres://root@127.0.0.1:5432/test}"
mysql_url="${SQLWITNESS_MYSQL_URL:-mysql://root@127.0.0.1:3307/test}"
mariadb_url="${SQLWITNESS_MARIADB_URL:-mysql://root@127.0.0.1:3306/test}"

gen() { # dialect file
  python3 - "$1" "$rows" "$per_insert" > "$2" <<'EOF'
import sys, random
dialect, n, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
random.seed(7)
w = sys.stdout.write
dims = 100
if dialect == "postgres":
    w("SET client_encoding = 'UTF8';\nSET standard_conforming_strings = on;\n")
    w("CREATE TABLE public.shop (id integer NOT NULL, name character varying(40));\n")
    w("CREATE TABLE public.sale (id bigint NOT NULL, shop_id integer, note text, amount numeric(10,2), ratio double precision, at timestamp without time zone);\n")
    w("COPY public.shop (id, name) FROM stdin;\n")
    for i in range(dims):
        w(f"{i}\tshop {i}\n")
    w("\\.\n\nCOPY public.sale (id, shop_id, note, amount, ratio, at) FROM stdin;\n")
    for i in range(n):
        note = "\\N" if i % 10 == 0 else f"note {i} \\t tab"
        w(f"{i}\t{i % dims}\t{note}\t{(i % 100000) / 100:.2f}\t{random.random()!r}\t2024-01-{1 + i % 28:02d} 12:{i % 60:02d}:00\n")
    w("\\.\n\nALTER TABLE ONLY public.shop ADD CONSTRAINT shop_pkey PRIMARY KEY (id);\n")
    w("ALTER TABLE ONLY public.sale ADD CONSTRAINT sale_pkey PRIMARY KEY (id);\n")
    w("ALTER TABLE ONLY public.sale ADD CONSTRAINT sale_shop_fkey FOREIGN KEY (shop_id) REFERENCES public.shop(id);\n")
else:
    w("/*!40101 SET NAMES utf8mb4 */;\n/*!40014 SET FOREIGN_KEY_CHECKS=0 */;\n")
    w("CREATE TABLE `shop` (`id` int NOT NULL, `name` varchar(40), PRIMARY KEY (`id`)) ENGINE=InnoDB;\n")
    w("CREATE TABLE `sale` (`id` bigint NOT NULL, `shop_id` int, `note` text, `amount` decimal(10,2), `ratio` double, `at` datetime, PRIMARY KEY (`id`), KEY (`shop_id`), CONSTRAINT `sale_shop` FOREIGN KEY (`shop_id`) REFERENCES `shop` (`id`)) ENGINE=InnoDB;\n")
    w("INSERT INTO `shop` VALUES " + ",".join(f"({i},'shop {i}')" for i in range(dims)) + ";\n")
    w("LOCK TABLES `sale` WRITE;\n")
    for start in range(0, n, k):
        vals = []
        for i in range(start, min(n, start + k)):
            note = "NULL" if i % 10 == 0 else f"'note {i} \\t tab'"
            vals.append(f"({i},{i % dims},{note},{(i % 100000) / 100:.2f},{random.random()!r},'2024-01-{1 + i % 28:02d} 12:{i % 60:02d}:00')")
        w("INSERT INTO `sale` VALUES " + ",".join(vals) + ";\n")
    w("UNLOCK TABLES;\n")
EOF
}

pg_dump_file="$out/pg-$rows.sql"
my_dump_file="$out/mysql-$rows-$per_insert.sql"
[ -s "$pg_dump_file" ] || gen postgres "$pg_dump_file"
[ -s "$my_dump_file" ] || gen mysql "$my_dump_file"

timed() { # label logfile cmd...
  local label="$1" log="$2"; shift 2
  /usr/bin/time -f "%e %M" -o "$out/time.tmp" "$@" > "$log" 2>&1 || { echo "| $label | failed (see $log) | | |" >> "$out/results.md"; return; }
  read -r wall rss < "$out/time.tmp"
  rps=$(python3 -c "print(f'{$rows / max($wall, 1e-9):,.0f}')")
  echo "| $label | $wall | $((rss / 1024)) | $rps |" >> "$out/results.md"
}
load_alone() { # label report
  python3 -c "import json, sys; print(f'| {sys.argv[1]} | {json.load(open(sys.argv[2]))[\"load_seconds\"]:.2f} | | |')" \
    "$1" "$2" >> "$out/results.md" || true
}

{
  echo "# Dump import, $rows rows, $per_insert a MySQL INSERT ($(date -u +%F))"
  echo
  echo "Machine: $(nproc) cores; $(psql "$pg_url" -Atc 'select version()' | cut -d' ' -f1-2); MySQL $(mysql -h127.0.0.1 -P3307 -uroot -N -e 'select version()'); MariaDB $(mysql -h127.0.0.1 -P3306 -uroot -N -e 'select version()')"
  echo
  echo "| step | wall s | client peak RSS MB | rows/s |"
  echo "|---|---:|---:|---:|"
} > "$out/results.md"

db=sw_bench_dump_floor
psql "$pg_url" -qc "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
pg_floor_url="${pg_url%/*}/$db"
timed "postgres floor (psql -f)" "$out/pg-floor.log" psql "$pg_floor_url" -q -v ON_ERROR_STOP=1 -f "$pg_dump_file"
psql "$pg_url" -qc "DROP DATABASE IF EXISTS $db" >/dev/null
rm -rf "$out/pg-import"
timed "postgres import" "$out/pg-import.log" "$bin" import -q --engine postgres --server "$pg_url" --dump "$pg_dump_file" --out "$out/pg-import" --db-id sale
load_alone "postgres import: the load alone" "$out/pg-import/import-report.json"

for engine in mysql mariadb; do
  if [ "$engine" = mysql ]; then url="$mysql_url"; port=3307; else url="$mariadb_url"; port=3306; fi
  mysql -h127.0.0.1 -P$port -uroot -e "DROP DATABASE IF EXISTS $db; CREATE DATABASE $db"
  timed "$engine floor (mysql < dump)" "$out/$engine-floor.log" sh -c "mysql -h127.0.0.1 -P$port -uroot $db < '$my_dump_file'"
  mysql -h127.0.0.1 -P$port -uroot -e "DROP DATABASE IF EXISTS $db"
  rm -rf "$out/$engine-import"
  timed "$engine import" "$out/$engine-import.log" "$bin" import -q --engine "$engine" --server "$url" --dump "$my_dump_file" --out "$out/$engine-import" --db-id sale
  load_alone "$engine import: the load alone" "$out/$engine-import/import-report.json"
done
# Copies on the other engines of the PostgreSQL dump's database: migrated
# from the file import wrote, with the types of the source model beside it,
# and without the model (the types inferred from the values), against the
# MySQL client's floor above.
bench="$out/pg-bench"
rm -rf "$bench" && mkdir -p "$bench"
cp -r "$out/pg-import" "$bench/database"
echo '{"db_id": "sale", "gold": "SELECT count(*) FROM sale"}' > "$bench/dev.jsonl"
untyped="$out/pg-bench-untyped"
rm -rf "$untyped" && cp -r "$bench" "$untyped" && rm -f "$untyped"/database/sale/sale.source.json
for engine in mysql mariadb; do
  if [ "$engine" = mysql ]; then url="$mysql_url"; else url="$mariadb_url"; fi
  timed "$engine copy of the postgres dump, typed by its source model" "$out/$engine-typed.log" \
    "$bin" migrate -q --bench "$bench" --all --force --engines "$engine" --namespace-prefix sw_bench_typed_ \
    --server "$engine=$url" --log-dir "$out/log-typed"
  timed "$engine copy of the postgres dump, types inferred" "$out/$engine-untyped.log" \
    "$bin" migrate -q --bench "$untyped" --all --force --engines "$engine" --namespace-prefix sw_bench_untyped_ \
    --server "$engine=$url" --log-dir "$out/log-untyped"
  port=3307; [ "$engine" = mariadb ] && port=3306
  mysql -h127.0.0.1 -P$port -uroot -e "DROP DATABASE IF EXISTS sw_bench_typed_sale; DROP DATABASE IF EXISTS sw_bench_untyped_sale"
done
rm -f "$out/time.tmp"
cat "$out/results.md"
