#!/usr/bin/env bash
# Lists the functions a server's own catalogue flags as more than a
# computation on their arguments: side effects (writes, WAL, transaction
# ids, notifications, replication, locks), session or server state, files,
# settings, paths, other sessions. This is where `denied_functions`,
# `denied_function_prefixes` and `allowed_functions` in dialects/*.yaml come
# from: every flagged name is denied there (by name or family) or allowed
# with its reason. The queries, and what each one flags, are in
# scripts/denied-functions/<engine>.sql; the live test
# `cargo nextest run -p sqlwitness-guard --test catalogue` runs the same
# queries and names every flagged function the dialect file does not cover.
#
#   scripts/derive-denied-functions.sh postgres|mysql|mariadb [URL]
#
# Prints one line per flagged function: name, TAB, why. The URL defaults
# to SQLWITNESS_<ENGINE>_URL, then to the local servers (an administrative
# login: the MySQL help tables and PostgreSQL's ACLs need it).
set -euo pipefail
cd "$(dirname "$0")/.."
engine="${1:?usage: $0 postgres|mysql|mariadb [URL]}"
sql="scripts/denied-functions/$engine.sql"
case "$engine" in
  postgres)
    url="${2:-${SQLWITNESS_POSTGRES_URL:-postgres://root@127.0.0.1:5432/test}}"
    psql "$url" -X -At -F $'\t' -f "$sql" ;;
  mysql|mariadb)
    var="SQLWITNESS_${engine^^}_URL"
    default="mysql://root@127.0.0.1:3307/test"
    [ "$engine" = mariadb ] && default="mysql://root@127.0.0.1:3306/test"
    url="${2:-${!var:-$default}}"
    # mysql://user[:password]@host[:port]/db
    rest="${url#mysql://}"; cred="${rest%%@*}"; hostpart="${rest#*@}"; hostport="${hostpart%%/*}"
    user="${cred%%:*}"; pass=""; [ "$cred" != "$user" ] && pass="${cred#*:}"
    host="${hostport%%:*}"; port="3306"; [ "$hostport" != "$host" ] && port="${hostport#*:}"
    MYSQL_PWD="$pass" mysql -h "$host" -P "$port" -u "$user" -N -B < "$sql" ;;
  *) echo "unknown engine $engine (postgres, mysql, mariadb)" >&2; exit 2 ;;
esac
