"""End-to-end tests of the rooms protocol (docs/PROTOCOL.md) over real sockets.

Each test starts the built `rollcall serve` binary (path from ROLLCALL_BIN, default .build/debug/rollcall) on a free
port, mints tokens with `rollcall token`, and drives several clients message by message with the Python package's
`Connection` (clients/python), mirroring rosters with its `RosterStore`. The server is always stopped with SIGTERM
and must exit 0 within a few seconds.

Set up the environment with scripts/python-venv.sh, build with `swift build`, then run
`.venv/bin/python -m pytest Tests/interop -q`.
"""

import asyncio
import base64
import hashlib
import hmac
import json
import os
import re
import select
import signal
import subprocess
import threading
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from rollcall import Connection, ConnectionClosed, RequestTimeout, RosterStore, TokenKey, mint_token

PROJECT_ROOT = Path(__file__).resolve().parents[2]
BINARY = Path(os.environ.get("ROLLCALL_BIN", PROJECT_ROOT / ".build" / "debug" / "rollcall")).resolve()
CONFIG = PROJECT_ROOT / "config" / "rollcall.conf"
STARTUP_TIMEOUT = 10.0
SHUTDOWN_TIMEOUT = 5.0
RECEIVE_TIMEOUT = 5.0
SCENARIO_TIMEOUT = 60.0
ROOM = "standup"


# MARK: The server process


class RunningServer:
    """A `rollcall serve` process, the rooms URL it listens on, and what it logs."""

    def __init__(self, process, first_line):
        self.process = process
        self.log_lines = [first_line]
        match = re.search(r"addresses=(ws://\S+)", first_line)
        assert match, f"no ws:// address in {first_line!r}"
        path = re.search(r"rooms=(\S+)", first_line)
        assert path, f"no rooms path in {first_line!r}"
        self.url = match.group(1) + path.group(1)
        self._drainer = threading.Thread(target=self._drain, daemon=True)
        self._drainer.start()

    def _drain(self):
        drain_stderr(self.process, self.log_lines)

    def stop(self):
        """Sends SIGTERM and returns the exit status (None when it had to be killed)."""
        return terminate(self.process, self._drainer)


def drain_stderr(process, log_lines):
    """Reads the server's stderr to the end (so the pipe never fills), appending each line to `log_lines`."""
    pending = b""
    while chunk := os.read(process.stderr.fileno(), 4096):
        pending += chunk
        *lines, pending = pending.split(b"\n")
        log_lines.extend(line.decode(errors="replace") for line in lines)


def terminate(process, drainer):
    """Sends SIGTERM and returns the exit status (None when the process had to be killed)."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        return process.wait(timeout=SHUTDOWN_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=SHUTDOWN_TIMEOUT)
        return None
    finally:
        drainer.join(timeout=SHUTDOWN_TIMEOUT)


def read_first_line(process, timeout):
    deadline = time.monotonic() + timeout
    line = b""
    fd = process.stderr.fileno()
    while not line.endswith(b"\n"):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise AssertionError(f"the server logged no complete line within {timeout} s: {line!r}")
        ready, _, _ = select.select([fd], [], [], remaining)
        if not ready:
            continue
        byte = os.read(fd, 1)
        if not byte:
            raise AssertionError(f"the server exited before logging its addresses: {line!r}")
        line += byte
    return line.decode()


def settings_arguments(settings):
    arguments = []
    for key, value in settings.items():
        arguments += ["--set", f"{key}={value}"]
    return arguments


def start_server(settings, listen="127.0.0.1:0"):
    """Starts `rollcall serve` on a free loopback port (or `listen`) with `--set` overrides and waits for its
    listening line.

    Rooms live in memory unless the test sets `storage.path` (the shipped configuration names a file in the working
    directory, which tests must not share)."""
    assert BINARY.exists(), f"{BINARY} is missing: build with `swift build` first"
    settings = {"storage.path": "", **settings}
    process = subprocess.Popen(
        [str(BINARY), "serve", "--config", str(CONFIG), "--listen", listen, *settings_arguments(settings)],
        cwd=PROJECT_ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        line = read_first_line(process, STARTUP_TIMEOUT)
        assert "msg=listening" in line, line
        return RunningServer(process, line)
    except BaseException:
        process.kill()
        process.wait(timeout=SHUTDOWN_TIMEOUT)
        raise


@pytest.fixture
def rollcall():
    """Starts servers with `--set` overrides; each must exit 0 on SIGTERM at the end of the test."""
    servers = []

    def start(listen="127.0.0.1:0", **settings):
        settings = {"timeouts.shutdown_grace_ms": 1000, "rooms.reconnect_grace_ms": 500, **settings}
        server = start_server(settings, listen)
        servers.append(server)
        return server

    yield start
    statuses = [server.stop() for server in servers]
    assert statuses == [0] * len(servers), f"exit statuses {statuses}; logs: {[s.log_lines for s in servers]}"


def mint(uid, *, name=None, rooms=(), role=None, groups=(), caps=None, ttl=None, settings=None):
    """A token from `rollcall token`, signed with the configured key."""
    arguments = [str(BINARY), "token", "--config", str(CONFIG), "--uid", uid]
    if name:
        arguments += ["--name", name]
    for room in rooms:
        arguments += ["--room", room]
    if role:
        arguments += ["--role", role]
    for group in groups:
        arguments += ["--group", group]
    if caps:
        arguments += ["--caps", caps]
    if ttl is not None:
        arguments += ["--ttl", str(ttl)]
    arguments += settings_arguments(settings or {})
    result = subprocess.run(arguments, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=10, check=True)
    token = result.stdout.strip()
    assert token.count(".") == 2, result
    return token


def configured_key():
    """(kid, secret) of the first key of auth.keys in config/rollcall.conf."""
    match = re.search(r"^keys\s*=\s*([^:\s]+):(\S+)", CONFIG.read_text(), re.MULTILINE)
    assert match, "no auth.keys in the configuration"
    return match.group(1), match.group(2)


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_json(value):
    return b64url(json.dumps(value, separators=(",", ":")).encode())


def hand_made_token(claims, *, secret, kid=None, alg="HS256"):
    """A JWT built by hand, for the forms no tooling mints (other algorithms, `alg: none` with an empty
    signature, foreign keys, bad claims)."""
    header = {"alg": alg, "typ": "JWT"}
    if kid is not None:
        header["kid"] = kid
    signing_input = b64url_json(header) + "." + b64url_json(claims)
    if alg == "none":
        return signing_input + "."
    signature = hmac.new(secret.encode(), signing_input.encode(), hashlib.sha256).digest()
    return signing_input + "." + b64url(signature)


def claims_for(uid, *, rooms=None, groups=None, expires_in=3600):
    now = int(time.time())
    claims = {"sub": uid, "name": uid.title(), "iat": now, "exp": now + expires_in}
    if rooms:
        claims["rooms"] = rooms
    if groups:
        claims["groups"] = groups
    return claims


# MARK: Clients


class Client:
    """One connection of the Python package (`rollcall.Connection`) driven message by message: every room event it
    receives is recorded, and every roster it mirrors is a `rollcall.RosterStore` that checks continuity and the
    checksum of each patch."""

    def __init__(self, name, connection):
        self.name = name
        self.connection = connection
        self.pending = []
        self.events = []
        self.last_id = 0
        # The roster mirrors, by room: each applies its snapshot and then every patch, as docs/PROTOCOL.md says.
        self.rosters = {}
        self.patches = 0

    @classmethod
    async def connect(cls, name, url, token=None, via="auth", **options):
        """Opens a connection; with a token, authenticates by `via` (`auth` message, `header` or `query`)."""
        auth = {"auth": "message", "header": "header", "query": "query"}[via]
        connection = await Connection.open(url, token, auth=auth, open_timeout=5, welcome_timeout=RECEIVE_TIMEOUT,
                                           **options)
        client = cls(name, connection)
        if token is not None:
            assert connection.welcome is not None and connection.welcome["type"] == "welcome", f"{name}: no welcome"
            client.last_id = 1 if via == "auth" else 0
        return client

    def new_id(self):
        self.last_id = self.connection.next_id()
        return self.last_id

    async def send(self, message):
        await self.connection.send(message)

    async def recv(self, timeout=RECEIVE_TIMEOUT):
        if self.pending:
            return self.pending.pop(0)
        try:
            message = await self.connection.receive(timeout)
        except RequestTimeout:
            raise AssertionError(f"{self.name} received nothing within {timeout} s") from None
        if message.get("type") == "event":
            self.events.append(message)
        if message.get("type") == "snapshot":
            self.rosters[message["room"]] = RosterStore.from_snapshot(message)
        if message.get("type") == "patch":
            # Roster patches are checked and applied here, not handed to the tests that wait for events.
            mirror = self.rosters.get(message["room"])
            if mirror is None:
                # A new connection resuming: the patches continue a roster an earlier connection held.
                assert message.get("recovered") is True, f"{self.name}: a patch before any snapshot: {message}"
            else:
                outcome = mirror.apply_patch(message)
                assert outcome.applied, f"{self.name}: a patch the roster held already: {message}"
            self.patches += 1
            return await self.recv(timeout)
        return message

    async def request(self, message, timeout=RECEIVE_TIMEOUT):
        """Sends `message` with a new id and returns the answer to it; other messages stay pending, in order."""
        message = {**message, "id": self.new_id()}
        await self.send(message)
        skipped = []
        for _ in range(100):
            answer = await self.recv(timeout)
            if answer.get("id") == message["id"]:
                self.pending = skipped + self.pending
                return answer
            skipped.append(answer)
        raise AssertionError(f"{self.name}: no answer to {message}; got {skipped}")

    async def expect(self, **fields):
        message = await self.recv()
        assert_fields(message, fields, self.name)
        return message

    async def expect_event(self, seq, event, uid=None, **fields):
        message = await self.expect(type="event", room=fields.pop("room", ROOM), seq=seq, event=event, **fields)
        if uid is not None:
            assert message["data"]["uid"] == uid, f"{self.name}: {message}"
        return message

    async def expect_closed(self, code):
        try:
            extra = await self.recv()
        except ConnectionClosed as closed:
            assert closed.code == code, f"{self.name}: closed with {closed}"
            return
        raise AssertionError(f"{self.name}: expected a close with {code}, got {extra}")

    async def expect_nothing(self):
        """No message is waiting: a ping is answered by the very next message."""
        pong = await self.request({"type": "ping"})
        assert self.pending == [], f"{self.name} received unexpected messages: {self.pending}"
        assert pong["type"] == "pong", pong

    async def join(self, room=ROOM, **fields):
        """Joins and returns (ack, snapshot)."""
        ack = await self.request({"type": "join", "room": room, **fields})
        assert ack["type"] == "ack", f"{self.name}: {ack}"
        snapshot = await self.expect(type="snapshot", room=room)
        # The roster in a snapshot is the view as last flushed: during a burst of joins it may not include the
        # newest changes yet (they follow in the next patch), so its seq is at most the ack's.
        assert snapshot["seq"] <= ack["seq"], f"{self.name}: snapshot {snapshot['seq']} after ack {ack['seq']}"
        return ack, snapshot

    def abort(self):
        """Ends the TCP connection without a close frame."""
        self.connection.abort()

    async def close(self):
        await self.connection.close()


def assert_fields(message, fields, who=""):
    for key, value in fields.items():
        assert message.get(key) == value, f"{who}: {key}={message.get(key)!r}, wanted {value!r} in {message}"


def participant(snapshot, uid):
    matches = [entry for entry in snapshot["participants"] if entry["uid"] == uid]
    assert len(matches) == 1, f"{uid} in {snapshot['participants']}"
    return matches[0]


async def expect_all(clients, seq, event, uid=None, **fields):
    messages = []
    for client in clients:
        messages.append(await client.expect_event(seq, event, uid, **fields))
    return messages


def run(scenario):
    asyncio.run(asyncio.wait_for(scenario, SCENARIO_TIMEOUT))


# MARK: 1. A whole call


def test_whole_call_with_moderator_bot_and_late_joiner(rollcall):
    server = rollcall()
    tokens = {
        "alice": mint("alice", name="Alice", rooms=[ROOM], role="moderator"),
        "bob": mint("bob", name="Bob", groups=[ROOM]),
        "carol": mint("carol", name="Carol", groups=[ROOM]),
        "notetaker": mint("notetaker", name="Notetaker", rooms=[ROOM], role="bot", caps="mute,remove"),
        "dave": mint("dave", name="Dave", groups=[ROOM]),
    }

    async def scenario():
        clients = {name: await Client.connect(name, server.url, token) for name, token in tokens.items()}
        alice, bob, carol, bot, dave = (clients[n] for n in ("alice", "bob", "carol", "notetaker", "dave"))

        # Joins: the joiner gets an ack and a snapshot with the same seq; everyone already in sees participant.joined.
        ack, snapshot = await alice.join(device="web", callType="video")
        assert_fields(ack, {"seq": 1, "changed": True}, "alice")
        assert [p["uid"] for p in snapshot["participants"]] == ["alice"]
        assert participant(snapshot, "alice")["role"] == "moderator"
        assert snapshot["state"]["callType"] == "video"
        in_call = [alice]
        for seq, (client, role) in enumerate([(bob, "participant"), (carol, "participant"), (bot, "bot")], start=2):
            ack, snapshot = await client.join(device=f"{client.name}-device")
            assert ack["seq"] == seq
            joined = await expect_all(in_call, seq, "participant.joined", client.name, actor=client.name)
            assert joined[0]["data"]["deviceID"] == f"{client.name}-device"
            assert participant(snapshot, client.name)["role"] == role
            assert [p["uid"] for p in snapshot["participants"]] == [c.name for c in in_call] + [client.name]
            in_call.append(client)

        # Bob mutes, then unmutes and raises his hand in one message: two events, acked with the last seq.
        ack = await bob.request({"type": "state", "room": ROOM, "audioMuted": True})
        muted = await expect_all(in_call, 5, "participant.audio_muted", "bob", actor="bob")
        assert muted[0]["data"]["participant"]["audioMuted"] is True
        assert_fields(ack, {"type": "ack", "seq": 5, "changed": True}, "bob")
        ack = await bob.request({"type": "state", "room": ROOM, "audioMuted": False, "handRaised": True})
        await expect_all(in_call, 6, "participant.audio_unmuted", "bob")
        await expect_all(in_call, 7, "participant.hand_raised", "bob")
        assert_fields(ack, {"type": "ack", "seq": 7, "changed": True}, "bob")
        # Repeating a state changes nothing and sends no event.
        ack = await bob.request({"type": "state", "room": ROOM, "handRaised": True})
        assert_fields(ack, {"type": "ack", "seq": 7, "changed": False}, "bob")

        ack = await alice.request({"type": "state", "room": ROOM, "presenting": True})
        await expect_all(in_call, 8, "participant.screen_share_started", "alice", actor="alice")
        assert_fields(ack, {"type": "ack", "seq": 8}, "alice")

        # Dave joins late: his snapshot shows what is already in effect.
        ack, snapshot = await dave.join(device="tablet")
        assert ack["seq"] == 9
        await expect_all(in_call, 9, "participant.joined", "dave")
        in_call.append(dave)
        assert snapshot["seq"] <= 9  # the roster may trail by one coalescing window; the state below does not
        assert [p["uid"] for p in snapshot["participants"]] == ["alice", "bob", "carol", "notetaker", "dave"]
        assert_fields(participant(snapshot, "bob"), {"handRaised": True, "audioMuted": False, "isJoined": True})
        assert_fields(participant(snapshot, "alice"), {"presenting": True, "handRaised": False})
        assert participant(snapshot, "carol")["presenting"] is False

        # Alice mutes Bob as moderator.
        ack = await alice.request({"type": "action", "room": ROOM, "action": "mute", "target": "bob",
                                   "reason": "echo"})
        moderated = await expect_all(in_call, 10, "moderation.muted", "bob", actor="alice", reason="echo")
        assert moderated[0]["data"]["participant"]["audioMuted"] is True
        assert_fields(ack, {"type": "ack", "seq": 10, "changed": True}, "alice")
        result = await dave.request({"type": "query", "query": "muted", "room": ROOM})
        assert_fields(result, {"type": "result", "seq": 10, "uids": ["bob"]}, "dave")

        # The bot removes Carol: she sees her own removal, then her socket closes with 4003.
        ack = await bot.request({"type": "action", "room": ROOM, "action": "remove", "target": "carol",
                                 "reason": "spam"})
        await expect_all(in_call, 11, "participant.left", "carol", actor="notetaker", reason="spam")
        assert carol.events[-1]["data"]["reason"] == "removed"
        assert_fields(ack, {"type": "ack", "seq": 11, "changed": True}, "notetaker")
        await carol.expect_closed(4003)
        in_call.remove(carol)

        # A participant may not moderate: ERR_FORBIDDEN, and nothing changes.
        error = await dave.request({"type": "action", "room": ROOM, "action": "mute", "target": "alice"})
        assert_fields(error, {"type": "error", "code": "ERR_FORBIDDEN"}, "dave")
        error = await bob.request({"type": "action", "room": ROOM, "action": "remove", "target": "dave"})
        assert_fields(error, {"type": "error", "code": "ERR_FORBIDDEN"}, "bob")
        result = await alice.request({"type": "query", "query": "muted", "room": ROOM})
        assert_fields(result, {"type": "result", "seq": 11, "uids": ["bob"]}, "alice")
        result = await alice.request({"type": "query", "query": "members", "room": ROOM})
        assert_fields(result, {"seq": 11, "uids": ["alice", "bob", "notetaker", "dave"]}, "alice")
        for client in in_call:
            await client.expect_nothing()

        # Bob leaves.
        ack = await bob.request({"type": "leave", "room": ROOM})
        assert_fields(ack, {"type": "ack", "seq": 12}, "bob")
        in_call.remove(bob)
        await expect_all(in_call, 12, "participant.left", "bob", actor="bob")
        assert alice.events[-1]["data"]["reason"] == "left"
        await bob.expect_nothing()

        # Every client saw the same events under the same numbers, without gaps after its join.
        by_seq = {}
        joined_at = {"alice": 1, "bob": 2, "carol": 3, "notetaker": 4, "dave": 9}
        last_seen = {"alice": 12, "bob": 11, "carol": 11, "notetaker": 12, "dave": 12}
        for client in clients.values():
            seqs = [event["seq"] for event in client.events]
            assert seqs == list(range(joined_at[client.name] + 1, last_seen[client.name] + 1)), (client.name, seqs)
            for event in client.events:
                summary = (event["event"], event["data"].get("uid"), event["actor"], event["time"])
                assert by_seq.setdefault(event["seq"], summary) == summary, (client.name, event)
        assert sorted(by_seq) == list(range(2, 13))

        # The room's history agrees with what the clients saw.
        history = await alice.request({"type": "query", "query": "history", "room": ROOM, "after": 0, "limit": 100})
        assert [event["seq"] for event in history["events"]] == list(range(1, 13))
        for event in history["events"][1:]:
            assert (event["event"], event["data"].get("uid"), event["actor"], event["time"]) == by_seq[event["seq"]]

        for client in clients.values():
            if client is not carol:
                await client.close()

    run(scenario())


# MARK: 2. Session status follows the socket


def drop(client):
    """Ends the TCP connection without a close frame."""
    client.abort()


def test_dropped_socket_is_lost_then_restored_or_timed_out(rollcall):
    grace_ms = 1000
    server = rollcall(**{"rooms.reconnect_grace_ms": grace_ms})
    alice_token = mint("alice", name="Alice", rooms=[ROOM], role="moderator")
    bob_token = mint("bob", name="Bob", groups=[ROOM])

    async def scenario():
        alice = await Client.connect("alice", server.url, alice_token)
        bob = await Client.connect("bob", server.url, bob_token, via="header")
        await alice.join(device="web")
        await bob.join(device="phone")
        await alice.expect_event(2, "participant.joined", "bob")

        # A dropped socket is a lost connection, not a leave.
        drop(bob)
        lost = await alice.expect_event(3, "session.connection_lost", "bob", actor=None)
        assert_fields(lost["data"], {"deviceID": "phone"})
        assert lost["data"]["participant"]["state"] == "reconnecting"

        # The same token and device within the grace period: restored, and resumed from the last seq it saw.
        bob = await Client.connect("bob", server.url, bob_token, via="query")
        ack = await bob.request({"type": "join", "room": ROOM, "device": "phone", "resume": 2})
        assert_fields(ack, {"type": "ack", "seq": 4}, "bob")
        await bob.expect_event(3, "session.connection_lost", "bob", recovered=True)
        await bob.expect_event(4, "session.connection_restored", "bob", recovered=True)
        await bob.expect(type="resumed", room=ROOM, seq=4, recovered=True)
        restored = await alice.expect_event(4, "session.connection_restored", "bob")
        assert restored["data"]["participant"]["state"] == "joined"
        members = await alice.request({"type": "query", "query": "members", "room": ROOM})
        assert_fields(members, {"seq": 4, "uids": ["alice", "bob"]}, "alice")
        await alice.expect_nothing()

        # A second drop without return times out after the grace period.
        drop(bob)
        await alice.expect_event(5, "session.connection_lost", "bob")
        lost_at = time.monotonic()
        timed_out = await alice.expect_event(6, "session.timed_out", "bob", actor=None)
        waited = time.monotonic() - lost_at
        assert grace_ms / 1000 * 0.8 <= waited <= grace_ms / 1000 + 2, waited
        assert_fields(timed_out["data"], {"deviceID": "phone", "reason": "timed_out"})
        assert_fields(timed_out["data"]["participant"], {"state": "left", "isJoined": False})
        members = await alice.request({"type": "query", "query": "members", "room": ROOM})
        assert_fields(members, {"seq": 6, "uids": ["alice"]}, "alice")
        assert [e["event"] for e in alice.events].count("participant.left") == 0

        # Coming back after the grace period is a fresh join.
        bob = await Client.connect("bob", server.url, bob_token)
        ack, snapshot = await bob.join(device="phone")
        assert ack["seq"] == 7
        await alice.expect_event(7, "participant.joined", "bob")
        assert participant(snapshot, "bob")["state"] == "joined"
        # A socket the client closes without `leave` (a page reload) also gets the grace period.
        await bob.close()
        closed = await alice.expect_event(8, "session.connection_closed", "bob", actor=None)
        assert closed["data"]["participant"]["state"] == "reconnecting"
        left = await alice.expect_event(9, "participant.left", "bob", actor=None)
        assert_fields(left["data"], {"deviceID": "phone", "reason": "connection_closed"})
        await alice.close()

    run(scenario())


# MARK: 3. Admission


def test_admission_checks_membership_and_capacity(rollcall):
    server = rollcall(**{"rooms.capacity": 2})
    tokens = {uid: mint(uid, groups=[ROOM]) for uid in ("bob", "carol", "erin")}
    tokens["outsider"] = mint("outsider", rooms=["other-room"], role="moderator")
    tokens["alice"] = mint("alice", rooms=[ROOM], role="moderator")

    async def scenario():
        clients = {uid: await Client.connect(uid, server.url, token) for uid, token in tokens.items()}
        error = await clients["outsider"].request({"type": "join", "room": ROOM})
        assert_fields(error, {"type": "error", "code": "ERR_NOT_GROUP_MEMBER"}, "outsider")
        error = await clients["outsider"].request({"type": "query", "query": "members", "room": ROOM})
        assert_fields(error, {"type": "error", "code": "ERR_NOT_GROUP_MEMBER"}, "outsider")

        await clients["bob"].join()
        await clients["carol"].join()
        error = await clients["erin"].request({"type": "join", "room": ROOM})
        assert_fields(error, {"type": "error", "code": "ERR_CALL_FULL"}, "erin")
        # A refused join changes nothing, and a moderator still gets one of the reserved seats.
        ack, snapshot = await clients["alice"].join()
        assert ack["seq"] == 3
        assert [p["uid"] for p in snapshot["participants"]] == ["bob", "carol", "alice"]
        assert snapshot["state"]["capacity"] == 2
        # A seat freed by a leave can be taken.
        await clients["carol"].request({"type": "leave", "room": ROOM})
        ack, snapshot = await clients["erin"].join()
        assert ack["seq"] == 5
        assert [p["uid"] for p in snapshot["participants"] if p["isJoined"]] == ["bob", "alice", "erin"]
        for client in clients.values():
            await client.close()

    run(scenario())


def test_token_by_header_query_and_auth_message(rollcall):
    server = rollcall()
    token = mint("bob", name="Bob", groups=[ROOM])

    async def scenario():
        for via in ("header", "query", "auth"):
            client = await Client.connect(f"bob-{via}", server.url, token, via=via)
            ack, snapshot = await client.join(device=via)
            assert participant(snapshot, "bob")["name"] == "Bob"
            await client.close()
        # A token minted by the Python package with the configured key is accepted too.
        kid, secret = configured_key()
        carol_token = mint_token(TokenKey.parse(f"{kid}:{secret}"), "carol", name="Carol", groups=[ROOM])
        client = await Client.connect("carol", server.url, carol_token)
        assert client.connection.welcome["uid"] == "carol" and client.connection.welcome["name"] == "Carol"
        await client.join()
        await client.close()

    run(scenario())


def bad_tokens():
    kid, secret = configured_key()
    good = mint("mallory", groups=[ROOM])
    header, payload, signature = good.split(".")
    # Replace the first signature character, which carries six bits of the MAC.
    tampered = f"{header}.{payload}.{'B' if signature[0] == 'A' else 'A'}{signature[1:]}"
    # Replace the last character by one that changes the MAC's last bits.
    last = signature[-1]
    other_last = "w" if last in "ABCDEFGHIJKLMNOP" else "A"
    tampered_last = f"{header}.{payload}.{signature[:-1]}{other_last}"
    # Change only the two unused low bits of the last character: the same MAC bytes, but not canonical base64url.
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    non_canonical = f"{header}.{payload}.{signature[:-1]}{alphabet[alphabet.index(last) ^ 1]}"
    claims = claims_for("mallory", groups=[ROOM])
    return {
        "non-canonical signature": non_canonical,
        "tampered signature": tampered,
        "tampered last character": tampered_last,
        "tampered payload": f"{header}.{b64url_json({**claims, 'rooms': {ROOM: 'admin'}})}.{signature}",
        "alg none": hand_made_token(claims, secret=secret, alg="none"),
        "alg none with kid": hand_made_token(claims, secret=secret, kid=kid, alg="none"),
        "HS512": hand_made_token(claims, secret=secret, kid=kid, alg="HS512"),
        "another key": hand_made_token(claims, secret="another-secret-of-at-least-32-bytes!!", kid=kid),
        "unknown kid": hand_made_token(claims, secret=secret, kid="not-a-key"),
        "expired long ago": hand_made_token(claims_for("mallory", groups=[ROOM], expires_in=-600),
                                            secret=secret, kid=kid),
        "no sub": hand_made_token({"exp": int(time.time()) + 600, "groups": [ROOM]}, secret=secret, kid=kid),
        "garbage": "not-a-token",
    }


@pytest.mark.parametrize("via", ["auth", "header", "query"])
def test_bad_tokens_are_refused_with_4001(rollcall, via):
    server = rollcall(**{"auth.leeway_seconds": 0})
    tokens = bad_tokens()
    tokens["expired"] = mint("mallory", groups=[ROOM], ttl=1)
    time.sleep(2.2)

    async def scenario():
        for kind, token in tokens.items():
            headers = None
            url = server.url
            if via == "header":
                headers = {"Authorization": f"Bearer {token}"}
            elif via == "query":
                url = f"{url}?token={quote(token)}"
            # The token is placed by hand: the package's own authentication would stop at the refusal.
            client = Client(f"{kind} by {via}", await Connection.open(url, headers=headers, open_timeout=5))
            if via == "auth":
                await client.send({"type": "auth", "id": 1, "token": token})
            error = await client.recv()
            assert_fields(error, {"type": "error", "code": "ERR_UNAUTHORIZED"}, client.name)
            if via == "auth":
                assert error["id"] == 1, error
            await client.expect_closed(4001)

    run(scenario())


def test_refused_token_after_welcome_keeps_the_session(rollcall):
    server = rollcall()
    token = mint("bob", groups=[ROOM])

    async def scenario():
        bob = await Client.connect("bob", server.url, token)
        await bob.join()
        error = await bob.request({"type": "auth", "token": bad_tokens()["alg none"]})
        assert_fields(error, {"type": "error", "code": "ERR_UNAUTHORIZED"}, "bob")
        # A refresh for another user is refused; the session keeps its identity.
        error = await bob.request({"type": "auth", "token": mint("carol", groups=[ROOM])})
        assert_fields(error, {"type": "error", "code": "ERR_FORBIDDEN"}, "bob")
        ack = await bob.request({"type": "state", "room": ROOM, "handRaised": True})
        assert_fields(ack, {"type": "ack", "seq": 2, "changed": True}, "bob")
        assert bob.events[-1]["actor"] == "bob"
        welcome = await bob.request({"type": "auth", "token": mint("bob", groups=[ROOM], ttl=7200)})
        assert_fields(welcome, {"type": "welcome", "uid": "bob"}, "bob")
        await bob.close()

    run(scenario())


# MARK: 4. Meeting messages


def test_meeting_message_reaches_group_members_outside_the_room(rollcall):
    server = rollcall()
    group = "g1"
    tokens = {
        "alice": mint("alice", name="Alice", groups=[group]),
        "bob": mint("bob", name="Bob", groups=[group, "g2"]),
        "carol": mint("carol", name="Carol", groups=["g2"]),
    }

    async def scenario():
        alice, bob, carol = [await Client.connect(uid, server.url, token) for uid, token in tokens.items()]
        ack, _ = await alice.join(room=group, callType="video")
        assert ack["seq"] == 1
        ack = await alice.request({"type": "meeting", "group": group, "sessionId": "call-8812", "callType": "video",
                                   "text": "Daily standup"})
        meeting = await alice.expect_event(2, "meeting.message", room=group, actor="alice")
        assert_fields(ack, {"type": "ack", "room": group, "seq": 2}, "alice")
        # Bob is connected, in the group, and not in the room: he gets the event too.
        received = await bob.expect_event(2, "meeting.message", room=group, actor="alice")
        assert received["data"] == meeting["data"]
        assert_fields(received["data"], {"sessionId": "call-8812", "callType": "video", "sender": "alice",
                                         "active": True, "text": "Daily standup"}, "bob")
        # Carol is not in the group: nothing for her, and she may not look.
        await carol.expect_nothing()
        error = await carol.request({"type": "query", "query": "active_meeting", "group": group})
        assert_fields(error, {"type": "error", "code": "ERR_NOT_GROUP_MEMBER"}, "carol")
        error = await carol.request({"type": "meeting", "group": group, "sessionId": "x", "callType": "audio"})
        assert_fields(error, {"type": "error", "code": "ERR_NOT_GROUP_MEMBER"}, "carol")
        await bob.expect_nothing()

        result = await bob.request({"type": "query", "query": "active_meeting", "group": group})
        assert_fields(result, {"type": "result", "query": "active_meeting", "group": group}, "bob")
        assert_fields(result["meeting"], {"sessionId": "call-8812", "callType": "video", "sender": "alice",
                                          "active": True, "text": "Daily standup"}, "bob")
        result = await bob.request({"type": "query", "query": "history", "room": group, "after": 1, "limit": 10})
        assert [(e["seq"], e["event"]) for e in result["events"]] == [(2, "meeting.message")]
        assert result["events"][0]["data"] == meeting["data"]
        result = await bob.request({"type": "query", "query": "rooms"})
        rooms = {entry["room"]: entry for entry in result["rooms"]}
        assert_fields(rooms[group], {"active": True, "participants": 1, "seq": 2})
        assert rooms[group]["activeMeeting"]["sessionId"] == "call-8812"

        # The meeting is over: members hear it, and it is no longer an active meeting.
        await alice.request({"type": "meeting", "group": group, "sessionId": "call-8812", "callType": "video",
                             "active": False})
        ended = await bob.expect_event(3, "meeting.message", room=group)
        assert ended["data"]["active"] is False
        result = await bob.request({"type": "query", "query": "active_meeting", "group": group})
        assert result["meeting"] is None or result["meeting"]["active"] is False, result
        for client in (alice, bob, carol):
            await client.close()

    run(scenario())


# MARK: 5. Malformed input


def test_malformed_input_gets_errors_and_the_connection_stays_usable(rollcall):
    server = rollcall()
    bob_token = mint("bob", groups=[ROOM])

    async def scenario():
        bob = await Client.connect("bob", server.url)
        # Before authentication: refused, but the socket stays open.
        error = await bob.request({"type": "join", "room": ROOM})
        assert_fields(error, {"type": "error", "code": "ERR_UNAUTHORIZED"}, "bob")
        pong = await bob.request({"type": "ping"})
        assert pong["type"] == "pong"
        welcome = await bob.request({"type": "auth", "token": bob_token})
        assert welcome["type"] == "welcome"

        await bob.send("{not json")
        error = await bob.recv()
        assert_fields(error, {"type": "error", "code": "ERR_BAD_REQUEST"}, "bob")
        await bob.send(b'{"type":"ping"}')
        error = await bob.recv()
        assert_fields(error, {"type": "error", "code": "ERR_BAD_REQUEST"}, "bob")
        cases = [
            ({"type": "dance"}, "dance"),
            ({"type": "join", "room": ROOM, "role": "moderator"}, "role"),
            ({"type": "join", "room": 7}, "room"),
            ({"type": "query", "query": "everything"}, "everything"),
            ({"id": 99}, "type"),
        ]
        for message, named in cases:
            error = await bob.request(message)
            assert_fields(error, {"type": "error", "code": "ERR_BAD_REQUEST"}, f"bob: {message}")
            assert named in error["message"], error
        # The forged role did not join: Bob is not in the room.
        error = await bob.request({"type": "state", "room": ROOM, "audioMuted": True})
        assert_fields(error, {"type": "error", "code": "ERR_NOT_IN_ROOM"}, "bob")

        ack, snapshot = await bob.join()
        assert participant(snapshot, "bob")["role"] == "participant"
        for message, code in [
            ({"type": "state", "room": ROOM, "handRaised": True, "role": "admin"}, "ERR_BAD_REQUEST"),
            ({"type": "state", "room": ROOM, "audioMuted": "yes"}, "ERR_BAD_REQUEST"),
            ({"type": "state", "room": ROOM, "pinned": True}, "ERR_FORBIDDEN"),
            ({"type": "action", "room": ROOM, "action": "mute", "target": "bob", "role": "admin"}, "ERR_BAD_REQUEST"),
            ({"type": "media", "room": ROOM, "recording": True}, "ERR_FORBIDDEN"),
        ]:
            error = await bob.request(message)
            assert_fields(error, {"type": "error", "code": code}, f"bob: {message}")
        # Errors changed nothing, and the connection still answers.
        result = await bob.request({"type": "query", "query": "history", "room": ROOM, "after": 0, "limit": 10})
        assert [e["event"] for e in result["events"]] == ["participant.joined"]
        assert bob.events == []
        pong = await bob.request({"type": "ping"})
        assert pong == {"type": "pong", "id": bob.last_id}
        await bob.close()

    run(scenario())
