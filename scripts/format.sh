#!/usr/bin/env bash
# The one command that formats the whole tree (npm run format): Biome for TypeScript and scripts
# (biome.json lists what it skips: generated Prisma client, catalogue data, build output), gofmt for
# every Go module but the generated Collector distribution. eBPF objects, Grafana JSON and
# lockfiles are never touched. scripts/lint.sh fails on anything this would change.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

log "Biome: format TypeScript and scripts"
npx biome format --write --colors=off . >/dev/null
log "gofmt"
gofmt -l agent apps/gateway infra tools | grep -v '^infra/otel-collector/distribution/' | xargs -r gofmt -w
