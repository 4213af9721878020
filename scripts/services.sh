#!/usr/bin/env bash
# Makes sure what the tests need is there, idempotently: PostgreSQL on
# 127.0.0.1:5432 and MariaDB on 127.0.0.1:3306 (installed from Debian's
# packages when missing), MySQL on 127.0.0.1:3307 (scripts/mysql-server.sh
# installs it in a chroot the first time, ~1 min), cargo-nextest and
# Chromium (browser tests). Running servers are left alone; the logins the
# tests use (PostgreSQL: `root`, trusted on 127.0.0.1, databases `root` and
# `test`; MariaDB: `root` with an empty password, database `test`) are made
# only where they do not already work.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf '== %s\n' "$*" >&2; }

# Installs Debian packages, updating the package lists once if needed.
apt_install() {
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null 2>&1 ||
    { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null; }
}

log "PostgreSQL"
if ! command -v pg_ctlcluster >/dev/null 2>&1; then
  log "postgresql: installing from Debian's packages"
  apt_install postgresql postgresql-client
fi
pg_version="$(find /usr/lib/postgresql -mindepth 1 -maxdepth 1 -printf '%f\n' | sort -V | tail -1)"
if [ ! -d "/etc/postgresql/$pg_version/main" ]; then
  pg_createcluster "$pg_version" main >/dev/null
fi
if ! pg_isready -h 127.0.0.1 -p 5432 -q; then
  pg_ctlcluster --skip-systemctl-redirect "$pg_version" main start || true
fi
for _ in $(seq 1 60); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done
pg_isready -h 127.0.0.1 -p 5432 >&2
if ! psql -h 127.0.0.1 -U root -d test -Atc 'select 1' >/dev/null 2>&1; then
  log "postgresql: the test login (root, trusted on 127.0.0.1, databases root and test)"
  hba="/etc/postgresql/$pg_version/main/pg_hba.conf"
  if ! grep -Eq '^host[[:space:]]+all[[:space:]]+all[[:space:]]+127\.0\.0\.1/32[[:space:]]+trust' "$hba"; then
    sed -i '1i host all all 127.0.0.1/32 trust' "$hba"
    pg_ctlcluster --skip-systemctl-redirect "$pg_version" main reload
  fi
  runuser -u postgres -- psql -q -v ON_ERROR_STOP=1 <<'SQL'
SELECT 'CREATE ROLE root SUPERUSER LOGIN' WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'root')\gexec
SELECT 'CREATE DATABASE root OWNER root' WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'root')\gexec
SELECT 'CREATE DATABASE test OWNER root' WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'test')\gexec
SQL
fi
psql -h 127.0.0.1 -U root -d test -Atc 'select version()' >&2

log "MariaDB"
if [ ! -x /usr/sbin/mariadbd ]; then
  log "mariadb: installing from Debian's packages"
  apt_install mariadb-server mariadb-client
fi
if ! mariadb-admin -h 127.0.0.1 -uroot ping >/dev/null 2>&1; then
  mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld 2>/dev/null || true
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd -- --user=mysql || true
fi
for _ in $(seq 1 60); do mariadb-admin -h 127.0.0.1 -uroot ping >/dev/null 2>&1 && break; sleep 1; done
if ! mariadb -h 127.0.0.1 -uroot -e 'select 1' >/dev/null 2>&1; then
  # Debian's root logs in over the socket only: the tests log in over TCP.
  log "mariadb: the test login (root, empty password, on 127.0.0.1)"
  mariadb -uroot -e "ALTER USER 'root'@'localhost' IDENTIFIED VIA unix_socket OR mysql_native_password USING PASSWORD('')"
fi
mariadb -h 127.0.0.1 -uroot -e 'CREATE DATABASE IF NOT EXISTS test'
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
  apt_install chromium
fi
chromium --version >&2 || echo "warning: no chromium: the browser tests will fail under SQLWITNESS_REQUIRE_ENGINES=1" >&2
