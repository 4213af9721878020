#!/usr/bin/env bash
# Installs (once) and starts (when it is down) a real MySQL server beside the
# machine's MariaDB: Debian unstable's mysql-server-core (the 9.x LTS line) in
# a debootstrap chroot outside the repository, serving on 127.0.0.1:3307 with
# `root` and an empty password. Idempotent: a running server is left alone,
# an installed chroot is reused.
#
#   scripts/mysql-server.sh            # install if needed, start if needed
#   SQLWITNESS_MYSQL_ROOT=/path  SQLWITNESS_MYSQL_PORT=3307  (defaults shown below)
set -euo pipefail
root="${SQLWITNESS_MYSQL_ROOT:-/var/lib/sqlwitness-mysql}"
port="${SQLWITNESS_MYSQL_PORT:-3307}"
datadir=/var/lib/mysql-sqlwitness
log() { printf '== mysql: %s\n' "$*" >&2; }

ping() {
  [ -x "$root/usr/bin/mysqladmin" ] &&
    chroot "$root" mysqladmin --protocol=tcp -h 127.0.0.1 -P "$port" -uroot ping >/dev/null 2>&1
}

# The server runs without binary logging: with it, MySQL lets only a login
# with SUPER create a dump's triggers and functions, and the least-privilege
# loader would leave out the rows a dump's triggers make (Sakila's
# film_text). One of ours started with it before is restarted without.
logging_binary() {
  [ "$(chroot "$root" mysql --protocol=tcp -h 127.0.0.1 -P "$port" -uroot -N \
    -e 'SELECT @@log_bin' 2>/dev/null)" = "1" ]
}
if ping; then
  if logging_binary; then
    log "restarting the server without binary logging"
    chroot "$root" mysqladmin --protocol=tcp -h 127.0.0.1 -P "$port" -uroot shutdown
    for _ in $(seq 1 30); do ping || break; sleep 1; done
  else
    log "already running on 127.0.0.1:$port"
    exit 0
  fi
fi

if [ ! -x "$root/usr/sbin/mysqld" ]; then
  if ! command -v debootstrap >/dev/null 2>&1; then
    log "installing debootstrap"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null 2>&1 ||
      { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null; }
  fi
  log "debootstrap sid into $root"
  mkdir -p "$root"
  debootstrap --variant=minbase sid "$root" >/dev/null
  log "installing mysql-server-core and mysql-client in the chroot"
  chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    --no-install-recommends mysql-server-core mysql-client >/dev/null
fi

# The server's user and directories inside the chroot (mysql-server-core
# ships no maintainer scripts that would create them).
chroot "$root" sh -c "getent passwd mysql >/dev/null || useradd --system --no-create-home \
  --shell /usr/sbin/nologin mysql"
chroot "$root" sh -c "mkdir -p /run/mysqld $datadir && chown mysql:mysql /run/mysqld $datadir"
if [ ! -d "$root$datadir/mysql" ]; then
  log "initialising $datadir"
  chroot "$root" mysqld --initialize-insecure --user=mysql --datadir="$datadir" >/dev/null 2>&1
fi

log "starting mysqld on 127.0.0.1:$port"
# /proc lets mysqld read its own limits; the server runs in the background.
mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
chroot "$root" sh -c "nohup mysqld --user=mysql --datadir=$datadir --port=$port \
  --bind-address=127.0.0.1 --socket=/run/mysqld/mysqld.sock --secure-file-priv=NULL \
  --mysqlx=OFF --disable-log-bin --log-error=$datadir/error.log >/dev/null 2>&1 &"
for _ in $(seq 1 60); do
  ping && break
  sleep 1
done
ping || { log "mysqld did not start; see $root$datadir/error.log"; exit 1; }
# root over TCP from 127.0.0.1 (the initial root is root@localhost only).
chroot "$root" mysql -uroot -S /run/mysqld/mysqld.sock -e \
  "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1'; \
   GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION; \
   CREATE DATABASE IF NOT EXISTS test;" 2>/dev/null || true
log "ready: $(chroot "$root" mysql --protocol=tcp -h 127.0.0.1 -P "$port" -uroot -N -e 'SELECT VERSION()')"
