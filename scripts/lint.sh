#!/usr/bin/env bash
# Every formatter and linter check, zero findings allowed (npm test runs it; CONTRIBUTING.md):
#   Biome      TypeScript and scripts: formatting and lint rules (biome.json), in check-only mode
#   ShellCheck every tracked shell script (the installer template is checked by its Go test)
#   gofmt      every Go module but the generated Collector distribution
#   go vet     every Go module, the agent also for Windows
#   staticcheck every Go module, the agent for Linux and Windows merged (pinned in tools/lint/go.mod,
#              built by scripts/setup.sh --for-tests into .tools/bin; never downloaded here)
# Fix formatting with one command: npm run format (scripts/format.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

staticcheck=.tools/bin/staticcheck
[ -x "$staticcheck" ] || die "$staticcheck is missing: run bash scripts/setup.sh --for-tests (it builds the pinned version)"
status=0

log "Biome: formatting and lint of TypeScript and scripts"
npx biome ci --colors=off . || status=1

log "shellcheck"
git ls-files -z '*.sh' | xargs -0 shellcheck -x -f gcc || status=1

log "gofmt"
unformatted=$(gofmt -l agent apps/gateway infra tools | grep -v '^infra/otel-collector/distribution/' || true)
if [ -n "$unformatted" ]; then
  printf 'not gofmt-formatted (npm run format):\n%s\n' "$unformatted" >&2
  status=1
fi

log "go vet"
(cd agent && go vet ./... && GOOS=windows go vet ./...) || status=1
(cd apps/gateway && go vet ./...) || status=1
(cd infra && go vet ./...) || status=1

log "staticcheck"
scratch=$(mktemp -d /tmp/spindle-staticcheck.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
# The agent builds for Linux and Windows; code used by one OS only is unused in the other's view,
# so the two runs are merged (a finding must hold in both).
(cd agent && "../$staticcheck" -f binary ./... > "$scratch/linux" && GOOS=windows "../$staticcheck" -f binary ./... > "$scratch/windows" \
  && "../$staticcheck" -merge "$scratch/linux" "$scratch/windows") || status=1
(cd apps/gateway && "../../$staticcheck" ./...) || status=1
(cd infra && "../$staticcheck" ./...) || status=1

exit $status
