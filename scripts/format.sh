#!/usr/bin/env bash
# The one command that formats the whole tree (npm run format): Biome for TypeScript and scripts
# (biome.json lists what it skips: generated Prisma client, catalogue data, build output), gofmt for
# every Go module but the generated Collector distribution. eBPF objects, Grafana JSON and
# lockfiles are never touched. scripts/lint.sh fails on anything this would change.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

log "Biome: format TypeScript and scripts"
# One pass does not always reach Biome's fixed point (a long method chain is laid out again once
# its first line moved), so format until a check finds nothing left, as scripts/lint.sh checks.
for pass in 1 2 3; do
  npx biome format --write --colors=off . >/dev/null
  if npx biome format --colors=off . >/dev/null 2>&1; then break; fi
  [ "$pass" -lt 3 ] || die "Biome's formatting did not settle after 3 passes: see npx biome format ."
done
log "gofmt"
gofmt -l agent apps/gateway infra tools | grep -v '^infra/otel-collector/distribution/' | xargs -r gofmt -w
