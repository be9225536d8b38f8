#!/usr/bin/env bash
# Runs every test: the linters and formatters (scripts/lint.sh), unit and database tests of each
# workspace (TypeScript and Go, through Turborepo), the integration tests and the Playwright
# journeys in Chromium. `npm test` runs scripts/setup.sh --for-tests first.
#
# Wall time is what CI costs, so phases that wait (on agents, rollups, browsers) run beside phases
# that compute, in two lanes, and each phase's seconds are printed at the end (docs/benchmarks.md,
# "CI time"):
#   build → fio agreement (alone) → [workspace tests → integration tests, first part]
#                                 ‖ [Playwright → integration tests, the rest → lint]
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
# children_cpu PID: CPU seconds (user + system) of the finished children of shell PID; a phase's
# CPU is what it adds. With two lanes on two cores, CPU seconds, not each lane's wall time, are
# what CI mostly waits for.
children_cpu() {
  local stat
  read -ra stat < "/proc/$1/stat"
  echo $(((stat[15] + stat[16]) / $(getconf CLK_TCK)))
}
# lane TIMES NAME COMMAND [NAME COMMAND]...: runs the phases one after another (each to its end,
# even after a failure), appending each one's seconds, start and CPU seconds to the file TIMES;
# fails if any failed.
lane() {
  local times=$1 failed=0 name command begin cpu shell=$BASHPID
  shift
  while [ $# -gt 0 ]; do
    name=$1 command=$2
    shift 2
    begin=$SECONDS cpu=$(children_cpu "$shell")
    log "$name"
    if ! bash -c "$command"; then
      failed=1
      log "FAILED: $name"
    fi
    printf '%5d s  %s (from %d s, %d CPU s)\n' "$((SECONDS - begin))" "$name" "$((begin - started))" \
      "$(($(children_cpu "$shell") - cpu))" >> "$times"
  done
  return "$failed"
}
times=$(mktemp -d /tmp/spindle-test-lanes.XXXXXX)

# Speed comparisons need the machine to themselves, so this one runs alone, before the rest.
lane "$times/0" "proof-run load generator agrees with fio (alone on the machine)" \
  "cd agent && SPINDLE_FIO_AGREEMENT=1 go test -count=1 -run '^TestGeneratorAgreesWithFio\$' -v ./internal/proofrun/" || status=1

# Two lanes on two cores: the workspace tests compute, the journeys (one browser, one stack)
# mostly wait, and the integration tests (each file with its own PostgreSQL and ports, three at a
# time) mostly wait too, so each lane ends with part of them, sized so both end together. A third
# lane from the start oversubscribes the cores (load 16 to 33, every phase twice as slow:
# docs/benchmarks/ci-time.md). The first lane prints as it goes; the second writes a log printed
# when both end. Each part lists its longest files first, so that no long file starts last; a file
# in neither list runs with the rest.
integration_first=(rollouts alert-notifications recommendation-realised grafana-tenant-binding caused-gains faults
  install-command sequence-reset console-client-address)
integration_rest_first=(scale-out proof-runs start-stop windows-agent)
first_part=() the_rest=()
for name in "${integration_first[@]}"; do first_part+=("e2e/integration/$name.test.ts"); done
for name in "${integration_rest_first[@]}"; do the_rest+=("e2e/integration/$name.test.ts"); done
for file in e2e/integration/*.test.ts; do
  [[ " ${first_part[*]} ${the_rest[*]} " == *" $file "* ]] || the_rest+=("$file")
done
integration="node --import tsx --test --test-concurrency=3 --test-reporter=spec"
( lane "$times/2" \
    "browser journeys (Playwright, Debian Chromium)" \
    "cd e2e && npx playwright test" \
    "integration tests, the rest (real agent, gateway, worker, PostgreSQL)" \
    "$integration ${the_rest[*]}" \
    "linters and formatters (scripts/lint.sh)" \
    "bash scripts/lint.sh" > "$times/2.log" 2>&1 ) &
second=$!
log "two lanes: workspace tests and integration tests (first part) here; journeys, the other integration tests and the linters beside (their output follows)"
lane "$times/1" \
  "workspace tests (TypeScript and Go)" \
  "npx turbo run test --continue --concurrency=2 --log-order=grouped --output-logs=full" \
  "integration tests, first part (real agent, gateway, worker, PostgreSQL)" \
  "$integration ${first_part[*]}" || status=1
wait "$second" || status=1
log "the second lane: journeys, the rest of the integration tests, the linters"
cat "$times/2.log"

log "phase times (wall clock; the build took $build_seconds s)"
cat "$times/0" "$times/1" "$times/2" >&2
rm -rf "$times"
log "npm test: $(( (SECONDS - started) / 60 )) min $(( (SECONDS - started) % 60 )) s after the build"
exit $status
