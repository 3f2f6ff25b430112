"""The embedded store against the real binary: a gateway killed with SIGKILL mid-call comes back with every
acknowledged meeting message, its bans and promotions, its sequence numbers, and exact resumes, with one rooms thread
and with two (each committing its rooms through its own connection to the file); corrupt or unwritable store files
stop the start with a clear error; history and audit over HTTP.

Every wait is bounded; the servers listen on 127.0.0.1 only.
"""

import asyncio
import json
import os
import subprocess
import urllib.request

import pytest

from test_call_end_to_end import BINARY, CONFIG, PROJECT_ROOT, Client, assert_fields, mint, run, start_server

API_KEY = "ops:interop-api-secret-0123"
GRACE_MS = 5000


def api(server, path):
    base = server.url.split("/v1/")[0].replace("ws://", "http://")
    request = urllib.request.Request(base + "/v1/api" + path,
                                     headers={"Authorization": "Bearer " + API_KEY.split(":", 1)[1]})
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.loads(response.read())


def start_stored(path, **settings):
    return start_server({"storage.path": str(path), "api.keys": API_KEY, "timeouts.shutdown_grace_ms": 500,
                         "rooms.reconnect_grace_ms": GRACE_MS, "limits.max_messages_per_second": 0, **settings})


def room_thread(room, threads):
    """The rooms thread that owns a room: FNV-1a of its id, as `RoomThreadPlacement` computes it."""
    value = 0xCBF29CE484222325
    for byte in room.encode():
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return value % threads


async def drain_until(client, predicate, timeout=5.0, limit=2000):
    seen = []
    for _ in range(limit):
        message = await client.recv(timeout)
        seen.append(message)
        if predicate(message):
            return message, seen
    raise AssertionError(f"{client.name}: nothing matched in {limit} messages")


async def settle(client):
    """Receives until a ping is answered: everything sent before it has arrived."""
    await client.request({"type": "ping"})


@pytest.mark.parametrize("threads", [1, 2])
def test_sigkill_mid_call_loses_no_acknowledged_change_and_clients_resume_exactly(tmp_path, threads):
    store = tmp_path / "rollcall.db"
    room = "restart-call"
    # With two threads the call lives on the second, which commits through a connection of its own.
    assert room_thread(room, threads) == threads - 1
    server = start_stored(store, **{"rooms.threads": threads})
    acknowledged = []

    async def before_the_kill():
        alice = await Client.connect("alice", server.url, mint("alice", rooms=[room], groups=[room], role="moderator"))
        bob = await Client.connect("bob", server.url, mint("bob", groups=[room]))
        carol = await Client.connect("carol", server.url, mint("carol", groups=[room]))
        await alice.join(room=room)
        await bob.join(room=room, device="phone")
        await carol.join(room=room)

        async def meeting(text):
            answer = await alice.request({"type": "meeting", "group": room, "sessionId": "s-1", "callType": "audio",
                                          "text": text})
            assert answer["type"] == "ack", answer
            acknowledged.append((answer["seq"], text))

        await meeting("first")
        promoted = await alice.request({"type": "action", "room": room, "action": "promote", "target": "bob"})
        assert promoted["type"] == "ack", promoted
        banned = await alice.request({"type": "action", "room": room, "action": "ban", "target": "carol",
                                      "reason": "spam"})
        assert banned["type"] == "ack", banned
        for index in range(30):  # churn: flags and speakers
            await alice.send({"type": "state", "room": room, "handRaised": index % 2 == 0})
        await meeting("second")
        await settle(bob)
        await drain_until(bob, lambda m: m.get("event") == "meeting.message" and m["data"].get("text") == "second")
        await settle(bob)
        bob_roster = bob.rosters[room].seq
        bob_events = max(event["seq"] for event in bob.events)
        # Bob's socket drops; the call goes on without him, then the process is killed.
        bob.abort()
        for index in range(3):
            await meeting(f"missed-{index}")
        for index in range(10):
            await alice.send({"type": "state", "room": room, "audioMuted": index % 2 == 0})
        await settle(alice)
        last = (await alice.request({"type": "query", "query": "members", "room": room}))["seq"]
        marks.extend([bob_roster, bob_events, last])

    marks = []
    run(before_the_kill())
    bob_roster, bob_events, last_seq = marks
    server.process.kill()  # SIGKILL: no commit at shutdown, no close frames.
    server.process.wait(timeout=5)
    server.stop()

    server = start_stored(store, **{"rooms.threads": threads})
    try:
        async def after_the_restart():
            bob = await Client.connect("bob", server.url, mint("bob", groups=[room]))
            bob.rosters[room] = None
            ack = await bob.request({"type": "join", "room": room, "device": "phone", "resume": bob_roster,
                                     "resumeEvents": bob_events})
            assert_fields(ack, {"type": "ack", "room": room}, "bob")
            resumed, seen = await drain_until(bob, lambda m: m.get("type") == "resumed")
            assert resumed["recovered"] is True, resumed
            events = [m for m in seen if m.get("type") == "event"]
            # Exactly what he missed: every event after his last one, through the restart, once, in order.
            assert [m["seq"] for m in events] == list(range(bob_events + 1, resumed["seq"] + 1)), events
            missed = [m["data"]["text"] for m in events if m["event"] == "meeting.message"]
            assert missed == ["missed-0", "missed-1", "missed-2"], missed
            assert resumed["seq"] > last_seq  # the devices lost at the restart are logged after the old last seq

            # No acknowledged meeting message is missing; bans and promotions hold; sequence numbers continue.
            history = await bob.request({"type": "query", "query": "history", "room": room, "after": 0,
                                         "limit": 1000})
            texts = [(e["seq"], e["data"]["text"]) for e in history["events"] if e["event"] == "meeting.message"]
            assert texts == acknowledged, texts
            carol = await Client.connect("carol", server.url, mint("carol", groups=[room]))
            refused = await carol.request({"type": "join", "room": room})
            assert_fields(refused, {"type": "error", "code": "ERR_BANNED"}, "carol")
            operators = await bob.request({"type": "query", "query": "operators", "room": room})
            assert "bob" in operators["uids"], operators
            alice = await Client.connect("alice", server.url, mint("alice", rooms=[room], groups=[room], role="moderator"))
            answer = await alice.request({"type": "meeting", "group": room, "sessionId": "s-1", "callType": "audio",
                                          "text": "after"})
            assert answer["type"] == "ack" and answer["seq"] > resumed["seq"], answer

            # History and audit over HTTP.
            page = api(server, f"/rooms/{room}/history?after=0&types=meeting.message&limit=3")
            assert [e["data"]["text"] for e in page["events"]] == [text for _, text in acknowledged[:3]], page
            rest = api(server, f"/rooms/{room}/history?after={page['next']}&types=meeting.message")
            assert [e["data"]["text"] for e in rest["events"]] == [t for _, t in acknowledged[3:]] + ["after"]
            audit = api(server, f"/audit?room={room}")
            actions = [(a["action"], a["actor"], a["target"], a["reason"]) for a in audit["actions"]]
            # A ban lists twice: the ban, and the leave it caused.
            assert ("moderation.banned", "alice", "carol", "spam") in actions, actions
            assert ("participant.left", "alice", "carol", "spam") in actions, actions
            assert any(a[1:3] == ("alice", "bob") for a in actions), actions
            listed = api(server, "/rooms")
            assert any(r["room"] == room and r["seq"] >= answer["seq"] for r in listed["rooms"]), listed
            for client in (bob, carol, alice):
                await client.close()

        run(after_the_restart())
    finally:
        assert server.stop() == 0


def start_failure(settings):
    process = subprocess.run(
        [str(BINARY), "serve", "--config", str(CONFIG), "--listen", "127.0.0.1:0",
         *[argument for key, value in settings.items() for argument in ("--set", f"{key}={value}")]],
        cwd=PROJECT_ROOT, stdin=subprocess.DEVNULL, capture_output=True, timeout=20)
    return process.returncode, process.stderr.decode()


def test_a_corrupt_store_stops_the_start_with_a_clear_error(tmp_path):
    store = tmp_path / "rollcall.db"
    store.write_bytes(b"this is not a database" * 100)
    status, errors = start_failure({"storage.path": store})
    assert status != 0 and "not a SQLite database" in errors, errors


def test_an_unwritable_store_stops_the_start_with_a_clear_error(tmp_path):
    status, errors = start_failure({"storage.path": tmp_path / "missing" / "rollcall.db"})
    assert status != 0 and "cannot open or create" in errors and "No such file" in errors, errors
    status, errors = start_failure({"storage.path": tmp_path})
    assert status != 0 and "cannot open or create" in errors, errors
    if os.geteuid() != 0:  # root writes through file modes
        directory = tmp_path / "readonly"
        directory.mkdir()
        store = directory / "rollcall.db"
        server = start_stored(store)
        assert server.stop() == 0
        os.chmod(store, 0o400)
        try:
            status, errors = start_failure({"storage.path": store})
            assert status != 0 and "cannot" in errors, errors
        finally:
            os.chmod(store, 0o600)


def test_the_store_files_are_private_to_the_gateway_user(tmp_path):
    store = tmp_path / "rollcall.db"
    server = start_stored(store)
    assert server.stop() == 0
    assert store.stat().st_mode & 0o777 == 0o600


def test_a_store_with_a_cluster_is_refused_at_start(tmp_path):
    status, errors = start_failure({"storage.path": tmp_path / "x.db", "cluster.redis_url": "redis://127.0.0.1:1"})
    assert status != 0 and "storage.path" in errors and "cluster" in errors, errors
