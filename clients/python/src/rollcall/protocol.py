"""The protocol's constants (docs/PROTOCOL.md), one definition each.

The tests check every one against the shared vectors (Tests/Vectors/protocol.json), as the server and the other
clients do, so a code, an event or a flag the gateway adds fails them until it is here too.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Literal, NamedTuple, get_args

ClientMessageType = Literal[
    "auth",
    "join",
    "view",
    "leave",
    "state",
    "speaker",
    "media",
    "attributes",
    "metadata",
    "meeting",
    "action",
    "permissions",
    "query",
    "ping",
    "signal",
]
"""The `type` of a message a client sends."""

CLIENT_MESSAGE_TYPES: tuple[str, ...] = get_args(ClientMessageType)

ServerMessageType = Literal[
    "welcome", "snapshot", "patch", "event", "resumed", "ack", "result", "error", "pong", "unsubscribed", "signal",
    "waiting"
]
"""The `type` of a message the gateway sends."""

SERVER_MESSAGE_TYPES: tuple[str, ...] = get_args(ServerMessageType)

EventName = Literal[
    "participant.joined",
    "participant.left",
    "participant.audio_muted",
    "participant.audio_unmuted",
    "participant.video_paused",
    "participant.video_resumed",
    "participant.screen_share_started",
    "participant.screen_share_stopped",
    "participant.hand_raised",
    "participant.hand_lowered",
    "participant.pinned",
    "participant.unpinned",
    "participant.media_id_changed",
    "participant.active_speaker_changed",
    "participant.speaker_stopped",
    "participant.active_speaker_shown",
    "participant.attributes_changed",
    "participant.role_changed",
    "session.connection_lost",
    "session.connection_closed",
    "session.connection_restored",
    "session.timed_out",
    "session.ended",
    "media.recording_started",
    "media.recording_stopped",
    "media.audio_mode_changed",
    "media.camera_facing_changed",
    "moderation.muted",
    "moderation.promoted",
    "moderation.demoted",
    "moderation.banned",
    "moderation.unbanned",
    "moderation.permissions_changed",
    "moderation.unmute_requested",
    "room.metadata_changed",
    "room.locked",
    "room.unlocked",
    "room.floor_changed",
    "room.floor_requested",
    "room.floor_request_withdrawn",
    "room.admission_changed",
    "waiting.entered",
    "waiting.admitted",
    "waiting.denied",
    "waiting.left",
    "meeting.message",
]
"""The name of a room event (docs/PROTOCOL.md, "event")."""

EVENT_NAMES: tuple[str, ...] = get_args(EventName)

UnsubscribeReason = Literal["replaced", "access_revoked"]
"""Why the gateway took a connection out of a room (docs/PROTOCOL.md, "unsubscribed"): `replaced`, the same user and
device joined from another connection; `access_revoked`, a refreshed token no longer names the room."""

UNSUBSCRIBE_REASONS: tuple[str, ...] = get_args(UnsubscribeReason)

LeaveReason = Literal[
    "left", "timed_out", "connection_closed", "removed", "banned", "session_ended", "access_revoked"
]
"""Why a participant's device left: the `data.reason` of `participant.left` (and `timed_out` of `session.timed_out`;
docs/PROTOCOL.md, "event")."""

LEAVE_REASONS: tuple[str, ...] = get_args(LeaveReason)

ViewFilter = Literal[
    "all",
    "operators",
    "muted",
    "moderator_muted",
    "restricted",
    "banned",
    "raised_hands",
    "presenters",
    "speakers",
    "left",
    "search",
    "waiting",
]
"""A roster view filter (docs/PROTOCOL.md, "Roster views")."""

VIEW_FILTERS: tuple[str, ...] = get_args(ViewFilter)

ViewCount = Literal["inCall", "muted", "video", "presenting", "handsRaised"]
"""A count of a roster view's room entry (`room.counts`, docs/PROTOCOL.md "The room entry"), in the entry's order;
besides them `roles` counts by role."""

VIEW_COUNTS: tuple[str, ...] = get_args(ViewCount)



class ParticipantFlagDefinition(NamedTuple):
    """A participant flag's events and who sets it."""

    on: str
    """The event of the flag turning on."""
    off: str
    """The event of the flag turning off."""
    set_by_participant: bool
    """Whether a participant sets the flag in its own `state` (`Room.set_state`); False: moderators only."""


PARTICIPANT_FLAGS: dict[str, ParticipantFlagDefinition] = {
    "audioMuted": ParticipantFlagDefinition("participant.audio_muted", "participant.audio_unmuted", True),
    "videoPaused": ParticipantFlagDefinition("participant.video_paused", "participant.video_resumed", True),
    "presenting": ParticipantFlagDefinition(
        "participant.screen_share_started", "participant.screen_share_stopped", True
    ),
    "handRaised": ParticipantFlagDefinition("participant.hand_raised", "participant.hand_lowered", True),
    "pinned": ParticipantFlagDefinition("participant.pinned", "participant.unpinned", False),
}
"""The boolean flags of a roster entry (as the entry names them), with the events of each turning on and off and who
sets it; `Participant` has each as a snake_case attribute (`audio_muted`, ...)."""


def attribute_name(member: str) -> str:
    """The snake_case attribute of a roster entry's member: `handRaised` → `hand_raised`."""
    return "".join("_" + letter.lower() if letter.isupper() else letter for letter in member)


STATE_FIELDS: dict[str, str] = {
    **{attribute_name(name): name for name, flag in PARTICIPANT_FLAGS.items() if flag.set_by_participant},
    "mid": "mid",
    "camera_facing": "cameraFacing",
}
"""The keyword arguments of `Room.set_state` and the members of the `state` message they set: the flags a
participant sets, its media id and its camera."""


class CloseCode(IntEnum):
    """The gateway's close codes (docs/PROTOCOL.md, "Close codes")."""

    UNAUTHORIZED = 4001
    """Authentication failed or timed out."""
    TOKEN_EXPIRED = 4002
    """The token expired without a refresh."""
    REMOVED = 4003
    """A moderator removed the participant."""
    BANNED = 4004
    """A moderator banned the participant."""
    SESSION_ENDED = 4005
    """The session was ended for everyone."""
    SLOW_CONSUMER = 4008
    """The client did not read its messages."""
    DISCONNECTED = 4009
    """The server API disconnected the user; the client may reconnect."""
    TOO_MANY_CONNECTIONS = 4010
    """The user has as many connections open as it may."""


FINAL_CLOSE_CODES = frozenset(
    {CloseCode.UNAUTHORIZED, CloseCode.TOKEN_EXPIRED, CloseCode.REMOVED, CloseCode.BANNED, CloseCode.SESSION_ENDED}
)
"""Close codes that end a session for good: authentication failed, token expired, removed, banned, ended."""
