"""What every roster view counts, whatever its filter: the room entry's `counts` (docs/PROTOCOL.md, "The room
entry")."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ViewCounts:
    """The counts of a view's room entry, over the participants in the call that the lists show (observers and
    hidden participants are not counted). The entry leaves a count at zero out; here it reads 0.

    Attributes:
        in_call: participants in the call (the room entry's `participantCount`).
        hands_raised: with a hand raised.
        muted: with audio muted, by themselves or by a moderator.
        video: with the camera on (`videoPaused` false).
        presenting: sharing their screen.
        roles: by role (`admin`, `moderator`, `participant`, `viewer`, `bot`); a role nobody in the call has is
            absent (`count_of` reads it as 0).
    """

    in_call: int = 0
    hands_raised: int = 0
    muted: int = 0
    video: int = 0
    presenting: int = 0
    roles: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def from_entry(cls, counts: Any) -> ViewCounts:
        """Reads a room entry's `counts` object; anything else (no snapshot yet, an older gateway) reads as zeros.

        Args:
            counts: the room entry's `counts`.
        """
        entry: Mapping[str, Any] = counts if isinstance(counts, dict) else {}

        def count(value: Any) -> int:
            return value if isinstance(value, int) and not isinstance(value, bool) else 0

        roles = entry.get("roles")
        return cls(
            in_call=count(entry.get("inCall")),
            hands_raised=count(entry.get("handsRaised")),
            muted=count(entry.get("muted")),
            video=count(entry.get("video")),
            presenting=count(entry.get("presenting")),
            roles={role: count(value) for role, value in roles.items() if count(value) > 0}
            if isinstance(roles, dict)
            else {},
        )

    def count_of(self, role: str) -> int:
        """How many in the call have `role`.

        Args:
            role: `admin`, `moderator`, `participant`, `viewer` or `bot`.
        """
        return self.roles.get(role, 0)
