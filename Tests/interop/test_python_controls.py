"""The room lock and version-checked writes through the Python client against the built binary: the rooms protocol
(`Room.lock`, `Room.set_metadata(if_seq=...)`) and the server API client (`ServerAPI.set_metadata(if_seq=...)`,
`ConflictError` with HTTP 409)."""

import asyncio

import pytest
from test_call_end_to_end import ROOM, rollcall, run  # noqa: F401
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
