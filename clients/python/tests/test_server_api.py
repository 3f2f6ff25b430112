"""The server API client against a stand-in HTTP server on loopback: paths, bodies, the key, and errors."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from rollcall import AsyncServerAPI, ForbiddenError, HTTPError, NotFoundError, ServerAPI, UnauthorizedError

SECRET = "server-api-test-secret-0123456789"


class StandIn(BaseHTTPRequestHandler):
    """Answers like the gateway's API and records each request."""

    seen: list[tuple[str, str, Any]] = []

    def log_message(self, *args: Any) -> None:
        pass

    def answer(self, status: int, body: Any, content_type: str = "application/json") -> None:
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    def handle_any(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        StandIn.seen.append((self.command, self.path, body))
        if self.headers.get("Authorization") != f"Bearer {SECRET}":
            self.answer(401, {"code": "ERR_UNAUTHORIZED", "message": "no key"})
        elif self.path == "/v1/api/rooms?limit=100":
            self.answer(200, {"rooms": [{"room": "design", "seq": 1}], "next": "design"})
        elif self.path == "/v1/api/rooms?limit=100&after=design":
            self.answer(200, {"rooms": [{"room": "standup", "seq": 3}], "next": None})
        elif self.path.startswith(("/v1/api/rooms/standup/history", "/v1/api/audit")):
            self.answer(200, {"events": [], "actions": [], "next": None})
        elif self.path == "/v1/api/rooms/missing%2Froom":
            self.answer(404, {"code": "ERR_NOT_FOUND", "message": "no room"})
        elif self.path.endswith("/actions") and body and body.get("target") == "admin":
            self.answer(403, {"code": "ERR_FORBIDDEN", "message": "admins are protected"})
        elif self.path == "/v1/api/rooms/big/events":
            self.answer(413, "payload too large", "text/plain")
        elif self.path.startswith("/v1/api/users/"):
            self.answer(200, {"uid": "bob", "disconnected": 2})
        else:
            self.answer(200, {"room": "standup", "seq": 9, "changed": True})

    do_GET = handle_any
    do_POST = handle_any


@pytest.fixture
def base_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), StandIn)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    StandIn.seen = []
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


def test_requests_go_where_docs_api_says(base_url: str) -> None:
    api = ServerAPI(base_url + "/v1/api/", SECRET, timeout=5)
    assert api.rooms() == [{"room": "design", "seq": 1}, {"room": "standup", "seq": 3}]
    assert api.history("standup", after=5, types=["meeting.message", "session.ended"], limit=10)["next"] is None
    assert api.audit(room="standup", before=1764460812345)["actions"] == []
    ack = api.publish_meeting("standup", "call-42", text="Standup starts now")
    assert (ack.room, ack.seq, ack.changed) == ("standup", 9, True)
    api.set_recording("standup", True)
    api.set_speaker("standup", None)
    api.moderate("standup", "mute", target="bob", reason="echo")
    api.moderate("standup", "mute_all")
    assert api.disconnect("bob", reason="maintenance") == 2
    assert StandIn.seen == [
        ("GET", "/v1/api/rooms?limit=100", None),
        ("GET", "/v1/api/rooms?limit=100&after=design", None),
        ("GET", "/v1/api/rooms/standup/history?after=5&types=meeting.message%2Csession.ended&limit=10", None),
        ("GET", "/v1/api/audit?room=standup&before=1764460812345", None),
        ("POST", "/v1/api/rooms/standup/meeting",
         {"sessionId": "call-42", "callType": "video", "active": True, "text": "Standup starts now"}),
        ("POST", "/v1/api/rooms/standup/events", {"type": "media", "recording": True}),
        ("POST", "/v1/api/rooms/standup/events", {"type": "speaker", "uid": None}),
        ("POST", "/v1/api/rooms/standup/actions", {"action": "mute", "target": "bob", "reason": "echo"}),
        ("POST", "/v1/api/rooms/standup/actions", {"action": "mute_all"}),
        ("POST", "/v1/api/users/bob/disconnect", {"reason": "maintenance"}),
    ]


def test_refusals_raise_the_class_of_their_code(base_url: str) -> None:
    api = ServerAPI(base_url, SECRET, timeout=5)
    with pytest.raises(NotFoundError) as missing:
        api.room("missing/room")
    assert missing.value.status == 404
    with pytest.raises(ForbiddenError):
        api.moderate("standup", "remove", target="admin")
    with pytest.raises(HTTPError) as large:
        api.publish_event("big", {"type": "media", "recording": True})
    assert large.value.status == 413
    with pytest.raises(UnauthorizedError):
        ServerAPI(base_url, "wrong-key", timeout=5).rooms()


def test_the_async_client_makes_the_same_calls(base_url: str) -> None:
    async def scenario() -> None:
        api = AsyncServerAPI(base_url, SECRET, timeout=5)
        rooms, ack = await asyncio.gather(api.rooms(), api.moderate("standup", "lower_hand", target="bob"))
        assert [room["room"] for room in rooms] == ["design", "standup"] and ack.changed
        with pytest.raises(NotFoundError):
            await api.room("missing/room")

    asyncio.run(scenario())
