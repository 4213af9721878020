#!/usr/bin/env bash
# Makes sure what the tests need is there, idempotently: PostgreSQL on
# 127.0.0.1:5432, MariaDB on 127.0.0.1:3306, MySQL on 127.0.0.1:3307
# (scripts/mysql-server.sh installs it in a chroot the first time, ~1 min),
# cargo-nextest and Chromium (browser tests). Running servers are left alone.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf '== %s\n' "$*" >&2; }

log "PostgreSQL"
if ! pg_isready -h 127.0.0.1 -p 5432 -q; then
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main start || true
fi
for _ in $(seq 1 60); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done
pg_isready -h 127.0.0.1 -p 5432 >&2
psql -h 127.0.0.1 -U root -d test -Atc 'select version()' >&2

log "MariaDB"
if ! mariadb-admin -h 127.0.0.1 -uroot ping >/dev/null 2>&1; then
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd || true
fi
for _ in $(seq 1 60); do mariadb-admin -h 127.0.0.1 -uroot ping >/dev/null 2>&1 && break; sleep 1; done
mariadb -h 127.0.0.1 -uroot -N -e 'select version()' >&2

log "MySQL"
scripts/mysql-server.sh

log "cargo-nextest"
if ! cargo nextest --version >/dev/null 2>&1; then
  cargo install cargo-nextest --locked
fi
cargo nextest --version >&2

log "Chromium (the HTML report's browser tests)"
if ! command -v chromium >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1 ||
    { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null; }
fi
chromium --version >&2 || echo "warning: no chromium: the browser tests will fail under SQLWITNESS_REQUIRE_ENGINES=1" >&2
