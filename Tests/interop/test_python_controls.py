"""The room lock and version-checked writes through the Python client against the built binary: the rooms protocol
(`Room.lock`, `Room.set_metadata(if_seq=...)`), the server API client (`ServerAPI.set_metadata(if_seq=...)`,
`ConflictError` with HTTP 409), the lock in a webhook delivery and across a restart with the store."""

import asyncio
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from test_call_end_to_end import ROOM, rollcall, run, start_server  # noqa: F401
from test_python_client import API_SECRET, client, http_base

from rollcall import AsyncServerAPI, ConflictError, ForbiddenError, RoomLockedError, ServerAPI


def test_a_stale_version_through_the_server_api_is_a_409_conflict_and_changes_nothing(rollcall):
    server = rollcall(**{"api.keys": f"ops:{API_SECRET}"})
    api = ServerAPI(http_base(server), API_SECRET, timeout=5)

    async def scenario():
        alice = client(server, "alice", rooms=[ROOM], role="moderator")
        bob = client(server, "bob", groups=[ROOM])
        for each in (alice, bob):
            await each.connect()
        alice_room = await alice.join(ROOM)
        bob_room = await bob.join(ROOM)

        seen = (await asyncio.to_thread(api.room, ROOM))["seq"]
        first = await asyncio.to_thread(api.set_metadata, ROOM, {"topic": "Q3"}, if_seq=seen)
        assert first.changed and first.seq > seen
        # A second backend that read the room at `seen` is refused: 409, ERR_CONFLICT, nothing changes.
        with pytest.raises(ConflictError) as conflict:
            await asyncio.to_thread(api.set_metadata, ROOM, {"topic": "Q4"}, if_seq=seen)
        assert conflict.value.status == 409
        assert conflict.value.code == "ERR_CONFLICT"
        with pytest.raises(ConflictError):
            await asyncio.to_thread(api.set_permissions, ROOM, "bob", {"share": False}, if_seq=0)
        await bob_room.wait_for(lambda room: room.room_state.get("metadata") == {"topic": "Q3"})
        state = await asyncio.to_thread(api.room, ROOM)
        assert state["state"]["metadata"] == {"topic": "Q3"}
        assert state["roster"]["participants"]["bob"].get("permissions") is None
        # The answer's seq is current; so is the roster's seq a client holds.
        assert (await asyncio.to_thread(api.set_metadata, ROOM, {"topic": "Q4"}, if_seq=first.seq)).changed
        await alice_room.wait_for(lambda room: room.room_state.get("metadata") == {"topic": "Q4"})
        assert (await alice_room.set_metadata({"agenda": "intro"}, if_seq=alice_room.seq)).changed
        with pytest.raises(ConflictError):
            await alice_room.set_metadata({"agenda": "late"}, if_seq=first.seq)
        # The async client, the attributes: Bob's own, then a stale write by the server API.
        own = await bob_room.set_attributes({"pronouns": "he/him"}, if_seq=bob_room.seq)
        async_api = AsyncServerAPI(http_base(server), API_SECRET, timeout=5)
        with pytest.raises(ConflictError):
            await async_api.set_attributes(ROOM, "bob", {"pronouns": "they"}, if_seq=own.seq - 1)
        assert (await async_api.set_attributes(ROOM, "bob", {"pronouns": "they"}, if_seq=own.seq)).changed
        for each in (alice, bob):
            await each.close()

    run(scenario())


def test_a_locked_room_refuses_new_joins_but_not_moderators(rollcall):
    server = rollcall(**{"api.keys": f"ops:{API_SECRET}"})
    api = ServerAPI(http_base(server), API_SECRET, timeout=5)

    async def scenario():
        alice = client(server, "alice", rooms=[ROOM], role="moderator")
        bob = client(server, "bob", groups=[ROOM])
        carol = client(server, "carol", groups=[ROOM])
        dave = client(server, "dave", rooms=[ROOM], role="moderator")
        for each in (alice, bob, carol, dave):
            await each.connect()
        alice_room = await alice.join(ROOM)
        bob_room = await bob.join(ROOM)
        assert alice_room.rights["bypassLock"] is True and bob_room.rights["bypassLock"] is False
        with pytest.raises(ForbiddenError):
            await bob_room.lock()
        assert (await alice_room.lock(reason="starting")).changed
        await bob_room.wait_for(lambda room: room.locked)
        with pytest.raises(RoomLockedError) as refused:
            await carol.join(ROOM)
        assert refused.value.code == "ERR_ROOM_LOCKED"
        await dave.join(ROOM)
        assert (await asyncio.to_thread(api.room, ROOM))["state"]["locked"] is True
        assert (await asyncio.to_thread(api.unlock, ROOM)).changed
        await bob_room.wait_for(lambda room: not room.locked)
        await carol.join(ROOM)
        for each in (alice, bob, carol, dave):
            await each.close()

    run(scenario())


class EventNames:
    """A webhook receiver that accepts every delivery and keeps the event names, in order."""

    def __init__(self):
        self.names = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                with receiver.lock:
                    receiver.names.extend(event["event"] for event in json.loads(body)["events"])
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *arguments):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def test_the_lock_reaches_webhooks_and_survives_a_restart_with_the_store(tmp_path):
    store = tmp_path / "rooms.db"
    receiver = EventNames()
    settings = {
        "storage.path": str(store), "api.keys": f"ops:{API_SECRET}", "timeouts.shutdown_grace_ms": 500,
        "webhooks.endpoint.backend.url": receiver.url, "webhooks.endpoint.backend.secret": "whsec-controls-0123456789",
        "webhooks.retry_base_ms": 20, "webhooks.retry_max_ms": 200,
    }
    server = start_server(settings)
    try:
        async def lock_it():
            alice = client(server, "alice", rooms=[ROOM], role="moderator")
            await alice.connect()
            alice_room = await alice.join(ROOM)
            assert (await alice_room.lock()).changed
            await alice.close()

        run(lock_it())
        deadline = time.monotonic() + 10
        while "room.locked" not in receiver.names and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "room.locked" in receiver.names, receiver.names
        assert server.stop() == 0
        server = start_server(settings)

        async def after_restart():
            carol = client(server, "carol", groups=[ROOM])
            await carol.connect()
            with pytest.raises(RoomLockedError):
                await carol.join(ROOM)
            api = AsyncServerAPI(http_base(server), API_SECRET, timeout=5)
            assert (await api.room(ROOM))["state"]["locked"] is True
            assert (await api.unlock(ROOM)).changed
            await carol.join(ROOM)
            await carol.close()

        run(after_restart())
    finally:
        server.stop()
        receiver.stop()
