#!/usr/bin/env bash
# The agent's kernel cost per block I/O and its peak RSS, binaries side by side (docs/benchmarks.md,
# "One program per block hook, and agent memory"). As root, from agent/:
#   bash cmd/blockcost/bench.sh [BINARY ...]
# Without binaries it builds two, as build-dist.sh does (CGO_ENABLED=0, -trimpath): "before" from
# git revision BEFORE (default e015567, main before issue 12 goal 4's second pass) and "after"
# from this tree, and compares them. Each round runs every binary once, one after the other: the
# agent with every collector and eBPF on, against a loopback stand-in for the gateway, while fio
# sustains 25,000 IOPS (4 KiB random read/write, O_DIRECT, QD 32); blockcost measures for the last
# SECS-5 s of it. Environment: ROUNDS (default 2), SECS (45: two rounds of two binaries take about
# 4.5 minutes), DIR (/tmp/blockcost: the fio file and binaries are kept there for the next run),
# PORT (56510: the stand-in gateway).
set -euo pipefail
ROUNDS=${ROUNDS:-2} SECS=${SECS:-45} DIR=${DIR:-/tmp/blockcost} PORT=${PORT:-56510} BEFORE=${BEFORE:-e015567}
here=$(cd "$(dirname "$0")" && pwd)
agent=$(cd "$here/../.." && pwd)
mkdir -p "$DIR"
go build -o "$DIR/blockcost" "$here"
if [[ $# -eq 0 ]]; then
  rm -rf "$DIR/before" && mkdir -p "$DIR/before"
  git -C "$agent" archive "$BEFORE" . | tar -x -C "$DIR/before"
  (cd "$DIR/before" && CGO_ENABLED=0 nice go build -trimpath -o "$DIR/agent-before" ./cmd/spindle-agent)
  (cd "$agent" && CGO_ENABLED=0 nice go build -trimpath -o "$DIR/agent-after" ./cmd/spindle-agent)
  set -- "$DIR/agent-before" "$DIR/agent-after"
fi

if ! (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
  python3 -c 'import http.server as h
class H(h.BaseHTTPRequestHandler):
  def do_POST(s): s.rfile.read(int(s.headers.get("Content-Length",0))); s.send_response(200); s.send_header("Content-Length","0"); s.end_headers()
  def log_message(s,*a): pass
h.ThreadingHTTPServer(("127.0.0.1",'"$PORT"'),H).serve_forever()' &
  gateway=$!
  trap 'kill $gateway' EXIT
  sleep 0.5
fi

# shellcheck disable=SC2054 # --rate_iops=read,write is one fio argument
fio_args=(--name=bench "--filename=$DIR/fio.dat" --size=1G --bs=4k --direct=1 --ioengine=libaio --iodepth=32
  --time_based --group_reporting --output-format=terse --terse-version=3 --rw=randrw --rate_iops=12500,12500)
# Lay the file out first: fio writing it during a measured run would be large buffered writes,
# whose block sampling costs per request grow with the request (up to 1,024 blocks each).
[[ -s "$DIR/fio.dat" ]] || fio "${fio_args[@]}" --runtime=1 --create_only=1 > /dev/null
for round in $(seq "$ROUNDS"); do
  for bin in "$@"; do
    state="$DIR/state"; rm -rf "$state"; mkdir -p "$state"
    cat > "$DIR/agent.yaml" <<YAML
gateway: http://127.0.0.1:$PORT
credential: spa_benchmark
agent_id: bench-agent
server_id: bench-server
interval: 10s
state_dir: $state
ebpf: "on"
YAML
    "$bin" run --config "$DIR/agent.yaml" 2>"$DIR/agent.log" & agent=$!
    sleep 12                                        # programs loaded, first tick done
    fio "${fio_args[@]}" --runtime="$SECS" > "$DIR/fio.out" & fio=$!
    sleep 3
    t0=$(awk '{print $14+$15}' "/proc/$agent/stat")
    echo "== round $round: $bin (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
    "$DIR/blockcost" -pid "$agent" -for "$((SECS - 5))s"
    t1=$(awk '{print $14+$15}' "/proc/$agent/stat")
    wait "$fio"
    echo "fio IOPS: $(awk -F';' '{printf "%.0f", $8 + $49}' "$DIR/fio.out"); agent CPU: $(( (t1 - t0) * 1000 / $(getconf CLK_TCK) )) ms over $((SECS - 5)) s"
    kill -TERM "$agent"; wait "$agent" || true
  done
done
