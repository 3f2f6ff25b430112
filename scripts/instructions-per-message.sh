#!/usr/bin/env bash
# Counts the server's instructions per message under callgrind, deterministically (BENCHMARKS.md, "Instructions per
# message"): for each scenario the server runs twice under `valgrind --tool=callgrind` with one event loop, once
# against a 1-second load and once against a 4-second load, and the difference in instructions is divided by the
# difference in messages, so start-up and connection set-up cancel out.
#
#   scripts/instructions-per-message.sh [echo|fanout|rooms|state ...]     (default: echo and fanout)
#
# scenarios:
#   echo     10 connections echoing 32-byte messages: instructions per echoed message
#   fanout   one room, 100 observers, 100 meeting messages/s: per delivery and per published message
#   rooms    100 rooms of 10 observers, 10 meeting messages/s each: per delivery and per published message, where
#            the rooms layer's cost of a message shows
#   state    one room, 50 participants changing their state (a flag and their mid) 200 times/s in total, 10
#            observers: per state change
#
# env:
#   SERVER_BIN   the profiled server (default: a release build without debug information, built into
#                .build/callgrind, because valgrind cannot read the DWARF 5 of the normal release build)
#   CLIENT_BIN   the load generator (default .build/release/rollcall, built when missing)
#   KEEP_PROFILES  a directory to copy each run's callgrind output to (for callgrind_annotate)
# Needs valgrind (Debian: valgrind).
set -euo pipefail
cd "$(dirname "$0")/.."

command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 2; }
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(echo fanout)

server=${SERVER_BIN:-}
if [ -z "$server" ]; then
    swift build -c release --product rollcall -Xlinker --strip-debug --scratch-path .build/callgrind >&2
    server=.build/callgrind/release/rollcall
fi
client=${CLIENT_BIN:-.build/release/rollcall}
[ -x "$client" ] || swift build -c release --product rollcall >&2

work=$(mktemp -d)
server_pid=""
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# One profiled run: prints "INSTRUCTIONS MESSAGES".
measure() {
    local scenario=$1 duration=$2 port out report
    port=$(free_port)
    out="$work/$scenario-$duration.out"
    valgrind --tool=callgrind --callgrind-out-file="$out" "$server" serve --config config/conformance.conf \
        --set server.event_loops=1 --set log.level=warn --set "server.listen=127.0.0.1:$port" \
        2>"$work/server.log" &
    server_pid=$!
    for _ in $(seq 1 300); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
        sleep 0.1
    done
    case $scenario in
        echo)
            report=$("$client" bench echo "ws://127.0.0.1:$port/echo" --connections 10 --size 32 \
                --duration "$duration" --timeout 5 --json --quiet) ;;
        fanout)
            report=$("$client" bench fanout "ws://127.0.0.1:$port/v1/ws" --subscribers 100 --rate 100 \
                --duration "$duration" --timeout 5 --json --quiet) ;;
        rooms)
            report=$("$client" bench fanout "ws://127.0.0.1:$port/v1/ws" --rooms 100 --subscribers 10 --rate 10 \
                --duration "$duration" --timeout 5 --json --quiet) ;;
        state)
            report=$("$client" bench roster "ws://127.0.0.1:$port/v1/ws" --participants 50 --subscribers 10 \
                --rate 200 --duration "$duration" --timeout 5 --json --quiet) ;;
        *)
            echo "unknown scenario '$scenario' (echo, fanout, rooms, state)" >&2
            exit 2 ;;
    esac
    kill -INT "$server_pid"
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
    [ -z "${KEEP_PROFILES:-}" ] || cp "$out" "$KEEP_PROFILES/"
    local instructions counts
    instructions=$(awk '/^summary:/ { print $2 }' "$out")
    # Messages, then published messages (the same for echo; state changes for state).
    counts=$(printf '%s' "$report" | python3 -c '
import json, sys
report = json.load(sys.stdin)
if report["scenario"] == "echo":
    print(report["received"], report["received"])
elif report["scenario"] == "roster":
    print(report["patchDeliveries"], report["acknowledged"])
else:
    print(report["deliveries"], report["published"])')
    echo "$instructions $counts"
}

for scenario in "${scenarios[@]}"; do
    read -r short_instructions short_messages short_published < <(measure "$scenario" 1)
    read -r long_instructions long_messages long_published < <(measure "$scenario" 4)
    python3 - "$scenario" "$short_instructions" "$short_messages" "$short_published" \
        "$long_instructions" "$long_messages" "$long_published" <<'PY'
import sys
scenario, i1, m1, p1, i4, m4, p4 = sys.argv[1], *map(int, sys.argv[2:])
if scenario == "echo":
    print(f"echo: {(i4 - i1) / (m4 - m1):,.0f} instructions per echoed message "
          f"({i4 - i1:,} instructions over {m4 - m1:,} more messages)")
elif scenario == "state":
    print(f"state: {(i4 - i1) / (p4 - p1):,.0f} instructions per state change "
          f"({i4 - i1:,} instructions over {p4 - p1:,} more changes, {m4 - m1:,} more patch deliveries)")
else:
    print(f"{scenario}: {(i4 - i1) / (m4 - m1):,.0f} instructions per delivery, "
          f"{(i4 - i1) / (p4 - p1):,.0f} per published message "
          f"({i4 - i1:,} instructions over {m4 - m1:,} more deliveries, {p4 - p1:,} more published)")
PY
done
