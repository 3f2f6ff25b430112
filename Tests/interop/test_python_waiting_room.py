"""The waiting room through the Python client and the moderator bot example against `rollcall serve`: the bot turns
the waiting room on and lets in the attendees its rule admits (while a seat is free), turns the others away with its
reason, and a wait nobody answers runs out. Every wait is bounded.
"""

import asyncio
import sys

import pytest
from test_call_end_to_end import PROJECT_ROOT, rollcall, run  # noqa: F401
from test_python_client import API_SECRET, FAST, client, key
from test_python_examples import development_key, lines_until, next_line

from rollcall import (
    AdmissionDeniedError,
    Admitted,
    AsyncServerAPI,
    Client,
    ForbiddenError,
    SnapshotReplaced,
    Waiting,
    WaitExpiredError,
    mint_token,
)

ROOM = "webinar"
BOT = PROJECT_ROOT / "clients" / "python" / "examples" / "moderator_bot.py"
DENY_REASON = "this webinar is for registered attendees"
LINE_TIMEOUT = 15.0
JOIN_TIMEOUT = 15.0
SHORT_REQUEST_TIMEOUT = 0.5


def waiting_client(server, uid, **claims):
    """A client whose requests time out after half a second: a join that waits longer in the waiting room shows
    that a held join is not a timed-out request."""
    token = mint_token(key(), uid, name=uid.title(), **claims)
    return Client(server.url, token, device=f"{uid}-device", request_timeout=SHORT_REQUEST_TIMEOUT, open_timeout=5,
                  reconnect=FAST)


async def eventually(predicate, what, timeout=JOIN_TIMEOUT):
    for _ in range(int(timeout / 0.02)):
        if predicate():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


async def start_bot(server, *options):
    """The example bot, run by this interpreter from the sources, once it has joined and turned the waiting room
    on."""
    bot = await asyncio.create_subprocess_exec(
        sys.executable, str(BOT), "--url", server.url, "--room", ROOM, "--key", development_key(),
        "--check-seconds", "0.5", "--require-admission", *options,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    assert await next_line(bot, "joining") == f"joined {ROOM} as moderator-bot"
    assert await next_line(bot, "the waiting room") == f"the waiting room of {ROOM} is on"
    return bot


async def stop_bot(bot):
    """Stops the bot with SIGINT; returns the roster line it printed."""
    try:
        if bot.returncode is None:
            bot.send_signal(2)
            line, _ = await lines_until(bot, "roster ", "the final roster")
            assert await asyncio.wait_for(bot.wait(), LINE_TIMEOUT) == 0
            return line
        return None
    finally:
        if bot.returncode is None:
            bot.kill()
            await bot.wait()


def test_the_bot_admits_the_attendees_its_rule_lets_in_while_a_seat_is_free_and_denies_the_others(rollcall):
    server = rollcall(**{"rooms.capacity": 1})

    async def scenario():
        bot = await start_bot(server, "--admit-attribute", "company=acme,globex", "--admit-uid", "grace",
                              "--deny-reason", DENY_REASON)
        people = []
        try:
            host = client(server, "host", rooms=[ROOM], role="moderator")
            carol = client(server, "carol", rooms=[ROOM], attributes={"company": "acme"})
            dave = client(server, "dave", rooms=[ROOM], attributes={"company": "initech"})
            grace = waiting_client(server, "grace", rooms=[ROOM])
            people = [host, carol, dave, grace]
            for each in people:
                await each.connect()
            # The host may admit, so it does not wait; it watches the roster.
            host_room = await asyncio.wait_for(host.join(ROOM), JOIN_TIMEOUT)
            assert host_room.admission_required and host_room.waiting_position is None
            with pytest.raises(ForbiddenError):
                await (await asyncio.wait_for(dave.observe(ROOM), JOIN_TIMEOUT)).waiting()
            await dave.rooms[ROOM].leave()

            # Carol's company is on the list: she waits, the bot admits her, and her join completes with the roster.
            updates = []
            carol_room = await asyncio.wait_for(carol.join(ROOM, on_waiting=updates.append), JOIN_TIMEOUT)
            assert updates and updates[0] == Waiting(ROOM, 1, updates[0].waiting_since, updates[0].expires_at)
            assert updates[0].max_wait == 900.0
            assert carol_room.waiting_position is None and carol_room.store is not None
            # The snapshot is the roster as last sent; a join within the coalescing window arrives as the patch
            # after it.
            await carol_room.wait_for(
                lambda room: {"host", "carol", "moderator-bot"} <= {person.uid for person in room.participants})
            await host_room.wait_for(lambda room: room.participant("carol") is not None)
            admitted, _ = await lines_until(bot, "admitted ", "admitting Carol")
            assert admitted == "admitted carol (company=acme)"

            # Dave's is not: the bot turns him away with its reason.
            with pytest.raises(AdmissionDeniedError) as denied:
                await asyncio.wait_for(dave.join(ROOM), JOIN_TIMEOUT)
            assert denied.value.reason == DENY_REASON and denied.value.code == "ERR_ADMISSION_DENIED"
            assert ROOM not in dave.rooms
            line, _ = await lines_until(bot, "denied ", "denying Dave")
            assert line == f"denied dave: {DENY_REASON}"

            # Grace is on the list by uid, but Carol holds the one seat: Grace waits until Carol leaves.
            await host_room.wait_for(lambda room: room.waiting_count == 0, timeout=JOIN_TIMEOUT)
            changes = []
            grace_join = asyncio.create_task(grace.join(ROOM))
            await eventually(lambda: ROOM in grace.rooms and grace.rooms[ROOM].waiting_position == 1, "Grace's wait")
            grace.rooms[ROOM].on_change(changes.append)
            line, _ = await lines_until(bot, "kept ", "keeping Grace waiting")
            assert line == "kept grace waiting: no free seat"
            await asyncio.sleep(3 * SHORT_REQUEST_TIMEOUT)  # past Grace's request timeout
            assert not grace_join.done() and grace.rooms[ROOM].waiting_position == 1
            page = await host_room.waiting_page(limit=10)
            assert page.admission_required and page.total == 1 and page.next is None
            assert [entry.uid for entry in page.entries] == ["grace"] and page.entries[0].name == "Grace"
            await carol_room.leave()
            grace_room = await asyncio.wait_for(grace_join, JOIN_TIMEOUT)
            assert grace_room.waiting_position is None
            await grace_room.wait_for(lambda room: room.participant("grace") is not None)
            assert [type(change) for change in changes if isinstance(change, (Admitted, SnapshotReplaced))] == [
                Admitted, SnapshotReplaced]
            line, _ = await lines_until(bot, "admitted ", "admitting Grace")
            assert line == "admitted grace (uid)"
            await host_room.wait_for(lambda room: room.waiting_count == 0 and room.participant("grace") is not None)
        finally:
            roster_line = await stop_bot(bot)
            for each in people:
                await each.close()
        assert roster_line is not None and '"grace"' in roster_line

    run(scenario())


def test_a_wait_nobody_answers_runs_out_and_the_join_raises_wait_expired(rollcall):
    server = rollcall(**{"rooms.waiting_max_ms": 1500, "api.keys": f"ops:{API_SECRET}"})
    api = AsyncServerAPI(server.url.replace("ws://", "http://").rsplit("/v1/ws", 1)[0], API_SECRET, timeout=5)

    async def scenario():
        host = client(server, "host", rooms=[ROOM], role="moderator")
        erin = waiting_client(server, "erin", rooms=[ROOM], attributes={"ticket": "late"})
        # A guest link: the token makes its holder wait even while the waiting room is off.
        guest = waiting_client(server, "guest", rooms=[ROOM], admission={ROOM: "wait"})
        people = [host, erin, guest]
        for each in people:
            await each.connect()
        try:
            host_room = await asyncio.wait_for(host.join(ROOM), JOIN_TIMEOUT)
            assert not host_room.admission_required
            guest_updates = []
            guest_join = asyncio.create_task(guest.join(ROOM, on_waiting=guest_updates.append))
            await host_room.wait_for(lambda room: room.waiting_count == 1, timeout=JOIN_TIMEOUT)
            assert not host_room.admission_required
            assert (await host_room.require_admission()).changed
            await host_room.wait_for(lambda room: room.admission_required)
            loop = asyncio.get_running_loop()
            started = loop.time()
            erin_join = asyncio.create_task(erin.join(ROOM))
            await host_room.wait_for(lambda room: room.waiting_count == 2, timeout=JOIN_TIMEOUT)
            waiting = await host_room.waiting()
            assert [(entry.uid, dict(entry.attributes)) for entry in waiting] == [
                ("guest", {}), ("erin", {"ticket": "late"})]
            # The server API lists the same, a page at a time.
            first = await api.waiting(ROOM, limit=1)
            assert first.admission_required and first.total == 2 and first.next == 1
            assert [entry.uid for entry in first.entries] == ["guest"]
            second = await api.waiting(ROOM, after=first.next)
            assert [entry.uid for entry in second.entries] == ["erin"] and second.next is None
            await eventually(lambda: erin.rooms[ROOM].waiting_position == 2, "Erin's position")
            # Nobody answers: both waits run out after 1.5 s, three times the clients' request timeout.
            with pytest.raises(WaitExpiredError) as expired:
                await asyncio.wait_for(guest_join, JOIN_TIMEOUT)
            assert expired.value.code == "ERR_WAIT_EXPIRED"
            assert guest_updates and guest_updates[0].max_wait == 1.5
            # Guest's place is free: Erin moves up before her wait runs out too.
            await eventually(lambda: ROOM not in erin.rooms or erin.rooms[ROOM].waiting_position == 1, "Erin's move")
            with pytest.raises(WaitExpiredError):
                await asyncio.wait_for(erin_join, JOIN_TIMEOUT)
            assert 1.0 <= loop.time() - started < JOIN_TIMEOUT
            assert ROOM not in erin.rooms and ROOM not in guest.rooms
            await host_room.wait_for(lambda room: room.waiting_count == 0, timeout=JOIN_TIMEOUT)
            assert await host_room.waiting() == []
        finally:
            for each in people:
                await each.close()

    run(scenario())
