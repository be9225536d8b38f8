#!/usr/bin/env bash
# Regenerates the Spindle Collector's sources (distribution/) from builder-config.yaml with the
# pinned OpenTelemetry Collector Builder, without compiling (build.sh compiles them with go build).
#   bash generate.sh           rewrite distribution/
#   bash generate.sh --check   fail when the committed distribution/ differs from what the
#                              manifest generates (CI)
set -euo pipefail
cd "$(dirname "$0")"
builder_version=v0.162.0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The builder writes to the manifest's output_path; point it at the scratch directory.
sed "s#^  output_path: .*#  output_path: $work/distribution#" builder-config.yaml > "$work/builder-config.yaml"
GOFLAGS=-mod=mod go run "go.opentelemetry.io/collector/cmd/builder@$builder_version" \
  --config "$work/builder-config.yaml" --skip-compilation >"$work/builder.log" 2>&1 ||
  { cat "$work/builder.log" >&2; exit 1; }

if [[ "${1:-}" == "--check" ]]; then
  if ! diff -ru distribution "$work/distribution"; then
    echo "infra/otel-collector/distribution differs from what builder-config.yaml generates: run bash infra/otel-collector/generate.sh and commit the result" >&2
    exit 1
  fi
  echo "infra/otel-collector/distribution matches builder-config.yaml (builder $builder_version)"
  exit 0
fi
rm -rf distribution
cp -r "$work/distribution" distribution
echo "regenerated infra/otel-collector/distribution (builder $builder_version)"
