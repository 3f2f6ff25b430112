#!/usr/bin/env bash
# How the event loops scale across cores, on a workload whose cost is on the server: TLS handshakes with an RSA
# certificate (the server signs with the private key, ~5 ms for RSA-4096; the client only verifies, ~0.1 ms).
# Runs `rollcall bench connect wss://...` against a server with 1 event loop and one with 2, interleaved ROUNDS times,
# each against a fresh server, and prints per run the handshakes per second, the CPU seconds of the server and of the
# client (user + system), and the server's CPU per handshake; then the medians, the 2-loop/1-loop ratio, and the
# same ratio for `openssl speed` itself (one process against two), which is the most two cores of this machine give.
#
#   ROUNDS=3 BITS=4096 DURATION=5 CONNECTIONS=20 scripts/bench-multicore.sh
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=${ROUNDS:-3}
bits=${BITS:-4096}
duration=${DURATION:-5}
connections=${CONNECTIONS:-20}
binary=${ROLLCALL_BIN:-.build/release/rollcall}
[ -x "$binary" ] || swift build -c release --product rollcall >&2
work=$(mktemp -d)
server=""
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

openssl req -x509 -newkey "rsa:$bits" -nodes -keyout "$work/key.pem" -out "$work/cert.pem" -days 2 \
    -subj /CN=localhost 2>/dev/null
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
ticks=$(getconf CLK_TCK)

# run LOOPS: one bench run against a fresh server; prints "loops handshakes/s server-cpu-s client-cpu-s".
run() {
    local loops=$1
    "$binary" serve --config config/conformance.conf --set server.event_loops="$loops" --set log.level=warn \
        --set server.max_connections_per_ip=100000 --set server.listen= --set "tls.listen=127.0.0.1:$port" \
        --set "tls.certificate=$work/cert.pem" --set "tls.private_key=$work/key.pem" 2>"$work/server.log" &
    server=$!
    for _ in $(seq 1 50); do
        ss -Hltn "( sport = :$port )" | grep -q . && break
        sleep 0.1
    done
    local before after client rate
    before=$(awk '{ print $14 + $15 }' "/proc/$server/stat")
    local TIMEFORMAT="%U %S"
    client=$( { time "$binary" bench connect "wss://127.0.0.1:$port/echo" --connections "$connections" \
        --duration "$duration" --json --quiet >"$work/bench.json"; } 2>&1 )
    after=$(awk '{ print $14 + $15 }' "/proc/$server/stat")
    kill -INT "$server"
    wait "$server" || true
    server=""
    rate=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["handshakesPerSecond"])' "$work/bench.json")
    python3 - "$loops" "$rate" "$before" "$after" "$ticks" $client <<'PY'
import sys
loops, rate, before, after, ticks, user, system = sys.argv[1:]
server = (float(after) - float(before)) / float(ticks)
print(loops, rate, f"{server:.2f}", f"{float(user) + float(system):.2f}")
PY
}

results=()
for round in $(seq 1 "$rounds"); do
    for loops in 1 2; do
        line=$(run "$loops")
        results+=("$line")
        read -r l rate server_cpu client_cpu <<<"$line"
        echo "round $round, $l loop(s): $rate handshakes/s, server CPU $server_cpu s, client CPU $client_cpu s" >&2
    done
done

one=$(openssl speed -seconds 3 "rsa$bits" 2>/dev/null | awk '/^rsa/ { print $6 }')
two=$(openssl speed -seconds 3 -multi 2 "rsa$bits" 2>/dev/null | awk '/^rsa/ { print $6 }' | tail -1)

python3 - "$duration" "$one" "$two" "${results[@]}" <<'PY'
import statistics, sys
duration, one, two = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
runs = [line.split() for line in sys.argv[4:]]
summary = {}
for loops in ("1", "2"):
    mine = [run for run in runs if run[0] == loops]
    rate = statistics.median(float(run[1]) for run in mine)
    server = statistics.median(float(run[2]) for run in mine)
    client = statistics.median(float(run[3]) for run in mine)
    per = statistics.median(float(run[2]) / (float(run[1]) * duration) * 1e3 for run in mine)
    summary[loops] = rate
    print(f"{loops} loop(s): median {rate:.0f} handshakes/s, server CPU {server:.2f} s, client CPU {client:.2f} s, "
          f"server CPU per handshake {per:.2f} ms")
print(f"2 loops / 1 loop: {summary['2'] / summary['1']:.2f}")
print(f"openssl speed rsa signs/s, 1 process: {one:.0f}, 2 processes: {two:.0f}, ratio {two / one:.2f}")
PY
