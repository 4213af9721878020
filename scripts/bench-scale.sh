#!/usr/bin/env bash
# Benchmark (not a test): sqlwitness on BIRD-sized databases, beside the
# bulk-load floors and pgloader measured in the same run.
#
# Usage: scripts/bench-scale.sh [--sizes 1M,4M,16M] [--out DIR] [options]
#
# For each size it generates (once, cached) a BIRD-like benchmark in the Spider
# layout with scripts/bench-scale-data.py: BIRD's debit_card_specializing
# schema (a fact table with foreign keys into three dimension tables, a table
# with a composite primary key; dates as text, reals with NULLs, short and long
# text), 8 questions whose golds join, group, sort and filter the big tables,
# and a prediction file (5 right, 3 wrong on SQLite). Then, per server engine:
#   floor_copy       PostgreSQL: sqlite3 -csv | psql "\copy … FROM STDIN (FORMAT csv)",
#                    table after table, into tables created beforehand without keys
#   floor_load_data  MySQL, MariaDB: LOAD DATA LOCAL INFILE of the same CSV read from
#                    a FIFO (sqlite3 writes it as the server loads it); skipped on a
#                    server with local_infile=OFF (the script never changes it)
#   floor_insert     MySQL, MariaDB: multi-row INSERTs (2,000 rows each, written by
#                    sqlite3's quote()) through the mysql client, one transaction a table
#   floor_keys       the primary and foreign keys added after the floor load
#   pgloader         PostgreSQL: pgloader from the SQLite file (Debian's package,
#                    installed when missing)
#   migrate          sqlwitness migrate into an empty target
#   migrate_again    sqlwitness migrate again (the copy is up to date)
#   eval             sqlwitness eval --engines sqlite,ENGINE (checks the copy first)
#   eval_no_migrate  the same with --no-migrate
# and without a server (engine "sqlite"): eval --engines sqlite, audit (sqlite),
# fuzz. Every step is timed with /usr/bin/time: wall time and peak RSS (of the
# largest process: the client side; the servers' memory is not counted), and
# rows/s = rows of the database / wall time. Row counts of every floor and
# pgloader load are checked against the generator's.
#
# Output (--out): results.md (versions, machine, a table per engine: steps by
# size), results.csv (size, rows, engine, step, status ok|failed|stopped|skipped,
# wall_s, peak_rss_kb, rows_per_s, cpu_s = user + system time of the client
# processes, load_avg = the machine's 1-minute load when the step started, note),
# scale.png (wall time and peak RSS against rows, per engine and step), logs/
# (each step's output, eval summaries and reports, migration logs).
#
# Options:
#   --sizes LIST        row counts, e.g. 1M,4M,16M or 500K (default 1M,4M,16M)
#   --sw-sizes LIST     sizes at which the sqlwitness steps run (default: all)
#   --engines LIST      server engines among postgres,mariadb,mysql (default: all three;
#                       '' for none: only eval, audit and fuzz on SQLite)
#   --steps LIST        among floor,pgloader,migrate,migrate_again,eval,eval_no_migrate,
#                       audit,fuzz (default: all)
#   --out DIR           results.csv, results.md, scale.png, logs/ (default out/bench-scale)
#   --data DIR          generated benchmarks, reused when their manifest matches
#                       (default ${TMPDIR:-/tmp}/sqlwitness-bench-scale)
#   --drop-data         delete each generated benchmark after its size is measured
#   --prefix NAME       prefix of every database and schema created on the servers
#                       (default swscale_; all of them are dropped at the end)
#   --seed N            generator seed (default 20240)
#   --mem-cap-gb N      a sqlwitness step whose memory would pass N GB is skipped
#                       (predicted linearly from its peak RSS at the previous size);
#                       any step whose processes together pass it is stopped (default 12)
#   --step-timeout S    stop a step after S seconds (default 3600)
#   --timeout S         sqlwitness's per-query time limit for eval and audit
#                       (default: the tool's own, 30 s)
# Environment:
#   SQLWITNESS_BIN      the binary to measure (default: built here with
#                       cargo build --release -p sqlwitness-cli)
#   SQLWITNESS_POSTGRES_URL  default postgres://root@127.0.0.1:5432/test
#   SQLWITNESS_MARIADB_URL   default mysql://root@127.0.0.1:3306/test
#   SQLWITNESS_MYSQL_URL     default mysql://root@127.0.0.1:3307/test
#                       administrative logins (URLs without percent-escapes); the
#                       PostgreSQL login creates databases, the others' URL database
#                       must exist. sqlwitness's reader login is used as in eval.
# Needs: python3, sqlite3, psql, mysql (the client), /usr/bin/time (GNU), pgrep;
# pgloader and gnuplot are installed from Debian when missing (root or sudo).
# Temporary files go under ${TMPDIR:-/tmp}.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '== %s\n' "$*" >&2; }
die() { printf 'bench-scale: error: %s\n' "$*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

SIZES=1M,4M,16M SW_SIZES="" ENGINES=postgres,mariadb,mysql
STEPS=floor,pgloader,migrate,migrate_again,eval,eval_no_migrate,audit,fuzz
OUT=out/bench-scale DATA="${TMPDIR:-/tmp}/sqlwitness-bench-scale" DROP_DATA=0
PREFIX=swscale_ SEED=20240 MEM_CAP_GB=12 STEP_TIMEOUT=3600 QUERY_TIMEOUT=""
while [ $# -gt 0 ]; do
  case "$1" in
    -h | --help) usage; exit 0 ;;
    --drop-data) DROP_DATA=1; shift; continue ;;
    --sizes | --sw-sizes | --engines | --steps | --out | --data | --prefix | --seed | --mem-cap-gb | \
      --step-timeout | --timeout)
      [ $# -ge 2 ] || die "$1 needs a value" ;;
    *) die "unknown argument '$1' (--help lists the options)" ;;
  esac
  case "$1" in
    --sizes) SIZES="$2" ;; --sw-sizes) SW_SIZES="$2" ;; --engines) ENGINES="$2" ;;
    --steps) STEPS="$2" ;; --out) OUT="$2" ;; --data) DATA="$2" ;; --prefix) PREFIX="$2" ;;
    --seed) SEED="$2" ;; --mem-cap-gb) MEM_CAP_GB="$2" ;; --step-timeout) STEP_TIMEOUT="$2" ;;
    --timeout) QUERY_TIMEOUT="$2" ;;
  esac
  shift 2
done
SW_SIZES="${SW_SIZES:-$SIZES}"

[[ "$PREFIX" =~ ^[a-z][a-z0-9_]{0,30}$ ]] || die "--prefix: lower-case letters, digits and _ (got '$PREFIX')"
[[ "$SEED" =~ ^[0-9]+$ ]] || die "--seed: a number (got '$SEED')"
[[ "$MEM_CAP_GB" =~ ^[0-9]+$ ]] || die "--mem-cap-gb: whole gigabytes (got '$MEM_CAP_GB')"
[[ "$STEP_TIMEOUT" =~ ^[1-9][0-9]*$ ]] || die "--step-timeout: seconds (got '$STEP_TIMEOUT')"
[[ "$QUERY_TIMEOUT" =~ ^([0-9]+(\.[0-9]+)?)?$ ]] || die "--timeout: seconds (got '$QUERY_TIMEOUT')"
IFS=, read -r -a sizes <<<"$SIZES"
IFS=, read -r -a sw_sizes <<<"$SW_SIZES"
IFS=, read -r -a engines <<<"$ENGINES"
IFS=, read -r -a steps <<<"$STEPS"
for s in "${sizes[@]}" "${sw_sizes[@]}"; do
  [[ "$s" =~ ^[0-9]+(\.[0-9]+)?[KkMm]?$ ]] || die "--sizes: '$s' is not a row count (1M, 500K, 250000)"
done
for e in "${engines[@]}"; do
  case "$e" in postgres | mariadb | mysql) ;; *) die "--engines: unknown engine '$e' (postgres, mariadb, mysql)" ;; esac
done
for s in "${steps[@]}"; do
  case "$s" in floor | pgloader | migrate | migrate_again | eval | eval_no_migrate | audit | fuzz) ;;
    *) die "--steps: unknown step '$s'" ;; esac
done
in_list() { local x="$1"; shift; local y; for y in "$@"; do [ "$x" = "$y" ] && return 0; done; return 1; }
want() { in_list "$1" "${steps[@]}"; }
mem_cap_kb=$((MEM_CAP_GB * 1024 * 1024))

for tool in python3 sqlite3 psql mysql pgrep setsid; do
  command -v "$tool" >/dev/null || die "$tool is needed"
done
[ -x /usr/bin/time ] || die "GNU time is needed at /usr/bin/time (Debian package time)"

# Installs Debian package $2 when command $1 is missing; returns 1 when it stays missing.
ensure_tool() {
  command -v "$1" >/dev/null 2>&1 && return 0
  log "installing $2 from Debian"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  { $sudo apt-get install -y "$2" >/dev/null 2>&1 ||
    { $sudo apt-get update >/dev/null 2>&1 && $sudo apt-get install -y "$2" >/dev/null 2>&1; }; } || true
  command -v "$1" >/dev/null 2>&1
}

# ---------------------------------------------------------------- servers
# Splits URL into the variables <prefix>_user _pass _host _port _db.
url_re='^[a-z]+://([^:@/]+)(:([^@/]*))?@([^:/?]+)(:([0-9]+))?/([^?]*)'
split_url() {
  [[ "$2" =~ $url_re ]] || die "cannot read the URL '$2' (scheme://user[:password]@host[:port]/database)"
  printf -v "$1_user" %s "${BASH_REMATCH[1]}"
  printf -v "$1_pass" %s "${BASH_REMATCH[3]}"
  printf -v "$1_host" %s "${BASH_REMATCH[4]}"
  printf -v "$1_port" %s "${BASH_REMATCH[6]}"
  printf -v "$1_db" %s "${BASH_REMATCH[7]}"
}
declare -A url=(
  [postgres]="${SQLWITNESS_POSTGRES_URL:-postgres://root@127.0.0.1:5432/test}"
  [mariadb]="${SQLWITNESS_MARIADB_URL:-mysql://root@127.0.0.1:3306/test}"
  [mysql]="${SQLWITNESS_MYSQL_URL:-mysql://root@127.0.0.1:3307/test}"
)
pg_user="" pg_pass="" pg_host="" pg_port=""  # set by split_url
split_url pg "${url[postgres]}"
split_url mariadb "${url[mariadb]}"
split_url mysql "${url[mysql]}"
export PGHOST="$pg_host" PGPORT="${pg_port:-5432}" PGUSER="$pg_user"
[ -z "$pg_pass" ] || export PGPASSWORD="$pg_pass"
export PGOPTIONS="-c client_min_messages=warning"
# psql_in DB ARGS…: psql on database DB of the PostgreSQL server.
psql_in() { local db="$1"; shift; psql -d "$db" -X -q -v ON_ERROR_STOP=1 "$@"; }
# my ENGINE ARGS…: the mysql client on the MariaDB or MySQL server.
my() {
  local e="$1" user host port pass; shift
  user="${e}_user" host="${e}_host" port="${e}_port" pass="${e}_pass"
  MYSQL_PWD="${!pass}" mysql --protocol=tcp -h "${!host}" -P "${!port:-3306}" -u "${!user}" "$@"
}
# The PostgreSQL database sqlwitness migrates into, and its URL.
sw_pg_db="${PREFIX}sw"
url[postgres]="postgres://$pg_user${pg_pass:+:$pg_pass}@$pg_host:${pg_port:-5432}/$sw_pg_db"
floor_db="${PREFIX}floor"
pgloader_db="${PREFIX}pgloader"

# What this run created on the servers, dropped on exit (and, when a killed
# earlier run left them, before it starts: the names are this run's prefix).
pg_created=() my_created=()
drop_pg() { psql_in postgres -c "DROP DATABASE IF EXISTS \"$1\" WITH (FORCE)" >/dev/null; }
drop_my() {  # ENGINE DB: the database and the reader's grant on it
  local e="$1" db="$2" host grant_db="${2//_/\\_}"
  my "$e" -e "DROP DATABASE IF EXISTS \`$db\`"
  for host in % localhost; do
    my "$e" -e "REVOKE SELECT ON \`$grant_db\`.* FROM 'sqlwitness_reader'@'$host'" 2>/dev/null || true
  done
}

work="$(mktemp -d "${TMPDIR:-/tmp}/bench-scale.XXXXXX")"
step_pid=""
# signal_group SIGNAL PGID: every process of a step's group but its leader (time).
signal_group() {
  local p
  for p in $(pgrep -g "$2"); do
    [ "$p" = "$2" ] || kill "-$1" "$p" 2>/dev/null || true
  done
}
cleanup() {
  local rc=$? entry
  trap - EXIT INT TERM
  if [ -n "$step_pid" ]; then
    signal_group TERM "$step_pid"
    for _ in {1..20}; do
      kill -0 "$step_pid" 2>/dev/null || break
      sleep 0.5
    done
    signal_group KILL "$step_pid"
    wait "$step_pid" 2>/dev/null || true
  fi
  for entry in "${pg_created[@]}"; do drop_pg "$entry" || log "could not drop PostgreSQL database $entry"; done
  for entry in "${my_created[@]}"; do drop_my "${entry%%:*}" "${entry#*:}" || log "could not drop $entry"; done
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

need_pg=0 need_my=()
for e in "${engines[@]}"; do
  if [ "$e" = postgres ]; then need_pg=1; else need_my+=("$e"); fi
done
declare -A version
if [ "$need_pg" = 1 ]; then
  version[postgres]="$(psql_in postgres -At -c 'select version()' 2>&1)" ||
    die "PostgreSQL does not answer at ${url[postgres]%/*} (scripts/services.sh starts it): ${version[postgres]}"
  version[postgres]+=" (shared_buffers $(psql_in postgres -At -c 'show shared_buffers'),"
  version[postgres]+=" autovacuum $(psql_in postgres -At -c 'show autovacuum'))"
fi
declare -A local_infile
for e in "${need_my[@]}"; do
  version[$e]="$(my "$e" -N -e 'select version()' 2>&1)" ||
    die "$e does not answer at ${url[$e]%/*} (scripts/services.sh starts it): ${version[$e]}"
  if [ "$e" = mariadb ] && [[ "${version[$e]}" != *MariaDB* ]]; then
    die "the mariadb URL names a server that is not MariaDB (${version[$e]})"
  elif [ "$e" = mysql ] && [[ "${version[$e]}" == *MariaDB* ]]; then
    die "the mysql URL names a MariaDB server (${version[$e]})"
  fi
  local_infile[$e]="$(my "$e" -N -e 'select @@global.local_infile')"
  version[$e]+=" (innodb_buffer_pool_size $(my "$e" -N -e 'select @@innodb_buffer_pool_size DIV 1048576') MB,"
  version[$e]+=" local_infile $(my "$e" -N -e 'select if(@@global.local_infile, "ON", "OFF")'))"
done

# ---------------------------------------------------------------- the binary
sw_steps=0
for s in migrate migrate_again eval eval_no_migrate audit fuzz; do want "$s" && sw_steps=1; done
if [ "$sw_steps" = 1 ]; then
  if [ -z "${SQLWITNESS_BIN:-}" ]; then
    log "building the release binary (cargo build --release -p sqlwitness-cli)"
    cargo build --release -q -p sqlwitness-cli
    SQLWITNESS_BIN=target/release/sqlwitness
  fi
  [ -x "$SQLWITNESS_BIN" ] || die "SQLWITNESS_BIN=$SQLWITNESS_BIN is not an executable"
  SQLWITNESS_BIN="$(cd "$(dirname "$SQLWITNESS_BIN")" && pwd)/$(basename "$SQLWITNESS_BIN")"
  version[sqlwitness]="$("$SQLWITNESS_BIN" --version) ($(git rev-parse --short HEAD 2>/dev/null || echo 'no git'))"
fi
if want pgloader && in_list postgres "${engines[@]}"; then
  ensure_tool pgloader pgloader || die "pgloader is not installed and could not be installed"
  version[pgloader]="$(pgloader --version 2>&1 | sed -n 1p)"
  deb="$(dpkg-query -W -f='${Version}' pgloader 2>/dev/null || true)"
  [ -z "$deb" ] || version[pgloader]+=" (Debian package $deb)"
fi
version[sqlite3]="$(sqlite3 --version | cut -d' ' -f1-2)"

mkdir -p "$OUT/logs" "$DATA"
OUT="$(cd "$OUT" && pwd)" DATA="$(cd "$DATA" && pwd)"
csv="$OUT/results.csv"
echo "size,rows,engine,step,status,wall_s,peak_rss_kb,rows_per_s,cpu_s,load_avg,note" >"$csv"

# ---------------------------------------------------------------- measuring
# record SIZE ROWS ENGINE STEP STATUS WALL RSS_KB NOTE: one line of the CSV, with
# the step's CPU time (user + system, of the client processes) and the machine's
# load average when it started (m_cpu, m_load, set by measure).
record() {
  local rps="" cpu="" load=""
  if [ "$5" = ok ]; then
    rps="$(awk -v r="$2" -v t="$6" 'BEGIN { printf "%.0f", (t > 0 ? r / t : 0) }')"
    cpu="$m_cpu" load="$m_load"
  fi
  printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,"%s"\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$rps" \
    "$cpu" "$load" "${8//\"/\"\"}" >>"$csv"
  if [ "$5" = ok ]; then
    log "$1 $3 $4: $6 s, $((${7:-0} / 1024)) MB peak RSS, $rps rows/s${8:+ ($8)}"
  else
    log "$1 $3 $4: $5${8:+ ($8)}"
  fi
}

# group_rss PGID: the summed RSS (kB) of a step's processes.
group_rss() {
  local kb=0 v p
  for p in $(pgrep -g "$1"); do
    v="$(awk '/^VmRSS:/ { print $2 }' "/proc/$p/status" 2>/dev/null || true)"
    kb=$((kb + ${v:-0}))
  done
  echo "$kb"
}

# measure LOG COMMAND…: runs COMMAND in its own process group under
# /usr/bin/time, output to LOG, and stops it when its processes pass the
# memory cap or it runs past the time limit (the loop polls, so that a signal
# to this script is handled within a second). Sets m_status (ok, failed,
# stopped), m_wall, m_rss (kB), m_cpu (s), m_load and m_note.
measure() {
  local logf="$1" tf="$work/time" rc=0 start=$SECONDS stopped_at="" last
  shift
  rm -f "$tf"
  m_note="" m_load="$(cut -d' ' -f1 /proc/loadavg)"
  setsid /usr/bin/time -f '%e %M %U %S %x' -o "$tf" "$@" >"$logf" 2>&1 &
  step_pid=$!
  while kill -0 "$step_pid" 2>/dev/null; do
    sleep 0.5
    if [ -n "$stopped_at" ]; then
      [ $((SECONDS - stopped_at)) -lt 10 ] || signal_group KILL "$step_pid"
      continue
    fi
    if [ "$(group_rss "$step_pid")" -gt "$mem_cap_kb" ]; then
      m_note="at the ${MEM_CAP_GB} GB memory cap after $((SECONDS - start)) s"
    elif [ $((SECONDS - start)) -gt "$STEP_TIMEOUT" ]; then
      m_note="at the ${STEP_TIMEOUT} s time limit"
    else
      continue
    fi
    signal_group TERM "$step_pid"
    stopped_at=$SECONDS
  done
  wait "$step_pid" || rc=$?
  step_pid=""
  last="$(tail -n 1 "$tf" 2>/dev/null || true)"
  read -r m_wall m_rss m_user m_sys _ <<<"$last"
  m_wall="${m_wall:-0}" m_rss="${m_rss:-0}"
  m_cpu="$(awk -v u="${m_user:-0}" -v s="${m_sys:-0}" 'BEGIN { printf "%.2f", u + s }')"
  if [ -n "$m_note" ]; then
    m_status=stopped
  elif [ "$rc" -ne 0 ]; then
    m_status=failed m_note="exit $rc, see logs/$(basename "$logf")"
  else
    m_status=ok
  fi
}

# The peak RSS each sqlwitness step had at the largest size measured so far
# ("rows kB"), to skip it where it would pass the memory cap.
declare -A seen_rss
# run_sw SIZE ROWS ENGINE STEP ARGS…: measures one sqlwitness command
# ($step_note, when set, is recorded beside it).
step_note=""
run_sw() {
  local size="$1" rows="$2" engine="$3" step="$4" prev expect
  shift 4
  prev="${seen_rss[$engine:$step]:-}"
  if [ -n "$prev" ]; then
    expect=$(awk -v p="$prev" -v r="$rows" 'BEGIN { split(p, a, " "); printf "%.0f", a[2] * r / a[1] }')
    if [ "$expect" -gt "$mem_cap_kb" ]; then
      record "$size" "$rows" "$engine" "$step" skipped "" "" "$(awk -v k="$expect" -v p="$prev" 'BEGIN {
        split(p, a, " "); printf "needs ~%.1f GB (%.1f GB at %.3gM rows)", k / 1048576, a[2] / 1048576, a[1] / 1e6 }')"
      return 1
    fi
  fi
  measure "$OUT/logs/$size-$engine-$step.log" "$SQLWITNESS_BIN" "$@"
  record "$size" "$rows" "$engine" "$step" "$m_status" "$m_wall" "$m_rss" "${m_note:-$step_note}"
  [ "$m_status" = ok ] || return 1
  seen_rss[$engine:$step]="$rows $m_rss"
}

# ---------------------------------------------------------------- the floors
# These run as `bash -c` under measure, with the functions exported.
# load_pg DB SQLITE TABLE…: sqlite3 -csv | psql \copy, table after table.
load_pg() {
  local db="$1" src="$2" t
  shift 2
  for t in "$@"; do
    sqlite3 -readonly -csv -newline $'\n' "$src" "SELECT * FROM \"$t\"" |
      psql -d "$db" -X -q -v ON_ERROR_STOP=1 -c "\\copy \"$t\" FROM STDIN (FORMAT csv)"
  done
}
# my_floor: the mysql client on the floor's database (MY_HOST, MY_PORT, MY_USER,
# MY_DB; MYSQL_PWD).
my_floor() { mysql --protocol=tcp -h "$MY_HOST" -P "$MY_PORT" -u "$MY_USER" "$@" "$MY_DB"; }
# load_my_fifo FIFO_DIR SQLITE TABLE…:
# LOAD DATA LOCAL INFILE from a FIFO that sqlite3 writes the CSV into.
load_my_fifo() {
  local dir="$1" src="$2" t fifo writer
  shift 2
  for t in "$@"; do
    fifo="$dir/$t.csv"
    rm -f "$fifo" && mkfifo "$fifo"
    sqlite3 -readonly -csv -newline $'\n' -nullvalue NULL "$src" "SELECT * FROM \"$t\"" >"$fifo" &
    writer=$!
    if ! my_floor --local-infile=1 -e "LOAD DATA LOCAL INFILE '$fifo' INTO TABLE \`$t\`
        CHARACTER SET utf8mb4 FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' ESCAPED BY ''
        LINES TERMINATED BY '\n'"; then
      kill "$writer" 2>/dev/null || true
      exit 1
    fi
    wait "$writer"
    rm -f "$fifo"
  done
}
# load_my_insert ROWS_PER_INSERT SQLITE TABLE…:
# multi-row INSERT statements written by sqlite3, a transaction per table.
load_my_insert() {
  local per="$1" src="$2" t cols
  shift 2
  for t in "$@"; do
    cols="$(sqlite3 -readonly "$src" "SELECT group_concat('quote(\"' || name || '\")', ' || '','' || ')
                                      FROM pragma_table_info('$t')")"
    {
      echo "SET autocommit = 0;"
      sqlite3 -readonly "$src" "SELECT 'INSERT INTO \`$t\` VALUES ' || group_concat('(' || $cols || ')', ',') || ';'
                                FROM \"$t\" GROUP BY (rowid - 1) / $per"
      echo "COMMIT;"
    } | my_floor
  done
}
export -f load_pg my_floor load_my_fifo load_my_insert

# check_counts ENGINE DB MANIFEST [lower]: "row counts checked", or what differs
# (lower: the tables were created with lower-case names).
check_counts() {
  local engine="$1" db="$2" manifest="$3" fold="${4:-}" t want have bad=""
  while read -r t want; do
    local name="$t"
    [ -z "$fold" ] || name="${t,,}"
    if [ "$engine" = postgres ]; then
      have="$(psql_in "$db" -At -c "SELECT count(*) FROM \"$name\"" 2>/dev/null || echo missing)"
    else
      have="$(my "$engine" -N "$db" -e "SELECT count(*) FROM \`$name\`" 2>/dev/null || echo missing)"
    fi
    [ "$have" = "$want" ] || bad+="${bad:+, }$t $have of $want rows"
  done < <(python3 -c 'import json, sys
for t, n in json.load(open(sys.argv[1]))["tables"].items(): print(t, n)' "$manifest")
  if [ -z "$bad" ]; then echo "row counts checked"; else echo "ROWS DIFFER: $bad"; fi
}

# fresh_my_floor ENGINE BENCH: the floor's database, its tables without keys.
fresh_my_floor() {
  drop_my "$1" "$floor_db"
  my "$1" -e "CREATE DATABASE \`$floor_db\` CHARACTER SET utf8mb4"
  my "$1" "$floor_db" <"$2/floor/mysql.sql"
}

# floors SIZE ROWS BENCH ENGINE
floors() {
  local size="$1" rows="$2" bench="$3" engine="$4" src tables note
  src="$bench/database/$db_id/$db_id.sqlite"
  mapfile -t tables <"$bench/floor/tables.txt"
  if [ "$engine" = postgres ]; then
    pg_created+=("$floor_db")
    drop_pg "$floor_db"
    psql_in postgres -c "CREATE DATABASE \"$floor_db\""
    psql_in "$floor_db" -f "$bench/floor/postgres.sql"
    measure "$OUT/logs/$size-postgres-floor_copy.log" bash -euo pipefail -c 'load_pg "$@"' _ "$floor_db" "$src" "${tables[@]}"
    note="$(check_counts postgres "$floor_db" "$bench/manifest.json")"
    record "$size" "$rows" postgres floor_copy "$m_status" "$m_wall" "$m_rss" "${m_note:-$note}"
    if [ "$m_status" = ok ]; then
      measure "$OUT/logs/$size-postgres-floor_keys.log" psql -d "$floor_db" -X -q -v ON_ERROR_STOP=1 -f "$bench/floor/postgres-keys.sql"
      record "$size" "$rows" postgres floor_keys "$m_status" "$m_wall" "$m_rss" "$m_note"
    fi
    drop_pg "$floor_db"
    return
  fi
  my_created+=("$engine:$floor_db")
  local user="${engine}_user" host="${engine}_host" port="${engine}_port" pass="${engine}_pass"
  export MY_HOST="${!host}" MY_PORT="${!port:-3306}" MY_USER="${!user}" MY_DB="$floor_db"
  export MYSQL_PWD="${!pass}"
  if [ "${local_infile[$engine]}" = 1 ]; then
    fresh_my_floor "$engine" "$bench"
    measure "$OUT/logs/$size-$engine-floor_load_data.log" bash -euo pipefail -c 'load_my_fifo "$@"' _ "$work" "$src" "${tables[@]}"
    note="$(check_counts "$engine" "$floor_db" "$bench/manifest.json")"
    record "$size" "$rows" "$engine" floor_load_data "$m_status" "$m_wall" "$m_rss" "${m_note:-CSV through a FIFO; $note}"
    if [ "$m_status" = ok ]; then
      # shellcheck disable=SC2016 # $1 is the inner shell's
      measure "$OUT/logs/$size-$engine-floor_keys.log" bash -euo pipefail -c 'my_floor <"$1"' _ "$bench/floor/mysql-keys.sql"
      record "$size" "$rows" "$engine" floor_keys "$m_status" "$m_wall" "$m_rss" "$m_note"
    fi
  else
    record "$size" "$rows" "$engine" floor_load_data skipped "" "" "the server has local_infile=OFF"
  fi
  fresh_my_floor "$engine" "$bench"
  measure "$OUT/logs/$size-$engine-floor_insert.log" bash -euo pipefail -c 'load_my_insert "$@"' _ 2000 "$src" "${tables[@]}"
  note="$(check_counts "$engine" "$floor_db" "$bench/manifest.json")"
  record "$size" "$rows" "$engine" floor_insert "$m_status" "$m_wall" "$m_rss" "${m_note:-$note}"
  unset MYSQL_PWD
  drop_my "$engine" "$floor_db"
}

# pgloader_step SIZE ROWS BENCH
pgloader_step() {
  local size="$1" rows="$2" bench="$3" note errors logf="$OUT/logs/$1-postgres-pgloader.log"
  pg_created+=("$pgloader_db")
  drop_pg "$pgloader_db"
  psql_in postgres -c "CREATE DATABASE \"$pgloader_db\""
  cat >"$work/pgloader.load" <<EOF
LOAD DATABASE
  FROM sqlite://$bench/database/$db_id/$db_id.sqlite
  INTO postgresql://$pg_user${pg_pass:+:$pg_pass}@$pg_host:${pg_port:-5432}/$pgloader_db
WITH include drop, create tables, create indexes, reset sequences;
EOF
  measure "$logf" pgloader --root-dir "$work/pgloader" "$work/pgloader.load"
  # pgloader exits 0 after errors it went past: its log and the counts say.
  errors="$(grep -c -E ' (FATAL|ERROR) ' "$logf" || true)"
  note="$(check_counts postgres "$pgloader_db" "$bench/manifest.json" lower)"
  [ "$errors" = 0 ] || note+="; $errors ERROR/FATAL lines in logs/$(basename "$logf")"
  [[ "$note" != ROWS* ]] || [ "$m_status" != ok ] || m_status=failed
  record "$size" "$rows" postgres pgloader "$m_status" "$m_wall" "$m_rss" "${m_note:-$note}"
  drop_pg "$pgloader_db"
}

# drop_target ENGINE: what sqlwitness migrated for this size.
drop_target() {
  if [ "$1" = postgres ]; then
    psql_in "$sw_pg_db" -c "DROP SCHEMA IF EXISTS \"$db_id\" CASCADE" >/dev/null
  else
    drop_my "$1" "$db_id"
  fi
}

# pg_statistics_note: whether the planner has statistics on the migrated tables
# (ANALYZE, or autovacuum's): without them PostgreSQL may pick other plans. The
# copy's stamp (sqlwitness's own one-row table, __sqlwitness) is not a table
# the queries read.
pg_statistics_note() {
  local none
  none="$(psql_in "$sw_pg_db" -At -c "SELECT count(*) FILTER (WHERE last_analyze IS NULL
    AND last_autoanalyze IS NULL) || ' of ' || count(*) FROM pg_stat_user_tables
    WHERE schemaname = '$db_id' AND relname <> '__sqlwitness'")"
  [[ "$none" == 0\ * ]] || echo "no planner statistics ($none tables)"
}

# keep_report SIZE ENGINE STEP: an eval's summary and report (verdicts, each
# query's time) beside the step's log.
keep_report() {
  cp "$work/eval/summary.md" "$OUT/logs/$1-$2-$3.summary.md"
  cp "$work/eval/report.json" "$OUT/logs/$1-$2-$3.report.json"
}

# sqlwitness_steps SIZE ROWS BENCH
sqlwitness_steps() {
  local size="$1" rows="$2" bench="$3" engine base limit=() have_copy
  base=(--bench "$bench" --split dev -q)
  [ -z "$QUERY_TIMEOUT" ] || limit=(--timeout "$QUERY_TIMEOUT")
  # Without a server: eval on SQLite, audit, fuzz.
  if want eval; then
    rm -rf "$work/eval"
    if run_sw "$size" "$rows" sqlite eval eval "${base[@]}" "${limit[@]}" --engines sqlite \
      --pred "$bench/predictions.sql" --out "$work/eval"; then
      keep_report "$size" sqlite eval
    fi
  fi
  if want audit; then
    rm -rf "$work/audit"
    if run_sw "$size" "$rows" sqlite audit audit "${base[@]}" "${limit[@]}" --engines sqlite --out "$work/audit"; then
      cp "$work/audit/audit.md" "$OUT/logs/$size-sqlite-audit.md"
    fi
  fi
  if want fuzz; then
    rm -rf "$work/fuzz"
    if run_sw "$size" "$rows" sqlite fuzz fuzz "${base[@]}" --out "$work/fuzz"; then
      cp "$work/fuzz/manifest.json" "$OUT/logs/$size-sqlite-fuzz.manifest.json"
    fi
    rm -rf "$work/fuzz"
  fi
  for engine in "${engines[@]}"; do
    # The copies are named as the generated databases (no prefix of the
    # tool's own), so that drop_target and the exit trap drop them.
    local server=(--server "$engine=${url[$engine]}" --namespace-prefix "")
    [ "$engine" = postgres ] || my_created+=("$engine:$db_id")
    drop_target "$engine"
    have_copy=0
    if want migrate; then
      run_sw "$size" "$rows" "$engine" migrate migrate "${base[@]}" --engines "$engine" "${server[@]}" \
        --log-dir "$OUT/logs/$size-$engine-migration" && have_copy=1
    fi
    for step in migrate_again eval eval_no_migrate; do
      want "$step" || continue
      if [ "$have_copy" = 0 ]; then
        record "$size" "$rows" "$engine" "$step" skipped "" "" "no copy (migrate did not run)"
        continue
      fi
      case "$step" in
        migrate_again)
          run_sw "$size" "$rows" "$engine" "$step" migrate "${base[@]}" --engines "$engine" "${server[@]}" \
            --log-dir "$OUT/logs/$size-$engine-migration-again" || true ;;
        eval | eval_no_migrate)
          local extra=()
          [ "$step" = eval ] || extra=(--no-migrate)
          [ "$engine" != postgres ] || step_note="$(pg_statistics_note)"
          rm -rf "$work/eval"
          if run_sw "$size" "$rows" "$engine" "$step" eval "${base[@]}" "${limit[@]}" --engines "sqlite,$engine" \
            "${server[@]}" --pred "$bench/predictions.sql" --out "$work/eval" "${extra[@]}"; then
            keep_report "$size" "$engine" "$step"
          fi
          step_note="" ;;
      esac
    done
    drop_target "$engine"
  done
}

# ---------------------------------------------------------------- the run
if [ "$sw_steps" = 1 ] && in_list postgres "${engines[@]}"; then
  pg_created+=("$sw_pg_db")
  drop_pg "$sw_pg_db"
  psql_in postgres -c "CREATE DATABASE \"$sw_pg_db\""
fi
started=$SECONDS
for size in "${sizes[@]}"; do
  db_id="${PREFIX}$(tr 'A-Z.' 'a-zp' <<<"$size")"
  bench="$DATA/$size"
  python3 scripts/bench-scale-data.py generate --rows "$size" --db-id "$db_id" --seed "$SEED" --out "$bench"
  rows="$(python3 -c 'import json, sys; print(sum(json.load(open(sys.argv[1]))["tables"].values()))' "$bench/manifest.json")"
  log "$size: $rows rows, $(du -h "$bench/database/$db_id/$db_id.sqlite" | cut -f1)"
  for engine in "${engines[@]}"; do
    if want floor; then floors "$size" "$rows" "$bench" "$engine"; fi
    if want pgloader && [ "$engine" = postgres ]; then pgloader_step "$size" "$rows" "$bench"; fi
  done
  if [ "$sw_steps" = 1 ] && in_list "$size" "${sw_sizes[@]}"; then
    sqlwitness_steps "$size" "$rows" "$bench"
  fi
  [ "$DROP_DATA" = 0 ] || rm -rf "$bench"
done

# ---------------------------------------------------------------- the report
{
  echo "# sqlwitness at scale: results"
  echo
  echo "Finished $(date -u '+%Y-%m-%d %H:%M UTC') after $(((SECONDS - started) / 60)) min, on $(nproc) cores," \
    "$(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM" \
    "($(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1))."
  echo
  for k in sqlwitness postgres mariadb mysql pgloader sqlite3; do
    [ -z "${version[$k]:-}" ] || echo "- $k: ${version[$k]}"
  done
  echo
  echo "Each cell: wall time · rows/s (rows of the database ÷ wall time) · peak RSS of the largest"
  echo "client process; for loads, × the engine's floor at that size (PostgreSQL's \\copy; MySQL's and"
  echo "MariaDB's LOAD DATA where the server allows it, else the INSERT floor)."
  echo
} >"$OUT/results.md"
plot=()
if ensure_tool gnuplot gnuplot-nox; then plot=(--plot "$OUT/scale.png"); else log "no gnuplot: no plot"; fi
python3 scripts/bench-scale-data.py report --csv "$csv" --markdown "$work/tables.md" "${plot[@]}"
cat "$work/tables.md" >>"$OUT/results.md"
if [ -f "$OUT/scale.gp" ]; then
  if gnuplot "$OUT/scale.gp"; then log "plot: $OUT/scale.png"; else log "gnuplot failed on $OUT/scale.gp"; fi
fi
cat "$OUT/results.md"
log "results: $OUT/results.md, $csv"
