"""What a subscription mirrors and receives: roster views, event modes and how a client is in a room."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .protocol import ViewFilter

EventMode = Literal["all", "notable", "none"]
"""Which room events a subscription receives besides roster patches (docs/PROTOCOL.md, "join")."""

JoinAs = Literal["participant", "observer"]
"""Join the call (`participant`; a bot token joins as the bot role) or watch it without joining (`observer`)."""


@dataclass(frozen=True)
class View:
    """Which part of a room's roster a subscription mirrors (docs/PROTOCOL.md, "Roster views").

    Attributes:
        filter: one of `VIEW_FILTERS`: `all`, `operators`, `muted`, `moderator_muted`, `restricted`, `banned`,
            `raised_hands`, `presenters`, `speakers`, `left` or `search`.
        query: the name to search for, with `search`.
        match: `prefix` (default) or `substring`, with `search`.
        limit: keep the first N matching participants in join order.
    """

    filter: ViewFilter = "all"
    query: str | None = None
    match: str | None = None
    limit: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The `view` object of a join or view message."""
        value: dict[str, Any] = {"filter": self.filter}
        if self.query is not None:
            value["query"] = self.query
        if self.match is not None:
            value["match"] = self.match
        if self.limit is not None:
            value["limit"] = self.limit
        return value

    @classmethod
    def all(cls) -> View:
        """The whole roster."""
        return cls()

    @classmethod
    def operators(cls) -> View:
        """Admins, moderators and promoted participants."""
        return cls("operators")

    @classmethod
    def muted(cls) -> View:
        """Participants with audio muted."""
        return cls("muted")

    @classmethod
    def banned(cls) -> View:
        """Banned users."""
        return cls("banned")

    @classmethod
    def raised_hands(cls) -> View:
        """Participants with a hand raised."""
        return cls("raised_hands")

    @classmethod
    def presenters(cls) -> View:
        """Participants sharing their screen."""
        return cls("presenters")

    @classmethod
    def speakers(cls) -> View:
        """The active speaker, as held."""
        return cls("speakers")

    @classmethod
    def first(cls, limit: int) -> View:
        """The first participants in join order ("visible tiles").

        Args:
            limit: how many.
        """
        return cls(limit=limit)

    @classmethod
    def search(cls, text: str, *, substring: bool = False) -> View:
        """Participants whose name matches, case-insensitively.

        Args:
            text: the text to match.
            substring: match anywhere in the name rather than at its start.
        """
        return cls("search", query=text, match="substring" if substring else "prefix")
