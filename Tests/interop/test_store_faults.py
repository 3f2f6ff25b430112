"""The embedded store when the disk fails it, against the real binary.

A full disk (a small tmpfs filled up where this machine lets the test mount one, else a file size limit on the
gateway process, which fails the store's writes the same way) acknowledges nothing it has not committed, says so in
`/readyz` and `/metrics`, refuses new requests with ERR_UNAVAILABLE and sends what it held once space returns; a
gateway killed while its disk is full loses no acknowledged write. Stored records damaged inside valid pages are
answered with ERR_UNAVAILABLE, counted and logged, never served as an empty history; a zero-byte store file stops the
start.

Every wait is bounded; the servers listen on 127.0.0.1 only.
"""

import asyncio
import errno
import json
import os
import resource
import sqlite3
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from test_call_end_to_end import Client, mint, run
from test_storage import API_KEY, api, start_failure, start_stored

ROOM = "disk-call"


class SmallDisk:
    """A directory whose file writes can be made to fail as on a full disk.

    `tmpfs`: a small tmpfs mounted on the directory, filled with a filler file and freed by removing it; where the
    mount is refused (not root, no CAP_SYS_ADMIN), the test falls back to `file size limit`. `file size limit`: the
    gateway's RLIMIT_FSIZE (its soft limit, through prlimit) is lowered to one byte, so that every write to a file
    fails with EFBIG (the gateway ignores SIGXFSZ), and raised again to free it."""

    def __init__(self, directory, kind):
        self.path = directory
        self.path.mkdir()
        self.kind = kind
        self.mounted = False
        self.process = None
        if kind == "tmpfs":
            try:
                mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m,mode=0700", "tmpfs", str(directory)],
                                         capture_output=True, timeout=10)
                self.mounted = mounted.returncode == 0
                reason = mounted.stderr.decode().strip()
            except OSError as error:
                reason = str(error)
            if not self.mounted:
                print(f"cannot mount a tmpfs here ({reason}): using a file size limit")
                self.kind = "file size limit"

    @property
    def store(self):
        return self.path / "rollcall.db"

    def start_gateway(self):
        """A gateway with its store on this disk (and the process whose writes the file size limit fails)."""
        server = start_stored(self.store)
        self.process = server.process
        return server

    def fill(self):
        if self.kind == "tmpfs":
            with open(self.path / "filler", "wb", buffering=0) as filler:
                chunk = b"\0" * 65536
                try:
                    while True:
                        filler.write(chunk)
                except OSError as error:
                    assert error.errno == errno.ENOSPC, error
                try:
                    while True:
                        filler.write(b"\0")
                except OSError as error:
                    assert error.errno == errno.ENOSPC, error
        else:
            _, hard = resource.prlimit(self.process.pid, resource.RLIMIT_FSIZE)
            resource.prlimit(self.process.pid, resource.RLIMIT_FSIZE, (1, hard))

    def free(self):
        if self.kind == "tmpfs":
            os.remove(self.path / "filler")
        elif self.process.poll() is None:
            _, hard = resource.prlimit(self.process.pid, resource.RLIMIT_FSIZE)
            resource.prlimit(self.process.pid, resource.RLIMIT_FSIZE, (hard, hard))

    def close(self):
        if self.mounted:
            subprocess.run(["umount", "-l", str(self.path)], capture_output=True, timeout=10)


@pytest.fixture(params=["tmpfs", "file size limit"])
def disk(request, tmp_path):
    small = SmallDisk(tmp_path / "disk", request.param)
    yield small
    small.close()


def http(server, path, authorized=False):
    """Status and body of a GET on the gateway's port, also for error statuses."""
    base = server.url.split("/v1/")[0].replace("ws://", "http://")
    headers = {"Authorization": "Bearer " + API_KEY.split(":", 1)[1]} if authorized else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(base + path, headers=headers), timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def metric(server, name):
    _, text = http(server, "/metrics")
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"no {name} in /metrics")


def meeting(text, request_id):
    return {"type": "meeting", "group": ROOM, "sessionId": "s-1", "callType": "audio", "text": text, "id": request_id}


async def answer_to(client, request_id, timeout):
    """The answer to one request within `timeout` seconds, or None; other messages stay pending, in order."""
    skipped = []
    deadline = time.monotonic() + timeout
    try:
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                message = await client.recv(remaining)
            except AssertionError:  # nothing within the time left
                return None
            if message.get("id") == request_id:
                return message
            skipped.append(message)
        return None
    finally:
        client.pending = skipped + client.pending


async def meeting_texts(client, timeout=1.0):
    """The texts of the meeting messages that reach `client` until it receives nothing for `timeout` seconds."""
    texts = []
    while True:
        try:
            message = await client.recv(timeout)
        except AssertionError:
            return texts
        if message.get("event") == "meeting.message":
            texts.append((message["seq"], message["data"]["text"]))


def stored_meeting_texts(server):
    history = api(server, f"/rooms/{ROOM}/history?after=0&types=meeting.message&limit=1000")
    return [(event["seq"], event["data"]["text"]) for event in history["events"]]


async def acknowledged_meeting(client, text, acked):
    """Sends a meeting message that must be acknowledged, and adds its seq and text to `acked`."""
    answer = await client.request(meeting(text, None))
    assert answer["type"] == "ack", answer
    acked.append((answer["seq"], text))


def killed_and_started_again(server, store, meanwhile=lambda: None):
    """SIGKILL (no commit at shutdown, no close frames), then a new gateway on the same store."""
    server.process.kill()
    server.process.wait(timeout=5)
    server.stop()
    meanwhile()
    return start_stored(store)


async def call(server):
    alice = await Client.connect("alice", server.url, mint("alice", rooms=[ROOM], groups=[ROOM], role="moderator"))
    bob = await Client.connect("bob", server.url, mint("bob", groups=[ROOM]))
    await alice.join(room=ROOM)
    await bob.join(room=ROOM)
    return alice, bob


def test_a_full_disk_acknowledges_nothing_uncommitted_and_catches_up_when_space_returns(disk):
    server = disk.start_gateway()
    acked = []

    async def scenario():
        alice, bob = await call(server)
        await acknowledged_meeting(alice, "before", acked)
        seen_by_bob = await meeting_texts(bob, 0.5)
        assert seen_by_bob == acked

        disk.fill()
        held, refused = [], []
        for index in range(40):
            request_id = alice.new_id()
            await alice.send(meeting(f"during-{index}", request_id))
            answer = await answer_to(alice, request_id, 1.0)
            if answer is None:
                held.append((request_id, f"during-{index}"))
            elif answer["type"] == "ack":
                # The disk still had room for this commit (a tmpfs page partly used): it is on disk.
                acked.append((answer["seq"], f"during-{index}"))
            else:
                assert answer["code"] == "ERR_UNAVAILABLE", answer
                refused.append(f"during-{index}")
            if refused and index >= 5:
                break
        assert refused, f"every write was answered while the disk was full: held {held}"
        # What was applied but could not be committed is neither acknowledged nor shown to anyone.
        assert held, "the write that found the disk full was answered before it was committed"
        seen_by_bob += await meeting_texts(bob, 1.0)
        assert seen_by_bob == acked, "bob saw what was not committed"
        status, body = http(server, "/readyz")
        assert status == 503 and "store" in body, (status, body)
        assert metric(server, "rollcall_store_available") == 0
        assert metric(server, "rollcall_store_commit_failures_total") >= 1
        assert metric(server, "rollcall_store_requests_refused_total") >= len(refused)
        assert any("store commit failed" in line for line in server.log_lines), server.log_lines

        disk.free()
        # The held writes are committed once space returns, and their answers go out then.
        for request_id, text in held:
            answer = await answer_to(alice, request_id, 10.0)
            assert answer is not None and answer["type"] == "ack", (text, answer)
            acked.append((answer["seq"], text))
        status, _ = http(server, "/readyz")
        assert status == 200
        assert metric(server, "rollcall_store_available") == 1
        await acknowledged_meeting(alice, "after", acked)
        assert sorted(acked) == acked, acked
        seen_by_bob += await meeting_texts(bob, 1.0)
        assert seen_by_bob == acked
        assert any("store commits again" in line for line in server.log_lines), server.log_lines

    run(scenario())
    server = killed_and_started_again(server, disk.store)  # every acknowledged write must be in the file already
    try:
        assert stored_meeting_texts(server) == acked
    finally:
        assert server.stop() == 0


def test_a_gateway_killed_while_its_disk_is_full_loses_no_acknowledged_write(disk):
    server = disk.start_gateway()
    acked = []

    async def scenario():
        alice, _ = await call(server)
        await acknowledged_meeting(alice, "before", acked)
        disk.fill()
        for index in range(20):
            request_id = alice.new_id()
            await alice.send(meeting(f"during-{index}", request_id))
            answer = await answer_to(alice, request_id, 0.5)
            if answer is not None and answer["type"] == "ack":
                acked.append((answer["seq"], f"during-{index}"))
        assert len(acked) < 21, "every write was acknowledged while the disk was full"

    run(scenario())
    # Killed while the disk is full: what was held is gone, nothing acknowledged may be.
    server = killed_and_started_again(server, disk.store, meanwhile=disk.free)
    try:
        stored = stored_meeting_texts(server)
        assert [item for item in acked if item not in stored] == [], stored
    finally:
        assert server.stop() == 0


def damage_sql(store):
    """Changes one stored meeting message's bytes through SQL: the pages stay valid."""
    with sqlite3.connect(store) as database:
        changed = database.execute(
            "UPDATE entries SET message = replace(message, 'note-7', 'note-X') WHERE message LIKE '%note-7%'").rowcount
    assert changed == 1


def damage_file(store):
    """Changes bytes of one stored record in the file itself, inside its page: SQLite's own checks still pass."""
    with sqlite3.connect(store) as database:
        database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = store.read_bytes()
    count = data.count(b"note-7")
    assert count >= 1, "the record is not in the main file"
    store.write_bytes(data.replace(b"note-7", b"note-8"))


@pytest.mark.parametrize("damage", [damage_sql, damage_file], ids=["through SQL", "in the file"])
def test_records_damaged_inside_valid_pages_are_refused_with_unavailable_counted_and_logged(tmp_path, damage):
    store = tmp_path / "rollcall.db"
    server = start_stored(store)
    marks = {}

    async def before():
        alice, bob = await call(server)
        for index in range(10):
            await acknowledged_meeting(alice, f"note-{index}", [])
        await bob.request({"type": "ping"})
        marks["bob"] = bob.rosters[ROOM].seq
        other = await Client.connect("carol", server.url, mint("carol", rooms=["elsewhere"], role="moderator"))
        await other.join(room="elsewhere")

    run(before())
    assert server.stop() == 0
    damage(store)
    with sqlite3.connect(store) as database:
        assert database.execute("PRAGMA quick_check").fetchone()[0] == "ok"

    server = start_stored(store)
    try:
        status, body = http(server, f"/v1/api/rooms/{ROOM}/history?after=0", authorized=True)
        assert status == 503 and json.loads(body)["code"] == "ERR_UNAVAILABLE", (status, body)

        async def after():
            bob = await Client.connect("bob", server.url, mint("bob", groups=[ROOM]))
            refused = await bob.request({"type": "join", "room": ROOM, "resume": marks["bob"], "resumeEvents": 1})
            assert refused["type"] == "error" and refused["code"] == "ERR_UNAVAILABLE", refused
            query = await bob.request({"type": "query", "query": "history", "room": ROOM, "after": 0})
            assert query["type"] == "error" and query["code"] == "ERR_UNAVAILABLE", query
            # Other rooms are served as before.
            carol = await Client.connect("carol", server.url, mint("carol", rooms=["elsewhere"], role="moderator"))
            await carol.join(room="elsewhere")

        run(after())
        assert metric(server, "rollcall_store_read_failures_total") >= 3
        failures = [line for line in server.log_lines if "store read failed" in line]
        assert failures and all(ROOM in line and "damaged" in line for line in failures), server.log_lines
    finally:
        assert server.stop() == 0


def test_a_zero_byte_store_file_stops_the_start_and_keeps_its_write_ahead_log(tmp_path):
    store = tmp_path / "rollcall.db"
    store.write_bytes(b"")
    wal = tmp_path / "rollcall.db-wal"
    wal.write_bytes(b"frames that may still hold the rooms")
    status, errors = start_failure({"storage.path": store})
    assert status != 0 and "empty" in errors and str(store) in errors, errors
    assert store.stat().st_size == 0 and wal.read_bytes() == b"frames that may still hold the rooms"
