"""Webhooks against the real binary: a receiver that fails 30 % of deliveries with 500 and stalls on some still
gets every event of a 10,000-change churn across 20 rooms, with no gap and per-room order after deduplication by
(room, seq), across a SIGKILL of the gateway mid-run, with one rooms thread and with two (the rooms spread over both,
each committing through its own connection to the store); every delivery's signature checks with the documented
recipe, and a tampered one does not.

The receiver is Python's http.server on 127.0.0.1; every loop is bounded in count and time.
"""

import asyncio
import hashlib
import hmac
import json
import random
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from test_call_end_to_end import Client, mint, run, start_server

SECRET = "whsec-interop-0123456789"
API_KEY = "ops:interop-api-secret-0123"
ROOMS = [f"hook-{index:02d}" for index in range(20)]
CHANGES = 10_000
TIMEOUT_MS = 600


def verify(header, body, secret, now=None, tolerance=300):
    """The check a receiver makes (docs/OPERATIONS.md, "Webhooks")."""
    parts = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
    timestamp = int(parts.get("t", "0"))
    if abs((now or time.time()) - timestamp) > tolerance:
        return False
    expected = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, parts.get("v1", ""))


class Receiver:
    """Records accepted deliveries; answers 500 to some and stalls past the gateway's timeout on a few."""

    def __init__(self, failure_rate=0.3, stall_rate=0.02, seed=7):
        self.lock = threading.Lock()
        self.random = random.Random(seed)
        self.failure_rate = failure_rate
        self.stall_rate = stall_rate
        self.accepted = []  # (room, seq) in arrival order
        self.bad_signatures = 0
        self.answers = {"ok": 0, "failed": 0, "stalled": 0}
        self.last_body = None
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if not verify(self.headers.get("Rollcall-Signature", ""), body, SECRET):
                    with receiver.lock:
                        receiver.bad_signatures += 1
                    self.send_response(400)
                    self.end_headers()
                    return
                with receiver.lock:
                    draw = receiver.random.random()
                if draw < receiver.stall_rate:
                    with receiver.lock:
                        receiver.answers["stalled"] += 1
                    time.sleep(TIMEOUT_MS / 1000 * 2)
                    return
                if draw < receiver.stall_rate + receiver.failure_rate:
                    with receiver.lock:
                        receiver.answers["failed"] += 1
                    self.send_response(500)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                events = json.loads(body)["events"]
                with receiver.lock:
                    receiver.answers["ok"] += 1
                    receiver.last_body = (self.headers["Rollcall-Signature"], body)
                    receiver.accepted.extend((event["room"], event["seq"]) for event in events)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *arguments):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}/hooks"

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def start_hooked(store, receiver, threads):
    return start_server({
        "rooms.threads": threads,
        "storage.path": str(store), "api.keys": API_KEY, "timeouts.shutdown_grace_ms": 500,
        "limits.max_messages_per_second": 0, "rooms.reconnect_grace_ms": 200,
        "webhooks.endpoint.backend.url": receiver.url, "webhooks.endpoint.backend.secret": SECRET,
        "webhooks.timeout_ms": TIMEOUT_MS, "webhooks.retry_base_ms": 20, "webhooks.retry_max_ms": 200,
        "webhooks.max_batch": 200,
    })


async def churn(server, changes, offset):
    """`changes` state changes spread over the rooms, one client per room, each waiting for its acks in windows."""
    clients = []
    for room in ROOMS:
        client = await Client.connect(room, server.url, mint(f"user-{room}", rooms=[room]))
        await client.join(room=room)
        clients.append(client)

    async def drive(client, count, room):
        for start in range(0, count, 50):
            window = range(start, min(count, start + 50))
            for index in window:
                await client.send({"type": "state", "room": room, "handRaised": (offset + index) % 2 == 0,
                                   "id": f"c{index}"})
            answered = 0
            for _ in range(10 * len(window) + 100):
                message = await client.recv(10)
                if message.get("type") in ("ack", "error") and str(message.get("id", "")).startswith("c"):
                    answered += 1
                    if answered == len(window):
                        break
            assert answered == len(window), (room, answered)

    per_room = changes // len(ROOMS)
    await asyncio.gather(*(drive(client, per_room, room) for client, room in zip(clients, ROOMS)))
    for client in clients:
        await client.close()


def last_sequences(server):
    base = server.url.split("/v1/")[0].replace("ws://", "http://")
    request = urllib.request.Request(base + "/v1/api/rooms?limit=1000",
                                     headers={"Authorization": "Bearer " + API_KEY.split(":", 1)[1]})
    with urllib.request.urlopen(request, timeout=5) as response:
        return {room["room"]: room["seq"] for room in json.loads(response.read())["rooms"]}


@pytest.mark.parametrize("threads", [1, 2])
def test_every_event_arrives_in_order_through_failures_stalls_and_a_sigkill(tmp_path, threads):
    receiver = Receiver()
    store = tmp_path / "rollcall.db"
    server = start_hooked(store, receiver, threads)
    try:
        run(churn(server, CHANGES // 2, 0))
        server.process.kill()  # SIGKILL mid-run: deliveries in flight, cursors behind the log.
        server.process.wait(timeout=5)
        server.stop()
        server = start_hooked(store, receiver, threads)
        run(churn(server, CHANGES // 2, 1))
        expected = last_sequences(server)
        # No acknowledged change is lost across the kill: every room holds both runs' changes.
        assert all(seq >= CHANGES // len(ROOMS) for seq in expected.values()), expected
        assert set(expected) == set(ROOMS), expected
        assert sum(expected.values()) >= CHANGES
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with receiver.lock:
                have = set(receiver.accepted)
            if all((room, seq) in have for room, last in expected.items() for seq in range(1, last + 1)):
                break
            time.sleep(0.2)
        with receiver.lock:
            accepted = list(receiver.accepted)
            answers = dict(receiver.answers)
        # No gaps after deduplication, and per room each new seq is the next one (order holds).
        for room, last in expected.items():
            first_seen = []
            seen = set()
            for arrived_room, seq in accepted:
                if arrived_room == room and seq not in seen:
                    seen.add(seq)
                    first_seen.append(seq)
            assert first_seen[:last] == list(range(1, last + 1)), (room, first_seen[:20])
        assert answers["failed"] > 0 and answers["stalled"] > 0, answers
        assert receiver.bad_signatures == 0
        # A tampered body or a stale timestamp fails the documented check.
        header, body = receiver.last_body
        assert verify(header, body, SECRET)
        assert not verify(header, body.replace(b"hook-", b"hack-"), SECRET)
        assert not verify(header, body, SECRET, now=time.time() + 3600)
        metrics = urllib.request.urlopen(
            server.url.split("/v1/")[0].replace("ws://", "http://") + "/metrics", timeout=5).read().decode()
        assert 'rollcall_webhook_events_delivered_total{endpoint="backend"}' in metrics
        assert 'rollcall_webhook_retries_total{endpoint="backend"}' in metrics
    finally:
        assert server.stop() == 0
        receiver.stop()
