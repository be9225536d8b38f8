#!/usr/bin/env bash
# A throwaway PostgreSQL for tests, with a migrated template database that each test copies.
#   eval "$(bash scripts/test-db.sh start)"   starts it and prints the variables tests read
#   bash scripts/test-db.sh stop
# SPINDLE_TEST_PG_PRELOAD=timescaledb preloads TimescaleDB (benchmarks only: scripts/bench/
# timescaledb-from-source.sh builds it); with SPINDLE_TIMESERIES_MODE=timescaledb the template is
# then migrated in TimescaleDB mode. The tests themselves use PGlite for TimescaleDB.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

port=${SPINDLE_TEST_PG_PORT:-55432}
root=${SPINDLE_TEST_PG_DIR:-/tmp/spindle-test-pg}
bindir=$(pg_bindir) || die "PostgreSQL server binaries not found: run bash scripts/setup.sh --for-tests"
preload=
if [ -n "${SPINDLE_TEST_PG_PRELOAD:-}" ]; then
  # Every database copied from the template gets a TimescaleDB scheduler of its own.
  preload="-c shared_preload_libraries=$SPINDLE_TEST_PG_PRELOAD -c timescaledb.max_background_workers=16 -c max_worker_processes=24 -c timescaledb.telemetry_level=off"
fi

case "${1:-}" in
  start)
    if ! as_pg_owner "$bindir/pg_ctl -D $root/data status" >/dev/null 2>&1; then
      rm -rf "$root"; mkdir -p "$root"
      is_root && chown postgres "$root"
      as_pg_owner "$bindir/initdb -D $root/data --auth=trust -U postgres -E UTF8" >"$root/initdb.log" 2>&1 \
        || die "initdb failed: see $root/initdb.log"
      as_pg_owner "$bindir/pg_ctl -D $root/data -w -l $root/server.log \
        -o \"-p $port -k $root -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200 $preload\" start" >&2 \
        || die "PostgreSQL did not start: see $root/server.log"
    fi
    admin="postgres://postgres@127.0.0.1:$port/postgres"
    psql "$admin" -qAt -c "DROP DATABASE IF EXISTS spindle_template" >/dev/null
    psql "$admin" -qAt -c "CREATE DATABASE spindle_template" >/dev/null
    DATABASE_URL="postgres://postgres@127.0.0.1:$port/spindle_template" \
      node --import tsx packages/db/src/cli.ts migrate >&2
    echo "export SPINDLE_TEST_DATABASE_URL=$admin"
    echo "export SPINDLE_TEST_TEMPLATE_DB=spindle_template"
    ;;
  stop)
    as_pg_owner "$bindir/pg_ctl -D $root/data -m fast stop" >/dev/null 2>&1 || true
    ;;
  *) die "usage: test-db.sh start|stop" ;;
esac
