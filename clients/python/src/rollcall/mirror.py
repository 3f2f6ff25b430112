"""One subscription's bookkeeping, without I/O: its roster store, the two resume positions, and what to do next.

The mirror applies snapshots, patches, events and `resumed` messages; keeps the roster's seq (its last snapshot or
patch) and the highest seq received on any message of the room (messages arrive in log order, so the subscription has
every event it takes up to there), which a rejoin sends as `resume` and `resumeEvents`; and asks for a rejoin when the
roster drifted (with `resume` after a gap, for a fresh snapshot after a checksum mismatch), at most three times in a
row.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .events import (
    DriftDetected,
    Event,
    EventReceived,
    ParticipantAdded,
    ParticipantRemoved,
    ParticipantUpdated,
    Resumed,
    RoomChange,
    RoomUpdated,
    SnapshotReplaced,
)
from .roster import RosterDrift, RosterStore
from .views import EventMode, JoinAs, View

MAXIMUM_DRIFT_STREAK = 3
"""Rejoins asked for in a row after drift before the mirror stops asking (the roster stays as it is)."""


@dataclass(frozen=True)
class Rejoin:
    """Join the room again: with `resume` to replay what was missed, without for a fresh snapshot."""

    resume: bool


class RoomMirror:
    """The state of one subscription: what it joined with, its roster, its positions.

    Attributes:
        room: the room id.
        join_as: `participant` or `observer`.
        device: the device id sent with the join.
        view: the roster view mirrored.
        events: the events received besides patches.
        call_type: `audio` or `video`, sent with a participant's join.
    """

    def __init__(
        self,
        room: str,
        *,
        join_as: JoinAs = "participant",
        device: str = "default",
        view: View | None = None,
        events: EventMode = "all",
        call_type: str | None = None,
    ) -> None:
        self.room = room
        self.join_as = join_as
        self.device = device
        self.view = view or View()
        self.events = events
        self.call_type = call_type
        self.store: RosterStore | None = None
        self.last_event_seq = 0
        self.recovered: bool | None = None
        self.drift_streak = 0

    @property
    def seq(self) -> int:
        """The sequence number the roster is at; 0 before the first snapshot."""
        return self.store.seq if self.store is not None else 0

    def join_message(self, resume: bool) -> dict[str, Any]:
        """The `join` message for this subscription (without an id).

        Args:
            resume: whether to ask for what was missed since the positions held (ignored before a first snapshot).
        """
        message: dict[str, Any] = {"type": "join", "room": self.room}
        if self.join_as == "observer":
            message["as"] = "observer"
        message["device"] = self.device
        if self.call_type is not None and self.join_as == "participant":
            message["callType"] = self.call_type
        message["view"] = self.view.to_json()
        message["events"] = self.events
        if resume and self.store is not None:
            message["resume"] = self.store.seq
            message["resumeEvents"] = max(self.last_event_seq, 0)
        return message

    def handle(self, message: Mapping[str, Any]) -> tuple[list[RoomChange], Rejoin | None]:
        """Applies a `snapshot`, `patch`, `event` or `resumed` message for this room.

        Args:
            message: the parsed message.

        Returns:
            What changed, in order, and the rejoin to send when the roster drifted.
        """
        kind = message.get("type")
        if kind == "snapshot":
            return self._snapshot(message)
        if kind == "patch":
            return self._patch(message)
        if kind == "event":
            event = Event.from_message(message)
            if event is None or event.seq <= self.last_event_seq:
                return [], None
            self.last_event_seq = event.seq
            return [EventReceived(event)], None
        if kind == "resumed":
            recovered = message.get("recovered") is True
            self.recovered = recovered
            seq = message.get("seq")
            if isinstance(seq, int):
                self.last_event_seq = max(self.last_event_seq, seq)
            return [Resumed(recovered)], None
        return [], None

    def _snapshot(self, message: Mapping[str, Any]) -> tuple[list[RoomChange], Rejoin | None]:
        try:
            store = RosterStore.from_snapshot(message)
        except RosterDrift as drift:
            return self._drifted(drift)
        self.store = store
        self.drift_streak = 0
        self.last_event_seq = max(self.last_event_seq, store.seq)
        recovered = message.get("recovered")
        recovered = recovered if isinstance(recovered, bool) else None
        changes: list[RoomChange] = [SnapshotReplaced(resync=message.get("resync") is True, recovered=recovered)]
        if recovered is False:
            self.recovered = False
            changes.append(Resumed(False))
        return changes, None

    def _patch(self, message: Mapping[str, Any]) -> tuple[list[RoomChange], Rejoin | None]:
        if self.store is None:
            return [], None
        try:
            outcome = self.store.apply_patch(message)
        except RosterDrift as drift:
            return self._drifted(drift)
        if not outcome.applied:
            return [], None
        self.drift_streak = 0
        self.last_event_seq = max(self.last_event_seq, self.store.seq)
        changes: list[RoomChange] = [RoomUpdated()] if outcome.room_changed else []
        changes += [ParticipantRemoved(uid) for uid in outcome.removed]
        changes += [ParticipantUpdated(uid) for uid in outcome.updated]
        changes += [ParticipantAdded(uid) for uid in outcome.added]
        return changes, None

    def _drifted(self, drift: RosterDrift) -> tuple[list[RoomChange], Rejoin | None]:
        self.drift_streak += 1
        rejoin = Rejoin(resume=drift.resumable) if self.drift_streak <= MAXIMUM_DRIFT_STREAK else None
        return [DriftDetected(str(drift))], rejoin
