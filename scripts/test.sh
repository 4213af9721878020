#!/usr/bin/env bash
# Runs the whole test suite on every engine. First makes sure the servers
# are up (scripts/services.sh; SQLWITNESS_NO_SERVICES=1 skips that), then
# runs nextest with each server's URL (SQLWITNESS_<ENGINE>_URL, defaulting
# to the local servers: PostgreSQL 5432, MySQL 3307, MariaDB 3306). With
# SQLWITNESS_REQUIRE_ENGINES=1 a missing server or data set fails the test
# instead of skipping it.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${SQLWITNESS_NO_SERVICES:-0}" != 1 ]; then
  scripts/services.sh
fi
export SQLWITNESS_POSTGRES_URL="${SQLWITNESS_POSTGRES_URL:-postgres://root@127.0.0.1:5432/test}"
export SQLWITNESS_MYSQL_URL="${SQLWITNESS_MYSQL_URL:-mysql://root@127.0.0.1:3307/test}"
export SQLWITNESS_MARIADB_URL="${SQLWITNESS_MARIADB_URL:-mysql://root@127.0.0.1:3306/test}"
exec cargo nextest run --workspace --no-fail-fast "$@"
