#!/usr/bin/env bash
# The ingest benchmark of issue 12 (docs/benchmarks.md, "Ingest end to end against raw COPY"):
# a private PostgreSQL with production-like durability (fsync and synchronous_commit on), the
# migrations, one gateway, and cmd/spindle-ingest-bench against them (the load, then raw COPY of
# the same rows, then the HTTP floor and the ceiling it implies: see its -h).
#   bash apps/gateway/scripts/ingest-bench.sh [bench flags…]
# Environment: BENCH_PG_PORT (25606), BENCH_PG_DIR (/tmp/spindle-ingest-bench), BENCH_GATEWAY_PORT
# (25607), GATEWAY_BIN (default: build this tree's gateway), GATEWAY_ENV (extra VAR=value words
# for the gateway, e.g. "SPINDLE_INGEST_GROUP_WINDOW=0s"), BENCH_WORKER=1 (also run the real
# worker, apps/worker, so plain-mode rollups run during the load as in production; its log is
# $BENCH_PG_DIR/worker.log), BENCH_WORKER_MAIN (the worker's entry point, default
# apps/worker/src/main.ts: another copy of the worker's src/ inside apps/worker runs an older worker),
# BENCH_PG_PRELOAD=timescaledb (preload TimescaleDB, built by scripts/bench/timescaledb-from-source.sh,
# with its job scheduler and job history on; with SPINDLE_TIMESERIES_MODE=timescaledb the migrations
# then make hypertables and continuous aggregates, and the benchmark samples their refresh jobs),
# BENCH_PG_OPTIONS (more "-c name=value" words for the server).
set -euo pipefail
cd "$(dirname "$0")/../../.."
. scripts/lib.sh

port=${BENCH_PG_PORT:-25606}
root=${BENCH_PG_DIR:-/tmp/spindle-ingest-bench}
gateway_port=${BENCH_GATEWAY_PORT:-25607}
bindir=$(pg_bindir) || die "PostgreSQL server binaries not found: run bash scripts/setup.sh --for-tests"

preload=pg_stat_statements
options=${BENCH_PG_OPTIONS:-}
if [ -n "${BENCH_PG_PRELOAD:-}" ]; then
  preload=$preload,$BENCH_PG_PRELOAD
  # One scheduler per database, and the refresh, compression and retention jobs at once.
  case ",$BENCH_PG_PRELOAD," in *,timescaledb,*)
    options="-c timescaledb.max_background_workers=16 -c max_worker_processes=24 \
      -c timescaledb.enable_job_execution_logging=on -c timescaledb.telemetry_level=off $options" ;;
  esac
fi
as_pg_owner "$bindir/pg_ctl -D $root/data -m fast stop" >/dev/null 2>&1 || true
rm -rf "$root"; mkdir -p "$root"
is_root && chown postgres "$root"
as_pg_owner "$bindir/initdb -D $root/data --auth=trust -U postgres -E UTF8" >"$root/initdb.log" 2>&1 || die "initdb failed: see $root/initdb.log"
as_pg_owner "$bindir/pg_ctl -D $root/data -w -l $root/server.log -o \"-p $port -k $root -c listen_addresses=127.0.0.1 \
  -c fsync=on -c synchronous_commit=on -c shared_buffers=512MB -c max_wal_size=4GB -c max_connections=100 \
  -c shared_preload_libraries=$preload -c pg_stat_statements.track=all -c track_functions=all $options\" start" >&2 \
  || die "PostgreSQL did not start: see $root/server.log"
trap 'kill "${gateway_pid:-}" "${worker_pid:-}" 2>/dev/null || true; as_pg_owner "$bindir/pg_ctl -D $root/data -m fast stop" >/dev/null 2>&1 || true' EXIT

admin="postgres://postgres@127.0.0.1:$port/postgres"
psql "$admin" -qAt -c "CREATE DATABASE spindle" >/dev/null
url="postgres://postgres@127.0.0.1:$port/spindle"
# Where PostgreSQL spends the measured run (the benchmark prints the top statements).
psql "$url" -qAt -c "CREATE EXTENSION pg_stat_statements" >/dev/null
DATABASE_URL=$url node --import tsx packages/db/src/cli.ts migrate >&2

bin=${GATEWAY_BIN:-}
if [ -z "$bin" ]; then
  bin=$root/spindle-gateway
  (cd apps/gateway && go build -o "$bin" ./cmd/spindle-gateway)
fi
(cd apps/gateway && go build -o "$root/spindle-ingest-bench" ./cmd/spindle-ingest-bench)

# Rate limits off (the benchmark's senders share one address), admission wide enough for every
# sender, logs at warn: the measurement is of the write path, not of per-client protection.
# shellcheck disable=SC2086 # GATEWAY_ENV is a list of NAME=value words
env DATABASE_URL="$url" SPINDLE_GATEWAY_ADDR="127.0.0.1:$gateway_port" SPINDLE_GATEWAY_STATE_DIR="$root/state" \
  SPINDLE_RATE_PER_ADDRESS=0 SPINDLE_RATE_PER_CREDENTIAL=0 SPINDLE_MAX_CONCURRENT_WRITES=1024 SPINDLE_MAX_QUEUED_WRITES=1024 \
  SPINDLE_LOG_LEVEL=warn ${GATEWAY_ENV:-} "$bin" 2>"$root/gateway.log" &
gateway_pid=$!
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$gateway_port/healthz" >/dev/null && break; sleep 0.1; done

if [ "${BENCH_WORKER:-0}" = 1 ]; then
  DATABASE_URL=$url node --import tsx "${BENCH_WORKER_MAIN:-apps/worker/src/main.ts}" >"$root/worker.log" 2>&1 &
  worker_pid=$!
fi

"$root/spindle-ingest-bench" -gateway "http://127.0.0.1:$gateway_port" -database "$url" \
  -gateway-pid "$gateway_pid" -postgres-pid "$(head -1 "$root/data/postmaster.pid")" "$@"
