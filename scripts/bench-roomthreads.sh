#!/usr/bin/env bash
# How the rooms threads scale, on a workload whose cost is on the rooms threads rather than on the client: meeting
# messages in many small rooms (`bench fanout --rooms 200 --subscribers 2`: per published message the rooms thread
# reads, checks, logs and encodes it, the client only sends it once and reads it twice).
# Runs the fan-out against a fresh server with rooms.threads=1 and one with rooms.threads=2, interleaved ROUNDS
# times, and prints per run the published messages per second (deliveries per second / subscribers), the CPU seconds
# of the rooms threads (each `rollcall-rooms*` thread's user + system time over the run), of the whole server and of
# the client, and the rooms threads' CPU per published message; then the medians and the 2-thread/1-thread ratio.
# Then the same rooms without sockets or a client (`rollcall bench rooms-threads`: MESSAGES meeting messages per
# room handled by 1 and by 2 rooms threads in-process, interleaved ROUNDS times), and what two cores of this machine
# give a perfectly parallel job at the time (`openssl speed sha256` in one process and in two), the ceiling of both
# ratios. STORE=1 runs the in-process part with the store on (`--store`, a fresh file per run in a temporary
# directory; every rooms thread commits through its own connection once per BATCH messages, default 64).
#
#   ROUNDS=3 ROOMS=200 SUBSCRIBERS=2 RATE=300 DURATION=4 LOOPS=1 MESSAGES=1500 scripts/bench-roomthreads.sh
#   FANOUT=0 scripts/bench-roomthreads.sh     # the in-process part only
#   FANOUT=0 STORE=1 scripts/bench-roomthreads.sh     # the in-process part with the store
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=${ROUNDS:-3}
rooms=${ROOMS:-200}
subscribers=${SUBSCRIBERS:-2}
rate=${RATE:-300}
duration=${DURATION:-4}
loops=${LOOPS:-1}
messages=${MESSAGES:-1500}
store=${STORE:-0}
batch=${BATCH:-64}
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

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
ticks=$(getconf CLK_TCK)

# The CPU ticks of each of the server's rooms threads, comma-separated, in thread order.
rooms_ticks() {
    local ticks=() task
    for task in /proc/"$1"/task/*; do
        if grep -q '^rollcall-rooms' "$task/comm" 2>/dev/null; then
            ticks+=("$(awk '{ print $14 + $15 }' "$task/stat")")
        fi
    done
    local IFS=,
    echo "${ticks[*]}"
}

# run THREADS: one bench run against a fresh server; prints "threads published/s rooms-cpu server-cpu client-cpu
# lost published".
run() {
    local threads=$1
    "$binary" serve --config config/conformance.conf --set server.event_loops="$loops" --set log.level=warn \
        --set rooms.threads="$threads" --set server.max_connections_per_ip=100000 \
        --set "server.listen=127.0.0.1:$port" 2>"$work/server.log" &
    server=$!
    for _ in $(seq 1 50); do
        ss -Hltn "( sport = :$port )" | grep -q . && break
        sleep 0.1
    done
    local rooms_before server_before rooms_after server_after client
    rooms_before=$(rooms_ticks "$server")
    server_before=$(awk '{ print $14 + $15 }' "/proc/$server/stat")
    local TIMEFORMAT="%U %S"
    client=$( { time "$binary" bench fanout "ws://127.0.0.1:$port/v1/ws" --rooms "$rooms" \
        --subscribers "$subscribers" --rate "$rate" --duration "$duration" --timeout 5 --json --quiet \
        >"$work/bench.json"; } 2>&1 )
    rooms_after=$(rooms_ticks "$server")
    server_after=$(awk '{ print $14 + $15 }' "/proc/$server/stat")
    kill -INT "$server"
    wait "$server" || true
    server=""
    python3 - "$threads" "$work/bench.json" "$subscribers" "$rooms_before" "$rooms_after" "$server_before" \
        "$server_after" "$ticks" $client <<'PY'
import json, sys
threads, path, subscribers, rb, ra, sb, sa, ticks, user, system = sys.argv[1:]
report = json.load(open(path))
published = report["deliveriesPerSecond"] / int(subscribers)
each = [(float(a) - float(b)) / float(ticks) for a, b in zip(ra.split(","), rb.split(","))]
rooms = sum(each)
server = (float(sa) - float(sb)) / float(ticks)
print(threads, round(published), f"{rooms:.2f}", f"{server:.2f}", f"{float(user) + float(system):.2f}",
      report["lost"], report["published"], "/".join(f"{cpu:.2f}" for cpu in each))
PY
}

results=()
for round in $(seq 1 "$rounds"); do
    [ "${FANOUT:-1}" = 0 ] && break
    for threads in 1 2; do
        line=$(run "$threads")
        results+=("$line")
        read -r t published rooms_cpu server_cpu client_cpu lost sent each <<<"$line"
        echo "round $round, $t rooms thread(s): $published published/s ($sent sent, $lost lost), rooms threads" \
            "CPU $rooms_cpu s ($each), server CPU $server_cpu s, client CPU $client_cpu s" >&2
    done
done

[ "${FANOUT:-1}" = 0 ] || python3 - "${results[@]}" <<'PY'
import statistics, sys
runs = [line.split() for line in sys.argv[1:]]
medians = {}
for threads in ("1", "2"):
    mine = [run for run in runs if run[0] == threads]
    published = statistics.median(float(run[1]) for run in mine)
    rooms = statistics.median(float(run[2]) for run in mine)
    server = statistics.median(float(run[3]) for run in mine)
    client = statistics.median(float(run[4]) for run in mine)
    per_message = statistics.median(float(run[2]) / float(run[6]) * 1e6 for run in mine)
    medians[threads] = published
    print(f"{threads} rooms thread(s): {published:.0f} published/s, rooms threads CPU {rooms:.2f} s, "
          f"server CPU {server:.2f} s, client CPU {client:.2f} s, rooms threads CPU per published message "
          f"{per_message:.1f} us (medians of {len(mine)})")
print(f"ratio 2/1: {medians['2'] / medians['1']:.2f}")
PY

echo "in-process, without sockets or a client:" >&2
inprocess=()
ceilings=()
for round in $(seq 1 "$rounds"); do
    for threads in 1 2; do
        stored=()
        [ "$store" = 1 ] && stored=(--store "$work/bench-$round-$threads.db" --batch "$batch")
        line=$("$binary" bench rooms-threads --threads "$threads" --rooms "$rooms" --subscribers "$subscribers" \
            --messages "$messages" "${stored[@]}" --json)
        echo "round $round: $line" >&2
        inprocess+=("$line")
    done
    one=$(openssl speed -seconds 1 sha256 2>/dev/null | awk '/^sha256/ { print $NF }')
    two=$(openssl speed -seconds 1 -multi 2 sha256 2>/dev/null | awk '/^sha256/ { print $NF }' | tail -1)
    echo "round $round: openssl speed sha256 $one in one process, $two in two" >&2
    ceilings+=("${one%k}/${two%k}")
done
python3 - "${ceilings[*]}" "${inprocess[@]}" <<'PY'
import json, statistics, sys
ceilings = [float(two) / float(one) for one, two in (pair.split("/") for pair in sys.argv[1].split())]
runs = [json.loads(line) for line in sys.argv[2:]]
medians = {}
for threads in (1, 2):
    mine = [run for run in runs if run["threads"] == threads]
    rate = statistics.median(run["publishedPerSecond"] for run in mine)
    cpu = statistics.median(run["cpuMicrosecondsPerMessage"] for run in mine)
    medians[threads] = rate
    print(f"in-process, {threads} rooms thread(s): {rate:.0f} published/s, {cpu:.2f} us of rooms-thread CPU per "
          f"message (medians of {len(mine)})")
ratios = [two["publishedPerSecond"] / one["publishedPerSecond"] for one, two in zip(runs[0::2], runs[1::2])]
print(f"in-process ratio 2/1: {medians[2] / medians[1]:.2f} (per round: "
      f"{', '.join(f'{ratio:.2f}' for ratio in ratios)}); openssl speed sha256, 2 processes / 1, per round: "
      f"{', '.join(f'{ceiling:.2f}' for ceiling in ceilings)}")
PY
