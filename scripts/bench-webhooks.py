#!/usr/bin/env python3
"""Webhook throughput and lag (BENCHMARKS.md, "Webhooks"): a gateway with a store in a temporary directory and one
webhook endpoint, a receiver on 127.0.0.1 that acknowledges every delivery, and `rollcall bench fanout` publishing
meeting messages at a fixed rate. Prints the events delivered, the delivery rate while the load ran, the lag from
an event's time to its arrival at the receiver (p50, p99, max), and the connections the gateway opened to the
receiver (it answers HTTP/1.1 and keeps connections open, as most receivers do; --close answers HTTP/1.0, so each
delivery needs a connection of its own). With --cluster the gateway runs in cluster mode on a redis-server started in the
temporary directory (no store): the deliveries read the shared log in Redis, with the endpoint's cursor and lease
there.

usage: scripts/bench-webhooks.py [--rate 1000] [--duration 10] [--sync normal] [--batch 100] [--close] [--cluster]
env:   ROLLCALL_BIN (default .build/release/rollcall)
"""

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.environ.get("ROLLCALL_BIN", os.path.join(ROOT, ".build", "release", "rollcall"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rate", type=int, default=1000)
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--sync", default="normal")
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--close", action="store_true")
    parser.add_argument("--cluster", action="store_true")
    options = parser.parse_args()

    lock = threading.Lock()
    arrivals = []  # (arrival ms, event time ms)
    deliveries = [0]
    connections = [0]

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0" if options.close else "HTTP/1.1"

        def setup(self):
            super().setup()
            with lock:
                connections[0] += 1

        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            now = time.time() * 1000
            events = json.loads(body)["events"]
            with lock:
                deliveries[0] += 1
                arrivals.extend((now, event["time"]) for event in events if event["event"] == "meeting.message")
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *arguments):
            pass

    receiver = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    directory = tempfile.mkdtemp(prefix="rollcall-bench-webhooks-")
    redis = None
    if options.cluster:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            redis_port = probe.getsockname()[1]
        redis = subprocess.Popen(
            [shutil.which("redis-server") or "redis-server", "--port", str(redis_port), "--bind", "127.0.0.1",
             "--dir", directory, "--save", "", "--appendonly", "no", "--daemonize", "no"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            try:
                with socket.create_connection(("127.0.0.1", redis_port), timeout=0.5):
                    break
            except OSError:
                time.sleep(0.05)
        source = ["--set", "storage.path=", "--set", f"cluster.redis_url=redis://127.0.0.1:{redis_port}"]
    else:
        source = ["--set", f"storage.path={directory}/rollcall.db", "--set", f"storage.sync={options.sync}"]
    server = subprocess.Popen(
        [BINARY, "serve", "--config", os.path.join(ROOT, "config", "rollcall.conf"), "--listen", f"127.0.0.1:{port}",
         *source, "--set", "log.level=warn", "--set", "limits.max_messages_per_second=0",
         "--set", f"webhooks.endpoint.bench.url=http://127.0.0.1:{receiver.server_address[1]}/hooks",
         "--set", "webhooks.endpoint.bench.secret=bench-secret-0123456789", "--set", f"webhooks.max_batch={options.batch}"],
        cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    line = server.stderr.readline().decode()
    assert "msg=listening" in line, line
    try:
        report = subprocess.run(
            [BINARY, "bench", "fanout", f"ws://127.0.0.1:{port}/v1/ws", "--rooms", "1", "--subscribers", "10",
             "--rate", str(options.rate), "--duration", str(options.duration), "--timeout", "5", "--json",
             "--quiet"], capture_output=True, timeout=options.duration + 60, check=True)
        sent = json.loads(report.stdout)["published"]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with lock:
                if len(arrivals) >= sent:
                    break
            time.sleep(0.1)
        with lock:
            lags = sorted(arrival - event for arrival, event in arrivals)
            span = (arrivals[-1][0] - arrivals[0][0]) / 1000 if len(arrivals) > 1 else 0
            count, posts = len(arrivals), deliveries[0]
        print(json.dumps({
            "rate": options.rate, "duration": options.duration,
            "source": "cluster" if options.cluster else f"store, sync {options.sync}", "sent": sent,
            "delivered": count, "deliveries": posts, "connections": connections[0],
            "delivered_per_second": round(count / span, 1) if span else None,
            "lag_ms": {"p50": round(lags[len(lags) // 2], 1), "p99": round(lags[int(len(lags) * 0.99)], 1),
                       "max": round(lags[-1], 1)} if lags else None,
        }))
    finally:
        server.terminate()
        server.wait(timeout=15)
        if redis:
            redis.terminate()
            redis.wait(timeout=15)
        receiver.shutdown()
        subprocess.run(["rm", "-rf", directory], check=False)


if __name__ == "__main__":
    main()
