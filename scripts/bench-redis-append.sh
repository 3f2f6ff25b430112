#!/usr/bin/env bash
# Redis alone under the shared log's appends: starts a redis-server on a free loopback port (persistence off),
# loads the room log script from Sources/Cluster/RoomLogScript.swift (ROOM_LOG_SCRIPT picks another copy of that
# file, e.g. an older commit's, whose single-proposal call it then drives), subscribes one connection to every
# room's channel (as a node does), and has redis-benchmark send plain appends, BATCH entries per script call, to
# ROOMS rooms chosen at random, pipelined PIPELINE deep over CLIENTS connections. Reports appends per second and
# redis-server CPU (user + system, from /proc) per appended entry.
#
#   scripts/bench-redis-append.sh [--appends 200000] [--rooms 100] [--batch 1] [--pipeline 16] [--clients 4]
set -euo pipefail
cd "$(dirname "$0")/.."

appends=200000 rooms=100 batch=1 pipeline=16 clients=4
while [ $# -gt 0 ]; do
    case "$1" in
        --appends) appends=$2; shift 2 ;;
        --rooms) rooms=$2; shift 2 ;;
        --batch) batch=$2; shift 2 ;;
        --pipeline) pipeline=$2; shift 2 ;;
        --clients) clients=$2; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
[ "$appends" -le 10000000 ] || { echo "--appends is at most 10,000,000" >&2; exit 2; }
source_file=${ROOM_LOG_SCRIPT:-Sources/Cluster/RoomLogScript.swift}

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
redis-server --port "$port" --bind 127.0.0.1 --dir "$work" --save "" --appendonly no --daemonize no \
    --logfile "$work/redis.log" &
redis_pid=$!
pids+=("$redis_pid")
for _ in $(seq 1 100); do redis-cli -p "$port" PING >/dev/null 2>&1 && break; sleep 0.1; done

# The Lua between the Swift raw string's delimiters, without the Swift indentation.
python3 - "$source_file" >"$work/script.lua" <<'EOF'
import sys
text = open(sys.argv[1]).read()
body = text[text.index('#"""') + 4:text.index('"""#')]
print("\n".join(line[8:] if line.startswith("        ") else line for line in body.split("\n")))
EOF
sha=$(redis-cli -p "$port" SCRIPT LOAD "$(cat "$work/script.lua")")

# redis-benchmark's __rand_int__ becomes a 12-digit number below --rooms: the room ids.
channels=()
for index in $(seq 0 $(( rooms - 1 ))); do channels+=("bench:room:$(printf '%012d' "$index")"); done
redis-cli -p "$port" SUBSCRIBE "${channels[@]}" >/dev/null &
pids+=($!)

event='{"t":"message","from":"u-1","text":"hello, room"}'
if grep -q 'per proposal' "$source_file"; then
    command=(EVALSHA "$sha" 0 append bench __rand_int__ node-1 1000 3600000 86400000)
    for _ in $(seq 1 "$batch"); do command+=('' 1 "$event" u-1 '' -); done
else
    [ "$batch" -eq 1 ] || { echo "the older script takes one proposal per call: --batch 1" >&2; exit 2; }
    command=(EVALSHA "$sha" 0 append bench __rand_int__ node-1 '' 1000 3600000 86400000 "$event" u-1 '' - '' '' p 0 0)
fi

ticks() { awk '{ print $14 + $15 }' "/proc/$redis_pid/stat"; }
calls=$(( appends / batch ))
before=$(ticks)
start=$(date +%s.%N)
redis-benchmark -p "$port" -c "$clients" -P "$pipeline" -n "$calls" -r "$rooms" -q "${command[@]}" >"$work/bench.out"
end=$(date +%s.%N)
used=$(( $(ticks) - before ))
entries=$(redis-cli -p "$port" INFO commandstats | tr -d '\r' | awk -F'[=,:]' '$1 == "cmdstat_xadd" { print $3 }')
awk -v used="$used" -v hz="$(getconf CLK_TCK)" -v entries="${entries:-0}" -v calls="$calls" -v start="$start" \
    -v end="$end" -v batch="$batch" -v rooms="$rooms" 'BEGIN {
    cpu = used / hz
    seconds = end - start
    printf "%d entries in %d calls (%d per call, %d rooms) in %.2f s: %.0f appends/s; redis-server CPU %.2f s, %.2f us per entry\n",
        entries, calls, batch, rooms, seconds, entries / seconds, cpu, (entries > 0 ? cpu * 1e6 / entries : 0)
}'
