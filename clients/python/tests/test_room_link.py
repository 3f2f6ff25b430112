"""The package's dependencies point one way, and a room works over the narrow link it is given, without a session."""

from __future__ import annotations

import ast
import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from rollcall import ForbiddenError, NotConnected, RoomMirror, roster_checksum
from rollcall.room import Room

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "rollcall"


def imported_modules(path: Path) -> set[str]:
    """The package's modules a module imports, type-checking imports included."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module is not None:
                found.add(node.module.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
    return found


def test_no_module_of_the_package_imports_one_that_imports_it_back() -> None:
    graph = {path.stem: imported_modules(path) for path in PACKAGE.glob("*.py") if path.stem != "__init__"}
    assert graph["session"] >= {"room", "mirror"}
    assert "session" not in graph["room"]

    def reaches(start: str, target: str) -> bool:
        seen: set[str] = set()
        stack = list(graph.get(start, ()))
        while stack:
            module = stack.pop()
            if module == target:
                return True
            if module not in seen:
                seen.add(module)
                stack.extend(graph.get(module, ()))
        return False

    cycles = sorted(module for module in graph if reaches(module, module))
    assert cycles == []


class RecordingLink:
    """A RoomLink that records what a room sends and answers from a script."""

    def __init__(self, uid: str | None = "alice") -> None:
        self.uid = uid
        self.requests: list[dict[str, Any]] = []
        self.sent: list[dict[str, Any]] = []
        self.forgotten: list[Room] = []
        self.refusal: Exception | None = None

    async def request(
        self, message: Mapping[str, Any], *, room: str | None = None, completes_on_roster: bool = False
    ) -> dict[str, Any]:
        self.requests.append({**message, "_room": room, "_roster": completes_on_roster})
        if self.refusal is not None:
            raise self.refusal
        return {"type": "ack", "changed": True, "rights": {"role": "participant"}}

    async def send(self, message: Mapping[str, Any]) -> None:
        self.sent.append(dict(message))

    def forget(self, room: Room) -> None:
        self.forgotten.append(room)


def test_a_room_sends_its_requests_and_reports_over_the_link_and_asks_it_to_forget_it_when_it_leaves() -> None:
    link = RecordingLink()
    room = Room(link, RoomMirror("standup", device="d1"))

    async def scenario() -> None:
        await room._join()
        await room.set_audio_muted(True)
        await room.report_speaking(True)
        await room.report_speaking(False)
        await room.leave()

    asyncio.run(scenario())
    assert [(request["type"], request["_roster"]) for request in link.requests] == [
        ("join", True), ("state", False), ("leave", False)]
    assert link.requests[1]["audioMuted"] is True and link.requests[1]["room"] == "standup"
    assert link.sent == [{"type": "speaker", "room": "standup", "uid": "alice"},
                         {"type": "speaker", "room": "standup", "uid": None}]
    assert room.rights == {"role": "participant"}
    assert link.forgotten == [room] and not room.active


def test_a_room_without_an_identity_cannot_report_its_own_speaking() -> None:
    room = Room(RecordingLink(uid=None), RoomMirror("standup"))
    with pytest.raises(NotConnected):
        asyncio.run(room.report_speaking(True))


def test_a_refused_rejoin_ends_the_room_and_has_the_link_forget_it_while_a_dropped_one_waits() -> None:
    link = RecordingLink()
    room = Room(link, RoomMirror("standup"))
    roster: dict[str, Any] = {"room": {}, "participants": {}}
    room._handle({"type": "snapshot", "room": "standup", "seq": 4, "roster": roster,
                  "checksum": roster_checksum(roster)})
    link.refusal = NotConnected("dropped")
    asyncio.run(room._rejoin(resume=True))
    assert room.active and link.forgotten == []
    assert link.requests[-1]["resume"] == 4
    link.refusal = ForbiddenError("ERR_FORBIDDEN", "no longer allowed")
    asyncio.run(room._rejoin(resume=True))
    assert not room.active and link.forgotten == [room]
