#!/usr/bin/env bash
# Runs every test: the linters and formatters (scripts/lint.sh), unit and database tests of each
# workspace (TypeScript and Go, through Turborepo), the integration tests and the Playwright
# journeys in Chromium. `npm test` runs scripts/setup.sh --for-tests first.
#
# Wall time is what CI costs, so phases that wait (on agents, rollups, browsers) run beside phases
# that compute, in two lanes, and each phase's seconds are printed at the end (docs/benchmarks.md,
# "CI time"):
#   build → fio agreement (alone) → [workspace tests → Playwright] ‖ [integration tests → lint]
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
timings=()
# phase NAME COMMAND...: runs one phase, records its minutes, and keeps going when it fails.
phase() {
  local name=$1 begin=$SECONDS
  shift
  log "$name"
  if ! "$@"; then
    status=1
    log "FAILED: $name"
  fi
  timings+=("$(printf '%5d s  %s' "$((SECONDS - begin))" "$name")")
}
# lane TIMES NAME COMMAND [NAME COMMAND]...: runs the phases one after another (each to its end,
# even after a failure), appending each one's seconds to the file TIMES; fails if any failed.
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
    printf '%5d s  %s\n' "$((SECONDS - begin))" "$name" >> "$times"
  done
  return "$failed"
}

# Speed comparisons need the machine to themselves, so this one runs alone, before the rest.
phase "proof-run load generator agrees with fio (alone on the machine)" \
  bash -c "cd agent && SPINDLE_FIO_AGREEMENT=1 go test -count=1 -run '^TestGeneratorAgreesWithFio\$' -v ./internal/proofrun/"

# Two lanes. The first prints as it goes: the workspace tests, which keep both cores busy, then the
# journeys (one browser and one stack, mostly waiting on the stack). The second writes to a log
# printed when both lanes end, so the two never interleave: the integration tests, which mostly
# wait for agents, rollups and evaluations (each file has its own PostgreSQL and ports, two files
# at a time), then the linters. Each lane's computing phase meets the other's waiting one.
lanes=$(mktemp -d /tmp/spindle-test-lanes.XXXXXX)
( lane "$lanes/second.times" \
    "integration tests (real agent, gateway, worker, PostgreSQL)" \
    "node --import tsx --test --test-concurrency=2 --test-reporter=spec e2e/integration/*.test.ts" \
    "linters and formatters (scripts/lint.sh)" \
    "bash scripts/lint.sh" > "$lanes/second.log" 2>&1 ) &
second=$!
log "two lanes: workspace tests then journeys here; integration tests then linters beside (their output follows)"
lane "$lanes/first.times" \
  "workspace tests (TypeScript and Go)" \
  "npx turbo run test --continue --concurrency=2 --log-order=grouped --output-logs=full" \
  "browser journeys (Playwright, Debian Chromium)" \
  "cd e2e && npx playwright test" || status=1
wait "$second" || status=1
log "the second lane: integration tests, then linters"
cat "$lanes/second.log"
mapfile -t -O "${#timings[@]}" timings < "$lanes/first.times"
while IFS= read -r line; do timings+=("$line (second lane)"); done < "$lanes/second.times"
rm -rf "$lanes"

log "phase times (wall clock; the build took $build_seconds s)"
printf '%s\n' "${timings[@]}" >&2
log "npm test: $(( (SECONDS - started) / 60 )) min $(( (SECONDS - started) % 60 )) s after the build"
exit $status
