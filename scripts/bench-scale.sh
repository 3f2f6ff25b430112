#!/usr/bin/env bash
# Many connections at once on one machine: PROCESSES server processes share one port (SO_REUSEPORT; the kernel
# spreads the connections over them) and as many `rollcall bench idle` processes each open PER_PROCESS upgraded
# connections from their own 127.0.X.Y source addresses and hold them for DURATION seconds. Several processes on
# each side keep every process under its open-files limit. Prints the peak number of established server-side
# connections, the servers' total resident memory before and at the peak, and each bench's summary.
#
#   PROCESSES=7 PER_PROCESS=14300 DURATION=30 scripts/bench-scale.sh
set -euo pipefail
cd "$(dirname "$0")/.."

processes=${PROCESSES:-7}
per_process=${PER_PROCESS:-14300}
duration=${DURATION:-30}
binary=${ROLLCALL_BIN:-.build/release/rollcall}
[ -x "$binary" ] || swift build -c release >&2
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
servers=()
for index in $(seq 1 "$processes"); do
    "$binary" serve --config config/conformance.conf --listen "127.0.0.1:$port" --set server.event_loops=1 \
        --set server.max_connections=1000000 --set server.max_connections_per_ip=1000000 \
        --set log.level=warn 2>"$work/server-$index.log" &
    servers+=($!)
    pids+=($!)
done
sleep 1

rss_total() {
    local total=0 kb
    for pid in "${servers[@]}"; do
        kb=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status")
        total=$((total + kb))
    done
    echo "$total"
}
established() {
    ss -Htn state established "( sport = :$port )" | wc -l
}

before=$(rss_total)
benches=()
for index in $(seq 1 "$processes"); do
    "$binary" bench idle "ws://127.0.0.1:$port/echo" --connections "$per_process" --duration "$duration" \
        --source-addresses "127.0.$index.1-127.0.$index.4" --timeout 30 --json --quiet >"$work/bench-$index.json" \
        2>"$work/bench-$index.log" &
    benches+=($!)
    pids+=($!)
done

peak=0
peak_rss=0
deadline=$((SECONDS + duration + 60))
while [ $SECONDS -lt $deadline ]; do
    running=0
    for pid in "${benches[@]}"; do kill -0 "$pid" 2>/dev/null && running=1; done
    [ $running -eq 0 ] && break
    count=$(established)
    if [ "$count" -gt "$peak" ]; then
        peak=$count
        peak_rss=$(rss_total)
    fi
    sleep 1
done
for pid in "${benches[@]}"; do wait "$pid" || true; done

echo "servers: $processes processes on 127.0.0.1:$port; clients: $processes bench processes x $per_process connections"
echo "peak established server-side connections: $peak"
echo "server RSS: $((before / 1024)) MiB before, $((peak_rss / 1024)) MiB at the peak;" \
    "$(( peak > 0 ? (peak_rss - before) * 1024 / peak : 0 )) bytes per connection"
for index in $(seq 1 "$processes"); do
    echo "bench $index: $(tail -c 400 "$work/bench-$index.json")"
done
