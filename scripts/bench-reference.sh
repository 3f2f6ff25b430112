#!/usr/bin/env bash
# Rollcall beside a reference WebSocket server, both measured by `rollcall bench` itself, interleaved round by round
# (reference, then each Rollcall build), server pinned to cpu1 and client to cpu0, one event loop, a fresh server
# per run. Ends with the medians per scenario and build and each build's ratio to the reference.
#
#   REFERENCE_ECHO=PATH REFERENCE_PUBSUB=PATH ROUNDS=3 scripts/bench-reference.sh
#
# A reference server is any executable that takes a port as its only argument and serves WebSocket on 127.0.0.1:
#   REFERENCE_ECHO    echoes every message, on any path (echo and idle scenarios)
#   REFERENCE_PUBSUB  subscribes a connection that sends the text message "subscribe" to one topic, and publishes
#                     every message of a connection that did not subscribe to the topic's subscribers (pubsub)
# env:
#   BUILDS     "label=path ..." Rollcall binaries to compare (default: "rollcall=.build/release/rollcall")
#   CLIENT     the load generator for every run (default: this tree's release build, built when missing)
#   SCENARIOS  any of echo100 echo1000 pubsub1000 idle (default: all four)
#   ROUNDS     rounds (default 3)
# Scenarios (each bounded: 5 s of load, or 3 s of holding for idle):
#   echo100, echo1000  bench echo, 32-byte binary messages, one in flight per connection, 100 / 1,000 connections
#   pubsub1000         bench pubsub, 1,000 subscribers and one publisher at 1,000 messages/s (1,000,000 deliveries/s).
#                      Rollcall: meeting messages of 160 characters to members of a group (no room joined, so no
#                      roster traffic); the reference: text messages as large as Rollcall's deliveries on the wire
#                      (measured by a one-second run first), published to its topic
#   idle               bench idle, 10,000 connections: server memory per connection
set -euo pipefail
cd "$(dirname "$0")/.."

: "${REFERENCE_ECHO:?set REFERENCE_ECHO to the reference echo server}"
: "${REFERENCE_PUBSUB:?set REFERENCE_PUBSUB to the reference pub/sub server}"
rounds=${ROUNDS:-3}
scenarios=${SCENARIOS:-echo100 echo1000 pubsub1000 idle}
builds=${BUILDS:-rollcall=.build/release/rollcall}
first_binary=${builds%% *}
client=${CLIENT:-.build/release/rollcall}
[ -x "$client" ] || swift build -c release >&2
ulimit -n "$(ulimit -Hn)"

work=$(mktemp -d)
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
: >"$work/lines"

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
wait_port() {
    for _ in $(seq 1 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}
# The server's user and system time in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# start_server LABEL KIND PORT: a reference (KIND echo or pubsub) or a Rollcall build.
start_server() {
    local label=$1 kind=$2 port=$3 binary
    if [ "$label" = reference ]; then
        binary=$REFERENCE_ECHO
        [ "$kind" = pubsub ] && binary=$REFERENCE_PUBSUB
        taskset -c 1 "$binary" "$port" >/dev/null 2>&1 &
    else
        for build in $builds; do
            if [ "${build%%=*}" = "$label" ]; then binary=${build#*=}; fi
        done
        # Every pubsub subscriber is the same user: the per-user connection limit is raised with the others.
        taskset -c 1 "$binary" serve --config config/conformance.conf --listen "127.0.0.1:$port" \
            --set server.event_loops=1 --set log.level=warn --set server.max_connections=100000 \
            --set server.max_connections_per_ip=100000 --set rooms.max_connections_per_user=100000 \
            >"$work/server.log" 2>&1 &
    fi
    server_pid=$!
    wait_port "$port"
}

# Rollcall shuts down on SIGINT; a reference server may only end on SIGTERM.
stop_server() {
    kill -INT "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
}

token() { "$client" token --config config/conformance.conf --uid "$1" --group bench --ttl 7200; }
observer=$(token bench-observer)
publisher=$(token bench-publisher)
template='{"type":"meeting","group":"bench","sessionId":"s","text":"{payload}"}'

# The reference's message size: what a Rollcall subscriber receives per delivery, less the 4-byte frame header.
reference_size=272
if [[ " $scenarios " == *" pubsub1000 "* ]]; then
    port=$(free_port)
    start_server "${first_binary%%=*}" pubsub "$port"
    reference_size=$(taskset -c 0 "$client" bench pubsub "ws://127.0.0.1:$port/v1/ws?token=$observer" \
        --publish-url "ws://127.0.0.1:$port/v1/ws?token=$publisher" --publish-template "$template" \
        --subscribers 10 --rate 100 --size 160 --duration 1 --json --quiet |
        python3 -c 'import json, sys; r = json.load(sys.stdin); print(round(r["bytesReceived"] / r["deliveries"]) - 4)')
    stop_server
    echo "reference pubsub message size: $reference_size bytes" >&2
fi

# run LABEL SCENARIO: one measured run against a fresh server; appends "LABEL SCENARIO CPU-SECONDS JSON".
run() {
    local label=$1 scenario=$2 port kind=echo report before after
    [ "$scenario" = pubsub1000 ] && kind=pubsub
    port=$(free_port)
    start_server "$label" "$kind" "$port"
    before=$(cpu_ticks "$server_pid")
    case $scenario in
        echo100 | echo1000)
            report=$(taskset -c 0 "$client" bench echo "ws://127.0.0.1:$port/echo" --connections "${scenario#echo}" \
                --size 32 --in-flight 1 --duration 5 --json --quiet) ;;
        pubsub1000)
            if [ "$label" = reference ]; then
                report=$(taskset -c 0 "$client" bench pubsub "ws://127.0.0.1:$port/" --subscribe-message subscribe \
                    --subscribers 1000 --rate 1000 --size "$reference_size" --duration 5 --json --quiet)
            else
                report=$(taskset -c 0 "$client" bench pubsub "ws://127.0.0.1:$port/v1/ws?token=$observer" \
                    --publish-url "ws://127.0.0.1:$port/v1/ws?token=$publisher" --publish-template "$template" \
                    --subscribers 1000 --rate 1000 --size 160 --duration 5 --json --quiet)
            fi ;;
        idle)
            report=$(taskset -c 0 "$client" bench idle "ws://127.0.0.1:$port/echo" --connections 10000 --duration 3 \
                --server-pid "$server_pid" --source-addresses 127.0.0.2-127.0.0.9 --json --quiet) ;;
    esac
    after=$(cpu_ticks "$server_pid")
    stop_server
    local seconds
    seconds=$(python3 -c "import os; print(($after - $before) / os.sysconf('SC_CLK_TCK'))")
    echo "$label $scenario $seconds $report" | tee -a "$work/lines" | cut -c1-160 >&2
}

labels="reference"
for build in $builds; do labels="$labels ${build%%=*}"; done
for _ in $(seq 1 "$rounds"); do
    for scenario in $scenarios; do
        for label in $labels; do run "$label" "$scenario"; done
    done
done

python3 - "$work/lines" <<'PY'
import json, statistics, sys
from collections import defaultdict
runs = defaultdict(list)
for line in open(sys.argv[1]):
    label, scenario, cpu, report = line.split(" ", 3)
    runs[(scenario, label)].append((float(cpu), json.loads(report)))
labels = []
for _, label in runs:
    if label not in labels: labels.append(label)
def figures(scenario, cpu, report):
    latency = report.get("latencyMicroseconds") or {}
    if scenario.startswith("echo"):
        return {"msgs/s": report["messagesPerSecond"], "p99 us": latency.get("p99"), "server CPU s": cpu}
    if scenario.startswith("pubsub"):
        share = report["deliveries"] / max(report["expectedDeliveries"], 1) * 100
        return {"deliveries/s": report["deliveriesPerSecond"], "delivered %": share,
                "late %": report["latePercent"], "p99 us": latency.get("p99"), "server CPU s": cpu}
    return {"bytes/conn": report["bytesPerConnection"]}
higher_is_better = {"msgs/s", "deliveries/s", "delivered %"}
for scenario in dict.fromkeys(s for s, _ in runs):
    medians = {}
    for label in labels:
        rows = [figures(scenario, cpu, report) for cpu, report in runs.get((scenario, label), [])]
        if rows:
            medians[label] = {key: statistics.median(row[key] for row in rows) for key in rows[0]}
    print(f"{scenario} (medians of {len(runs.get((scenario, labels[0]), []))})")
    for label, values in medians.items():
        parts = []
        for key, value in values.items():
            text = f"{key} {value:,.1f}" if isinstance(value, float) and value < 100 else f"{key} {value:,.0f}"
            base = medians.get("reference", {}).get(key)
            if label != "reference" and base and value:
                ratio = value / base if key in higher_is_better else base / value
                text += f" ({ratio:.2f})"
            parts.append(text)
        print(f"  {label}: " + ", ".join(parts))
print("(ratio): Rollcall against the reference, above 1 is better (for latency, CPU and memory: reference / Rollcall)")
PY
