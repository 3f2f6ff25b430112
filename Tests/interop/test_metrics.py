"""The operator endpoints of `rollcall serve`, read as an operator's tools read them.

Starts the built binary (path from ROLLCALL_BIN, default .build/debug/rollcall) with a server API key, parses
`/metrics` with `prometheus_client`'s text parser, drives traffic over WebSocket and the server API, and checks that the
counters move. Ends with SIGTERM: `/readyz` must answer 503 during the drain delay, and the process must exit 0.

Set up the environment with scripts/python-venv.sh, build with `swift build`, then run
`.venv/bin/python -m pytest Tests/interop/test_metrics.py -q`.
"""

import json
import os
import re
import select
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families
from websockets.sync.client import connect

PROJECT_ROOT = Path(__file__).resolve().parents[2]
BINARY = Path(os.environ.get("ROLLCALL_BIN", PROJECT_ROOT / ".build" / "debug" / "rollcall")).resolve()
CONFIG = PROJECT_ROOT / "config" / "rollcall.conf"
API_SECRET = "metrics-test-secret-0123456789"
TIMEOUT = 10.0


class Gateway:
    """A `rollcall serve` process with the server API on, and its base URLs."""

    def __init__(self, working_directory):
        assert BINARY.exists(), f"{BINARY} is missing: build with `swift build` first"
        self.process = subprocess.Popen(
            [str(BINARY), "serve", "--config", str(CONFIG), "--listen", "127.0.0.1:0",
             "--set", f"api.keys=metrics:{API_SECRET}", "--set", "timeouts.drain_delay_ms=1500",
             "--set", "timeouts.shutdown_grace_ms=1000", "--set", "rooms.patch_window_ms=0", "--set", "storage.path="],
            cwd=working_directory,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        line = self._first_line()
        match = re.search(r"addresses=(\S+)", line)
        assert "msg=listening" in line and match, line
        self.ws = match.group(1)
        self.http = "http://" + self.ws.removeprefix("ws://")
        self.log = []
        self._drainer = threading.Thread(target=self._drain, daemon=True)
        self._drainer.start()

    def _first_line(self):
        deadline = time.monotonic() + TIMEOUT
        line = b""
        fd = self.process.stderr.fileno()
        while not line.endswith(b"\n"):
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"no listening line within {TIMEOUT} s: {line!r}"
            ready, _, _ = select.select([fd], [], [], remaining)
            if ready:
                byte = os.read(fd, 1)
                assert byte, f"the server exited before logging its addresses: {line!r}"
                line += byte
        return line.decode()

    def _drain(self):
        while chunk := os.read(self.process.stderr.fileno(), 4096):
            self.log.extend(chunk.decode(errors="replace").splitlines())

    def get(self, path, key=None):
        """Returns (status, body) of a GET."""
        return self.request("GET", path, key=key)

    def request(self, method, path, body=None, key=None):
        request = urllib.request.Request(self.http + path, method=method,
                                         data=None if body is None else json.dumps(body).encode())
        if key:
            request.add_header("Authorization", f"Bearer {key}")
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=TIMEOUT)
            return None


@pytest.fixture
def gateway(tmp_path):
    server = Gateway(tmp_path)
    yield server
    assert server.stop() == 0, server.log


def scrape(gateway):
    """Every sample of /metrics by (name, sorted labels), and the families by name with their type."""
    status, text = gateway.get("/metrics")
    assert status == 200
    samples = {}
    types = {}
    for family in text_string_to_metric_families(text):
        types[family.name] = family.type
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples, types


def value(samples, name, **labels):
    return samples[(name, tuple(sorted(labels.items())))]


def token(uid, room, role):
    result = subprocess.run(
        [str(BINARY), "token", "--config", str(CONFIG), "--uid", uid, "--room", room, "--role", role],
        capture_output=True, text=True, timeout=TIMEOUT, check=True,
    )
    return result.stdout.strip()


def test_metrics_parse_and_move_with_traffic(gateway):
    before, types = scrape(gateway)
    assert types["rollcall_connections"] == "counter"
    assert types["rollcall_connections_open"] == "gauge"
    assert types["rollcall_delivery_latency_seconds"] == "histogram"
    assert types["rollcall_handshakes_failed"] == "counter"
    assert value(before, "rollcall_rooms") == 0

    url = f"{gateway.ws}/v1/ws?token={token('alice', 'standup', 'moderator')}"
    with connect(url, open_timeout=5, close_timeout=5, proxy=None) as alice:
        assert json.loads(alice.recv(timeout=5))["type"] == "welcome"
        alice.send(json.dumps({"type": "join", "room": "standup"}))
        while json.loads(alice.recv(timeout=5))["type"] != "snapshot":
            pass
        status, body = gateway.request("POST", "/v1/api/rooms/standup/meeting",
                                       {"sessionId": "call-1", "text": "from the API"}, key=API_SECRET)
        assert status == 200, body
        published = json.loads(body)["seq"]
        while True:
            message = json.loads(alice.recv(timeout=5))
            if message["type"] == "event":
                break
        assert message["event"] == "meeting.message" and message["seq"] == published
        assert message["actor"] == "api:metrics"
        during, _ = scrape(gateway)
        assert value(during, "rollcall_connections_open", transport="ws") >= 1
        assert value(during, "rollcall_subscribers") == 1

    after, _ = scrape(gateway)
    moved = lambda name, **labels: value(after, name, **labels) - value(before, name, **labels)
    assert moved("rollcall_connections_total", transport="ws") >= 2
    assert moved("rollcall_websocket_upgrades_total") == 1
    assert moved("rollcall_messages_received_total") >= 1
    assert moved("rollcall_messages_sent_total") >= 3
    assert moved("rollcall_bytes_received_total") > 0
    assert moved("rollcall_bytes_sent_total") > 0
    assert moved("rollcall_room_events_total") >= 2
    assert value(after, "rollcall_rooms") == 1
    assert moved("rollcall_delivery_latency_seconds_count") >= 1
    infinite = value(after, "rollcall_delivery_latency_seconds_bucket", le="+Inf")
    assert infinite == value(after, "rollcall_delivery_latency_seconds_count")
    assert sum(value(after, "rollcall_loop_iterations_total", loop=str(index))
               for index in range(64) if ("rollcall_loop_iterations_total", (("loop", str(index)),)) in after) > 0


def test_room_messages_reach_deflate_clients_compressed_once(gateway):
    """Two clients with `websockets`' permessage-deflate (context takeover, its default) and one without compression
    watch a room while meeting messages arrive: all read the same messages, and each message is compressed once for
    both compressing clients."""
    clients = []
    for uid, compression in (("deflate-1", "deflate"), ("deflate-2", "deflate"), ("plain", None)):
        url = f"{gateway.ws}/v1/ws?token={token(uid, 'standup', 'viewer')}"
        client = connect(url, open_timeout=5, close_timeout=5, proxy=None, compression=compression)
        assert json.loads(client.recv(timeout=5))["type"] == "welcome"
        client.send(json.dumps({"type": "join", "room": "standup", "as": "observer"}))
        while json.loads(client.recv(timeout=5))["type"] != "snapshot":
            pass
        clients.append(client)
    try:
        assert [bool(client.protocol.extensions) for client in clients] == [True, True, False]
        before, _ = scrape(gateway)
        texts = [f"agenda item {index}: " + "the same long sentence about the roadmap " * 6 for index in range(5)]
        for text in texts:
            status, body = gateway.request("POST", "/v1/api/rooms/standup/meeting",
                                           {"sessionId": "call-1", "text": text}, key=API_SECRET)
            assert status == 200, body
        received = []
        for client in clients:
            messages = []
            while len(messages) < len(texts):
                message = json.loads(client.recv(timeout=5))
                if message["type"] == "event" and message["event"] == "meeting.message":
                    messages.append(message)
            received.append(messages)
        assert received[0] == received[1] == received[2]
        assert [message["data"]["text"] for message in received[0]] == texts
        after, _ = scrape(gateway)
        moved = lambda name: value(after, name) - value(before, name)
        assert moved("rollcall_compressed_deliveries_total") >= 2 * len(texts)
        assert moved("rollcall_compressed_messages_total") * 2 == moved("rollcall_compressed_deliveries_total")
        assert moved("rollcall_compressed_output_bytes_total") < moved("rollcall_compressed_input_bytes_total") / 2
    finally:
        for client in clients:
            client.close()


def test_probes_and_draining(gateway):
    assert gateway.get("/healthz") == (200, "ok\n")
    assert gateway.get("/readyz") == (200, "ready\n")
    assert gateway.get("/v1/api/rooms")[0] == 401
    assert gateway.get("/v1/api/rooms/nope", key=API_SECRET)[0] == 404
    gateway.process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 1.0
    statuses = set()
    while time.monotonic() < deadline:
        statuses.add(gateway.get("/readyz")[0])
        if 503 in statuses:
            break
        time.sleep(0.05)
    assert 503 in statuses
