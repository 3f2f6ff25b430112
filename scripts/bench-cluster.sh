#!/usr/bin/env bash
# Fan-out through a cluster: starts a redis-server on a free loopback port in a temporary directory and NODES
# gateway nodes (release build) sharing it, then runs `rollcall bench fanout` with the publisher on the first node
# and the observers spread over all of them. NODES=0 runs one node without Redis (the single-process default), for
# comparison. SHARDS=3 (or more) puts a Redis Cluster of that many primaries in place of the one redis-server
# (redis-cli --cluster create, no replicas), and the nodes reach it by a redis-cluster:// URL. Extra arguments go to the bench (e.g. --subscribers 1000 --rate 200 --duration 5). With Redis, the
# report ends with Redis's side of the run on stderr: entries appended (XADD calls), script calls (EVALSHA),
# redis-server CPU (from /proc, summed over every primary) and CPU per appended entry, and the nodes' CPU. ROLLCALL_BIN picks another build of the binary.
# REPLICAS=N (with one redis-server) starts N replicas of it (redis-server --replicaof, on loopback too), and
# REPLICA_ACKS=N sets cluster.replica_acks on every node (each append waits for N replicas before it is acknowledged).
#
#   NODES=2 scripts/bench-cluster.sh --rooms 1 --subscribers 1000 --rate 200 --duration 5
#   NODES=2 SHARDS=3 scripts/bench-cluster.sh --rooms 100 --subscribers 1 --rate 10000 --duration 5
#   NODES=1 REPLICAS=1 REPLICA_ACKS=1 scripts/bench-cluster.sh --rooms 100 --subscribers 1 --rate 10000 --duration 5
set -euo pipefail
cd "$(dirname "$0")/.."

nodes=${NODES:-2}
shards=${SHARDS:-1}
if [ "$shards" -ne 1 ] && [ "$shards" -lt 3 ]; then
    echo "SHARDS is 1 (one redis-server) or at least 3 (a Redis Cluster needs three primaries)" >&2
    exit 2
fi
binary=${ROLLCALL_BIN:-.build/release/rollcall}
[ -x "$binary" ] || swift build -c release >&2
work=$(mktemp -d)
pids=()
node_pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

wait_for_port() {
    for _ in $(seq 1 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.1
    done
    echo "nothing listens on port $1" >&2
    exit 1
}

settings=(--set log.level=warn --set server.event_loops=1 --set server.echo=false --set server.max_connections_per_ip=100000)
redis_ports=()
redis_pids=()
if [ "$nodes" -gt 0 ]; then
    for index in $(seq 1 "$shards"); do
        port=$(free_port)
        mkdir -p "$work/redis-$index"
        cluster_flags=()
        if [ "$shards" -gt 1 ]; then
            cluster_flags=(--cluster-enabled yes --cluster-config-file "$work/redis-$index/nodes.conf"
                --cluster-port "$(free_port)")
        fi
        redis-server --port "$port" --bind 127.0.0.1 --dir "$work/redis-$index" --save "" --appendonly no \
            --daemonize no --logfile "$work/redis-$index/redis.log" "${cluster_flags[@]}" &
        redis_pids+=($!)
        pids+=($!)
        redis_ports+=("$port")
        wait_for_port "$port"
    done
    if [ "$shards" -gt 1 ]; then
        seeds=()
        for port in "${redis_ports[@]}"; do seeds+=("127.0.0.1:$port"); done
        redis-cli --cluster create "${seeds[@]}" --cluster-replicas 0 --cluster-yes >"$work/cluster-create.log"
        for _ in $(seq 1 200); do
            redis-cli -p "${redis_ports[0]}" CLUSTER INFO | grep -q 'cluster_state:ok' && break
            sleep 0.05
        done
        settings+=(--set "cluster.redis_url=redis-cluster://$(IFS=,; echo "${seeds[*]}")")
    else
        settings+=(--set "cluster.redis_url=redis://127.0.0.1:${redis_ports[0]}")
        for index in $(seq 1 "${REPLICAS:-0}"); do
            replica_port=$(free_port)
            mkdir -p "$work/replica-$index"
            redis-server --port "$replica_port" --bind 127.0.0.1 --dir "$work/replica-$index" --save "" \
                --appendonly no --daemonize no --logfile "$work/replica-$index/redis.log" \
                --replicaof 127.0.0.1 "${redis_ports[0]}" &
            pids+=($!)
            wait_for_port "$replica_port"
            for _ in $(seq 1 100); do
                redis-cli -p "$replica_port" INFO replication | grep -q master_link_status:up && break
                sleep 0.1
            done
        done
    fi
    settings+=(--set "cluster.replica_acks=${REPLICA_ACKS:-0}")
fi

urls=()
for index in $(seq 1 "$(( nodes > 0 ? nodes : 1 ))"); do
    port=$(free_port)
    "$binary" serve --config config/conformance.conf --listen "127.0.0.1:$port" "${settings[@]}" 2>"$work/node-$index.log" &
    pids+=($!)
    node_pids+=($!)
    wait_for_port "$port"
    urls+=("ws://127.0.0.1:$port/v1/ws")
done

# A process's CPU (user + system, clock ticks); Redis's count of a command's calls.
ticks_of() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
redis_ticks() {
    local total=0
    for pid in "${redis_pids[@]}"; do total=$(( total + $(ticks_of "$pid") )); done
    echo "$total"
}
nodes_ticks() {
    local total=0
    for pid in "${node_pids[@]}"; do total=$(( total + $(ticks_of "$pid") )); done
    echo "$total"
}
redis_calls() {
    local total=0
    for port in "${redis_ports[@]}"; do
        total=$(( total + $(redis-cli -p "$port" INFO commandstats | tr -d '\r' | awk -F'[=,:]' -v name="cmdstat_$1" \
            '$1 == name { print $3; found = 1 } END { if (!found) print 0 }') ))
    done
    echo "$total"
}

observers=$(IFS=,; echo "${urls[*]}")
if [ "$nodes" -gt 0 ]; then
    ticks_before=$(redis_ticks)
    node_ticks_before=$(nodes_ticks)
    xadd_before=$(redis_calls xadd)
    evalsha_before=$(redis_calls evalsha)
    wait_before=$(redis_calls wait)
fi
"$binary" bench fanout "${urls[0]}" --observers-at "$observers" "$@"
if [ "$nodes" -gt 0 ]; then
    ticks=$(( $(redis_ticks) - ticks_before ))
    node_ticks=$(( $(nodes_ticks) - node_ticks_before ))
    entries=$(( $(redis_calls xadd) - xadd_before ))
    calls=$(( $(redis_calls evalsha) - evalsha_before ))
    waits=$(( $(redis_calls wait) - wait_before ))
    hz=$(getconf CLK_TCK)
    awk -v shards="$shards" -v ticks="$ticks" -v node_ticks="$node_ticks" -v hz="$hz" -v entries="$entries" -v calls="$calls" -v waits="$waits" 'BEGIN {
        cpu = ticks / hz
        printf "redis (%d primaries): %d entries appended in %d script calls (%.1f per call), %d WAITs, redis-server CPU %.2f s, %.1f us per entry; nodes CPU %.2f s\n",
            shards, entries, calls, (calls > 0 ? entries / calls : 0), waits, cpu, (entries > 0 ? cpu * 1e6 / entries : 0), node_ticks / hz
    }' >&2
fi
