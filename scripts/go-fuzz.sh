#!/usr/bin/env bash
# Usage: go-fuzz.sh FUZZTIME TARGET PACKAGE, from the directory of the target's Go module.
# Runs one native Go fuzz target for FUZZTIME on top of its seed corpus (testdata/fuzz). Go's
# fuzzing coordinator can fail a run at the -fuzztime boundary with a bare "context deadline
# exceeded" and no failing input, when a worker on a busy machine has not stopped in time
# (golang/go#75804, fixed in Go 1.27): such a run is repeated once. Any other failure, and any
# run that wrote a failing input, fails at once.
set -uo pipefail
fuzztime=$1 target=$2 pkg=$3
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for attempt in 1 2; do
  # -parallel 1: the machine is shared; the seed corpus and fuzztime bound the work, not the cores.
  go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -parallel 1 "$pkg" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  [ "$status" = 0 ] && exit 0
  if [ "$attempt" = 1 ] && grep -qE '^\s+context deadline exceeded$' "$log" && ! grep -q 'Failing input written' "$log"; then
    echo "fuzz: $target stopped on Go's -fuzztime race (golang/go#75804), not on an input: running it once more"
    continue
  fi
  exit "$status"
done
