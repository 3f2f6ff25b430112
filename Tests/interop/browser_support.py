"""What the browser tests share besides the Chromium driver: a page server on its own loopback port (so pages
import the client module from the gateway across origins, as an app's pages do), a TCP proxy that can cut every
connection through it, and seeding clients that make roster changes as fast as the gateway acknowledges them."""

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from rollcall import Connection, canonical_json

RECEIVE_TIMEOUT = 10.0


class PageServer:
    """Serves fixed pages, and `/rollcall-token?uid=...` from a token function, on 127.0.0.1 (a free port)."""

    def __init__(self, pages, token_for):
        self.pages = pages
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                target = urlsplit(self.path)
                if target.path == "/rollcall-token":
                    uid = parse_qs(target.query).get("uid", ["page-user"])[0]
                    self.answer(200, "text/plain; charset=utf-8", token_for(uid).encode())
                elif target.path in outer.pages:
                    kind = "application/json" if target.path.endswith(".json") else "text/html; charset=utf-8"
                    self.answer(200, kind, outer.pages[target.path].encode())
                else:
                    self.answer(404, "text/plain", b"not found\n")

            def answer(self, status, content_type, body):
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *arguments):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


class TcpProxy:
    """Forwards 127.0.0.1:port to the gateway. `cut()` drops every connection through it at once, without a
    close handshake, as a network failure does; while `accepting` is false new connections are dropped too."""

    def __init__(self, target_port):
        self.target_port = target_port
        self.accepting = True
        self.links = []
        self.server = None
        self.port = None

    async def start(self):
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]

    async def _handle(self, reader, writer):
        if not self.accepting:
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.transport.abort()
            return
        self.links.append((writer, up_writer))

        async def pipe(source, sink):
            try:
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                sink.transport.abort()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    def cut(self):
        for down, up in self.links:
            down.transport.abort()
            up.transport.abort()
        self.links = []

    async def close(self):
        self.accepting = False
        self.cut()
        self.server.close()
        await self.server.wait_closed()


class Seeder:
    """A participant that changes its own state, one acknowledged request at a time, over the Python package's
    `Connection`. It joins with the `speakers` view and no events, so the room's traffic does not bury its
    answers."""

    def __init__(self, uid, connection):
        self.uid = uid
        self.connection = connection
        self.changed = 0

    @classmethod
    async def join(cls, uid, url, token, room, device="web"):
        connection = await Connection.open(url, token, auth="message", open_timeout=5,
                                           welcome_timeout=RECEIVE_TIMEOUT)
        seeder = cls(uid, connection)
        ack = await seeder.request({"type": "join", "room": room, "device": device, "events": "none",
                                    "view": {"filter": "speakers"}})
        assert ack["type"] == "ack", ack
        return seeder

    async def request(self, message):
        request_id = self.connection.next_id()
        await self.connection.send({**message, "id": request_id})
        for _ in range(10_000):
            answer = await self.connection.receive(RECEIVE_TIMEOUT)
            if answer.get("id") == request_id:
                return answer
        raise AssertionError(f"{self.uid}: no answer to {message}")

    async def change(self, room, **fields):
        answer = await self.request({"type": "state", "room": room, **fields})
        assert answer["type"] == "ack", f"{self.uid}: {answer}"
        self.changed += 1 if answer["changed"] else 0
        return answer

    async def close(self):
        await self.connection.close()


async def fresh_snapshot(url, token, room, view):
    """The snapshot a newly joined observer with `view` gets: what a long-lived mirror must equal."""
    connection = await Connection.open(url, token, auth="message", open_timeout=5, welcome_timeout=RECEIVE_TIMEOUT)
    try:
        await connection.send({"type": "join", "room": room, "as": "observer", "events": "none", "view": view})
        for _ in range(100):
            message = await connection.receive(RECEIVE_TIMEOUT)
            if message.get("type") == "snapshot":
                return message
            assert message.get("type") == "ack", message
    finally:
        await connection.close()
    raise AssertionError("no snapshot")


def canonical(value):
    """Canonical JSON as docs/PROTOCOL.md defines it, from the Python package."""
    return canonical_json(value)
