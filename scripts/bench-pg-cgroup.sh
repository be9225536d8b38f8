#!/usr/bin/env bash
# Issue 7, section 4 item 2: a PostgreSQL database whose working set exceeds the memory it may
# use (a memory cgroup around the server: v2 memory.max when the unified hierarchy is mounted,
# else v1 memory.limit_in_bytes), pgbench at stepped client counts while a backup-like
# sequential scan (tar of the data directory, in the same cgroup) runs throughout, with the read
# cache off and on: `spindle-agent bench --profile pgbench --ab` (passes off, on, on, off).
# ARMS=off,cache,oracle instead runs the three arms interleaved in one run, in a random order
# within every block, with each effect's bootstrap interval over blocks (`--arms`; MAX_BLOCKS
# caps the blocks, SEED fixes the order; docs/benchmarks/read-cache.md, "Three arms in one run").
#
# Needs root (cgroups, running PostgreSQL as the postgres user) and Debian's PostgreSQL
# (postgresql-15: initdb, pg_ctl, pgbench). Everything it makes is under $WORK and removed at
# the end. Usage (defaults shown):
#   MEM_LIMIT=256M SIZE=1536MiB LOADS=1,4,8,16 STEP=20s TARGET=5 DURATION=60m ORACLE=0 ARMS= \
#   WORK=/var/tmp/spindle-pgcg CGROUP=spindle-pgcg PORT=55499 bash scripts/bench-pg-cgroup.sh [report.json]
set -euo pipefail
cd "$(dirname "$0")/.."

PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
WORK=${WORK:-/var/tmp/spindle-pgcg}
MEM_LIMIT=${MEM_LIMIT:-256M}
SIZE=${SIZE:-1536MiB}
LOADS=${LOADS:-1,4,8,16}
STEP=${STEP:-20s}
PORT=${PORT:-55499}
OUT=${1:-$WORK-report.json}
CGROUP=${CGROUP:-spindle-pgcg}
DURATION=${DURATION:-60m}

[ "$(id -u)" = 0 ] || { echo "run as root (memory cgroup, PostgreSQL as user postgres)" >&2; exit 1; }
{ [ -x "$PGBIN/initdb" ] && [ -x "$PGBIN/pgbench" ]; } || { echo "PostgreSQL binaries not found in $PGBIN: apt-get install postgresql" >&2; exit 1; }

if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
  CGDIR=/sys/fs/cgroup/$CGROUP; mkdir -p "$CGDIR"; echo "$MEM_LIMIT" >"$CGDIR/memory.max"
  [ -f "$CGDIR/memory.swap.max" ] && echo 0 >"$CGDIR/memory.swap.max"
else
  CGDIR=/sys/fs/cgroup/memory/$CGROUP; mkdir -p "$CGDIR"; echo "$MEM_LIMIT" >"$CGDIR/memory.limit_in_bytes"
fi

# ORACLE=1: the "on" passes raise the cgroup's limit by the database's size and read it in from
# outside the cgroup instead of running the read cache: the ceiling a read cache can reach on
# this machine (docs/benchmarks/read-cache.md, "The oracle").
ORACLE_FLAG=()
[ "${ORACLE:-0}" = 1 ] && ORACLE_FLAG=(--oracle "$CGDIR")

scan_pid=
cleanup() {
  if [ -n "$scan_pid" ]; then { kill "$scan_pid" && wait "$scan_pid"; } 2>/dev/null || true; fi
  runuser -u postgres -- "$PGBIN/pg_ctl" -D "$WORK/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$WORK"
  rmdir "$CGDIR" 2>/dev/null || true
}
trap cleanup EXIT
rm -rf "$WORK"; mkdir -p "$WORK"; chown postgres: "$WORK"

runuser -u postgres -- "$PGBIN/initdb" -D "$WORK/data" -U postgres --auth=trust >/dev/null
# The server and everything it forks live in the cgroup: its shared buffers and the page cache
# its reads fill are charged there, so the database cannot keep more than MEM_LIMIT in memory.
sh -c "echo \$\$ >'$CGDIR/cgroup.procs'; exec runuser -u postgres -- '$PGBIN/pg_ctl' -D '$WORK/data' -w \
  -l '$WORK/postgres.log' -o \"-p $PORT -k $WORK -c listen_addresses='' -c shared_buffers=64MB\" start" >/dev/null

# The backup-like scan: a file-level backup reading the whole data directory, over and over.
sh -c "echo \$\$ >'$CGDIR/cgroup.procs'; while :; do tar cf - -C '$WORK/data' base 2>/dev/null | cat >/dev/null; sleep 1; done" &
scan_pid=$!

(cd agent && go build -trimpath -o "$WORK/spindle-agent" ./cmd/spindle-agent)
if [ -n "${ARMS:-}" ]; then
  echo "load at start: $(uptime)"
  "$WORK/spindle-agent" bench --profile pgbench --pg "host=$WORK port=$PORT user=postgres dbname=postgres" \
    --path "$WORK" --size "$SIZE" --loads "$LOADS" --step "$STEP" --duration "$DURATION" --arms "$ARMS" \
    --oracle "$CGDIR" --seed "${SEED:-0}" --max-blocks "${MAX_BLOCKS:-0}" --json >"$OUT"
  echo "memory limit $MEM_LIMIT ($CGDIR), database $SIZE, report in $OUT; load at end: $(uptime)"
  python3 - "$OUT" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))

def pct(v):
    return f"{v:+.0f}"

def change(c):
    # a figure only when its bootstrap interval excludes 0
    if c["status"] == "not-measured":
        return "not measured: " + c.get("reason", "")
    interval = (f'{pct(c["bootstrapLowPercent"])} to {pct(c["bootstrapHighPercent"])} %; '
                f't {pct(c["studentLowPercent"])} to {pct(c["studentHighPercent"])} %')
    if c["status"] == "no-measurable-difference":
        return f'no measurable difference, {pct(c["percent"])} % ({interval})'
    return f'{pct(c["percent"])} % ({interval})'

la = r["loadAverage"]
print(f'{len(r["blocks"])} blocks of {", ".join(r["arms"])} in random order (seed {r["seed"]}); {r["stop"]}')
if la["mean"] is not None:
    print(f'load average at the passes\' start (descriptive): min {la["min"]:.2f}, mean {la["mean"]:.2f}, max {la["max"]:.2f}')
print("orders:", "; ".join(",".join(b["order"]) for b in r["blocks"]))
print("| arm | against | clients | TPS change (95 % bootstrap; t) | mean latency change (95 % bootstrap; t) |")
print("|---|---|---|---|---|")
for e in r["effects"]:
    clients = e["clients"] or "all"
    print(f'| {e["arm"]} | {e["against"]} | {clients} | {change(e["throughput"])} | {change(e["latencyMean"])} |')
print("| block | " + " | ".join(f'{a} TPS @{c}' for a in r["arms"] for c in r["clients"]) + " |")
for b in r["blocks"]:
    by = {p["arm"]: p for p in b["passes"]}
    print(f'| {b["index"]} | ' + " | ".join(f'{by[a]["steps"][i]["tps"]:.1f}' for a in r["arms"] for i in range(len(r["clients"]))) + " |")
PY
  exit 0
fi
"$WORK/spindle-agent" bench --profile pgbench --pg "host=$WORK port=$PORT user=postgres dbname=postgres" \
  --path "$WORK" --size "$SIZE" --loads "$LOADS" --step "$STEP" --duration "$DURATION" --ab "${ORACLE_FLAG[@]}" --target "${TARGET:-5}" --json >"$OUT"

echo "memory limit $MEM_LIMIT ($CGDIR), database $SIZE, report in $OUT"
python3 - "$OUT" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))

def change(d):
    # as the report words it: a figure only when its interval excludes 0
    if d["status"] == "not-measured":
        return "not measured: " + d.get("reason", "")
    interval = f'{d["lowPercent"]:+.0f} to {d["highPercent"]:+.0f} %'
    if d["status"] == "no-measurable-difference":
        return f"no measurable difference ({interval})"
    return f'{d["percent"]:+.0f} % ({interval})'

a = r["alternation"]
if any(n.startswith("oracle:") for n in r.get("notes", [])):
    print('"on" is the oracle (the limit raised by the data size, the data read in from outside), not the read cache')
print(f'{r["warmUpPasses"]} warm-up pass, {a["blocks"]} blocks of off, on, on, off; {a["stop"]}')
print("| clients | TPS off | TPS on | change | mean ms off | mean ms on | change |")
print("|---|---|---|---|---|---|---|")
for s in r["steps"]:
    off, on, c = s["off"], s["on"], s["change"]
    print(f'| {s["load"]["clients"]} | {off["tps"]:.1f} | {on["tps"]:.1f} | {change(c["throughput"])} '
          f'| {1000*off["latencyMeanSeconds"]:.1f} | {1000*on["latencyMeanSeconds"]:.1f} | {change(c["latencyMean"])} |')
print(f'| all steps | | | {change(r["overall"]["throughput"])} | | | {change(r["overall"]["latencyMean"])} |')
print("accelerator:", json.dumps(r["accelerator"]))
PY
