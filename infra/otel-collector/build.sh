#!/usr/bin/env bash
# Compiles the Spindle Collector from the committed sources: a plain go build, so Go's build
# cache makes a rebuild after no change take seconds.
#   bash build.sh [output]     default output: infra/otel-collector/bin/spindle-otelcol
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/bin/spindle-otelcol}
cd "$here/distribution"
go build -trimpath -o "$out" .
echo "$out"
