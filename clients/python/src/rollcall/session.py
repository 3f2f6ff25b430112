"""The client's connection life: connecting, authenticating, reading, reconnecting with backoff, refreshing tokens.

`Session` is the machinery under `Client`: one task runs connections one after another; each connection's
messages are read and dispatched in order in that task, so every callback runs there, one at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Coroutine, Mapping
from typing import Any, Literal

from .connection import AuthMode, Connection
from .errors import (
    ConnectError,
    ConnectionClosed,
    NotConnected,
    ProtocolError,
    RequestTimeout,
    RollcallError,
    ServerError,
    server_error,
)
from .events import Event, Waiting
from .listeners import Broadcaster
from .mirror import RoomMirror
from .reconnect import ReconnectPolicy
from .requests import PendingRequests
from .room import Room
from .tokensource import TokenSource

Status = Literal["idle", "connecting", "connected", "reconnecting", "closed"]
"""Where a client's connection stands."""

logger = logging.getLogger("rollcall")


class Session:
    """Connections to one gateway, one after another, and what is shared across them.

    The session owns its rooms and routes their messages to them; each room reaches back only through the narrow
    `RoomLink` it was given (requests, sends, the uid, being forgotten), which the session implements.
    """

    def __init__(
        self,
        url: str,
        tokens: TokenSource,
        *,
        auth: AuthMode,
        reconnect: ReconnectPolicy,
        request_timeout: float,
        open_timeout: float,
        compression: bool,
        refresh_margin: float,
        options: Mapping[str, Any],
    ) -> None:
        self.url = url
        self.tokens = tokens
        self.auth = auth
        self.reconnect = reconnect
        self.request_timeout = request_timeout
        self.open_timeout = open_timeout
        self.compression = compression
        self.refresh_margin = refresh_margin
        self.options = dict(options)
        self.status: Status = "idle"
        self.connection: Connection | None = None
        self.identity: dict[str, Any] = {}
        self.welcome: dict[str, Any] = {}
        self.rooms: dict[str, Room] = {}
        self.requests = PendingRequests()
        self.last_close: ConnectionClosed | None = None
        self.status_changes: Broadcaster[Status] = Broadcaster()
        self.meetings: Broadcaster[Event] = Broadcaster()
        self.server_errors: Broadcaster[ServerError] = Broadcaster()
        self.waits: Broadcaster[Waiting] = Broadcaster()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        self._wake = asyncio.Event()
        self._closed = asyncio.Event()
        self._background: set[asyncio.Task[Any]] = set()

    # MARK: Starting and stopping

    async def start(self) -> None:
        """Connects and authenticates; returns after the first `welcome` (a failure is raised, not retried)."""
        if self._task is not None:
            raise RollcallError("connect() was already called")
        first: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._set_status("connecting")
        self._task = asyncio.create_task(self._run(first))
        await first

    async def stop(self) -> None:
        """Closes the connection (1000) and ends every room; returns once the session has stopped."""
        self._stopping = True
        self._wake.set()
        connection = self.connection
        if connection is not None:
            try:
                await asyncio.wait_for(connection.close(1000), self.request_timeout)
            except (RollcallError, asyncio.TimeoutError, OSError):
                connection.abort()
        elif self._task is not None:
            self._task.cancel()
        if self._task is None:
            self._finish(None, None)
            return
        try:
            await self._task
        except asyncio.CancelledError:
            if not self._task.cancelled():
                raise

    async def wait_closed(self) -> None:
        """Returns once the session is closed (by `stop`, a final close code, or the last reconnect attempt)."""
        await self._closed.wait()

    def spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        """Runs work in a task the session keeps until it ends, and cancels when the session closes."""
        task = asyncio.create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # MARK: Rooms

    def add_room(self, mirror: RoomMirror) -> Room:
        """A new room for the mirror, routed its messages from now on (before its join is sent).

        Raises:
            RollcallError: the session already has a room with that id.
        """
        if mirror.room in self.rooms:
            raise RollcallError(f"already in room {mirror.room}")
        room = Room(self, mirror)
        self.rooms[mirror.room] = room
        return room

    def forget(self, room: Room) -> None:
        """Stops routing messages to the room and rejoining it; a no-op when the id is another room's now.

        A join of the room still waiting for its roster (held in the waiting room) fails: the room was left.
        """
        if self.rooms.get(room.room) is room:
            del self.rooms[room.room]
            self.requests.fail_room(room.room, RollcallError(f"left room {room.room} before the join completed"))

    async def leave_quietly(self, room: str) -> None:
        """Sends `leave` for a room whose join was given up while it waited in the waiting room, so the gateway
        takes the user out of the queue; a failure is ignored (a closed connection ends the wait anyway)."""
        with contextlib.suppress(RollcallError):
            await self.request({"type": "leave", "room": room})

    @property
    def uid(self) -> str | None:
        """The authenticated user's uid, from the last `welcome`; None before it."""
        uid = self.identity.get("uid")
        return uid if isinstance(uid, str) else None

    # MARK: Requests

    async def request(
        self, message: Mapping[str, Any], *, room: str | None = None, completes_on_roster: bool = False
    ) -> dict[str, Any]:
        """Sends a request with a new id and returns its answer.

        A join the gateway holds in the room's waiting room (`waiting`) waits past the request timeout: as long as
        the room lets anyone wait, then the request timeout more.

        Raises:
            NotConnected: no authenticated connection now.
            ServerError: the gateway answered with an error (its subclass for the code).
            ConnectionClosed: the connection closed before the answer.
            RequestTimeout: no answer within the request timeout (or, for a held join, after its wait).
        """
        connection = self.connection
        if connection is None or self.status != "connected":
            raise NotConnected(f"not connected ({self.status})")
        request_id, future = self.requests.add(room, completes_on_roster)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.request_timeout
        try:
            await connection.send({**message, "id": request_id})
            while True:
                # asyncio.wait leaves the future alone when it times out, so a held join keeps waiting on it.
                await asyncio.wait((future,), timeout=max(0.0, deadline - loop.time()))
                if future.done():
                    return future.result()
                held = self.requests.held_until(request_id)
                if held is None or held <= loop.time():
                    raise RequestTimeout(f"no answer to {message.get('type')} within {self.request_timeout} s")
                deadline = held
        finally:
            self.requests.discard(request_id)

    async def send(self, message: Mapping[str, Any]) -> None:
        """Sends a message no answer comes for (such as `speaker` without an id)."""
        connection = self.connection
        if connection is None or self.status != "connected":
            raise NotConnected(f"not connected ({self.status})")
        await connection.send(message)

    # MARK: The connection loop

    def _set_status(self, status: Status) -> None:
        if status != self.status:
            self.status = status
            self.status_changes.publish(status)

    async def _pause(self, seconds: float) -> None:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._wake.wait(), seconds)

    async def _run(self, first: asyncio.Future[None]) -> None:
        attempt = 0
        connected_once = False
        last_close: ConnectionClosed | None = None
        try:
            while not self._stopping:
                connection: Connection | None = None
                failure: RollcallError | None = None
                try:
                    token = await self.tokens.for_connection(reconnecting=connected_once)
                    connection = await Connection.open(
                        self.url,
                        token,
                        auth=self.auth,
                        open_timeout=self.open_timeout,
                        welcome_timeout=self.request_timeout,
                        compression=self.compression,
                        **self.options,
                    )
                except RollcallError as error:
                    failure = error
                except Exception as error:  # an unexpected failure of the WebSocket library counts as a failed attempt
                    failure = ConnectError(f"cannot open {self.url.split('?')[0]}: {error!r}")
                if self._stopping:
                    if connection is not None:
                        await connection.close(1000)
                    break
                if connection is not None:
                    connected_once = True
                    attempt = 0
                    last_close = await self._serve(connection, first)
                    if self._stopping or last_close.is_final:
                        break
                elif not connected_once:
                    if not first.done() and failure is not None:
                        first.set_exception(failure)
                    return
                elif isinstance(failure, ServerError):
                    # The gateway refused the token of a reconnect; it closes with 4001 after the error.
                    last_close = ConnectionClosed(4001, str(failure))
                    break
                attempt += 1
                if attempt > self.reconnect.max_attempts:
                    break
                self._set_status("reconnecting")
                await self._pause(self.reconnect.delay(attempt))
        finally:
            self._finish(last_close, first)

    async def _serve(self, connection: Connection, first: asyncio.Future[None]) -> ConnectionClosed:
        """Reads one authenticated connection until it closes; returns how it closed."""
        self.connection = connection
        self._welcomed(connection.welcome or {})
        self._set_status("connected")
        if not first.done():
            first.set_result(None)
        else:
            for room in list(self.rooms.values()):
                self.spawn(room._rejoin(resume=True))
        refresher = asyncio.create_task(self._keep_token_fresh()) if self.tokens.can_refresh else None
        closed = ConnectionClosed(None, "the connection dropped")
        try:
            while True:
                try:
                    message = await connection.receive()
                except ProtocolError as error:
                    logger.warning("ignored a message from the gateway: %s", error)
                    continue
                try:
                    self._dispatch(message)
                except Exception:
                    logger.exception("a message from the gateway could not be handled: %.200s", message)
        except ConnectionClosed as error:
            closed = error
        finally:
            self.connection = None
            if refresher is not None:
                refresher.cancel()
            self.last_close = closed
            self.requests.fail_all(closed)
            if not self._stopping:
                for room in list(self.rooms.values()):
                    room._connection_lost()
        return closed

    def _welcomed(self, welcome: Mapping[str, Any]) -> None:
        self.welcome = dict(welcome)
        self.identity = {key: welcome.get(key) for key in ("uid", "name", "expiresAt")}

    def _dispatch(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind in ("ack", "result", "pong", "welcome", "error"):
            if kind == "welcome":
                self._welcomed(message)
            if self.requests.answer(message) or kind != "error":
                return
            error = server_error(str(message.get("code") or "ERR_UNKNOWN"), str(message.get("message") or ""))
            self.server_errors.publish(error)
            return
        if kind == "waiting":
            self._waiting(message)
            return
        if kind == "unsubscribed":
            # Taken out of the room (another connection holds the device now): forgotten first, so no reconnect
            # joins it again.
            taken_id = message.get("room")
            taken = self.rooms.pop(taken_id, None) if isinstance(taken_id, str) else None
            if taken is not None:
                taken._unsubscribed(str(message.get("reason") or ""))
            return
        if kind == "signal":
            signal_room_id = message.get("room")
            signal_room = self.rooms.get(signal_room_id) if isinstance(signal_room_id, str) else None
            if signal_room is not None:
                signal_room._signal(message)
            return
        if kind not in ("snapshot", "patch", "event", "resumed"):
            return
        room_id = message.get("room")
        room = self.rooms.get(room_id) if isinstance(room_id, str) else None
        if room is None:
            event = Event.from_message(message) if kind == "event" else None
            if event is not None and event.name == "meeting.message":
                self.meetings.publish(event)
            return
        rejoin = room._handle(message)
        if kind in ("snapshot", "resumed"):
            self.requests.roster_arrived(room.room)
        if rejoin is not None:
            self.spawn(room._rejoin(resume=rejoin.resume))

    def _waiting(self, message: Mapping[str, Any]) -> None:
        """A join held in a room's waiting room, or its new position: the request waits on (as long as the room
        lets anyone wait, counted from now, then the request timeout), and the room and the listeners learn it."""
        update = Waiting.from_message(message)
        if update is None:
            return
        loop = asyncio.get_running_loop()
        wait = update.max_wait
        held = (wait if wait is not None else 3600.0) + self.request_timeout
        self.requests.hold(message.get("id"), loop.time() + held)
        room = self.rooms.get(update.room)
        if room is not None:
            room._waited(update)
        self.waits.publish(update)

    async def _keep_token_fresh(self) -> None:
        """Asks the provider for a new token before the current one expires, and refreshes the session with it."""
        for _ in range(10_000):
            expires_at = self.identity.get("expiresAt")
            if not isinstance(expires_at, (int, float)) or expires_at <= 0:
                return
            remaining = expires_at - time.time()
            margin = min(self.refresh_margin, max(remaining, 0) / 2)
            await asyncio.sleep(max(0.0, remaining - margin))
            try:
                token = await self.tokens.fetch()
                await self.request({"type": "auth", "token": token})
            except (ConnectionClosed, NotConnected):
                return
            except ServerError as error:
                self.server_errors.publish(error)
                await asyncio.sleep(max(1.0, margin / 4))
            except RollcallError as error:
                logger.warning("token refresh failed: %s", error)
                await asyncio.sleep(max(1.0, margin / 4))

    def _finish(self, last_close: ConnectionClosed | None, first: asyncio.Future[None] | None) -> None:
        if self.status == "closed":
            return
        if last_close is not None:
            self.last_close = last_close
        error = None if self._stopping else last_close
        for room in list(self.rooms.values()):
            room._end(error)
        self.rooms.clear()
        self.requests.fail_all(last_close or NotConnected("the client closed"))
        if first is not None and not first.done():
            first.set_exception(NotConnected("the client closed before it connected"))
        for task in list(self._background):
            task.cancel()
        self._set_status("closed")
        self.status_changes.finish()
        self.meetings.finish()
        self.server_errors.finish()
        self.waits.finish()
        self._closed.set()
