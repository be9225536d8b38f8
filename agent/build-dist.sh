#!/bin/sh
# Builds the static release binaries the gateway serves under /download/:
#   bin/spindle-agent-linux-amd64, bin/spindle-agent-linux-arm64, bin/spindle-agent-windows-amd64.exe
# Usage: sh build-dist.sh [version]   (default: the version in package.json)
set -eu
cd "$(dirname "$0")"
version="${1:-$(sed -n 's/^  "version": "\(.*\)",$/\1/p' package.json)}"
for target in linux/amd64 linux/arm64 windows/amd64; do
  os="${target%/*}"
  arch="${target#*/}"
  out="bin/spindle-agent-$os-$arch"
  [ "$os" = windows ] && out="$out.exe"
  CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" \
    go build -trimpath -ldflags "-s -w -X main.version=$version" -o "$out" ./cmd/spindle-agent
  echo "$out ($version)"
done
