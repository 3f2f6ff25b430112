"""One participant of a mirrored roster, read from its roster entry."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Participant:
    """A roster entry as the gateway describes it (docs/PROTOCOL.md, "snapshot").

    Attributes:
        uid: the user's uid.
        name: the display name (the uid when the token gave none).
        role: `admin`, `moderator`, `participant`, `viewer` or `bot`.
        is_operator: whether the participant operates the room (admin, moderator, or promoted).
        state: `joined` or `reconnecting`.
        order: the position in the call's join order.
        joined_at: when the participant joined, milliseconds since the epoch.
        devices: the devices in the call.
        audio_muted: whether the microphone is muted.
        video_paused: whether the camera is paused.
        presenting: whether the participant shares their screen.
        hand_raised: whether the hand is raised.
        pinned: whether a moderator spotlighted the participant.
        muted_by_moderator: whether the last mute came from a moderator.
        avatar: the avatar URL.
        mid: the media id the calls SDK gave the participant.
        camera_facing: `front` or `back`.
        audio_mode: the participant's audio output: `speaker`, `earpiece`, `bluetooth` or `headphones`.
        banned: set in the banned view.
        raised_at: when the hand went up (milliseconds since the epoch), while it is up: the hand queue's order.
        attributes: what the app attached to the participant (from the token, the participant, bots or the backend).
        permissions: the permissions not at their default (`unmute`, `share`, `meetings`, `hidden`, and
            `restrictedUntil` for a timed hard mute); empty when all are.
        entry: the roster entry itself.
    """

    uid: str
    name: str
    role: str
    is_operator: bool
    state: str
    order: int
    joined_at: int
    devices: tuple[str, ...]
    audio_muted: bool
    video_paused: bool
    presenting: bool
    hand_raised: bool
    pinned: bool
    muted_by_moderator: bool
    avatar: str | None = None
    mid: str | None = None
    camera_facing: str | None = None
    audio_mode: str | None = None
    banned: bool = False
    raised_at: int | None = None
    attributes: Mapping[str, str] = field(default_factory=dict, hash=False)
    permissions: Mapping[str, Any] = field(default_factory=dict, hash=False)
    entry: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def may_unmute(self) -> bool:
        """Whether the participant may unmute itself (False under a hard mute)."""
        return self.permissions.get("unmute") is not False

    @classmethod
    def from_entry(cls, uid: str, entry: Mapping[str, Any]) -> Participant:
        """Reads a roster entry.

        Args:
            uid: the entry's key.
            entry: the entry.
        """
        return cls(
            uid=uid,
            name=str(entry.get("name") or uid),
            role=str(entry.get("role") or "participant"),
            is_operator=entry.get("operator") is True,
            state=str(entry.get("state") or "joined"),
            order=int(entry.get("order") or 0),
            joined_at=int(entry.get("joinedAt") or 0),
            devices=tuple(str(device) for device in entry.get("devices") or ()),
            audio_muted=entry.get("audioMuted") is True,
            video_paused=entry.get("videoPaused") is True,
            presenting=entry.get("presenting") is True,
            hand_raised=entry.get("handRaised") is True,
            pinned=entry.get("pinned") is True,
            muted_by_moderator=entry.get("mutedByModerator") is True,
            avatar=entry.get("avatar"),
            mid=entry.get("mid"),
            camera_facing=entry.get("cameraFacing"),
            audio_mode=entry.get("audioMode"),
            banned=entry.get("banned") is True,
            raised_at=entry.get("raisedAt") if isinstance(entry.get("raisedAt"), int) else None,
            attributes={
                key: value for key, value in (entry.get("attributes") or {}).items() if isinstance(value, str)
            },
            permissions=dict(entry.get("permissions") or {}),
            entry=entry,
        )
