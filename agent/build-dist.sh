#!/bin/sh
# Builds the release files the gateway serves under /download/:
#   bin/spindle-agent-linux-amd64, bin/spindle-agent-linux-arm64, bin/spindle-agent-windows-amd64.exe
#   bin/spindle-agent-windows-amd64.msi (msitools' wixl, from packaging/windows/spindle-agent.wxs)
#   bin/VERSION, the release's version: the gateway serves these files as that release and
#   offers it to older agents as an upgrade (docs/install.md, "Upgrades")
#   bin/spindle-agent_<version>_{amd64,arm64}.deb and bin/spindle-agent-<version>-1.{x86_64,aarch64}.rpm
#   (packaging/linux, nfpm as a Go library), which the gateway also serves as its apt repository
#   (docs/install.md, "From the gateway's package repository")
#   and bin/spindle-agent for this host.
# Usage: sh build-dist.sh [version]   (default: the version in package.json)
# Without wixl the MSI is skipped with a warning, except under CI=true, where it is an error.
set -eu
cd "$(dirname "$0")"
version="${1:-$(sed -n 's/^  "version": "\(.*\)",$/\1/p' package.json)}"
mkdir -p bin
printf '%s\n' "$version" >bin/VERSION
for target in linux/amd64 linux/arm64 windows/amd64; do
  os="${target%/*}"
  arch="${target#*/}"
  out="bin/spindle-agent-$os-$arch"
  [ "$os" = windows ] && out="$out.exe"
  CGO_ENABLED=0 GOOS="$os" GOARCH="$arch" \
    go build -trimpath -ldflags "-s -w -X main.version=$version" -o "$out" ./cmd/spindle-agent
  echo "$out ($version)"
done

# bin/spindle-agent, for running the agent from this checkout: the release build for this host,
# when it is one of the targets above (no second compile), else a build of its own.
host="bin/spindle-agent-$(go env GOOS)-$(go env GOARCH)"
if [ -f "$host" ]; then
  cp -f "$host" bin/spindle-agent
else
  go build -trimpath -ldflags "-X main.version=$version" -o bin/spindle-agent ./cmd/spindle-agent
fi

# The .deb and .rpm of this release, beside the binaries they hold (3 to 5 s: nfpm compiles once
# into Go's build cache, then packs four 5 MB packages). Old versions' packages are removed first,
# so bin/ holds one release.
rm -f bin/spindle-agent_*.deb bin/spindle-agent-*.rpm
(cd packaging/linux && go run . -bin ../../bin -out ../../bin -version "$version" >/dev/null)
echo "bin/spindle-agent_${version}_{amd64,arm64}.deb, bin/spindle-agent-${version}-1.{x86_64,aarch64}.rpm"

msi=bin/spindle-agent-windows-amd64.msi
if command -v wixl >/dev/null 2>&1; then
  # An MSI version is numeric (major.minor.build): drop a pre-release suffix such as -dev.
  wixl -a x64 -D Version="${version%%-*}" -D AgentExe=bin/spindle-agent-windows-amd64.exe \
    -o "$msi" packaging/windows/spindle-agent.wxs
  echo "$msi ($version)"
elif [ "${CI:-}" = true ]; then
  echo "build-dist.sh: wixl is missing, so the MSI cannot be built: apt-get install wixl (bash scripts/setup.sh --for-tests does)" >&2
  exit 1
else
  rm -f "$msi"
  echo "build-dist.sh: warning: wixl is not installed, $msi not built (apt-get install wixl)" >&2
fi
