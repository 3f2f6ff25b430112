"""A room the client joined or watches: its live roster, its changes, and the requests about it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from .counts import ViewCounts
from .errors import ConnectionClosed, NotConnected, RequestTimeout, RollcallError, UnsubscribedError
from .events import (
    Ack,
    Admitted,
    ConnectionLost,
    Ended,
    Event,
    EventReceived,
    RoomChange,
    Signal,
    Unsubscribed,
    Waiting,
)
from .listeners import Broadcaster, Stream
from .mirror import Rejoin, RoomMirror
from .participant import Participant
from .protocol import STATE_FIELDS
from .roster import RosterStore
from .views import EventMode, JoinAs, View
from .waiting_room import WaitingEntry, WaitingPage

MAXIMUM_WAITING_PAGES = 1000
"""Pages `Room.waiting()` reads at most (a waiting room holds `rooms.waiting_max_users`, 500 by default)."""


class RoomLink(Protocol):
    """What a room needs of the connection it lives on: requests, one-way messages, the user's uid, and being
    forgotten. The session is one; a room knows nothing else of it, so the dependency points one way."""

    @property
    def uid(self) -> str | None:
        """The authenticated user's uid; None before the first `welcome`."""
        ...

    async def request(
        self, message: Mapping[str, Any], *, room: str | None = None, completes_on_roster: bool = False
    ) -> dict[str, Any]:
        """Sends a request with a new id and returns its answer (raising the gateway's error)."""
        ...

    async def send(self, message: Mapping[str, Any]) -> None:
        """Sends a message no answer comes for."""
        ...

    def forget(self, room: Room) -> None:
        """Stops routing messages to the room and rejoining it (a no-op when another room took its id)."""
        ...


class Room:
    """A subscription: the mirror of one room's roster view, kept live from the snapshot and the patches.

    Every patch is checked for continuity and against the server's checksum; a missed patch rejoins with `resume`,
    a mismatch rejoins for a fresh snapshot. After a reconnect the room rejoins with its positions, so it replays
    exactly what it missed or gets a fresh snapshot (`Resumed` says which).
    """

    def __init__(self, link: RoomLink, mirror: RoomMirror) -> None:
        """A room on `link`, mirroring what `mirror` describes; the session creates it (`Session.add_room`)."""
        self._link = link
        self._mirror = mirror
        self._changes: Broadcaster[RoomChange] = Broadcaster()
        self._signals: Broadcaster[Signal] = Broadcaster()
        self._waits: Broadcaster[Waiting] = Broadcaster()
        self._active = True
        self._rights: dict[str, Any] = {}
        self._wait: Waiting | None = None
        self._end_error: RollcallError | None = None
        self._joined: list[asyncio.Future[None]] = []

    # MARK: State

    @property
    def room(self) -> str:
        """The room id."""
        return self._mirror.room

    @property
    def join_as(self) -> JoinAs:
        """Whether the client is in the call (`participant`, also for a bot token) or watches it (`observer`)."""
        return self._mirror.join_as

    @property
    def view(self) -> View:
        """The roster view mirrored."""
        return self._mirror.view

    @property
    def events(self) -> EventMode:
        """The events received besides patches."""
        return self._mirror.events

    @property
    def store(self) -> RosterStore | None:
        """The roster store; None before the first snapshot."""
        return self._mirror.store

    @property
    def roster(self) -> dict[str, Any]:
        """The roster object (`{"room": {...}, "participants": {...}}`); empty before the first snapshot."""
        store = self._mirror.store
        return store.roster if store is not None else {}

    @property
    def participants(self) -> list[Participant]:
        """The participants of the view, in join order."""
        store = self._mirror.store
        return store.participants if store is not None else []

    def participant(self, uid: str) -> Participant | None:
        """One participant by uid, if in the view.

        Args:
            uid: the participant's uid.
        """
        store = self._mirror.store
        return store.participant(uid) if store is not None else None

    @property
    def room_state(self) -> Mapping[str, Any]:
        """The roster's room entry (`callType`, `recording`, `activeSpeaker`, `capacity`, `participantCount`)."""
        store = self._mirror.store
        return store.room_state if store is not None else {}

    @property
    def counts(self) -> ViewCounts:
        """What every view counts, whatever its filter (the room entry's `counts`): in the call, hands raised,
        muted, on video, presenting, by role; all zeros before the first snapshot."""
        store = self._mirror.store
        return store.counts if store is not None else ViewCounts()

    @property
    def view_total(self) -> int | None:
        """How many entries match the view's filter before its `offset` and `limit` (the room entry's `total`), for
        "page 3 of 20"; None before the first snapshot."""
        store = self._mirror.store
        return store.view_total if store is not None else None

    @property
    def seq(self) -> int:
        """The sequence number the roster is at; 0 before the first snapshot."""
        return self._mirror.seq

    @property
    def last_event_seq(self) -> int:
        """The seq up to which the room has every event it takes: its last event's, or a later snapshot's, patch's or
        resume's (messages arrive in log order). A rejoin sends it as `resumeEvents`."""
        return self._mirror.last_event_seq

    @property
    def recovered(self) -> bool | None:
        """Whether the last resume replayed everything missed (True), fell back to a snapshot (False), or None."""
        return self._mirror.recovered

    @property
    def rights(self) -> Mapping[str, Any]:
        """What the user may do in this room, from the last join's answer: `role`, `operator`, `actions` (the
        moderator actions), `record`, `metadata`, `permissions`, `speakerForOthers`, `attributesForOthers`, and its
        own `unmute`, `share`, `meetings`. Promotions and permission changes show in the roster entry until the
        next join."""
        return self._rights

    @property
    def active(self) -> bool:
        """Whether the room still receives changes (False after `leave`, a refused rejoin, or the client's close)."""
        return self._active

    @property
    def waiting_position(self) -> int | None:
        """The join's place in the room's waiting room (from 1) while the gateway holds it there; None when it does
        not wait (never did, or once admitted, denied or gone)."""
        return self._wait.position if self._wait is not None else None

    @property
    def waiting_status(self) -> Waiting | None:
        """The last `waiting` the gateway sent for the join while it waits (position, arrival, expiry); None when
        it does not wait."""
        return self._wait

    # MARK: Changes

    def on_change(self, callback: Callable[[RoomChange], object]) -> Callable[[], None]:
        """Calls `callback` with every change from now on, in the client's reading task; keep it short.

        Args:
            callback: the function.

        Returns:
            A function that removes the callback.
        """
        return self._changes.add(callback)

    def on_event(self, callback: Callable[[Event], object]) -> Callable[[], None]:
        """Calls `callback` with every room event from now on.

        Args:
            callback: the function.

        Returns:
            A function that removes the callback.
        """

        def forward(change: RoomChange) -> None:
            if isinstance(change, EventReceived):
                callback(change.event)

        return self._changes.add(forward)

    def on_signal(self, callback: Callable[[Signal], object]) -> Callable[[], None]:
        """Calls `callback` with every ephemeral signal (`Signal`) others send to the room or to this user from now
        on; signals sent while the connection was down are not replayed.

        Args:
            callback: the function.

        Returns:
            A function that removes the callback.
        """
        return self._signals.add(callback)

    def on_waiting(self, callback: Callable[[Waiting], object]) -> Callable[[], None]:
        """Calls `callback` with every `Waiting` of the room's join from now on: when the gateway holds it in the
        waiting room, and whenever its position changes. `Admitted` (a room change) follows when the user is let
        in; a denial or the end of the wait is raised by the join.

        Args:
            callback: the function.

        Returns:
            A function that removes the callback.
        """
        return self._waits.add(callback)

    def signals(self) -> Stream[Signal]:
        """An async iterator of every signal from now on; it ends when the room ends."""
        return self._signals.stream()

    async def signal(self, kind: str, data: Any = None, *, to: str | None = None) -> None:
        """Sends an ephemeral signal (docs/PROTOCOL.md, "signal"): to every other subscriber of the room, or to one
        participant's devices (`to`). It never enters the room's log: no seq, not stored, not resumed.

        Args:
            kind: the app's name for it (`reaction` for an emoji burst).
            data: any JSON, within the gateway's `rooms.max_signal_bytes`.
            to: the uid of one participant in the call; None for the whole room.

        Raises:
            ForbiddenError: an observer or a viewer (moderators may send while watching); NotFoundError: `to` is not
                in the call; TooLargeError: `data` past the limit; RateLimitedError: past the user's rate.
        """
        fields: dict[str, Any] = {"type": "signal", "room": self.room, "kind": kind}
        if data is not None:
            fields["data"] = data
        if to is not None:
            fields["to"] = to
        await self._link.request(fields)

    def changes(self) -> Stream[RoomChange]:
        """An async iterator of every change from now on; it ends when the room ends."""
        return self._changes.stream()

    async def wait_for(self, predicate: Callable[[Room], bool], timeout: float = 10.0) -> None:
        """Waits until `predicate(room)` holds, checking now and after every change.

        A predicate that raises (say, reading a participant not in the roster yet) counts as not holding.

        Args:
            predicate: the condition.
            timeout: seconds to wait at most.

        Raises:
            RequestTimeout: it did not hold within `timeout`.
            RollcallError: the room ended first.
        """

        def holds() -> bool:
            try:
                return bool(predicate(self))
            except Exception:
                return False

        if holds():
            return
        ready = asyncio.Event()
        remove = self._changes.add(lambda _change: ready.set() if holds() or not self._active else None)
        try:
            await asyncio.wait_for(ready.wait(), timeout)
        except asyncio.TimeoutError:
            raise RequestTimeout(f"the condition did not hold in room {self.room} within {timeout} s") from None
        finally:
            remove()
        if not holds():
            raise RollcallError(f"room {self.room} ended before the condition held")

    # MARK: Own state

    async def set_state(self, **fields: bool | str) -> Ack:
        """Sets the participant's own state; only the fields given are sent.

        Args:
            **fields: any of `STATE_FIELDS`: the flags a participant sets (`audio_muted`, `video_paused`,
                `presenting`, `hand_raised`: booleans), `mid` and `camera_facing` (strings).

        Returns:
            The acknowledgement; `changed` tells whether anything changed.
        """
        unknown = set(fields) - set(STATE_FIELDS)
        if unknown:
            raise TypeError(f"unknown state fields: {', '.join(sorted(unknown))}")
        return await self._acknowledged("state", {STATE_FIELDS[key]: value for key, value in fields.items()})

    async def set_audio_muted(self, muted: bool) -> Ack:
        """Mutes or unmutes the microphone."""
        return await self.set_state(audio_muted=muted)

    async def set_video_paused(self, paused: bool) -> Ack:
        """Pauses or resumes the camera."""
        return await self.set_state(video_paused=paused)

    async def set_presenting(self, presenting: bool) -> Ack:
        """Starts or stops sharing the screen."""
        return await self.set_state(presenting=presenting)

    async def raise_hand(self) -> Ack:
        """Raises the hand."""
        return await self.set_state(hand_raised=True)

    async def lower_hand(self) -> Ack:
        """Lowers the hand."""
        return await self.set_state(hand_raised=False)

    async def report_speaking(self, speaking: bool) -> None:
        """Reports the client's own speaking, as its media stack detects it (no answer comes).

        Args:
            speaking: True when it starts speaking, False when it stops.
        """
        uid = self._link.uid
        if uid is None:
            raise NotConnected("no identity yet")
        await self._link.send({"type": "speaker", "room": self.room, "uid": uid if speaking else None})

    async def report_speaker(self, uid: str | None) -> None:
        """Reports who speaks, for a bot with the `speaker` capability (others may report only themselves, with
        `report_speaking`); no answer comes.

        Args:
            uid: the speaker, or None for nobody.
        """
        await self._link.send({"type": "speaker", "room": self.room, "uid": uid})

    async def set_recording(self, recording: bool) -> Ack:
        """Starts or stops recording (moderators, or bots with the `record` capability)."""
        return await self._acknowledged("media", {"recording": recording})

    async def set_audio_mode(self, mode: str) -> Ack:
        """Sets the participant's own audio output: `speaker`, `earpiece`, `bluetooth` or `headphones`."""
        return await self._acknowledged("media", {"audioMode": mode})

    async def set_attributes(
        self, changes: Mapping[str, str | None], *, uid: str | None = None, if_seq: int | None = None
    ) -> Ack:
        """Sets or removes participant attributes (a None value removes the key).

        Args:
            changes: the keys to set, and those to remove (None).
            uid: another participant, for a bot with the `attributes` capability; None for the client's own
                (keys its token set are the backend's and cannot be changed).
            if_seq: a version check (`ifSeq`): refused, changing nothing, if the attributes changed after this
                sequence number (the `seq` they were read at, or an earlier ack's).

        Raises:
            ForbiddenError: a key the token set, or another's attributes without the capability;
                TooLargeError: past the limits; ConflictError: they changed after `if_seq`.
        """
        fields: dict[str, Any] = {"attributes": dict(changes)}
        if uid is not None:
            fields["uid"] = uid
        return await self._acknowledged("attributes", _versioned(fields, if_seq))

    async def set_metadata(self, changes: Mapping[str, str | None], *, if_seq: int | None = None) -> Ack:
        """Sets or removes the room's metadata (moderators, bots with the `metadata` capability).

        Args:
            changes: the keys to set, and those to remove (None).
            if_seq: a version check, as for `set_attributes` (ConflictError when stale).
        """
        return await self._acknowledged("metadata", _versioned({"metadata": dict(changes)}, if_seq))

    # MARK: Moderation

    async def action(self, action: str, target: str | None = None, reason: str | None = None) -> Ack:
        """Performs a moderator action (docs/PROTOCOL.md, "action").

        Args:
            action: `mute`, `mute_all`, `ask_unmute`, `lower_hand`, `lower_all_hands`, `spotlight`,
                `unspotlight`, `promote`, `demote`, `remove`, `ban`, `unban`, `end_session`, `lock`, `unlock`,
                `require_admission`, `open_admission`, `admit`, `admit_all`, `deny` or `deny_all`.
            target: the uid it applies to; None for `mute_all`, `lower_all_hands`, `end_session`, `lock`, `unlock`,
                `require_admission`, `open_admission`, `admit_all`, `deny_all`.
            reason: shown with the event.

        Raises:
            ForbiddenError: the client may not; NotFoundError: the target is not in the call.
        """
        fields: dict[str, Any] = {"action": action}
        if target is not None:
            fields["target"] = target
        if reason is not None:
            fields["reason"] = reason
        return await self._acknowledged("action", fields)

    async def mute(
        self, uid: str, reason: str | None = None, *, hard: bool = False, duration: float | None = None
    ) -> Ack:
        """Mutes a participant; a hard mute also refuses their own unmuting until a moderator lifts it
        (`ask_unmute`, or `set_permissions(uid, unmute=True)`) or `duration` seconds pass.

        Args:
            uid: the participant.
            reason: shown with the event.
            hard: whether to restrict their unmuting.
            duration: for a hard mute, seconds until the gateway lifts it (1 s to a day); None until lifted.
        """
        if not hard:
            return await self.action("mute", uid, reason)
        fields: dict[str, Any] = {"action": "mute", "target": uid, "hard": True}
        if reason is not None:
            fields["reason"] = reason
        if duration is not None:
            fields["durationMs"] = int(duration * 1000)
        return await self._acknowledged("action", fields)

    async def ask_unmute(self, uid: str, reason: str | None = None) -> Ack:
        """Lifts a hard mute's restriction and asks the participant to unmute (`moderation.unmute_requested`)."""
        return await self.action("ask_unmute", uid, reason)

    async def set_permissions(self, uid: str, *, if_seq: int | None = None, **permissions: bool) -> Ack:
        """Changes what a participant may do (moderators, bots with `permissions`); the others stay as they are.

        Args:
            uid: the participant.
            if_seq: a version check, as for `set_attributes` (ConflictError when stale).
            **permissions: any of `unmute`, `share`, `meetings` (default True) and `hidden` (default False).
        """
        return await self._acknowledged("permissions", _versioned({"uid": uid, "permissions": permissions}, if_seq))

    async def mute_all(self, reason: str | None = None) -> Ack:
        """Mutes every joined participant who is not a moderator."""
        return await self.action("mute_all", None, reason)

    async def lower_hand_of(self, uid: str, reason: str | None = None) -> Ack:
        """Lowers a participant's hand."""
        return await self.action("lower_hand", uid, reason)

    async def lower_all_hands(self, reason: str | None = None) -> Ack:
        """Lowers every raised hand."""
        return await self.action("lower_all_hands", None, reason)

    async def remove(self, uid: str, reason: str | None = None) -> Ack:
        """Removes a participant from the call (their connection closes with 4003)."""
        return await self.action("remove", uid, reason)

    async def ban(self, uid: str, reason: str | None = None) -> Ack:
        """Bans a user from the room (their connection closes with 4004)."""
        return await self.action("ban", uid, reason)

    async def end_session(self, reason: str | None = None) -> Ack:
        """Ends the call for everyone (connections close with 4005)."""
        return await self.action("end_session", None, reason)

    async def lock(self, reason: str | None = None) -> Ack:
        """Locks the room: new joins into the call fail with RoomLockedError but for moderators, admins and bots
        with `lock` (`rights["bypassLock"]`); who is in stays."""
        return await self.action("lock", None, reason)

    async def unlock(self, reason: str | None = None) -> Ack:
        """Unlocks the room."""
        return await self.action("unlock", None, reason)

    @property
    def locked(self) -> bool:
        """Whether the room is locked (the roster's room entry carries `locked` while it is)."""
        return bool(self.room_state.get("locked", False))

    @property
    def presenter_floor(self) -> int | None:
        """How many may present at once (the roster's room entry carries `floor` while a moderator set one); None
        when any number may. A start beyond it is refused with FloorTakenError."""
        floor = self.room_state.get("floor")
        return floor if isinstance(floor, int) else None

    @property
    def floor_queue(self) -> list[str]:
        """Who waits to present while the floor queues (the room entry's `floorQueue`), in order: the first may
        start once fewer than `presenter_floor` present. Empty when nobody waits or the floor does not queue."""
        queue = self.room_state.get("floorQueue")
        return [uid for uid in queue if isinstance(uid, str)] if isinstance(queue, list) else []

    # MARK: The waiting room

    async def require_admission(self, reason: str | None = None) -> Ack:
        """Turns the room's waiting room on (moderators, bots with `admit`): from now on a join into the call by a
        user not in it waits until admitted or denied; who is in stays."""
        return await self.action("require_admission", None, reason)

    async def open_admission(self, reason: str | None = None) -> Ack:
        """Turns the waiting room off and lets everyone waiting in, in arrival order."""
        return await self.action("open_admission", None, reason)

    async def admit(self, uid: str, reason: str | None = None) -> Ack:
        """Lets a waiting user into the call: their join goes on (its ack, then its snapshot).

        Raises:
            NotFoundError: the user does not wait.
        """
        return await self.action("admit", uid, reason)

    async def admit_all(self, reason: str | None = None) -> Ack:
        """Lets everyone waiting into the call, in arrival order."""
        return await self.action("admit_all", None, reason)

    async def deny(self, uid: str, reason: str | None = None) -> Ack:
        """Turns a waiting user away: their join raises AdmissionDeniedError with `reason` in its message.

        Raises:
            NotFoundError: the user does not wait.
        """
        return await self.action("deny", uid, reason)

    async def deny_all(self, reason: str | None = None) -> Ack:
        """Turns everyone waiting away."""
        return await self.action("deny_all", None, reason)

    async def waiting_page(self, *, limit: int | None = None, after: int | None = None) -> WaitingPage:
        """One page of who waits, in arrival order (the `waiting` query; moderators, bots with `admit`).

        Args:
            limit: entries at most, 1 to 1000 (the gateway's default 100).
            after: the `next` of the page before (a position from 1); None from the first.

        Raises:
            ForbiddenError: the client may not admit.
        """
        parameters: dict[str, Any] = {}
        if limit is not None:
            parameters["limit"] = limit
        if after is not None:
            parameters["after"] = after
        return WaitingPage.from_result(await self.query("waiting", **parameters))

    async def waiting(self, *, page_limit: int = 500) -> list[WaitingEntry]:
        """Everyone who waits, in arrival order, read a page at a time (the `waiting` query).

        Args:
            page_limit: entries per page, 1 to 1000.

        Raises:
            ForbiddenError: the client may not admit.
        """
        entries: list[WaitingEntry] = []
        after: int | None = None
        for _ in range(MAXIMUM_WAITING_PAGES):
            page = await self.waiting_page(limit=page_limit, after=after)
            entries.extend(page.entries)
            if page.next is None or not page.entries:
                break
            after = page.next
        return entries

    @property
    def waiting_entries(self) -> list[WaitingEntry]:
        """Who waits, in arrival order, from the roster of a room mirrored with `View.waiting()`; empty for
        another view (read `waiting()` or `waiting_count` there)."""
        if self.view.filter != "waiting":
            return []
        participants = self.roster.get("participants")
        entries = [
            WaitingEntry.from_entry(entry, uid)
            for uid, entry in (participants.items() if isinstance(participants, dict) else ())
            if isinstance(entry, dict)
        ]
        return sorted(entries, key=lambda entry: (entry.waiting_since, entry.uid))

    @property
    def admission_required(self) -> bool:
        """Whether the room's waiting room is on (the roster's room entry carries `admission` while it is)."""
        return self.room_state.get("admission") is True

    @property
    def waiting_count(self) -> int:
        """How many wait in the waiting room (the room entry's `waiting`; 0 when nobody does)."""
        count = self.room_state.get("waiting")
        return count if isinstance(count, int) and not isinstance(count, bool) else 0

    # MARK: Queries, views, leaving

    async def query(self, name: str, **parameters: Any) -> dict[str, Any]:
        """Asks about this room: `members`, `operators`, `muted`, `banned`, `history` (`after`, `limit`) or
        `waiting` (`after`, `limit`; `waiting()` reads it into entries).

        Args:
            name: the query.
            **parameters: its parameters.

        Returns:
            The whole `result` message.
        """
        return await self._link.request({"type": "query", "query": name, "room": self.room, **parameters})

    async def change_view(self, view: View) -> None:
        """Switches the roster view without leaving; returns once the new view's snapshot is applied.

        Args:
            view: the new view.
        """
        await self._link.request(
            {"type": "view", "room": self.room, "view": view.to_json()}, room=self.room, completes_on_roster=True
        )
        self._mirror.view = view

    async def leave(self) -> None:
        """Leaves the room (a participant leaves the call at once); the room ends."""
        await self._link.request({"type": "leave", "room": self.room})
        self._link.forget(self)
        self._end(None)

    async def _acknowledged(self, kind: str, fields: Mapping[str, Any]) -> Ack:
        return Ack.from_message(await self._link.request({"type": kind, "room": self.room, **fields}))

    # MARK: The session's side

    def _handle(self, message: Mapping[str, Any]) -> Rejoin | None:
        changes, rejoin = self._mirror.handle(message)
        if self._wait is not None and message.get("type") in ("snapshot", "resumed"):
            # The join that waited was let in: its roster arrives.
            self._wait = None
            self._publish(Admitted())
        for change in changes:
            self._publish(change)
        return rejoin

    def _waited(self, update: Waiting) -> None:
        """The gateway holds the room's join in the waiting room, at `update.position`."""
        if not self._active:
            return
        self._wait = update
        self._waits.publish(update)
        self._publish(update)

    async def _until_joined(self) -> None:
        """Returns once the room has its first roster (a rejoin after a reconnect brought it); raises the room's
        error when it ends first."""
        if self._mirror.store is not None:
            return
        if not self._active:
            raise self._end_error or RollcallError(f"room {self.room} ended before it was joined")
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._joined.append(waiter)
        await waiter

    async def _join(self) -> None:
        ack = await self._link.request(
            self._mirror.join_message(resume=False), room=self.room, completes_on_roster=True
        )
        self._keep_rights(ack)

    def _keep_rights(self, ack: Mapping[str, Any]) -> None:
        rights = ack.get("rights")
        if isinstance(rights, dict):
            self._rights = rights

    async def _rejoin(self, resume: bool) -> None:
        try:
            ack = await self._link.request(
                self._mirror.join_message(resume=resume), room=self.room, completes_on_roster=True
            )
            self._keep_rights(ack)
            waiters, self._joined = self._joined, []
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_result(None)
        except (ConnectionClosed, NotConnected):
            return  # The next connection rejoins again.
        except RequestTimeout as error:
            if self._mirror.store is not None:
                return  # The next connection rejoins again.
            # A room never joined (its first join waited when the connection dropped) would wait for nothing.
            self._link.forget(self)
            self._end(error)
        except RollcallError as error:
            self._link.forget(self)
            self._end(error)

    def _signal(self, message: Mapping[str, Any]) -> None:
        if self._active:
            self._signals.publish(Signal.from_message(message))

    def _connection_lost(self) -> None:
        self._publish(ConnectionLost())

    def _unsubscribed(self, reason: str) -> None:
        """The gateway took the subscription out of the room: `Unsubscribed`, then `Ended`."""
        self._publish(Unsubscribed(reason))
        self._end(UnsubscribedError(self.room, reason))

    def _end(self, error: RollcallError | None) -> None:
        if not self._active:
            return
        self._wait = None
        self._end_error = error
        self._changes.publish(Ended(error))
        self._active = False
        self._changes.finish()
        self._signals.finish()
        self._waits.finish()
        waiters, self._joined = self._joined, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_exception(error or RollcallError(f"room {self.room} ended before it was joined"))

    def _publish(self, change: RoomChange) -> None:
        if self._active:
            self._changes.publish(change)

    def __repr__(self) -> str:
        return f"Room({self.room!r}, seq={self.seq}, participants={len(self.participants)})"


def _versioned(fields: dict[str, Any], if_seq: int | None) -> dict[str, Any]:
    """The fields of a write, with `ifSeq` when it is version-checked."""
    if if_seq is not None:
        fields["ifSeq"] = if_seq
    return fields
