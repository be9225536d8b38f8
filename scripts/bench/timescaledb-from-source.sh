#!/usr/bin/env bash
# Builds TimescaleDB (with its TSL part: compression, continuous aggregates) from source against
# Debian's PostgreSQL and installs it into that server's lib and share directories. Benchmark-only
# tool (docs/benchmarks.md, "TimescaleDB server built from source"): Debian ships no TimescaleDB
# and the tests use PGlite's wasm build, which is no server. Neither CI nor `npm test` runs it.
#   bash scripts/bench/timescaledb-from-source.sh [source]
# source: a timescaledb source tree, a .tar.gz of one, or a bare git directory (default: the
# mirror /work/.mirror/timescale+timescaledb/repo). Environment: TIMESCALEDB_TAG (2.28.3, the
# newest release that supports PostgreSQL 15: 2.29 dropped it from src/compat/compat.h although its
# CMakeLists.txt still names 15), PG_MAJOR (15), BUILD_DIR (/tmp/tsdb-build).
# Idempotent: does nothing when that version is already installed.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib.sh

tag=${TIMESCALEDB_TAG:-2.28.3}
pg_major=${PG_MAJOR:-15}
source=${1:-/work/.mirror/timescale+timescaledb/repo}
build=${BUILD_DIR:-/tmp/tsdb-build}
pg_config=/usr/lib/postgresql/$pg_major/bin/pg_config
[ -x "$pg_config" ] || die "PostgreSQL $pg_major not found ($pg_config)"

if [ -f "$($pg_config --pkglibdir)/timescaledb-$tag.so" ] && [ -f "$($pg_config --sharedir)/extension/timescaledb--$tag.sql" ]; then
  log "TimescaleDB $tag is already installed for PostgreSQL $pg_major"
else
  # The server headers must be the running server's own minor version: the security archive's
  # newer postgresql-server-dev would upgrade the server package under running clusters.
  server_version=$(dpkg-query -W -f='${Version}' "postgresql-$pg_major" 2>/dev/null || true)
  missing=()
  [ -f "$($pg_config --includedir-server)/postgres.h" ] || missing+=("postgresql-server-dev-$pg_major${server_version:+=$server_version}")
  for tool in cmake gcc make; do command -v "$tool" >/dev/null || missing+=("$tool"); done
  [ -f /usr/include/openssl/ssl.h ] || missing+=(libssl-dev)
  if [ ${#missing[@]} -gt 0 ]; then
    is_root || die "missing build packages, install as root: ${missing[*]}"
    log "installing ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >&2
  fi

  src=$build/timescaledb-$tag
  if [ ! -f "$src/CMakeLists.txt" ]; then
    rm -rf "$src"; mkdir -p "$src"
    if [ -d "$source/objects" ] || [ -f "$source/HEAD" ]; then
      git --git-dir="$source" archive "$tag" | tar -x -C "$src"
    elif [ -f "$source" ]; then
      tar -xzf "$source" -C "$src" --strip-components=1
    elif [ -f "$source/CMakeLists.txt" ]; then
      cp -a "$source/." "$src"
    else
      die "no TimescaleDB source at $source"
    fi
  fi
  grep -q "^version = $tag\$" "$src/version.config" || die "$src is not TimescaleDB $tag (see its version.config)"

  log "building TimescaleDB $tag against PostgreSQL $pg_major (nice, $(nproc) jobs)"
  cmake -S "$src" -B "$src/build" -DPG_CONFIG="$pg_config" -DCMAKE_BUILD_TYPE=Release \
    -DREGRESS_CHECKS=OFF -DTAP_CHECKS=OFF -DWARNINGS_AS_ERRORS=OFF -DLINTER=OFF \
    -DSEND_TELEMETRY_DEFAULT=OFF -DENABLE_DEBUG_UTILS=OFF -DGENERATE_DOWNGRADE_SCRIPT=OFF >"$build/cmake.log" 2>&1 \
    || die "cmake failed: see $build/cmake.log"
  nice -n 10 make -C "$src/build" -j"$(nproc)" >"$build/make.log" 2>&1 || die "build failed: see $build/make.log"
  make -C "$src/build" install >"$build/install.log" 2>&1 || die "install failed: see $build/install.log"
  log "installed TimescaleDB $tag into $($pg_config --pkglibdir) and $($pg_config --sharedir)/extension"
fi

cat >&2 <<EOF
Start a server with the extension preloaded, e.g.:
  $($pg_config --bindir)/pg_ctl -D DATADIR -o "-c shared_preload_libraries=timescaledb \\
    -c timescaledb.max_background_workers=8 -c max_worker_processes=16" start
or a private benchmark server: BENCH_PG_PRELOAD=timescaledb bash apps/gateway/scripts/ingest-bench.sh …
then CREATE EXTENSION comes with the migrations (SPINDLE_TIMESERIES_MODE=timescaledb).
EOF
