#!/usr/bin/env bash
# Runs every test: unit and database tests of each workspace (TypeScript and Go, through
# Turborepo), the integration tests and the Playwright journeys in Chromium.
# `npm test` runs scripts/setup.sh --for-tests first.
#
# Wall time is what CI costs, so phases that wait (on agents, rollups, browsers) run beside phases
# that compute, and each phase's minutes are printed at the end (docs/benchmarks.md, "CI time"):
#   build → fio agreement (alone) → workspace tests ‖ integration tests → Playwright
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
# phases_beside NAME COMMAND NAME2 COMMAND2: the same for two phases at once. The first prints as
# it goes; the second writes to a log printed when it ends, so the two never interleave.
phases_beside() {
  local name_a=$1 command_a=$2 name_b=$3 command_b=$4 begin=$SECONDS logs pid_b
  logs=$(mktemp -d /tmp/spindle-test-logs.XXXXXX)
  ( rc=0; bash -c "$command_b" > "$logs/b" 2>&1 || rc=$?; echo "$((SECONDS - begin))" > "$logs/b.seconds"; exit "$rc" ) &
  pid_b=$!
  log "$name_a (beside: $name_b, whose output follows when it ends)"
  bash -c "$command_a" || { status=1; log "FAILED: $name_a"; }
  timings+=("$(printf '%5d s  %s' "$((SECONDS - begin))" "$name_a")")
  wait "$pid_b" || { status=1; b_failed=1; }
  log "$name_b"
  cat "$logs/b"
  [ -z "${b_failed:-}" ] || log "FAILED: $name_b"
  timings+=("$(printf '%5d s  %s (beside the one above)' "$(cat "$logs/b.seconds")" "$name_b")")
  unset b_failed
  rm -rf "$logs"
}

# Speed comparisons need the machine to themselves, so this one runs alone, before the rest.
phase "proof-run load generator agrees with fio (alone on the machine)" \
  bash -c "cd agent && SPINDLE_FIO_AGREEMENT=1 go test -count=1 -run '^TestGeneratorAgreesWithFio\$' -v ./internal/bench/"

# The workspace tests keep both cores busy; the integration tests mostly wait for agents, rollups
# and evaluations (each file has its own PostgreSQL and ports, two files at a time), so they share
# the time. Integration output goes to a log printed at the end, never interleaved.
phases_beside \
  "workspace tests (TypeScript and Go)" \
  "npx turbo run test --continue --concurrency=2 --log-order=grouped --output-logs=full" \
  "integration tests (real agent, gateway, worker, PostgreSQL)" \
  "node --import tsx --test --test-concurrency=2 --test-reporter=spec e2e/integration/*.test.ts"

phase "browser journeys (Playwright, Debian Chromium)" bash -c "cd e2e && npx playwright test"

log "phase times (wall clock; the build took $build_seconds s)"
printf '%s\n' "${timings[@]}" >&2
log "npm test: $(( (SECONDS - started) / 60 )) min $(( (SECONDS - started) % 60 )) s after the build"
exit $status
