# shellcheck shell=bash
# Shared shell helpers for the set-up, start and test scripts. Sourced, never run.

log() { printf '\033[1;34m==>\033[0m %s\n' "$*" >&2; }
die() { printf '\033[1;31merror:\033[0m %s\n' "$*" >&2; exit 1; }

is_root() { [ "$(id -u)" = 0 ]; }

# Finds the PostgreSQL server binaries (Debian puts them outside PATH); SPINDLE_PG_BINDIR picks
# another installation, e.g. the private copy with TimescaleDB (scripts/bench/timescaledb-from-source.sh).
pg_bindir() {
  if [ -n "${SPINDLE_PG_BINDIR:-}" ]; then
    [ -x "$SPINDLE_PG_BINDIR/initdb" ] && { echo "$SPINDLE_PG_BINDIR"; return 0; }
    return 1
  fi
  for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/initdb" ] && { echo "$d"; return 0; }
  done
  command -v initdb >/dev/null 2>&1 && { dirname "$(command -v initdb)"; return 0; }
  return 1
}

# Runs a command as the postgres user when we are root (initdb refuses to run as root).
as_pg_owner() {
  if is_root; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi
}
