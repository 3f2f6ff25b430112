"""The waiting room through the client, against a scripted gateway: a held join waits past the request timeout and
reports its position, completes on its ack and snapshot, raises the typed errors of a denial or an expired wait,
and leaves the queue when given up; the moderator's helpers send the protocol's messages."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

import pytest

import rollcall.connection
from rollcall import (
    AdmissionDeniedError,
    Admitted,
    Client,
    ConnectionClosed,
    Ended,
    ReconnectPolicy,
    RequestTimeout,
    RollcallError,
    RoomChange,
    RoomMirror,
    SnapshotReplaced,
    TokenClaims,
    TokenError,
    TokenKey,
    View,
    WaitExpiredError,
    Waiting,
    WaitingEntry,
    mint_token,
    roster_checksum,
    verify_token,
)
from rollcall.requests import PendingRequests
from rollcall.room import Room

ROOM = "webinar"
SINCE = 1_764_950_400_000
KEY = TokenKey.parse("dev:a-secret-of-at-least-thirty-two-bytes")


class FakeConnection:
    """Stands in for `Connection`: what the client sends is recorded and handed to `on_send`, and what the test
    pushes is what the client receives."""

    def __init__(self) -> None:
        self.welcome: dict[str, Any] = {"type": "welcome", "uid": "carol", "name": "Carol", "expiresAt": 0}
        self.sent: list[dict[str, Any]] = []
        self.on_send: Callable[[dict[str, Any]], None] = lambda message: None
        self._inbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.is_compressed = False

    def push(self, message: dict[str, Any]) -> None:
        self._inbox.put_nowait(message)

    async def send(self, message: Mapping[str, Any]) -> None:
        self.sent.append(dict(message))
        self.on_send(dict(message))

    async def receive(self, timeout: float | None = None) -> dict[str, Any]:
        message = await self._inbox.get()
        if message is None:
            raise ConnectionClosed(1000, "closed")
        return message

    async def close(self, code: int = 1000, reason: str = "") -> None:
        self._inbox.put_nowait(None)

    def abort(self) -> None:
        self._inbox.put_nowait(None)

    def sent_of(self, kind: str) -> list[dict[str, Any]]:
        return [message for message in self.sent if message.get("type") == kind]


@pytest.fixture
def gateway(monkeypatch: pytest.MonkeyPatch) -> FakeConnection:
    """The scripted gateway every `Client` in the test connects to."""
    fake = FakeConnection()

    async def open_fake(*arguments: Any, **options: Any) -> FakeConnection:
        return fake

    monkeypatch.setattr(rollcall.connection.Connection, "open", open_fake)
    return fake


def waiting(request_id: int, position: int, max_wait_ms: int = 900_000) -> dict[str, Any]:
    return {"type": "waiting", "id": request_id, "room": ROOM, "position": position, "waitingSince": SINCE,
            "expiresAt": SINCE + max_wait_ms}


def snapshot(seq: int = 7) -> dict[str, Any]:
    roster: dict[str, Any] = {
        "room": {"callType": "video", "capacity": 100, "participantCount": 2, "admission": True},
        "participants": {
            "host": {"uid": "host", "name": "Host", "role": "moderator", "operator": True, "order": 0},
            "carol": {"uid": "carol", "name": "Carol", "role": "participant", "order": 1},
        },
    }
    return {"type": "snapshot", "room": ROOM, "seq": seq, "roster": roster, "checksum": roster_checksum(roster)}


async def until(condition: Callable[[], bool], what: str) -> None:
    for _ in range(200):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_held_join_outlives_the_request_timeout_reports_its_position_and_completes_on_ack_and_snapshot(
    gateway: FakeConnection,
) -> None:
    async def scenario() -> None:
        client = Client("ws://gateway.test/v1/ws", "token", request_timeout=0.2)
        await client.connect()
        updates: list[Waiting] = []
        everywhere: list[Waiting] = []
        client.on_waiting(everywhere.append)
        join = asyncio.create_task(client.join(ROOM, on_waiting=updates.append))
        await until(lambda: bool(gateway.sent_of("join")), "the join")
        request_id = gateway.sent_of("join")[0]["id"]
        changes: list[RoomChange] = []
        client.rooms[ROOM].on_change(changes.append)
        gateway.push(waiting(request_id, 3))
        await until(lambda: bool(updates), "the first waiting")
        room = client.rooms[ROOM]
        assert room.waiting_position == 3
        assert room.waiting_status == Waiting(ROOM, 3, SINCE, SINCE + 900_000)
        assert room.waiting_status is not None and room.waiting_status.max_wait == 900.0
        await asyncio.sleep(0.5)  # more than twice the request timeout
        assert not join.done()
        gateway.push(waiting(request_id, 1))
        await until(lambda: len(updates) == 2, "the new position")
        assert [update.position for update in updates] == [3, 1] and everywhere == updates
        assert room.waiting_position == 1
        gateway.push({"type": "ack", "id": request_id, "room": ROOM, "seq": 7, "changed": True,
                      "rights": {"role": "participant"}})
        await asyncio.sleep(0.05)
        assert not join.done(), "the join completes on its snapshot"
        gateway.push(snapshot())
        joined = await asyncio.wait_for(join, 2)
        assert joined is room and joined.waiting_position is None and joined.waiting_status is None
        assert [person.uid for person in joined.participants] == ["host", "carol"]
        assert joined.rights == {"role": "participant"}
        assert joined.admission_required and joined.waiting_count == 0
        assert [type(change) for change in changes] == [Waiting, Waiting, Admitted, SnapshotReplaced]
        await client.close()

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("code", "message", "error", "reason"),
    [
        ("ERR_ADMISSION_DENIED", "a moderator did not let you in: invited guests only", AdmissionDeniedError,
         "invited guests only"),
        ("ERR_ADMISSION_DENIED", "a moderator did not let you into the call", AdmissionDeniedError, None),
        ("ERR_WAIT_EXPIRED", "the wait ran out", WaitExpiredError, None),
    ],
)
def test_a_denied_or_expired_wait_raises_its_error_from_the_join_and_ends_the_room(
    gateway: FakeConnection, code: str, message: str, error: type[RollcallError], reason: str | None
) -> None:
    async def scenario() -> None:
        client = Client("ws://gateway.test/v1/ws", "token", request_timeout=0.2)
        await client.connect()
        join = asyncio.create_task(client.join(ROOM))
        await until(lambda: bool(gateway.sent_of("join")), "the join")
        request_id = gateway.sent_of("join")[0]["id"]
        gateway.push(waiting(request_id, 1))
        await until(lambda: client.rooms[ROOM].waiting_position == 1, "the wait")
        room = client.rooms[ROOM]
        ended: list[RoomChange] = []
        room.on_change(lambda change: ended.append(change) if isinstance(change, Ended) else None)
        await asyncio.sleep(0.3)
        gateway.push({"type": "error", "id": request_id, "code": code, "message": message})
        with pytest.raises(error) as raised:
            await asyncio.wait_for(join, 2)
        if isinstance(raised.value, AdmissionDeniedError):
            assert raised.value.reason == reason
        assert ROOM not in client.rooms and not room.active and room.waiting_position is None
        assert len(ended) == 1
        await asyncio.sleep(0.05)
        assert gateway.sent_of("leave") == [], "the gateway ended the wait itself"
        await client.close()

    asyncio.run(scenario())


def test_leaving_while_waiting_or_cancelling_the_join_takes_the_user_out_of_the_queue(
    gateway: FakeConnection,
) -> None:
    def answer(message: dict[str, Any]) -> None:
        if message["type"] == "join":
            gateway.push(waiting(message["id"], 2))
        elif message["type"] == "leave":
            gateway.push({"type": "ack", "id": message["id"], "room": ROOM, "seq": 3, "changed": True})

    gateway.on_send = answer

    async def scenario() -> None:
        client = Client("ws://gateway.test/v1/ws", "token", request_timeout=0.2)
        await client.connect()
        join = asyncio.create_task(client.join(ROOM))
        await until(lambda: ROOM in client.rooms and client.rooms[ROOM].waiting_position == 2, "the wait")
        await client.rooms[ROOM].leave()
        with pytest.raises(RollcallError, match="left room webinar"):
            await asyncio.wait_for(join, 2)
        assert len(gateway.sent_of("leave")) == 1 and ROOM not in client.rooms

        join = asyncio.create_task(client.join(ROOM))
        await until(lambda: ROOM in client.rooms and client.rooms[ROOM].waiting_position == 2, "the second wait")
        join.cancel()
        with pytest.raises(asyncio.CancelledError):
            await join
        await until(lambda: len(gateway.sent_of("leave")) == 2, "the leave of the cancelled join")
        assert gateway.sent_of("leave")[1]["room"] == ROOM and ROOM not in client.rooms
        await client.close()

    asyncio.run(scenario())


def test_a_held_join_without_an_answer_times_out_after_the_rooms_wait_and_leaves_the_queue(
    gateway: FakeConnection,
) -> None:
    def answer(message: dict[str, Any]) -> None:
        if message["type"] == "join":
            gateway.push(waiting(message["id"], 1, max_wait_ms=300))

    gateway.on_send = answer

    async def scenario() -> None:
        client = Client("ws://gateway.test/v1/ws", "token", request_timeout=0.2)
        await client.connect()
        loop = asyncio.get_running_loop()
        started = loop.time()
        with pytest.raises(RequestTimeout):
            await asyncio.wait_for(client.join(ROOM), 5)
        assert loop.time() - started >= 0.45, "the room's wait, then the request timeout"
        await until(lambda: len(gateway.sent_of("leave")) == 1, "the leave")
        await client.close()

    asyncio.run(scenario())


def test_a_join_that_gets_no_waiting_still_times_out_at_the_request_timeout(gateway: FakeConnection) -> None:
    async def scenario() -> None:
        client = Client("ws://gateway.test/v1/ws", "token", request_timeout=0.2)
        await client.connect()
        with pytest.raises(RequestTimeout):
            await asyncio.wait_for(client.join(ROOM), 2)
        assert gateway.sent_of("leave") == []
        await client.close()

    asyncio.run(scenario())


def test_a_hold_extends_only_the_request_it_names() -> None:
    async def scenario() -> None:
        table = PendingRequests()
        join_id, _ = table.add(room=ROOM, completes_on_roster=True)
        assert table.held_until(join_id) is None
        assert not table.hold(join_id + 1, 10.0) and not table.hold("1", 10.0)
        assert table.hold(join_id, 10.0) and table.held_until(join_id) == 10.0
        table.fail_room(ROOM, RollcallError("left"))
        assert table.held_until(join_id) is None

    asyncio.run(scenario())


class ScriptedLink:
    """A RoomLink that records requests and answers a `waiting` query from pages."""

    uid = "host"

    def __init__(self, pages: list[dict[str, Any]] | None = None) -> None:
        self.requests: list[dict[str, Any]] = []
        self.pages = list(pages or [])

    async def request(
        self, message: Mapping[str, Any], *, room: str | None = None, completes_on_roster: bool = False
    ) -> dict[str, Any]:
        self.requests.append(dict(message))
        if message.get("type") == "query":
            return self.pages.pop(0)
        return {"type": "ack", "room": ROOM, "seq": 9, "changed": True}

    async def send(self, message: Mapping[str, Any]) -> None:
        pass

    def forget(self, room: Room) -> None:
        pass


def test_the_moderators_helpers_send_the_waiting_room_actions() -> None:
    link = ScriptedLink()
    room = Room(link, RoomMirror(ROOM))

    async def scenario() -> None:
        assert (await room.require_admission()).changed
        await room.admit("carol")
        await room.deny("dave", reason="invited guests only")
        await room.deny("erin")
        await room.admit_all()
        await room.deny_all(reason="the webinar is over")
        await room.open_admission()

    asyncio.run(scenario())
    assert link.requests == [
        {"type": "action", "room": ROOM, "action": "require_admission"},
        {"type": "action", "room": ROOM, "action": "admit", "target": "carol"},
        {"type": "action", "room": ROOM, "action": "deny", "target": "dave", "reason": "invited guests only"},
        {"type": "action", "room": ROOM, "action": "deny", "target": "erin"},
        {"type": "action", "room": ROOM, "action": "admit_all"},
        {"type": "action", "room": ROOM, "action": "deny_all", "reason": "the webinar is over"},
        {"type": "action", "room": ROOM, "action": "open_admission"},
    ]


def test_the_waiting_query_reads_typed_entries_page_by_page() -> None:
    carol = {"uid": "carol", "name": "Carol", "role": "participant", "attributes": {"company": "acme"},
             "waitingSince": SINCE}
    dave = {"uid": "dave", "name": "Dave", "avatar": "https://example.com/d.png", "role": "viewer",
            "waitingSince": SINCE + 12}
    link = ScriptedLink([
        {"type": "result", "query": "waiting", "room": ROOM, "seq": 96, "admissionRequired": True, "total": 2,
         "waiting": [carol], "next": 1},
        {"type": "result", "query": "waiting", "room": ROOM, "seq": 96, "admissionRequired": True, "total": 2,
         "waiting": [dave], "next": None},
        {"type": "result", "query": "waiting", "room": ROOM, "seq": 97, "admissionRequired": False, "total": 0,
         "waiting": [], "next": None},
    ])
    room = Room(link, RoomMirror(ROOM))

    async def scenario() -> None:
        entries = await room.waiting(page_limit=1)
        assert entries == [
            WaitingEntry("carol", "Carol", "participant", SINCE, attributes={"company": "acme"}),
            WaitingEntry("dave", "Dave", "viewer", SINCE + 12, avatar="https://example.com/d.png"),
        ]
        page = await room.waiting_page(limit=50)
        assert (page.total, page.entries, page.next, page.admission_required, page.seq) == (0, (), None, False, 97)

    asyncio.run(scenario())
    assert [request.get("after") for request in link.requests] == [None, 1, None]
    assert [request["limit"] for request in link.requests] == [1, 1, 50]
    assert all(request["query"] == "waiting" and request["room"] == ROOM for request in link.requests)


def test_the_room_entry_and_the_waiting_view_tell_who_waits() -> None:
    roster: dict[str, Any] = {
        "room": {"admission": True, "waiting": 2},
        "participants": {
            "dave": {"uid": "dave", "name": "Dave", "role": "participant", "waitingSince": SINCE + 5},
            "carol": {"uid": "carol", "name": "Carol", "role": "participant", "waitingSince": SINCE,
                      "attributes": {"company": "acme"}},
        },
    }
    room = Room(ScriptedLink(), RoomMirror(ROOM, view=View.waiting()))
    assert not room.admission_required and room.waiting_count == 0 and room.waiting_entries == []
    room._handle({"type": "snapshot", "room": ROOM, "seq": 4, "roster": roster, "checksum": roster_checksum(roster)})
    assert room.admission_required and room.waiting_count == 2
    assert [(entry.uid, entry.attributes) for entry in room.waiting_entries] == [
        ("carol", {"company": "acme"}), ("dave", {})]
    other = Room(ScriptedLink(), RoomMirror(ROOM))
    other._handle({"type": "snapshot", "room": ROOM, "seq": 4, "roster": roster, "checksum": roster_checksum(roster)})
    assert other.waiting_count == 2 and other.waiting_entries == []


def test_the_admission_claim_is_minted_in_the_signers_order_and_verified() -> None:
    token = mint_token(KEY, "guest", rooms=[ROOM], attributes={"company": "acme"},
                       admission={ROOM: "wait", "another": "bypass"}, issued_at=1_700_000_000)
    claims = verify_token(token, KEY, now=1_700_000_010)
    assert claims.admission == {"another": "bypass", ROOM: "wait"}
    assert list(claims.payload())[-2:] == ["attrs", "admission"]
    assert list(claims.payload()["admission"]) == ["another", ROOM]
    with pytest.raises(TokenError):
        mint_token(KEY, "guest", rooms=[ROOM], admission={ROOM: "skip"})
    with pytest.raises(TokenError):
        TokenClaims.from_payload({"sub": "guest", "exp": 1, "admission": {"": "wait"}})


def test_a_held_join_whose_connection_drops_is_sent_again_on_the_reconnect_and_completes(
    gateway: FakeConnection,
) -> None:
    def answer(message: dict[str, Any]) -> None:
        if message["type"] == "join":
            gateway.push(waiting(message["id"], len(gateway.sent_of("join"))))

    gateway.on_send = answer

    async def scenario() -> None:
        client = Client("ws://gateway.test/v1/ws", "token", request_timeout=0.2,
                        reconnect=ReconnectPolicy(max_attempts=3, initial_delay=0.01, jitter=0))
        await client.connect()
        updates: list[Waiting] = []
        join = asyncio.create_task(client.join(ROOM, on_waiting=updates.append))
        await until(lambda: len(updates) == 1, "the first wait")
        client.drop_connection()
        await until(lambda: len(updates) == 2, "the wait after the reconnect")
        assert not join.done() and client.rooms[ROOM].waiting_position == 2
        second = gateway.sent_of("join")[1]
        assert second["room"] == ROOM and "resume" not in second
        gateway.push({"type": "ack", "id": second["id"], "room": ROOM, "seq": 7, "changed": True,
                      "rights": {"role": "participant"}})
        gateway.push(snapshot())
        room = await asyncio.wait_for(join, 2)
        assert room.waiting_position is None and room.rights == {"role": "participant"}
        assert [person.uid for person in room.participants] == ["host", "carol"]
        await client.close()

    asyncio.run(scenario())
