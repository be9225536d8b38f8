#!/bin/sh
# Runs each native Go fuzz target for a bounded time (FUZZTIME, 10s by default; longer on
# demand, e.g. FUZZTIME=10m sh fuzz.sh). Seed corpora live in each package's testdata/fuzz and
# run as plain tests in `go test ./...` too; a crash the fuzzer finds is written there.
set -eu
cd "$(dirname "$0")"
fuzztime="${FUZZTIME:-5s}"
for target in \
	"FuzzParse ./internal/policy" \
	"FuzzMatchesPattern ./internal/policy" \
	"FuzzConsumeBatch ./internal/fiemap" \
	"FuzzConsumeRetrievalPointers ./internal/fiemap" \
	"FuzzParseDiskstats ./internal/collector"; do
	# shellcheck disable=SC2086 # split "name package" into $1 $2
	set -- $target
	echo "fuzz: $1 ($2) for $fuzztime"
	bash ../scripts/go-fuzz.sh "$fuzztime" "$1" "$2"
done
