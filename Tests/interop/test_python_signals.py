"""Ephemeral signals through the Python client against the built binary: `Room.signal` and `Room.on_signal`, to
the room and to one participant, the senders refused, the rate limit, and no trace in the room's log (the `seq`
does not move, the history with a store does not change); across two cluster nodes on
Redis, without entering the shared stream."""

import asyncio

import pytest
from rollcall import (
    ForbiddenError,
    NotFoundError,
    RateLimitedError,
    Signal,
    TooLargeError,
)
from test_call_end_to_end import ROOM, rollcall, run  # noqa: F401
from test_cluster import nodes, redis, single_and_cluster  # noqa: F401
from test_python_client import client


def inbox(room):
    """A queue of the signals a room receives from now on."""
    queue: asyncio.Queue[Signal] = asyncio.Queue()
    room.on_signal(queue.put_nowait)
    return queue


async def next_signal(queue):
    return await asyncio.wait_for(queue.get(), 5)


def test_signals_reach_the_room_or_one_participant_and_leave_no_trace_in_the_log(rollcall, tmp_path):
    server = rollcall(**{"storage.path": str(tmp_path / "rooms.db"), "rooms.signals_per_second": 5})

    async def scenario():
        alice = client(server, "alice", groups=[ROOM])
        bob = client(server, "bob", groups=[ROOM])
        vic = client(server, "vic", rooms=[ROOM], role="viewer")
        for each in (alice, bob, vic):
            await each.connect()
        alice_room, bob_room = await alice.join(ROOM), await bob.join(ROOM)
        vic_room = await vic.observe(ROOM)
        await alice_room.wait_for(lambda room: room.participant("bob") is not None)
        alice_box, bob_box, vic_box = inbox(alice_room), inbox(bob_room), inbox(vic_room)
        seq = alice_room.seq
        history = await alice.query("history", room=ROOM)

        await alice_room.signal("reaction", {"emoji": "🎉"})
        for box in (bob_box, vic_box):
            got = await next_signal(box)
            expected = (ROOM, "alice", "reaction", {"emoji": "🎉"}, None)
            assert (got.room, got.sender, got.kind, got.data, got.to) == expected
        await bob_room.signal("nudge", {"text": "mic"}, to="alice")
        got = await next_signal(alice_box)
        assert (got.sender, got.to, got.data) == ("bob", "alice", {"text": "mic"})

        with pytest.raises(ForbiddenError):
            await vic_room.signal("reaction", {"emoji": "👋"})
        with pytest.raises(NotFoundError):
            await bob_room.signal("nudge", to="nobody")
        with pytest.raises(TooLargeError):
            await bob_room.signal("blob", "x" * 2000)
        # Alice's burst runs out well before a hundred signals sent back to back; each one sent arrives.
        sent = 0
        with pytest.raises(RateLimitedError):
            for _ in range(100):
                await alice_room.signal("reaction", {"emoji": "👏"})
                sent += 1
        assert 0 < sent < 100
        for box in (bob_box, vic_box):
            for _ in range(sent):
                assert (await next_signal(box)).data == {"emoji": "👏"}
        assert alice_box.empty()

        # Nothing of it is in the log: the same seq, the same history.
        assert (await alice_room.set_attributes({"mark": "1"})).seq == seq + 1
        after = await alice.query("history", room=ROOM)
        assert after["events"][:-1] == history["events"]
        for each in (alice, bob, vic):
            await each.close()

    run(scenario())


@single_and_cluster
def test_a_signal_reaches_a_participant_on_another_node_without_entering_the_shared_log(nodes):
    node_a, node_b = nodes(), nodes()

    async def scenario():
        alice, bob = client(node_a, "alice", groups=[ROOM]), client(node_b, "bob", groups=[ROOM])
        for each in (alice, bob):
            await each.connect()
        alice_room, bob_room = await alice.join(ROOM), await bob.join(ROOM)
        await alice_room.wait_for(lambda room: room.participant("bob") is not None)
        await bob_room.wait_for(lambda room: room.seq == alice_room.seq)
        seq = bob_room.seq
        bob_box = inbox(bob_room)
        await alice_room.signal("reaction", {"emoji": "🚀"})
        got = await next_signal(bob_box)
        assert (got.sender, got.kind, got.data) == ("alice", "reaction", {"emoji": "🚀"})
        await alice_room.signal("nudge", to="bob")
        assert (await next_signal(bob_box)).to == "bob"
        # The next change is numbered right after the joins on both nodes: the signals took no seq.
        assert (await bob_room.set_attributes({"mark": "1"})).seq == seq + 1
        await alice_room.wait_for(lambda room: room.seq == seq + 1)
        for each in (alice, bob):
            await each.close()

    run(scenario())
