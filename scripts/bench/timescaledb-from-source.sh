#!/usr/bin/env bash
# Builds TimescaleDB (with its TSL part: compression, continuous aggregates) from source against
# Debian's PostgreSQL and installs it into a private copy of that PostgreSQL (PG_ROOT). Benchmark-
# only tool (docs/benchmarks.md, "TimescaleDB server built from source"): Debian ships no
# TimescaleDB and the tests use PGlite's wasm build, which is no server. Neither CI nor `npm test`
# runs it.
#   bash scripts/bench/timescaledb-from-source.sh [source]
#   then SPINDLE_PG_BINDIR=/tmp/tsdb-pg/usr/lib/postgresql/15/bin for scripts/test-db.sh and
#   apps/gateway/scripts/ingest-bench.sh (they start their servers from it)
# Why a copy and not Debian's own directories: once pg_available_extensions lists timescaledb,
# `spindle-db migrate` in auto mode chooses TimescaleDB on every server of that installation,
# and on a server started without shared_preload_libraries=timescaledb (every other test server
# on a shared machine) CREATE EXTENSION ends the session with FATAL. PostgreSQL finds its lib and
# share directories relative to its binaries, so a copy of the tree is a separate installation.
# source: a timescaledb source tree, a .tar.gz of one, or a bare git directory (default: the
# mirror /work/.mirror/timescale+timescaledb/repo). Environment: TIMESCALEDB_TAG (2.28.3, the
# newest release that supports PostgreSQL 15: 2.29 dropped it from src/compat/compat.h although its
# CMakeLists.txt still names 15), PG_MAJOR (15), BUILD_DIR (/tmp/tsdb-build), PG_ROOT (/tmp/tsdb-pg:
# the copy of /usr/lib/postgresql/$PG_MAJOR and /usr/share/postgresql/$PG_MAJOR, made if missing).
# Idempotent: does nothing when that version is already installed.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/lib.sh

tag=${TIMESCALEDB_TAG:-2.28.3}
pg_major=${PG_MAJOR:-15}
source=${1:-/work/.mirror/timescale+timescaledb/repo}
build=${BUILD_DIR:-/tmp/tsdb-build}
root=${PG_ROOT:-/tmp/tsdb-pg}
pg_config=/usr/lib/postgresql/$pg_major/bin/pg_config
[ -x "$pg_config" ] || die "PostgreSQL $pg_major not found ($pg_config)"
lib=$root$($pg_config --pkglibdir)
share=$root$($pg_config --sharedir)
bindir=$root$($pg_config --bindir)
if [ ! -x "$bindir/postgres" ]; then
  log "copying PostgreSQL $pg_major into $root"
  mkdir -p "$root$(dirname "$($pg_config --bindir)")" "$(dirname "$share")"
  cp -a "$(dirname "$($pg_config --bindir)")/." "$root$(dirname "$($pg_config --bindir)")"
  cp -a "$($pg_config --sharedir)" "$(dirname "$share")/"
fi
[ "$("$bindir/pg_config" --sharedir)" = "$share" ] || die "the copy in $root does not find its own share directory"

if [ -f "$lib/timescaledb-$tag.so" ] && [ -f "$share/extension/timescaledb--$tag.sql" ]; then
  log "TimescaleDB $tag is already installed in $root"
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
  # DESTDIR puts Debian's paths under the copy: $root/usr/lib/postgresql/… and $root/usr/share/….
  make -C "$src/build" install DESTDIR="$root" >"$build/install.log" 2>&1 || die "install failed: see $build/install.log"
  log "installed TimescaleDB $tag into $lib and $share/extension"
fi

cat >&2 <<EOF
Start a server with the extension preloaded, e.g.:
  $bindir/pg_ctl -D DATADIR -o "-c shared_preload_libraries=timescaledb \\
    -c timescaledb.max_background_workers=16 -c max_worker_processes=24" start
or let the repository's scripts start one (the migrations then CREATE EXTENSION):
  SPINDLE_PG_BINDIR=$bindir SPINDLE_TEST_PG_PRELOAD=timescaledb SPINDLE_TIMESERIES_MODE=timescaledb bash scripts/test-db.sh start
  SPINDLE_PG_BINDIR=$bindir BENCH_PG_PRELOAD=timescaledb SPINDLE_TIMESERIES_MODE=timescaledb bash apps/gateway/scripts/ingest-bench.sh …
EOF
