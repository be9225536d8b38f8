#!/bin/sh
# The Windows build checked on this Linux machine (no Windows machine runs the tests): vet every
# package for GOOS=windows and compile every package's tests for it, so a Windows-only file that
# does not build, or a test that only builds on Linux by accident, fails CI. The Windows
# collectors' mapping code is platform-neutral and runs in `go test ./...` against fixtures.
set -eu
cd "$(dirname "$0")"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "windows: go vet ./... (GOOS=windows GOARCH=amd64)"
GOOS=windows GOARCH=amd64 go vet ./...
echo "windows: go test -c ./... (GOOS=windows GOARCH=amd64)"
GOOS=windows GOARCH=amd64 go test -c -o "$out/" ./...
echo "windows: $(ls "$out" | wc -l) test binaries built"
