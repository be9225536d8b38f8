#!/usr/bin/env bash
# Measures a newcomer's first `npm start` (issue 22; docs/benchmarks.md, "First start"): a fresh
# clone under a 0700 directory below /root (the case where the embedded PostgreSQL's `postgres`
# user cannot enter the clone), with cold npm and Go caches, as root; then the second start of the
# same clone. Each start is stopped with Ctrl-C once it says it is running. Neither CI nor
# `npm test` runs it: its figure only means something on a quiet machine (load average < 2.5).
#   bash scripts/bench/first-start.sh [repository (default: this one)] [branch]
# Prints, per start, the seconds to "Spindle is running", the stop time, the CPU seconds and
# whether the clone's tracked files stayed unchanged. Ports: SPINDLE_CONSOLE_PORT (34070),
# SPINDLE_GATEWAY_PORT (34071), SPINDLE_EMBEDDED_PG_PORT (34072).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repository=${1:-$(cd "$here/../.." && pwd)}
branch=${2:-}
[ "$(id -u)" = 0 ] || { echo "run as root: the case measured is root's clone under a 0700 directory" >&2; exit 1; }

base=$(mktemp -d /root/spindle-first-start.XXXXXX)
chmod 700 /root "$base"
cold=$base/caches
export GOCACHE=$cold/go-build GOMODCACHE=$cold/go-mod npm_config_cache=$cold/npm
export SPINDLE_CONSOLE_PORT=${SPINDLE_CONSOLE_PORT:-34070} SPINDLE_GATEWAY_PORT=${SPINDLE_GATEWAY_PORT:-34071}
export SPINDLE_EMBEDDED_PG_PORT=${SPINDLE_EMBEDDED_PG_PORT:-34072}
unset DATABASE_URL

git clone -q ${branch:+--branch "$branch"} "$repository" "$base/spindle"
echo "clone: $base/spindle; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "first start (cold caches):"
node "$here/first-start-measure.mjs" "$base/spindle" "$base/first.log"
echo "second start:"
node "$here/first-start-measure.mjs" "$base/spindle" "$base/second.log"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg); logs in $base (remove it when done)"
