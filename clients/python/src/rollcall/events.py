"""Room events, acknowledgements, and what changes in a subscription."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import RollcallError


@dataclass(frozen=True)
class Event:
    """One entry of a room's log as the client received it (docs/PROTOCOL.md, "event").

    Attributes:
        room: the room (for a meeting message, the group).
        seq: its sequence number in the room's log.
        name: such as `participant.audio_muted` or `meeting.message`.
        time: milliseconds since the epoch.
        actor: who caused it; None for the gateway itself.
        reason: the reason a moderator gave.
        data: the event's data.
        recovered: whether a resume replayed it after a reconnect.
    """

    room: str
    seq: int
    name: str
    time: int = 0
    actor: str | None = None
    reason: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict)
    recovered: bool = False

    @property
    def uid(self) -> str | None:
        """The uid the event is about (`data.uid`), when it names one."""
        value = self.data.get("uid")
        return value if isinstance(value, str) else None

    @classmethod
    def from_message(cls, message: Mapping[str, Any]) -> Event | None:
        """Reads an `event` message; None when it lacks a room, a seq or a name.

        Args:
            message: the parsed message.
        """
        room, seq, name = message.get("room"), message.get("seq"), message.get("event")
        if not isinstance(room, str) or not isinstance(seq, int) or not isinstance(name, str):
            return None
        data = message.get("data")
        data = data if isinstance(data, dict) else {}
        reason = message.get("reason")
        if reason is None and isinstance(data.get("reason"), str):
            reason = data["reason"]
        return cls(
            room=room,
            seq=seq,
            name=name,
            time=int(message.get("time") or 0),
            actor=message.get("actor"),
            reason=reason,
            data=data,
            recovered=message.get("recovered") is True,
        )


@dataclass(frozen=True)
class Ack:
    """The gateway's `ack` to a request about a room.

    Attributes:
        room: the room.
        seq: the room's sequence number after the request.
        changed: whether the request changed anything (repeating a state or an action does not).
    """

    room: str | None
    seq: int
    changed: bool

    @classmethod
    def from_message(cls, message: Mapping[str, Any]) -> Ack:
        """Reads an `ack` message (or a server API answer of the same form).

        Args:
            message: the parsed message.
        """
        return cls(room=message.get("room"), seq=int(message.get("seq") or 0), changed=message.get("changed") is True)


@dataclass(frozen=True)
class Signal:
    """An ephemeral signal (docs/PROTOCOL.md, "signal"): a reaction or an app's signal, never in the room's log, so
    never replayed after a reconnect.

    Attributes:
        room: the room.
        sender: the sender's uid (`from` on the wire, from its token).
        kind: the app's name for it (`reaction` for emoji reactions).
        data: what came with it (any JSON; None when nothing did).
        to: the uid it was for when it was sent to one participant (this user), else None.
    """

    room: str
    sender: str
    kind: str
    data: Any
    to: str | None

    @classmethod
    def from_message(cls, message: Mapping[str, Any]) -> Signal:
        """Reads a `signal` message.

        Args:
            message: the parsed message.
        """
        to = message.get("to")
        return cls(
            room=str(message.get("room") or ""),
            sender=str(message.get("from") or ""),
            kind=str(message.get("kind") or ""),
            data=message.get("data"),
            to=to if isinstance(to, str) else None,
        )


@dataclass(frozen=True)
class Waiting:
    """The join waits in the room's waiting room (docs/PROTOCOL.md, "Waiting room"): the gateway held it back with
    a `waiting` message, sent again whenever the position changes. The join stays open until a moderator lets the
    user in (`Admitted`, then the snapshot) or turns it away (the join raises AdmissionDeniedError), or the wait runs
    out (WaitExpiredError).

    Attributes:
        room: the room.
        position: the place in the queue, from 1, in arrival order.
        waiting_since: when the user arrived, milliseconds since the epoch (the gateway's clock).
        expires_at: when the wait ends at the latest, milliseconds since the epoch (the gateway's clock).
    """

    room: str
    position: int
    waiting_since: int = 0
    expires_at: int = 0

    @property
    def max_wait(self) -> float | None:
        """Seconds the room lets anyone wait, counted from arrival (`expires_at - waiting_since`); None when the
        message did not say."""
        if self.expires_at <= 0 or self.waiting_since <= 0:
            return None
        return max(0, self.expires_at - self.waiting_since) / 1000

    @classmethod
    def from_message(cls, message: Mapping[str, Any]) -> Waiting | None:
        """Reads a `waiting` message; None when it lacks a room or a position.

        Args:
            message: the parsed message.
        """
        room, position = message.get("room"), message.get("position")
        if not isinstance(room, str) or not isinstance(position, int) or isinstance(position, bool):
            return None
        since, expires = message.get("waitingSince"), message.get("expiresAt")
        return cls(
            room=room,
            position=position,
            waiting_since=since if isinstance(since, int) else 0,
            expires_at=expires if isinstance(expires, int) else 0,
        )


@dataclass(frozen=True)
class Admitted:
    """The join that waited in the waiting room was let in; its snapshot follows (`SnapshotReplaced`)."""


@dataclass(frozen=True)
class SnapshotReplaced:
    """A snapshot replaced the roster: the first one, a resync after backpressure (`resync`), a fresh one after
    drift, or the answer to a resume that could not be served (`recovered` False)."""

    resync: bool = False
    recovered: bool | None = None


@dataclass(frozen=True)
class ParticipantAdded:
    """A participant entered the roster view."""

    uid: str


@dataclass(frozen=True)
class ParticipantUpdated:
    """A participant's entry changed."""

    uid: str


@dataclass(frozen=True)
class ParticipantRemoved:
    """A participant left the roster view."""

    uid: str


@dataclass(frozen=True)
class RoomUpdated:
    """The room entry changed (recording, active speaker, participant count, ...)."""


@dataclass(frozen=True)
class EventReceived:
    """A room event arrived."""

    event: Event


@dataclass(frozen=True)
class ConnectionLost:
    """The connection dropped; the roster is stale until the subscription is resumed."""


@dataclass(frozen=True)
class Resumed:
    """The subscription was rejoined after a reconnect: `recovered` tells whether every missed patch and event was
    replayed (True) or a fresh snapshot replaced the roster (False)."""

    recovered: bool


@dataclass(frozen=True)
class DriftDetected:
    """The roster missed a patch or did not match the server's checksum; a fresh copy was requested."""

    detail: str


@dataclass(frozen=True)
class Unsubscribed:
    """The gateway took the subscription out of the room (docs/PROTOCOL.md, "unsubscribed"): `reason` is
    `replaced` (the same user and device joined from another connection: "you joined from another window") or
    `access_revoked` (a refreshed token no longer names the room). `Ended` follows; the client does not join the
    room again on its own."""

    reason: str


@dataclass(frozen=True)
class Ended:
    """The subscription ended: left, refused on rejoin, taken out by the gateway (`Unsubscribed` before it), or the
    client closed. No change follows."""

    error: RollcallError | None = None


RoomChange = (
    Waiting
    | Admitted
    | SnapshotReplaced
    | ParticipantAdded
    | ParticipantUpdated
    | ParticipantRemoved
    | RoomUpdated
    | EventReceived
    | ConnectionLost
    | Resumed
    | DriftDetected
    | Unsubscribed
    | Ended
)
"""What changed in a subscription, in the order the client applied it."""
