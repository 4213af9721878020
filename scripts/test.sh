#!/usr/bin/env bash
# Runs the whole test suite. Tests that need PostgreSQL or MySQL read
# SQLWITNESS_POSTGRES_URL / SQLWITNESS_MYSQL_URL (defaulting here to the local
# servers); with SQLWITNESS_REQUIRE_ENGINES=1 a missing server fails the test
# instead of skipping it.
set -euo pipefail
cd "$(dirname "$0")/.."
export SQLWITNESS_POSTGRES_URL="${SQLWITNESS_POSTGRES_URL:-postgres://root@127.0.0.1:5432/test}"
export SQLWITNESS_MYSQL_URL="${SQLWITNESS_MYSQL_URL:-mysql://root@127.0.0.1:3306/test}"
exec cargo nextest run --workspace --no-fail-fast "$@"
