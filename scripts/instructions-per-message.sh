#!/usr/bin/env bash
# Counts the server's instructions per message under callgrind, deterministically (BENCHMARKS.md, "Instructions per
# message"): for each scenario the server runs twice under `valgrind --tool=callgrind` with one event loop, once
# against a 1-second load and once against a 4-second load, and the difference in instructions is divided by the
# difference in messages, so start-up and connection set-up cancel out.
#
#   scripts/instructions-per-message.sh [echo|fanout ...]     (default: both)
#
# env:
#   SERVER_BIN   the profiled server (default: a release build without debug information, built into
#                .build/callgrind, because valgrind cannot read the DWARF 5 of the normal release build)
#   CLIENT_BIN   the load generator (default .build/release/rollcall, built when missing)
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
    esac
    kill -INT "$server_pid"
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
    local instructions messages
    instructions=$(awk '/^summary:/ { print $2 }' "$out")
    messages=$(printf '%s' "$report" | python3 -c '
import json, sys
report = json.load(sys.stdin)
print(report["received"] if report["scenario"] == "echo" else report["deliveries"])')
    echo "$instructions $messages"
}

for scenario in "${scenarios[@]}"; do
    read -r short_instructions short_messages < <(measure "$scenario" 1)
    read -r long_instructions long_messages < <(measure "$scenario" 4)
    python3 - "$scenario" "$short_instructions" "$short_messages" "$long_instructions" "$long_messages" <<'PY'
import sys
scenario, i1, m1, i4, m4 = sys.argv[1], *map(int, sys.argv[2:])
unit = "echoed message" if scenario == "echo" else "delivery"
print(f"{scenario}: {(i4 - i1) / (m4 - m1):,.0f} instructions per {unit} "
      f"({i4 - i1:,} instructions over {m4 - m1:,} more messages)")
PY
done
