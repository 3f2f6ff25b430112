"""Who waits in a room's waiting room, as the `waiting` view and the `waiting` query list them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class WaitingEntry:
    """One user in the waiting room (docs/PROTOCOL.md, "Waiting room").

    Attributes:
        uid: the user's uid.
        name: the display name from the token (the uid when it gave none).
        role: the role the user joins as: `participant` or `viewer` (those who may admit never wait).
        waiting_since: when the user arrived, milliseconds since the epoch.
        avatar: the avatar URL from the token.
        attributes: the token's `attrs`, which the backend vouches for (a company, a ticket type, ...).
    """

    uid: str
    name: str
    role: str
    waiting_since: int
    avatar: str | None = None
    attributes: Mapping[str, str] = field(default_factory=dict, hash=False)

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any], uid: str | None = None) -> WaitingEntry:
        """Reads an entry of the `waiting` query or the `waiting` view.

        Args:
            entry: the entry.
            uid: the view's key for it, when the entry has no `uid` of its own.
        """
        key = entry.get("uid")
        key = key if isinstance(key, str) else (uid or "")
        since = entry.get("waitingSince")
        avatar = entry.get("avatar")
        attributes = entry.get("attributes")
        return cls(
            uid=key,
            name=str(entry.get("name") or key),
            role=str(entry.get("role") or "participant"),
            waiting_since=since if isinstance(since, int) and not isinstance(since, bool) else 0,
            avatar=avatar if isinstance(avatar, str) else None,
            attributes={
                name: value
                for name, value in (attributes.items() if isinstance(attributes, dict) else ())
                if isinstance(value, str)
            },
        )


@dataclass(frozen=True)
class WaitingPage:
    """One page of the `waiting` query: who waits, in arrival order.

    Attributes:
        room: the room.
        seq: the room's sequence number the page was read at.
        admission_required: whether the waiting room is on.
        total: how many wait in all.
        entries: this page's entries, in arrival order.
        next: the position to ask after (`after`) for the next page; None on the last.
    """

    room: str
    seq: int
    admission_required: bool
    total: int
    entries: tuple[WaitingEntry, ...]
    next: int | None

    @classmethod
    def from_result(cls, result: Mapping[str, Any]) -> WaitingPage:
        """Reads the `result` of a `waiting` query.

        Args:
            result: the parsed message.
        """
        entries = result.get("waiting")
        after = result.get("next")
        total = result.get("total")
        return cls(
            room=str(result.get("room") or ""),
            seq=int(result.get("seq") or 0),
            admission_required=result.get("admissionRequired") is True,
            total=total if isinstance(total, int) else 0,
            entries=tuple(
                WaitingEntry.from_entry(entry) for entry in (entries if isinstance(entries, list) else ())
                if isinstance(entry, dict)
            ),
            next=after if isinstance(after, int) and not isinstance(after, bool) else None,
        )
