#!/usr/bin/env bash
# Runs every test: unit and database tests of each workspace (TypeScript and Go, through
# Turborepo), the agent ↔ gateway integration test, and the Playwright journeys in Chromium.
# `npm test` runs scripts/setup.sh --for-tests first.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 TURBO_TELEMETRY_DISABLED=1
log "building"
npx turbo run build --output-logs=errors-only

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
log "workspace tests (TypeScript and Go)"
npx turbo run test --continue --concurrency=2 --log-order=grouped --output-logs=full || status=1

# Speed comparisons need the machine to themselves, so they run alone, after the parallel phase.
log "proof-run load generator agrees with fio (alone on the machine)"
(cd agent && SPINDLE_FIO_AGREEMENT=1 go test -count=1 -run '^TestGeneratorAgreesWithFio$' -v ./internal/proofrun/) || status=1

# Two files at a time: each has its own PostgreSQL and ports, and the longest (the alert flow)
# spends its minutes waiting for rollups and evaluations, not on the CPU.
log "integration tests (real agent, gateway, worker, PostgreSQL)"
node --import tsx --test --test-concurrency=2 --test-reporter=spec e2e/integration/*.test.ts || status=1

log "browser journeys (Playwright, Debian Chromium)"
(cd e2e && npx playwright test) || status=1

exit $status
