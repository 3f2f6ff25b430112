"""Answers are matched to requests by id; a join completes on the room's roster after its ack."""

from __future__ import annotations

import asyncio

import pytest

from rollcall import CallFullError, ConnectionClosed
from rollcall.requests import PendingRequests


def test_answers_complete_their_requests() -> None:
    async def scenario() -> None:
        table = PendingRequests()
        ping_id, ping = table.add()
        query_id, query = table.add()
        assert not table.answer({"type": "pong", "id": 99})
        assert table.answer({"type": "result", "id": query_id, "uids": []})
        assert table.answer({"type": "pong", "id": ping_id})
        assert (await ping)["type"] == "pong" and (await query)["uids"] == []
        failing_id, failing = table.add()
        assert table.answer({"type": "error", "id": failing_id, "code": "ERR_CALL_FULL", "message": "full"})
        with pytest.raises(CallFullError):
            await failing

    asyncio.run(scenario())


def test_a_join_waits_for_its_roster_after_the_ack() -> None:
    async def scenario() -> None:
        table = PendingRequests()
        join_id, join = table.add(room="standup", completes_on_roster=True)
        table.roster_arrived("standup")
        assert not join.done(), "a snapshot before the ack belongs to an earlier join"
        assert table.answer({"type": "ack", "id": join_id, "room": "standup", "seq": 3})
        assert not join.done()
        table.roster_arrived("other")
        assert not join.done()
        table.roster_arrived("standup")
        assert (await join)["seq"] == 3

    asyncio.run(scenario())


def test_a_closed_connection_fails_what_waits() -> None:
    async def scenario() -> None:
        table = PendingRequests()
        _, first = table.add()
        _, second = table.add(room="standup", completes_on_roster=True)
        table.fail_all(ConnectionClosed(1001, "going away"))
        for future in (first, second):
            with pytest.raises(ConnectionClosed):
                await future

    asyncio.run(scenario())
