"""Interoperability with the Python `websockets` client.

Starts the built `rollcall serve` binary (path from ROLLCALL_BIN, default .build/debug/rollcall), reads its listening
addresses from the first line it logs, and talks to it with `websockets` over ws:// and wss://, with and without
permessage-deflate. Every server is stopped with SIGTERM and must exit 0 within a few seconds, which also checks the
graceful shutdown.

Set up the environment with scripts/python-venv.sh, build with `swift build`, then run
`.venv/bin/python -m pytest Tests/interop -q`.
"""

import json
import os
import re
import signal
import ssl
import subprocess
import threading
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed, ConnectionClosedError
from websockets.sync.client import connect

from test_call_end_to_end import drain_stderr, read_first_line, terminate

PROJECT_ROOT = Path(__file__).resolve().parents[2]
BINARY = Path(os.environ.get("ROLLCALL_BIN", PROJECT_ROOT / ".build" / "debug" / "rollcall")).resolve()
STARTUP_TIMEOUT = 10.0
SHUTDOWN_TIMEOUT = 5.0


class RunningServer:
    """A `rollcall serve` process and the addresses it listens on."""

    def __init__(self, process, addresses):
        self.process = process
        self.addresses = addresses
        self.log_lines = []
        self._drainer = threading.Thread(target=self._drain, daemon=True)
        self._drainer.start()

    def _drain(self):
        # Keeps the pipe from filling up and records what the server logs after its first line.
        drain_stderr(self.process, self.log_lines)

    def url(self, scheme, path="/echo"):
        matches = [address for address in self.addresses if address.startswith(scheme + "://")]
        assert matches, f"no {scheme} listener in {self.addresses}"
        return matches[0] + path

    def stop(self):
        """Sends SIGTERM and returns the exit status (killing the process if it does not exit in time)."""
        return terminate(self.process, self._drainer)


def parse_addresses(line):
    """Returns the URLs of `addresses=...` in a logfmt line (the value is quoted when it holds several)."""
    match = re.search(r'addresses=(?:"([^"]*)"|(\S+))', line)
    assert match, f"no addresses in {line!r}"
    return (match.group(1) or match.group(2)).split()


def start_server(working_directory, *arguments):
    assert BINARY.exists(), f"{BINARY} is missing: build with `swift build` first"
    process = subprocess.Popen(
        [str(BINARY), "serve", "--config", str(PROJECT_ROOT / "config" / "rollcall.conf"), "--listen", "127.0.0.1:0",
         "--echo", "--set", "timeouts.shutdown_grace_ms=1000", "--set", "storage.path=", *arguments],
        cwd=working_directory,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        line = read_first_line(process, STARTUP_TIMEOUT)
        assert "msg=listening" in line, line
        assert "echo=/echo" in line, line
        server = RunningServer(process, parse_addresses(line))
    except BaseException:
        process.kill()
        process.wait(timeout=SHUTDOWN_TIMEOUT)
        raise
    return server


@pytest.fixture
def server_factory(tmp_path):
    """Starts servers on demand; each must exit 0 on SIGTERM at the end of the test."""
    servers = []

    def factory(*arguments):
        server = start_server(tmp_path, *arguments)
        servers.append(server)
        return server

    yield factory
    statuses = [server.stop() for server in servers]
    assert statuses == [0] * len(servers), f"exit statuses {statuses}; logs: {[s.log_lines for s in servers]}"


@pytest.fixture
def server(server_factory):
    return server_factory()


@pytest.fixture
def certificate(tmp_path):
    """A self-signed certificate for 127.0.0.1 made with the openssl command line."""
    certificate_path = tmp_path / "certificate.pem"
    key_path = tmp_path / "private-key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-keyout", str(key_path), "-out", str(certificate_path), "-days", "1", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        check=True,
        capture_output=True,
        timeout=30,
    )
    return certificate_path, key_path


def open_client(url, compression=None, **options):
    return connect(url, compression=compression, proxy=None, open_timeout=5, close_timeout=5, **options)


@pytest.mark.parametrize("compression", [None, "deflate"])
def test_text_and_binary_echo(server, compression):
    with open_client(server.url("ws"), compression=compression) as websocket:
        extensions = websocket.response.headers.get("Sec-WebSocket-Extensions")
        if compression:
            assert extensions is not None and extensions.startswith("permessage-deflate")
        else:
            assert extensions is None
        text = "héllo wörld " * 20
        websocket.send(text)
        assert websocket.recv(timeout=5) == text
        binary = bytes(range(256)) * 40
        websocket.send(binary)
        assert websocket.recv(timeout=5) == binary
        websocket.send("")
        assert websocket.recv(timeout=5) == ""


@pytest.mark.parametrize("compression", [None, "deflate"])
def test_fragmented_message_is_echoed_whole(server, compression):
    with open_client(server.url("ws"), compression=compression) as websocket:
        fragments = ["frag", "men", "ted ✓ " * 30]
        websocket.send(iter(fragments))
        assert websocket.recv(timeout=5) == "".join(fragments)
        binary_fragments = [b"\x00\x01", b"\x02" * 1000, b"\x03"]
        websocket.send(iter(binary_fragments))
        assert websocket.recv(timeout=5) == b"".join(binary_fragments)


def test_large_compressed_message(server):
    record = {"id": 0, "name": "rollcall", "tags": ["alpha", "beta"], "active": True, "score": 12.5}
    parts = []
    size = 0
    index = 0
    while size < (1 << 20) - 200:
        record["id"] = index
        part = json.dumps(record)
        parts.append(part)
        size += len(part) + 1
        index += 1
    message = "[" + ",".join(parts) + "]"
    message += " " * ((1 << 20) - len(message.encode()))
    assert len(message.encode()) == 1 << 20
    with open_client(server.url("ws"), compression="deflate", max_size=2 << 20) as websocket:
        assert "permessage-deflate" in websocket.response.headers["Sec-WebSocket-Extensions"]
        websocket.send(message)
        assert websocket.recv(timeout=10) == message


def test_secure_echo(server_factory, certificate):
    certificate_path, key_path = certificate
    server = server_factory(
        "--set", "tls.listen=127.0.0.1:0",
        "--set", f"tls.certificate={certificate_path}",
        "--set", f"tls.private_key={key_path}",
    )
    context = ssl.create_default_context(cafile=str(certificate_path))
    for compression in (None, "deflate"):
        with open_client(server.url("wss"), compression=compression, ssl=context) as websocket:
            websocket.send("secure ✓")
            assert websocket.recv(timeout=5) == "secure ✓"
            payload = os.urandom(200_000)
            websocket.send(payload)
            assert websocket.recv(timeout=5) == payload
    # The plain listener keeps working beside the secure one.
    with open_client(server.url("ws")) as websocket:
        websocket.send("plain")
        assert websocket.recv(timeout=5) == "plain"


@pytest.mark.parametrize("code", [1000, 1001, 3000, 4999])
def test_client_close_code_is_echoed(server, code):
    websocket = open_client(server.url("ws"))
    websocket.send("bye")
    assert websocket.recv(timeout=5) == "bye"
    websocket.close(code=code, reason="done")
    assert websocket.protocol.close_rcvd is not None
    assert websocket.protocol.close_rcvd.code == code


def test_message_over_limit_is_closed_with_1009(server_factory):
    server = server_factory("--set", "limits.max_frame_bytes=1024", "--set", "limits.max_message_bytes=4096")
    with open_client(server.url("ws")) as websocket:
        websocket.send("x" * 1024)
        assert websocket.recv(timeout=5) == "x" * 1024
        websocket.send("y" * 2048)
        with pytest.raises(ConnectionClosedError) as closed:
            websocket.recv(timeout=5)
        assert closed.value.rcvd is not None
        assert closed.value.rcvd.code == 1009


def test_graceful_shutdown_sends_going_away(server):
    with open_client(server.url("ws")) as websocket:
        websocket.send("hello")
        assert websocket.recv(timeout=5) == "hello"
        server.process.send_signal(signal.SIGTERM)
        with pytest.raises(ConnectionClosed) as closed:
            websocket.recv(timeout=5)
        assert closed.value.rcvd is not None
        assert closed.value.rcvd.code == 1001
    assert server.process.wait(timeout=SHUTDOWN_TIMEOUT) == 0
