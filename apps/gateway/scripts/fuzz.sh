#!/usr/bin/env bash
# Runs each gateway fuzz target for a bounded time on top of its committed seed corpus
# (internal/*/testdata/fuzz). `npm test` runs them for FUZZTIME (default 6s each, under a minute with compilation in
# all); run longer on demand, e.g. FUZZTIME=10m bash scripts/fuzz.sh. A failure leaves the
# crashing input under testdata/fuzz/<Target>/: commit it with the fix as a regression seed.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime="${FUZZTIME:-5s}"
targets=(
  "FuzzDecodeAndMap ./internal/ingest"
  "FuzzDecodeMatchesPdata ./internal/ingest/otlp"
  "FuzzAgentMessage ./internal/opamp"
  "FuzzEnrollBody ./internal/httpapi"
  "FuzzFrameLimiter ./internal/httpapi"
)
for entry in "${targets[@]}"; do
  read -r target pkg <<<"$entry"
  echo "fuzz: $target ($pkg) for $fuzztime"
  bash ../../scripts/go-fuzz.sh "$fuzztime" "$target" "$pkg"
done
