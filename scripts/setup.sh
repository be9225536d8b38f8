#!/usr/bin/env bash
# Installs what Spindle needs on a fresh machine, and nothing that is already there.
#   bash scripts/setup.sh              what `npm start` needs (Node deps, the Go modules of the
#                                      agent and gateway)
#   bash scripts/setup.sh --for-tests  also PostgreSQL, Chromium, Wine, sudo and the Go modules of
#                                      everything else, for `npm test`
# It never changes a tracked file: npm ci installs exactly package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

for_tests=false
[ "${1:-}" = "--for-tests" ] && for_tests=true

command -v node >/dev/null || die "Node.js 20.9 or newer is required: install it from your distribution or nodejs.org."
node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=9)?0:1)' \
  || die "Node.js $(node --version) is too old: Spindle needs 20.9 or newer."
command -v go >/dev/null || die "Go 1.26 or newer is required for the agent and gateway: install it from go.dev/dl."

debian_packages=()
need_pkg() { dpkg -s "$1" >/dev/null 2>&1 || debian_packages+=("$1"); }
if $for_tests; then
  need_pkg postgresql        # the test database server (plain PostgreSQL path)
  need_pkg chromium          # Playwright journeys run in Debian's Chromium
  need_pkg curl              # install.sh is exercised end to end
  need_pkg e2fsprogs         # filefrag, to check extent counts
  need_pkg xfsprogs          # mkfs.xfs: write optimisation is measured on XFS too (loop device)
  need_pkg fio               # the proof-run load generator is checked against fio (agent/internal/proofrun)
  need_pkg wine64            # the Windows agent runs under Wine (e2e/integration/windows-agent.test.ts)
  need_pkg gcc-mingw-w64-x86-64-win32  # builds the ProcessPrng shim Go binaries need under Wine 8
  need_pkg wixl              # msitools' wixl builds the agent's MSI (agent/packaging/windows)
  need_pkg rpm               # rpm reads and installs the agent's .rpm in its test (agent/packaging/linux)
  need_pkg dnf               # dnf installs the agent from the gateway's yum repository (apps/gateway yumrepo_test.go)
  need_pkg createrepo-c      # the yum repository metadata is compared with createrepo_c's (apps/gateway internal/pkgrepo)
  need_pkg sudo              # the install command is run as a user with sudo (e2e/integration/install-command.test.ts)
fi
if [ ${#debian_packages[@]} -gt 0 ]; then
  if is_root && command -v apt-get >/dev/null; then
    log "installing Debian packages: ${debian_packages[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${debian_packages[@]}" >/dev/null
    # Debian's postgresql package starts a cluster on 5432; tests bring their own, so stop it.
    if printf '%s\n' "${debian_packages[@]}" | grep -qx postgresql; then
      (command -v pg_ctlcluster >/dev/null && pg_lsclusters -h 2>/dev/null | awk '{print $1, $2}' | \
        while read -r v c; do pg_ctlcluster "$v" "$c" stop || true; done) || true
    fi
  else
    die "missing Debian packages: ${debian_packages[*]}. Install them (apt-get install ${debian_packages[*]}) or run this as root."
  fi
fi

# Browsers and Prisma engines can't be downloaded here: we use Debian's Chromium and Prisma's
# engine-free client, so skip both downloads.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 PRISMA_SKIP_POSTINSTALL_GENERATE=1

# The agent's and gateway's Go modules download while npm installs: both wait on the network.
log "downloading Go modules (agent, gateway)"
go_modules=$(mktemp)
( (cd agent && go mod download) && (cd apps/gateway && go mod download) ) >"$go_modules" 2>&1 &
go_download=$!

stamp=node_modules/.spindle-installed
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
  log "installing npm dependencies"
  # npm ci installs exactly what package-lock.json lists and never rewrites it. The lock lists
  # every platform's optional packages (turbo's macOS and Windows builds too), which npm ci
  # requires; after adding a dependency, commit the lock that `npm install` wrote.
  npm ci --no-audit --no-fund --loglevel=error
  touch "$stamp"
fi

if ! wait "$go_download"; then
  cat "$go_modules" >&2
  rm -f "$go_modules"
  die "could not download the agent's and gateway's Go modules (above): check the network or GOPROXY"
fi
rm -f "$go_modules"
if $for_tests; then
  log "downloading Go modules (infra, Collector)"
  (cd infra && go mod download)  # the Helm chart and compose checks (helm.sh/helm/v3, k8s.io/api)
  (cd infra/otel-collector/distribution && go mod download)  # the Spindle OpenTelemetry Collector (infra/otel-collector)
  go mod download go.opentelemetry.io/collector/cmd/builder@v0.162.0  # generate.sh --check (the Collector Builder, pinned)
  # The Go linter of scripts/lint.sh, pinned in tools/lint/go.mod and built once from the module
  # cache, so no test downloads a tool while it runs.
  if [ ! -x .tools/bin/staticcheck ] || [ tools/lint/go.mod -nt .tools/bin/staticcheck ]; then
    log "building staticcheck (tools/lint/go.mod)"
    (cd tools/lint && go mod download && go build -o ../../.tools/bin/staticcheck honnef.co/go/tools/cmd/staticcheck)
  fi
fi
