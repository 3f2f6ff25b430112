"""What a subscription mirrors and receives: roster views, event modes and how a client is in a room."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

from .protocol import ViewFilter

EventMode = Literal["all", "notable", "none"]
"""Which room events a subscription receives besides roster patches (docs/PROTOCOL.md, "join")."""

ViewSort = Literal["join", "name", "raised_hand", "recent_speaking"]
"""The orders of a roster view: join order (the default; the hand queue for `raised_hands`), name, the hand queue,
or who spoke last first."""

JoinAs = Literal["participant", "observer"]
"""Join the call (`participant`; a bot token joins as the bot role) or watch it without joining (`observer`)."""


@dataclass(frozen=True)
class View:
    """Which part of a room's roster a subscription mirrors (docs/PROTOCOL.md, "Roster views").

    `View.muted().page(offset=50, limit=50, sort="name")` is the second page of 50 muted participants by name,
    kept live.

    Attributes:
        filter: one of `ViewFilter`: `all`, `operators`, `muted`, `moderator_muted`, `restricted`, `banned`,
            `raised_hands`, `presenters`, `speakers`, `left` or `search`.
        query: the name to look for: with `search`, or narrowing any other filter but `banned`.
        match: `prefix` (default) or `substring`, for `query`.
        sort: one of `ViewSort`; None for the filter's own order.
        offset: skip the first N in that order.
        limit: keep N after the offset.
    """

    filter: ViewFilter = "all"
    query: str | None = None
    match: Literal["prefix", "substring"] | None = None
    sort: ViewSort | None = None
    offset: int | None = None
    limit: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The `view` object of a join or view message."""
        value: dict[str, Any] = {"filter": self.filter}
        if self.query is not None:
            value["query"] = self.query
        if self.match is not None:
            value["match"] = self.match
        if self.sort is not None:
            value["sort"] = self.sort
        if self.offset is not None:
            value["offset"] = self.offset
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
    def moderator_muted(cls) -> View:
        """Participants whose last mute came from a moderator (still muted)."""
        return cls("moderator_muted")

    @classmethod
    def restricted(cls) -> View:
        """Participants under a hard mute, who cannot unmute themselves."""
        return cls("restricted")

    @classmethod
    def left(cls) -> View:
        """Who joined the current call and left it (attendance), with `state` `left`."""
        return cls("left")

    @classmethod
    def banned(cls) -> View:
        """Banned users."""
        return cls("banned")

    @classmethod
    def waiting(cls) -> View:
        """Who waits in the waiting room, in arrival order (for moderators and bots with `admit`)."""
        return cls("waiting")

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

    def page(self, *, offset: int = 0, limit: int | None = None, sort: ViewSort | None = None) -> View:
        """This view ordered by `sort` (or its own order), from `offset`, at most `limit` entries.

        Args:
            offset: how many to skip in that order.
            limit: how many to keep after them; None for all.
            sort: the order; None keeps this view's.
        """
        return replace(self, offset=offset, limit=limit if limit is not None else self.limit,
                       sort=sort if sort is not None else self.sort)

    def narrowed(self, text: str, *, substring: bool = False) -> View:
        """This view narrowed to participants whose name matches `text` (any filter but `banned`).

        Args:
            text: the text to match, case-insensitively.
            substring: match anywhere in the name rather than at its start.
        """
        return replace(self, query=text, match="substring" if substring else "prefix")
