#!/usr/bin/env bash
# Runs every test: the linters and formatters (scripts/lint.sh), unit and database tests of each
# workspace (TypeScript and Go, through Turborepo), the integration tests and the Playwright
# journeys in Chromium. `npm test` runs scripts/setup.sh --for-tests first.
#
# Wall time is what CI costs, so phases that wait (on agents, rollups, browsers) run beside phases
# that compute, in three lanes, and each phase's seconds are printed at the end (docs/benchmarks.md,
# "CI time"):
#   build → fio agreement (alone) → [workspace tests → lint] ‖ [Playwright] ‖ [integration tests]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 TURBO_TELEMETRY_DISABLED=1
build_begin=$SECONDS
log "building"
npx turbo run build --output-logs=errors-only
build_seconds=$((SECONDS - build_begin))

# The database and integration tests listen on fixed ports 55400-55700 and 56700-56799, inside the
# kernel's ephemeral range: reserve them, or an outgoing connection of a test running beside them can
# take one as its local port first (seen: "could not bind … Address already in use").
reserved=/proc/sys/net/ipv4/ip_local_reserved_ports
if [ "$(id -u)" = 0 ] && [ -w "$reserved" ]; then
  for range in 55400-55700 56700-56799; do
    current=$(cat "$reserved")
    case ",$current," in *",$range,"*) ;; *) echo "${current:+$current,}$range" > "$reserved" ;; esac
  done
fi

log "starting the test PostgreSQL"
eval "$(bash scripts/test-db.sh start)"
trap 'bash scripts/test-db.sh stop' EXIT

status=0
started=$SECONDS
# lane TIMES NAME COMMAND [NAME COMMAND]...: runs the phases one after another (each to its end,
# even after a failure), appending each one's start and seconds to the file TIMES; fails if any
# failed.
lane() {
  local times=$1 failed=0 name command begin
  shift
  while [ $# -gt 0 ]; do
    name=$1 command=$2
    shift 2
    begin=$SECONDS
    log "$name"
    if ! bash -c "$command"; then
      failed=1
      log "FAILED: $name"
    fi
    printf '%5d s  %s (from %d s)\n' "$((SECONDS - begin))" "$name" "$((begin - started))" >> "$times"
  done
  return "$failed"
}
times=$(mktemp -d /tmp/spindle-test-lanes.XXXXXX)

# Speed comparisons need the machine to themselves, so this one runs alone, before the rest.
lane "$times/0" "proof-run load generator agrees with fio (alone on the machine)" \
  "cd agent && SPINDLE_FIO_AGREEMENT=1 go test -count=1 -run '^TestGeneratorAgreesWithFio\$' -v ./internal/proofrun/" || status=1

# Three lanes at once. The first computes: the workspace tests keep both cores busy, then the
# linters. The other two mostly wait (on agents, rollups, alert evaluations, the browser), so
# they fill the first lane's gaps: the journeys (one browser, one stack) and the integration
# tests (each file with its own PostgreSQL and ports, three files at a time). The first prints as
# it goes; the other two write logs printed when all three end, so lines never interleave.
( lane "$times/2" \
    "browser journeys (Playwright, Debian Chromium)" \
    "cd e2e && npx playwright test" > "$times/2.log" 2>&1 ) &
journeys=$!
( lane "$times/3" \
    "integration tests (real agent, gateway, worker, PostgreSQL)" \
    "node --import tsx --test --test-concurrency=3 --test-reporter=spec e2e/integration/*.test.ts" > "$times/3.log" 2>&1 ) &
integration=$!
log "three lanes: workspace tests then linters here; journeys and integration tests beside (their output follows)"
lane "$times/1" \
  "workspace tests (TypeScript and Go)" \
  "npx turbo run test --continue --concurrency=2 --log-order=grouped --output-logs=full" \
  "linters and formatters (scripts/lint.sh)" \
  "bash scripts/lint.sh" || status=1
wait "$journeys" || status=1
wait "$integration" || status=1
log "the journeys' lane"
cat "$times/2.log"
log "the integration tests' lane"
cat "$times/3.log"

log "phase times (wall clock; the build took $build_seconds s)"
cat "$times/0" "$times/1" "$times/2" "$times/3" >&2
rm -rf "$times"
log "npm test: $(( (SECONDS - started) / 60 )) min $(( (SECONDS - started) % 60 )) s after the build"
exit $status
