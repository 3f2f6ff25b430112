"""A live mirror of one room's roster view: the snapshot, then every patch, checked as docs/PROTOCOL.md says.

Every patch must start where the roster is (`from` <= seq < patch `seq`) and the roster after it must match the
server's checksum. The store keeps one hash per entry, so a patch costs the entries it touches, not the whole roster.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .checksum import checksum_hex, entry_hash
from .counts import ViewCounts
from .errors import RollcallError
from .merge_patch import apply_merge_patch
from .participant import Participant

_MASK = 0xFFFFFFFFFFFFFFFF


class RosterDrift(RollcallError):
    """A snapshot or patch the store could not apply; the client should join again.

    Attributes:
        kind: `gap` (a patch starts after the roster's seq: something was missed), `checksum` (the roster differs
            from the server's), `order` (a patch ends at or before the roster's seq) or `malformed`.
    """

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind

    @property
    def resumable(self) -> bool:
        """Whether joining again with `resume` can repair it (a gap); otherwise a fresh snapshot is needed."""
        return self.kind == "gap"


@dataclass(frozen=True)
class PatchOutcome:
    """What a patch did to the roster.

    Attributes:
        applied: False for a replayed patch the roster already holds.
        room_changed: whether the room entry changed.
        added: participants who entered the view.
        updated: participants whose entry changed.
        removed: participants who left the view.
    """

    applied: bool
    room_changed: bool = False
    added: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()


class RosterStore:
    """The roster of one room view at one sequence number.

    Attributes:
        room: the room id.
    """

    def __init__(self, room: str, seq: int, roster: Mapping[str, Any], server_checksum: str | None = None) -> None:
        """Starts from a roster object; checks it against `server_checksum` when given.

        Args:
            room: the room id.
            seq: the sequence number the roster is at.
            roster: `{"room": {...}, "participants": {uid: {...}}}`.
            server_checksum: the checksum the server sent with it.

        Raises:
            RosterDrift: `checksum` when the roster does not match.
        """
        self.room = room
        self._seq = seq
        self._roster: dict[str, Any] = dict(roster)
        self._server_checksum = server_checksum
        self._room_hash = 0
        self._hashes: dict[str, int] = {}
        self._sum = 0
        self._rehash_all()
        self._verify(self._sum, server_checksum)

    @classmethod
    def from_snapshot(cls, message: Mapping[str, Any]) -> RosterStore:
        """Starts from a `snapshot` message.

        Args:
            message: the parsed message.

        Raises:
            RosterDrift: `malformed` when it is not a snapshot with a roster, `checksum` when the roster does not
                match the message's checksum.
        """
        room, seq, roster = message.get("room"), message.get("seq"), message.get("roster")
        if message.get("type") != "snapshot" or not isinstance(room, str) or not isinstance(seq, int):
            raise RosterDrift("malformed", "not a snapshot with a room and a seq")
        if not isinstance(roster, dict):
            raise RosterDrift("malformed", "the snapshot has no roster")
        return cls(room, seq, roster, message.get("checksum"))

    # MARK: State

    @property
    def seq(self) -> int:
        """The sequence number the roster is at: its last snapshot or patch."""
        return self._seq

    @property
    def roster(self) -> dict[str, Any]:
        """The roster object; treat it as read-only (patches replace the parts they change)."""
        return self._roster

    @property
    def server_checksum(self) -> str | None:
        """The checksum the server sent with the last snapshot or patch."""
        return self._server_checksum

    @property
    def checksum(self) -> str:
        """The checksum of the roster as held."""
        return checksum_hex(self._sum)

    @property
    def room_state(self) -> Mapping[str, Any]:
        """The room entry: `callType`, `recording`, `activeSpeaker`, `capacity`, `participantCount`, ..."""
        room = self._roster.get("room")
        return room if isinstance(room, dict) else {}

    @property
    def counts(self) -> ViewCounts:
        """What every view counts (the room entry's `counts`): in the call, hands raised, muted, on video,
        presenting, by role."""
        return ViewCounts.from_entry(self.room_state.get("counts"))

    @property
    def view_total(self) -> int | None:
        """How many entries match the view's filter before its `offset` and `limit` (the room entry's `total`): a
        page of `limit` is one of `ceil(total / limit)`. None from a gateway that does not send it."""
        total = self.room_state.get("total")
        return total if isinstance(total, int) and not isinstance(total, bool) else None

    @property
    def participants(self) -> list[Participant]:
        """The participants of the view in join order."""
        entries = self._participant_entries()
        people = [Participant.from_entry(uid, entry) for uid, entry in entries.items() if isinstance(entry, dict)]
        return sorted(people, key=lambda person: (person.order, person.uid))

    def participant(self, uid: str) -> Participant | None:
        """One participant by uid, if in the view.

        Args:
            uid: the participant's uid.
        """
        entry = self._participant_entries().get(uid)
        return Participant.from_entry(uid, entry) if isinstance(entry, dict) else None

    # MARK: Patches

    def apply_patch(self, message: Mapping[str, Any]) -> PatchOutcome:
        """Applies a `patch` message, or leaves the store as it was when it raises.

        A patch replayed by a resume that the roster already holds (`recovered`, `seq` not after the roster's) is
        skipped.

        Args:
            message: the parsed message.

        Returns:
            What changed.

        Raises:
            RosterDrift: `gap` when the patch starts after the roster's seq, `order` when it ends at or before it,
                `checksum` when the result differs from the server's, `malformed` for a message without the
                fields of a patch.
        """
        start, end, patch = message.get("from"), message.get("seq"), message.get("patch")
        if message.get("type") != "patch" or message.get("room") != self.room:
            raise RosterDrift("malformed", f"not a patch for room {self.room}")
        if not isinstance(start, int) or not isinstance(end, int) or patch is None:
            raise RosterDrift("malformed", "a patch without from, seq and patch")
        if message.get("recovered") is True and end <= self._seq:
            return PatchOutcome(applied=False)
        if start > self._seq:
            raise RosterDrift("gap", f"patch from {start} while the roster is at {self._seq}")
        if end <= self._seq:
            raise RosterDrift("order", f"patch from {start} to {end} does not follow seq {self._seq}")
        result = apply_merge_patch(self._roster, patch)
        if not isinstance(result, dict):
            raise RosterDrift("malformed", "the patch replaced the roster with a non-object")
        before = self._participant_entries()
        outcome = self._outcome(patch, before)
        saved = (self._roster, self._room_hash, dict(self._hashes), self._sum)
        self._roster = result
        if self._touches_only_entries(patch):
            self._rehash(patch)
        else:
            self._rehash_all()
        try:
            self._verify(self._sum, message.get("checksum"))
        except RosterDrift:
            self._roster, self._room_hash, self._hashes, self._sum = saved
            raise
        self._seq = end
        self._server_checksum = message.get("checksum")
        return outcome

    # MARK: Hashes

    def _participant_entries(self) -> dict[str, Any]:
        participants = self._roster.get("participants")
        return participants if isinstance(participants, dict) else {}

    @staticmethod
    def _touches_only_entries(patch: Any) -> bool:
        """Whether the patch changes `room` and participant entries only, so the other hashes stay valid."""
        if not isinstance(patch, dict) or not set(patch) <= {"room", "participants"}:
            return False
        return "participants" not in patch or isinstance(patch["participants"], dict)

    def _rehash(self, patch: dict[str, Any]) -> None:
        if "room" in patch:
            self._sum = (self._sum - self._room_hash) & _MASK
            self._room_hash = entry_hash("room", self._roster.get("room", {}))
            self._sum = (self._sum + self._room_hash) & _MASK
        entries = self._participant_entries()
        for uid in patch.get("participants") or {}:
            self._sum = (self._sum - self._hashes.pop(uid, 0)) & _MASK
            if uid in entries:
                value = entry_hash(uid, entries[uid])
                self._hashes[uid] = value
                self._sum = (self._sum + value) & _MASK

    def _rehash_all(self) -> None:
        self._room_hash = entry_hash("room", self._roster.get("room", {}))
        self._hashes = {uid: entry_hash(uid, entry) for uid, entry in self._participant_entries().items()}
        self._sum = self._room_hash
        for value in self._hashes.values():
            self._sum = (self._sum + value) & _MASK

    def _verify(self, value: int, expected: Any) -> None:
        if expected is None:
            return
        actual = checksum_hex(value)
        if actual != expected:
            raise RosterDrift("checksum", f"checksum {actual} differs from the server's {expected} at seq {self._seq}")

    @staticmethod
    def _outcome(patch: Any, before: Mapping[str, Any]) -> PatchOutcome:
        if not isinstance(patch, dict):
            return PatchOutcome(applied=True, room_changed=True)
        added: list[str] = []
        updated: list[str] = []
        removed: list[str] = []
        participants = patch.get("participants")
        for uid, value in (participants.items() if isinstance(participants, dict) else ()):
            if value is None:
                if uid in before:
                    removed.append(uid)
            elif uid in before:
                updated.append(uid)
            else:
                added.append(uid)
        return PatchOutcome(
            applied=True,
            room_changed="room" in patch,
            added=tuple(added),
            updated=tuple(updated),
            removed=tuple(removed),
        )
