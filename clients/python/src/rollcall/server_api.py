"""The server API (docs/API.md) for backends and bots: HTTP + JSON with an API key, blocking or with asyncio.

`ServerAPI` uses the standard library's `urllib`; `AsyncServerAPI` runs the same calls in a worker thread so an
asyncio program is not blocked. Refusals raise the class of the gateway's code (`NotFoundError`, `ForbiddenError`,
...) with the HTTP status in `status`.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlencode

from .errors import ConnectError, HTTPError, server_error
from .events import Ack
from .waiting_room import WaitingPage


class ServerAPI:
    """A blocking client of the server API.

    ```python
    api = ServerAPI("http://127.0.0.1:8080", key="the-secret-of-your-key")
    api.moderate("standup", "mute", target="bob", reason="echo")
    ```
    """

    def __init__(self, base_url: str, key: str, *, timeout: float = 10.0) -> None:
        """Creates a client.

        Args:
            base_url: the gateway's HTTP address, such as `http://127.0.0.1:8080` (a trailing `/v1/api` is fine).
            key: the secret of a key from `api.keys`.
            timeout: seconds each request may take.
        """
        base = base_url.rstrip("/")
        self.base_url = base[: -len("/v1/api")] if base.endswith("/v1/api") else base
        self._key = key
        self.timeout = timeout

    def rooms(self, *, page_limit: int = 100, max_pages: int = 1000) -> list[dict[str, Any]]:
        """Every room (`room`, `seq`, `participants`, `subscribers`, `activeMeeting`, `loaded`), page after page.

        Args:
            page_limit: rooms per request, 1 to 1,000.
            max_pages: the most requests made.
        """
        rooms: list[dict[str, Any]] = []
        after: str | None = None
        for _ in range(max_pages):
            page = self.rooms_page(limit=page_limit, after=after)
            rooms += page.get("rooms") or []
            after = page.get("next")
            if not after:
                break
        return rooms

    def rooms_page(self, *, limit: int | None = None, after: str | None = None) -> dict[str, Any]:
        """One page of rooms by room id: `{"rooms": [...], "next": ROOM or None}`.

        Args:
            limit: rooms on the page, 1 to 1,000 (the gateway's default 100).
            after: the `next` of the page before.
        """
        return self._call("GET", "/rooms" + _query(limit=limit, after=after))

    def history(
        self, room: str, *, after: int = 0, types: list[str] | None = None, limit: int | None = None
    ) -> dict[str, Any]:
        """A room's events after a `seq`, oldest first: `{"room", "firstRetained", "events", "next"}`.

        Args:
            room: the room.
            after: the `seq` to start after (pass `next` for the next page).
            types: keep only these events, such as `["meeting.message"]`.
            limit: events on the page, 1 to 1,000.
        """
        query = _query(after=after, types=",".join(types) if types else None, limit=limit)
        return self._call("GET", f"/rooms/{quote(room, safe='')}/history{query}")

    def audit(self, *, room: str | None = None, before: int | None = None, limit: int | None = None) -> dict[str, Any]:
        """Moderator actions, newest first: `{"actions": [...], "next": TIME or None}`.

        Args:
            room: one room, or None for every room.
            before: the `next` of the page before.
            limit: actions on the page.
        """
        return self._call("GET", "/audit" + _query(room=room, before=before, limit=limit))

    def waiting(self, room: str, *, after: int | None = None, limit: int | None = None) -> WaitingPage:
        """Who waits in a room's waiting room, a page in arrival order.

        Args:
            room: the room.
            after: the `next` of the page before (a position from 1).
            limit: entries on the page, 1 to 1,000 (the gateway's default 100).

        Raises:
            NotFoundError: the room does not exist.
        """
        return WaitingPage.from_result(
            self._call("GET", f"/rooms/{quote(room, safe='')}/waiting" + _query(after=after, limit=limit)))

    def attendance(self, room: str, *, after: int | None = None, limit: int | None = None) -> dict[str, Any]:
        """Who attended the room's current (or last) call, with their totals:
        `{"room", "seq", "asOf", "callStartedAt", "participants", "next"}` (docs/API.md).

        Args:
            room: the room.
            after: the `next` of the page before (a place in the join order).
            limit: records on the page, 1 to 1,000.

        Raises:
            NotFoundError: the room does not exist.
        """
        return self._call("GET", f"/rooms/{quote(room, safe='')}/attendance" + _query(after=after, limit=limit))

    def room(self, room: str) -> dict[str, Any]:
        """A room's state and roster, as a snapshot of the whole-roster view holds it, plus `subscribers`.

        Args:
            room: the room id.

        Raises:
            NotFoundError: the room does not exist.
        """
        return self._call("GET", f"/rooms/{quote(room, safe='')}")

    def publish_meeting(
        self, room: str, session_id: str, *, call_type: str = "video", active: bool = True, text: str | None = None
    ) -> Ack:
        """Publishes a meeting message to the room's group (the room is created when needed).

        Args:
            room: the room, which is the meeting's group.
            session_id: the calls SDK's session id.
            call_type: `audio` or `video`.
            active: False announces the end.
            text: a short text.
        """
        body: dict[str, Any] = {"sessionId": session_id, "callType": call_type, "active": active}
        if text is not None:
            body["text"] = text
        return Ack.from_message(self._call("POST", f"/rooms/{quote(room, safe='')}/meeting", body))

    def publish_event(self, room: str, event: Mapping[str, Any]) -> Ack:
        """Publishes a `media`, `speaker`, `attributes`, `metadata` or `permissions` message (without `room`) as the
        server.

        Args:
            room: the room.
            event: such as `{"type": "media", "recording": True}`, `{"type": "media", "audioMode": "earpiece",
                "uid": "alice"}` or `{"type": "speaker", "uid": "alice"}`.
        """
        return Ack.from_message(self._call("POST", f"/rooms/{quote(room, safe='')}/events", dict(event)))

    def set_recording(self, room: str, recording: bool) -> Ack:
        """Starts or stops recording."""
        return self.publish_event(room, {"type": "media", "recording": recording})

    def set_speaker(self, room: str, uid: str | None) -> Ack:
        """Reports who speaks (anyone in the call), or nobody; the room's speaker rule decides when it shows."""
        return self.publish_event(room, {"type": "speaker", "uid": uid})

    def set_audio_mode(self, room: str, uid: str, mode: str) -> Ack:
        """Sets a participant's audio output: `speaker`, `earpiece`, `bluetooth` or `headphones`."""
        return self.publish_event(room, {"type": "media", "audioMode": mode, "uid": uid})

    def set_attributes(
        self, room: str, uid: str, changes: Mapping[str, str | None], *, if_seq: int | None = None
    ) -> Ack:
        """Sets or removes a participant's attributes (a None value removes the key).

        With `if_seq` the write is version-checked: ConflictError (HTTP 409), changing nothing, if the attributes
        changed after that sequence number (the `seq` of `room()` they were read at, or an earlier Ack's)."""
        event = {"type": "attributes", "uid": uid, "attributes": dict(changes)}
        return self.publish_event(room, _versioned(event, if_seq))

    def set_metadata(self, room: str, changes: Mapping[str, str | None], *, if_seq: int | None = None) -> Ack:
        """Sets or removes the room's metadata (a None value removes the key); `if_seq` as for `set_attributes`."""
        return self.publish_event(room, _versioned({"type": "metadata", "metadata": dict(changes)}, if_seq))

    def set_permissions(
        self, room: str, uid: str, permissions: Mapping[str, bool], *, if_seq: int | None = None
    ) -> Ack:
        """Changes what a participant may do (`unmute`, `share`, `meetings`, `hidden`); the others stay; `if_seq`
        as for `set_attributes`."""
        event = {"type": "permissions", "uid": uid, "permissions": dict(permissions)}
        return self.publish_event(room, _versioned(event, if_seq))

    def lock(self, room: str, reason: str | None = None) -> Ack:
        """Locks the room: new joins into the call are refused with `ERR_ROOM_LOCKED` but for moderators, admins
        and bots with `lock`."""
        return self.moderate(room, "lock", None, reason)

    def unlock(self, room: str, reason: str | None = None) -> Ack:
        """Unlocks the room."""
        return self.moderate(room, "unlock", None, reason)

    def moderate(self, room: str, action: str, target: str | None = None, reason: str | None = None) -> Ack:
        """Performs a moderator action with an admin's rights; the events carry the actor `api:NAME`.

        Args:
            room: the room.
            action: `mute`, `mute_all`, `lower_hand`, `lower_all_hands`, `spotlight`, `unspotlight`, `remove`,
                `ban`, `unban`, `promote`, `demote`, `end_session`, `lock`, `unlock`, the presenter floor's
                `floor`, `open_floor`, `stop_share`, `hand_floor`, or the waiting room's `require_admission`,
                `open_admission`, `admit`, `admit_all`, `deny`, `deny_all` (docs/API.md).
            target: the uid, for the actions on one participant (`admit` and `deny`: a user who waits).
            reason: shown with the event.
        """
        body: dict[str, Any] = {"action": action}
        if target is not None:
            body["target"] = target
        if reason is not None:
            body["reason"] = reason
        return Ack.from_message(self._call("POST", f"/rooms/{quote(room, safe='')}/actions", body))

    def disconnect(self, uid: str, reason: str | None = None) -> int:
        """Closes every connection of a user with 4009 (they may reconnect); returns how many were closed.

        Args:
            uid: the user.
            reason: the close reason, at most 123 bytes.
        """
        body = {"reason": reason} if reason is not None else {}
        answer = self._call("POST", f"/users/{quote(uid, safe='')}/disconnect", body)
        return int(answer.get("disconnected") or 0)

    def _call(self, method: str, path: str, body: Mapping[str, Any] | None = None) -> dict[str, Any]:
        data = json.dumps(body, separators=(",", ":")).encode() if body is not None else None
        request = urllib.request.Request(self.base_url + "/v1/api" + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self._key}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                text = response.read().decode("utf-8")
        except urllib.error.HTTPError as failure:
            raise self._refusal(failure.code, failure.read().decode("utf-8", "replace")) from None
        except (urllib.error.URLError, OSError) as failure:
            raise ConnectError(f"cannot reach {self.base_url}: {failure}") from failure
        answer = json.loads(text) if text else {}
        return answer if isinstance(answer, dict) else {}

    @staticmethod
    def _refusal(status: int, text: str) -> Exception:
        try:
            answer = json.loads(text)
        except ValueError:
            answer = None
        if isinstance(answer, dict) and isinstance(answer.get("code"), str):
            return server_error(answer["code"], str(answer.get("message") or ""), status)
        return HTTPError(status, text)


def _query(**parameters: object) -> str:
    """A query string of the parameters that are not None."""
    given = {name: str(value) for name, value in parameters.items() if value is not None}
    return "?" + urlencode(given) if given else ""


class AsyncServerAPI:
    """The server API for asyncio programs: each call runs the blocking one in a worker thread."""

    def __init__(self, base_url: str, key: str, *, timeout: float = 10.0) -> None:
        """Creates a client.

        Args:
            base_url: the gateway's HTTP address, such as `http://127.0.0.1:8080`.
            key: the secret of a key from `api.keys`.
            timeout: seconds each request may take.
        """
        self.sync = ServerAPI(base_url, key, timeout=timeout)

    async def rooms(self) -> list[dict[str, Any]]:
        """The rooms (see `ServerAPI.rooms`)."""
        return await asyncio.to_thread(self.sync.rooms)

    async def history(
        self, room: str, *, after: int = 0, types: list[str] | None = None, limit: int | None = None
    ) -> dict[str, Any]:
        """A room's events after a `seq` (see `ServerAPI.history`)."""
        return await asyncio.to_thread(self.sync.history, room, after=after, types=types, limit=limit)

    async def audit(
        self, *, room: str | None = None, before: int | None = None, limit: int | None = None
    ) -> dict[str, Any]:
        """Moderator actions, newest first (see `ServerAPI.audit`)."""
        return await asyncio.to_thread(self.sync.audit, room=room, before=before, limit=limit)

    async def room(self, room: str) -> dict[str, Any]:
        """A room's state and roster (see `ServerAPI.room`)."""
        return await asyncio.to_thread(self.sync.room, room)

    async def waiting(self, room: str, *, after: int | None = None, limit: int | None = None) -> WaitingPage:
        """Who waits in a room's waiting room (see `ServerAPI.waiting`)."""
        return await asyncio.to_thread(self.sync.waiting, room, after=after, limit=limit)

    async def attendance(self, room: str, *, after: int | None = None, limit: int | None = None) -> dict[str, Any]:
        """Who attended the room's call, with their totals (see `ServerAPI.attendance`)."""
        return await asyncio.to_thread(self.sync.attendance, room, after=after, limit=limit)

    async def publish_meeting(
        self, room: str, session_id: str, *, call_type: str = "video", active: bool = True, text: str | None = None
    ) -> Ack:
        """Publishes a meeting message (see `ServerAPI.publish_meeting`)."""
        return await asyncio.to_thread(
            self.sync.publish_meeting, room, session_id, call_type=call_type, active=active, text=text
        )

    async def publish_event(self, room: str, event: Mapping[str, Any]) -> Ack:
        """Publishes a `media` or `speaker` message (see `ServerAPI.publish_event`)."""
        return await asyncio.to_thread(self.sync.publish_event, room, event)

    async def set_recording(self, room: str, recording: bool) -> Ack:
        """Starts or stops recording."""
        return await asyncio.to_thread(self.sync.set_recording, room, recording)

    async def set_speaker(self, room: str, uid: str | None) -> Ack:
        """Reports who speaks (anyone in the call), or nobody."""
        return await asyncio.to_thread(self.sync.set_speaker, room, uid)

    async def set_audio_mode(self, room: str, uid: str, mode: str) -> Ack:
        """Sets a participant's audio output."""
        return await asyncio.to_thread(self.sync.set_audio_mode, room, uid, mode)

    async def set_attributes(
        self, room: str, uid: str, changes: Mapping[str, str | None], *, if_seq: int | None = None
    ) -> Ack:
        """Sets or removes a participant's attributes (see `ServerAPI.set_attributes`)."""
        return await asyncio.to_thread(self.sync.set_attributes, room, uid, changes, if_seq=if_seq)

    async def set_metadata(self, room: str, changes: Mapping[str, str | None], *, if_seq: int | None = None) -> Ack:
        """Sets or removes the room's metadata (see `ServerAPI.set_metadata`)."""
        return await asyncio.to_thread(self.sync.set_metadata, room, changes, if_seq=if_seq)

    async def set_permissions(
        self, room: str, uid: str, permissions: Mapping[str, bool], *, if_seq: int | None = None
    ) -> Ack:
        """Changes what a participant may do (see `ServerAPI.set_permissions`)."""
        return await asyncio.to_thread(self.sync.set_permissions, room, uid, permissions, if_seq=if_seq)

    async def lock(self, room: str, reason: str | None = None) -> Ack:
        """Locks the room (see `ServerAPI.lock`)."""
        return await asyncio.to_thread(self.sync.lock, room, reason)

    async def unlock(self, room: str, reason: str | None = None) -> Ack:
        """Unlocks the room."""
        return await asyncio.to_thread(self.sync.unlock, room, reason)

    async def moderate(self, room: str, action: str, target: str | None = None, reason: str | None = None) -> Ack:
        """Performs a moderator action (see `ServerAPI.moderate`)."""
        return await asyncio.to_thread(self.sync.moderate, room, action, target, reason)

    async def disconnect(self, uid: str, reason: str | None = None) -> int:
        """Closes every connection of a user with 4009 (see `ServerAPI.disconnect`)."""
        return await asyncio.to_thread(self.sync.disconnect, uid, reason)


def _versioned(event: dict[str, Any], if_seq: int | None) -> dict[str, Any]:
    """A write's body, with `ifSeq` when it is version-checked."""
    if if_seq is not None:
        event["ifSeq"] = if_seq
    return event
