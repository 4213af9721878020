#!/usr/bin/env bash
# Benchmark (not a test): migrating the Spider dev databases (the distinct db_ids of
# dev.json whose .sqlite file exists: 19, wta_1 is missing) to PostgreSQL with
# pgloader versus `sqlwitness migrate`, plus `sqlwitness migrate` to MySQL, in one
# session. Prints a Markdown table of median wall times over $RUNS runs.
#
# Usage: scripts/bench-migrate.sh
# Environment:
#   RUNS=3                  runs per command (the median is reported)
#   JOBS=4                  `sqlwitness migrate -j` (left out when the binary has no --jobs)
#   SQLWITNESS_BIN=target/release/sqlwitness   (not built here)
#   SPIDER=../shared/data/spider               Spider folder (dev.json, database/)
#   OUT_DIR=out/bench-migrate                  hyperfine JSON exports, pgloader and migrate logs
#   SKIP_SQLWITNESS=1       measure pgloader only
#   SKIP_PGLOADER=1         measure sqlwitness only
#   KEEP_PGLOADER_DB=1      leave the database sqlwitness_pgloader_bench in place at the end
#   NO_HYPERFINE=1          time with the date +%s.%N loop even when hyperfine is there
# Servers: PostgreSQL on 127.0.0.1:5432 (trust auth, superuser `root`) and, optional,
# MySQL on 127.0.0.1:3307 (`root`, no password); scripts/services.sh starts both.
# pgloader and hyperfine are installed from Debian when missing (root needed);
# without hyperfine a plain `date +%s.%N` loop is used.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS="${RUNS:-3}"
JOBS="${JOBS:-4}"
SQLWITNESS_BIN="${SQLWITNESS_BIN:-target/release/sqlwitness}"
SPIDER="$(realpath -m "${SPIDER:-../shared/data/spider}")"
OUT_DIR="${OUT_DIR:-out/bench-migrate}"
SKIP_SQLWITNESS="${SKIP_SQLWITNESS:-0}"
SKIP_PGLOADER="${SKIP_PGLOADER:-0}"
KEEP_PGLOADER_DB="${KEEP_PGLOADER_DB:-0}"

PG_HOST=127.0.0.1 PG_PORT=5432 PG_USER=root
PGL_DB=sqlwitness_pgloader_bench     # pgloader's target, dropped and created before each run
SW_PG_DB=sqlwitness_migrate_bench    # sqlwitness' PostgreSQL target (--force reloads it)
MY_HOST=127.0.0.1 MY_PORT=3307 MY_USER=root MY_DB=test

log() { printf '== %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
psql_q() { psql -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -X -v ON_ERROR_STOP=1 -qAt "$@"; }

[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer (got '$RUNS')"
mkdir -p "$OUT_DIR"
OUT_DIR="$(cd "$OUT_DIR" && pwd)"
work="$(mktemp -d)"
# On any exit: remove the temporary folder and drop pgloader's database.
cleanup() {
  rm -rf "$work"
  if [ "$SKIP_PGLOADER" != 1 ] && [ "$KEEP_PGLOADER_DB" != 1 ]; then
    psql_q -d postgres -c "drop database if exists $PGL_DB" 2>/dev/null || true
  fi
}
trap cleanup EXIT

# Installs Debian package $2 when command $1 is missing; fails quietly (returns 1).
ensure_tool() {
  command -v "$1" >/dev/null 2>&1 && return 0
  log "installing $2 from Debian"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  { $sudo apt-get install -y "$2" >/dev/null 2>&1 ||
    { $sudo apt-get update >/dev/null 2>&1 && $sudo apt-get install -y "$2" >/dev/null 2>&1; }; } || true
  command -v "$1" >/dev/null 2>&1
}

# The Spider dev databases: distinct db_ids of dev.json with an existing .sqlite file.
command -v jq >/dev/null || die "jq is needed"
dbs=()
while read -r db; do
  if [ -f "$SPIDER/database/$db/$db.sqlite" ]; then dbs+=("$db"); else log "no .sqlite for $db, skipped"; fi
done < <(jq -r '.[].db_id' "$SPIDER/dev.json" | sort -u)
[ "${#dbs[@]}" -gt 0 ] || die "no databases found under $SPIDER"
log "${#dbs[@]} Spider dev databases"

pg_isready -h "$PG_HOST" -p "$PG_PORT" -q || die "PostgreSQL does not answer on $PG_HOST:$PG_PORT (scripts/services.sh)"
pg_version="$(psql_q -d postgres -c 'select version()')"

have_hyperfine=0
[ "${NO_HYPERFINE:-0}" = 1 ] || { ensure_tool hyperfine hyperfine && have_hyperfine=1; }
[ "$have_hyperfine" = 1 ] || log "hyperfine unavailable: timing with a date +%s.%N loop"

# measure NAME PREPARE COMMAND: runs COMMAND $RUNS times (PREPARE, untimed, before
# each run) and prints the median wall time in seconds. Exports go to $OUT_DIR.
measure() {
  local name="$1" prepare="$2" cmd="$3"
  if [ "$have_hyperfine" = 1 ]; then
    hyperfine --runs "$RUNS" --style basic --command-name "$name" \
      --prepare "$prepare" --export-json "$OUT_DIR/$name.json" "$cmd" >&2
    jq -r '.results[0].median' "$OUT_DIR/$name.json"
  else
    local i t0 t1 times=()
    for ((i = 1; i <= RUNS; i++)); do
      bash -c "$prepare"
      t0=$(date +%s.%N)
      bash -c "$cmd"
      t1=$(date +%s.%N)
      times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')")
      log "$name run $i: ${times[-1]} s"
    done
    printf '%s\n' "${times[@]}" > "$OUT_DIR/$name.times"
    sort -g "$OUT_DIR/$name.times" |
      awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
  fi
}

pgl_median="" sw_pg_median="" sw_my_median="" pgl_version="" pgl_note=""
sw_pg_label="not run" sw_my_label="not run"   # how the sqlwitness rows were run

# ---------------------------------------------------------------- pgloader -> PostgreSQL
if [ "$SKIP_PGLOADER" != 1 ]; then
  ensure_tool pgloader pgloader || die "pgloader is not installed and could not be installed"
  # (no `| head` here: with pipefail, pgloader could die of SIGPIPE and end the script)
  pgl_version="$(pgloader --version 2>&1)"
  pgl_version="${pgl_version%%$'\n'*}" pgl_version="${pgl_version#pgloader version }"
  pgl_version="${pgl_version//\"/}"
  deb_version="$(dpkg-query -W -f='${Version}' pgloader 2>/dev/null || true)"
  [ -z "$deb_version" ] || pgl_version="$pgl_version (Debian package $deb_version)"
  log "pgloader $pgl_version"

  # One load command file per database: the tables go to a schema named after the
  # db_id (created before the load; search_path makes pgloader create them there;
  # the inner double quotes keep mixed-case names such as cre_Doc_Template_Mgt).
  mkdir -p "$work/load" "$OUT_DIR/pgloader-logs"
  for db in "${dbs[@]}"; do
    cat > "$work/load/$db.load" <<EOF
LOAD DATABASE
  FROM sqlite://$SPIDER/database/$db/$db.sqlite
  INTO postgresql://$PG_USER@$PG_HOST:$PG_PORT/$PGL_DB
WITH include drop, create tables, create indexes, reset sequences
SET search_path TO '"$db"'
BEFORE LOAD DO \$\$ create schema if not exists "$db"; \$\$;
EOF
  done
  # The timed command: one pgloader process per database, sequentially, as pgloader
  # is normally used. Its console output goes to a log per database.
  cat > "$work/pgloader-loop.sh" <<EOF
#!/usr/bin/env bash
set -euo pipefail
for db in ${dbs[*]}; do
  if ! pgloader --root-dir "$work/pgloader-root" "$work/load/\$db.load" > "$OUT_DIR/pgloader-logs/\$db.log" 2>&1; then
    echo "pgloader failed on \$db, see $OUT_DIR/pgloader-logs/\$db.log" >&2
    exit 1
  fi
done
EOF
  chmod +x "$work/pgloader-loop.sh"
  prepare="psql -h $PG_HOST -p $PG_PORT -U $PG_USER -X -q -d postgres -c 'drop database if exists $PGL_DB' -c 'create database $PGL_DB'"

  log "pgloader -> PostgreSQL, ${#dbs[@]} databases, $RUNS runs"
  pgl_median="$(measure pgloader "$prepare" "$work/pgloader-loop.sh")"

  # pgloader exits 0 even after a FATAL error (a database not loaded at all).
  if grep -l ' FATAL ' "$OUT_DIR"/pgloader-logs/*.log >&2; then
    die "pgloader failed on the databases above (logs in $OUT_DIR/pgloader-logs)"
  fi
  # Check the last run really loaded: rows of every table, SQLite vs PostgreSQL
  # (pgloader downcases table names, hence the case-insensitive lookup). A missing
  # table is fatal; a table with fewer rows is reported: pgloader drops a batch
  # whose COPY PostgreSQL refuses (orchestra.show has text in a bool column).
  log "checking row counts (SQLite vs PostgreSQL)"
  tables=0 mismatches=0 missing=0 differing=""
  for db in "${dbs[@]}"; do
    sqlite="$SPIDER/database/$db/$db.sqlite"
    while IFS= read -r t; do
      src="$(sqlite3 "file:$sqlite?mode=ro" "select count(*) from \"${t//\"/\"\"}\"")"
      pgt="$(psql_q -d "$PGL_DB" -c "select quote_ident(table_name) from information_schema.tables
             where table_schema = '$db' and lower(table_name) = lower('${t//\'/\'\'}')")"
      dst="$( [ -n "$pgt" ] && psql_q -d "$PGL_DB" -c "select count(*) from \"$db\".$pgt" || echo missing)"
      tables=$((tables + 1))
      if [ "$src" != "$dst" ]; then
        mismatches=$((mismatches + 1))
        [ "$dst" != missing ] || missing=$((missing + 1))
        differing+="${differing:+, }$db.$t ($src vs $dst rows)"
        log "MISMATCH $db.$t: sqlite $src, postgres $dst"
      fi
    done < <(sqlite3 "file:$sqlite?mode=ro" "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name")
  done
  for check in concert_singer.singer world_1.city car_1.cars_data flight_2.flights; do
    db="${check%%.*}" t="${check#*.}"
    [ -f "$SPIDER/database/$db/$db.sqlite" ] || continue
    log "  $check: sqlite $(sqlite3 "file:$SPIDER/database/$db/$db.sqlite?mode=ro" "select count(*) from $t"), postgres $(psql_q -d "$PGL_DB" -c "select count(*) from $db.$t")"
  done
  log "row counts: $tables tables, $mismatches mismatches ($missing missing)"
  [ "$missing" -eq 0 ] || die "pgloader did not create every table (logs in $OUT_DIR/pgloader-logs)"
  # pgloader goes on past errors it cannot fix (Spider's foreign keys between columns
  # of different types or to absent keys, the COPY above); they are counted, not fatal.
  pgl_errors="$(cat "$OUT_DIR"/pgloader-logs/*.log | grep -c ' ERROR ' || true)"
  pgl_note="row counts checked on $tables tables: $((tables - mismatches)) equal"
  [ -z "$differing" ] || pgl_note+=", differing: $differing"
  pgl_note+="; $pgl_errors pgloader ERROR lines (logs in $OUT_DIR/pgloader-logs)"
  log "$pgl_note"
fi

# ---------------------------------------------------------------- sqlwitness migrate
if [ "$SKIP_SQLWITNESS" != 1 ]; then
  [ -x "$SQLWITNESS_BIN" ] || die "no sqlwitness binary at $SQLWITNESS_BIN (cargo build --release -p sqlwitness-cli, or set SQLWITNESS_BIN)"
  jobs_opt=""
  help="$("$SQLWITNESS_BIN" migrate --help 2>&1 || true)"   # captured: grep -q could SIGPIPE it
  if grep -q -- '--jobs' <<<"$help"; then
    jobs_opt="-j $JOBS"
  else
    log "$SQLWITNESS_BIN migrate has no --jobs: running without -j"
  fi
  sw_pg_label="${jobs_opt:-no -j}" sw_my_label="${jobs_opt:-no -j}"
  sw="$SQLWITNESS_BIN migrate --bench $SPIDER --split dev --force -q $jobs_opt"

  # PostgreSQL: the target database must exist.
  if [ -z "$(psql_q -d postgres -c "select 1 from pg_database where datname = '$SW_PG_DB'")" ]; then
    psql_q -d postgres -c "create database $SW_PG_DB"
  fi
  log "sqlwitness -> PostgreSQL, $RUNS runs"
  sw_pg_median="$(measure sqlwitness-postgres "true" \
    "$sw --engines postgres --server postgres=postgres://$PG_USER@$PG_HOST:$PG_PORT/$SW_PG_DB --log-dir $OUT_DIR/migration-postgres")"

  # MySQL: optional, skipped when the server does not answer.
  if mysqladmin -h"$MY_HOST" -P"$MY_PORT" -u"$MY_USER" --connect-timeout=5 ping >/dev/null 2>&1; then
    mysql -h"$MY_HOST" -P"$MY_PORT" -u"$MY_USER" -e "create database if not exists \`$MY_DB\`" >/dev/null 2>&1 || true
    log "sqlwitness -> MySQL, $RUNS runs"
    sw_my_median="$(measure sqlwitness-mysql "true" \
      "$sw --engines mysql --server mysql=mysql://$MY_USER@$MY_HOST:$MY_PORT/$MY_DB --log-dir $OUT_DIR/migration-mysql")"
  else
    sw_my_label="skipped: no MySQL on $MY_HOST:$MY_PORT"
    log "MySQL does not answer on $MY_HOST:$MY_PORT: skipping sqlwitness -> MySQL (scripts/mysql-server.sh starts it)"
  fi
fi

# ---------------------------------------------------------------- report
fmt() { [ -n "$1" ] && awk -v v="$1" 'BEGIN { printf "%.2f s", v }' || echo "—"; }
ratio() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f×", a / b }' || echo "—"; }
echo
echo "Spider dev, ${#dbs[@]} databases, median wall time of $RUNS runs ($(nproc) CPUs)."
echo "PostgreSQL: $pg_version"
[ -z "$pgl_version" ] || echo "pgloader: $pgl_version; $pgl_note"
echo
echo "| migration | median wall | pgloader / this |"
echo "|---|---:|---:|"
echo "| pgloader → PostgreSQL (sequential, 1 process per db) | $(fmt "$pgl_median") | — |"
echo "| sqlwitness → PostgreSQL ($sw_pg_label) | $(fmt "$sw_pg_median") | $(ratio "$pgl_median" "$sw_pg_median") |"
echo "| sqlwitness → MySQL ($sw_my_label) | $(fmt "$sw_my_median") | $(ratio "$pgl_median" "$sw_my_median") |"
