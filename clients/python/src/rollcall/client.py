"""The asyncio client: one authenticated connection to the gateway, the rooms joined over it, and requests."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any

from .connection import AuthMode
from .errors import ConnectionClosed, NotConnected, RollcallError, ServerError
from .events import Ack, Event, Waiting
from .listeners import Stream
from .mirror import RoomMirror
from .reconnect import ReconnectPolicy
from .room import Room
from .session import Session, Status
from .tokensource import TokenProvider, TokenSource
from .views import EventMode, JoinAs, View


class Client:
    """A Rollcall client for bots, backends and tools.

    ```python
    async with Client("ws://127.0.0.1:8080/v1/ws", token=token) as client:
        room = await client.join("standup")
        for person in room.participants:
            print(person.name, person.audio_muted)
    ```

    Reconnecting: when the connection drops, the client reconnects with the backoff and jitter of its `reconnect`
    policy and rejoins every room with `resume` (the roster's seq) and `resumeEvents` (the highest seq it received on
    any message of the room), so each replays exactly what it missed or receives a fresh snapshot. Close codes
    4001-4005 (authentication, expiry, removal, ban, session ended) end the client without reconnecting.

    Tokens: give a `token`, a `token_provider` (a plain or async callable returning a fresh token), or both. With a
    provider, every reconnect asks it for a token, and the session is refreshed with a new one `refresh_margin`
    seconds before the current one expires.

    Every message is handled in one task, in order; callbacks (`on_change`, `on_status`, ...) run in it.
    """

    def __init__(
        self,
        url: str,
        token: str | None = None,
        *,
        token_provider: TokenProvider | None = None,
        auth: AuthMode = "query",
        device: str = "default",
        reconnect: ReconnectPolicy | None = None,
        request_timeout: float = 10.0,
        open_timeout: float = 10.0,
        compression: bool = True,
        refresh_margin: float = 60.0,
        **connect_options: Any,
    ) -> None:
        """Creates a client; nothing happens on the network until `connect()`.

        Args:
            url: the rooms endpoint, `ws://HOST:PORT/v1/ws` or `wss://...`.
            token: the JWT the application's backend issued.
            token_provider: returns a fresh token; called on every reconnect and before expiry.
            auth: how the token travels: `query` (default), `header` or `message`.
            device: the device id sent with every participant join.
            reconnect: the reconnect policy; default 10 attempts from 0.2 s, doubling up to 10 s, 20 % jitter.
            request_timeout: seconds a request waits for its answer.
            open_timeout: seconds for TCP, TLS and the upgrade.
            compression: whether to offer permessage-deflate.
            refresh_margin: seconds before expiry at which a provider's new token is sent.
            **connect_options: passed to `websockets.asyncio.client.connect` (`ssl`, `ping_interval`, ...).
        """
        self.device = device
        self._session = Session(
            url,
            TokenSource(token, token_provider, request_timeout),
            auth=auth,
            reconnect=reconnect or ReconnectPolicy(),
            request_timeout=request_timeout,
            open_timeout=open_timeout,
            compression=compression,
            refresh_margin=refresh_margin,
            options=connect_options,
        )

    # MARK: Lifecycle

    async def connect(self) -> None:
        """Connects and authenticates; returns after the gateway's `welcome`.

        Raises:
            ConnectError: the WebSocket could not be opened (a first connection is not retried).
            UnauthorizedError: the gateway refused the token.
        """
        await self._session.start()

    async def close(self) -> None:
        """Closes the connection (1000) and ends every room; idempotent."""
        await self._session.stop()

    async def wait_closed(self) -> None:
        """Returns once the client closed: by `close()`, a final close code, or after the last reconnect attempt."""
        await self._session.wait_closed()

    def drop_connection(self) -> None:
        """Drops the connection as a network failure would; the client then reconnects and resumes every room."""
        connection = self._session.connection
        if connection is not None:
            connection.abort()

    async def __aenter__(self) -> Client:
        await self.connect()
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.close()

    # MARK: State

    @property
    def status(self) -> Status:
        """`idle`, `connecting`, `connected`, `reconnecting` or `closed`."""
        return self._session.status

    @property
    def uid(self) -> str | None:
        """The authenticated user's uid, from the last `welcome`."""
        value = self._session.identity.get("uid")
        return value if isinstance(value, str) else None

    @property
    def name(self) -> str | None:
        """The authenticated user's display name, from the last `welcome`."""
        value = self._session.identity.get("name")
        return value if isinstance(value, str) else None

    @property
    def expires_at(self) -> int | None:
        """When the token expires, seconds since the epoch, from the last `welcome`."""
        value = self._session.identity.get("expiresAt")
        return value if isinstance(value, int) else None

    @property
    def welcome(self) -> Mapping[str, Any]:
        """The last `welcome`: `uid`, `name`, `expiresAt`, and the `rooms`, `groups` and `capabilities` the token
        gives."""
        return self._session.welcome

    @property
    def rooms(self) -> dict[str, Room]:
        """The rooms joined or watched, by id."""
        return dict(self._session.rooms)

    @property
    def close_info(self) -> ConnectionClosed | None:
        """How the last connection closed (its close code and reason), if one did."""
        return self._session.last_close

    @property
    def is_compressed(self) -> bool:
        """Whether the current connection's messages are compressed (permessage-deflate was agreed)."""
        connection = self._session.connection
        return connection is not None and connection.is_compressed

    def on_status(self, callback: Callable[[Status], object]) -> Callable[[], None]:
        """Calls `callback` with every status change; returns a function that removes it."""
        return self._session.status_changes.add(callback)

    def on_meeting(self, callback: Callable[[Event], object]) -> Callable[[], None]:
        """Calls `callback` with meeting messages of groups the client has no room of (those of its rooms arrive as
        the rooms' events); returns a function that removes it."""
        return self._session.meetings.add(callback)

    def meeting_messages(self) -> Stream[Event]:
        """An async iterator of meeting messages of groups without a room, from now on."""
        return self._session.meetings.stream()

    def on_server_error(self, callback: Callable[[ServerError], object]) -> Callable[[], None]:
        """Calls `callback` with errors the gateway sent without a request (such as `ERR_TOKEN_EXPIRED`)."""
        return self._session.server_errors.add(callback)

    def on_waiting(self, callback: Callable[[Waiting], object]) -> Callable[[], None]:
        """Calls `callback` with every `Waiting` of any room's join: the gateway holds it in the room's waiting
        room (`position`, from 1), first when it arrives and again whenever the position changes. The room, in
        `rooms` while its join is pending, has `waiting_position` until it is let in; returns a function that
        removes the callback."""
        return self._session.waits.add(callback)

    # MARK: Rooms

    async def join(
        self,
        room: str,
        *,
        join_as: JoinAs = "participant",
        view: View | None = None,
        events: EventMode = "all",
        call_type: str | None = None,
        device: str | None = None,
        on_waiting: Callable[[Waiting], object] | None = None,
    ) -> Room:
        """Joins a room's call (or watches it) and returns once its first snapshot is applied.

        A bot token joins as the bot role (on the reserved seats) with `join_as="participant"`.

        While the room's waiting room is on (docs/PROTOCOL.md, "Waiting room") the gateway may hold the join until a
        moderator answers: the join then waits past the request timeout, as long as the room lets anyone wait.
        `on_waiting` (and `Client.on_waiting`) hears each `Waiting` with the position; `rooms[room]` is the room
        meanwhile, with its `waiting_position`. Once admitted the join returns as any other; when the connection
        drops meanwhile, the reconnect sends the join again, which waits again. Cancelling the join (or `leave()` on
        `rooms[room]`) leaves the waiting room.

        Args:
            room: the room id (a group's room is the group id).
            join_as: `participant` (default) or `observer`.
            view: the roster view to mirror; default the whole roster.
            events: `all` (default), `notable` or `none`.
            call_type: `audio` or `video`, taken from the join that starts the call.
            device: the device id; default the client's.
            on_waiting: called with every `Waiting` while the join waits in the waiting room.

        Raises:
            NotGroupMemberError, BannedError, CallFullError, TooManyRoomsError, RoomFullError: refused.
            AdmissionDeniedError: a moderator turned the waiting join away (`reason` is theirs).
            WaitExpiredError: the join waited as long as the room lets anyone wait.
            WaitingRoomFullError: the waiting room holds as many as it may.
        """
        mirror = RoomMirror(
            room, join_as=join_as, device=device or self.device, view=view, events=events, call_type=call_type
        )
        subscription = self._session.add_room(mirror)
        if on_waiting is not None:
            subscription.on_waiting(on_waiting)
        try:
            try:
                await subscription._join()
            except (ConnectionClosed, NotConnected):
                if subscription.waiting_position is None or self._session.status == "closed":
                    raise
                # The connection dropped while the join waited: the reconnect sends it again (the session rejoins
                # every room it has), and it waits again.
                await subscription._until_joined()
        except BaseException as error:
            abandoned = subscription.waiting_position is not None and not isinstance(error, ServerError)
            self._session.forget(subscription)
            subscription._end(error if isinstance(error, RollcallError) else None)
            if abandoned:
                self._session.spawn(self._session.leave_quietly(room))
            raise
        return subscription

    async def observe(self, room: str, *, view: View | None = None, events: EventMode = "all") -> Room:
        """Watches a room without joining its call (`join_as="observer"`).

        Args:
            room: the room id.
            view: the roster view to mirror.
            events: the events to receive besides patches.
        """
        return await self.join(room, join_as="observer", view=view, events=events)

    # MARK: Requests

    async def meeting(
        self, group: str, session_id: str, *, call_type: str = "video", text: str | None = None, active: bool = True
    ) -> Ack:
        """Tells every member of a group that a meeting is on (or over, with `active=False`).

        Args:
            group: the group id.
            session_id: the calls SDK's session id.
            call_type: `audio` or `video`.
            text: a short text, such as the meeting's title.
            active: False announces the end.
        """
        message: dict[str, Any] = {
            "type": "meeting",
            "group": group,
            "sessionId": session_id,
            "callType": call_type,
            "active": active,
        }
        if text is not None:
            message["text"] = text
        return Ack.from_message(await self._session.request(message))

    async def query(self, name: str, **parameters: Any) -> dict[str, Any]:
        """Asks the gateway: `rooms`, `active_meeting` (`group`), `members`, `operators`, `muted`, `banned`
        (`room`) or `history` (`room`, `after`, `limit`).

        Args:
            name: the query.
            **parameters: its parameters.

        Returns:
            The whole `result` message.
        """
        return await self._session.request({"type": "query", "query": name, **parameters})

    async def active_meeting(self, group: str) -> Mapping[str, Any] | None:
        """The group's active meeting (`sessionId`, `callType`, `sender`, `active`, `text`), or None.

        Args:
            group: the group id.
        """
        meeting = (await self.query("active_meeting", group=group)).get("meeting")
        return meeting if isinstance(meeting, dict) and meeting.get("active") is True else None

    async def ping(self) -> None:
        """Sends a protocol-level `ping` and waits for the `pong`."""
        await self._session.request({"type": "ping"})

    async def refresh_token(self, token: str | None = None) -> None:
        """Replaces the session's token before it expires; later reconnects use the new one.

        Args:
            token: a token for the same user; None asks the token provider.

        Raises:
            ForbiddenError: a token for another user; UnauthorizedError: one that fails verification. The
                connection stays on the old token either way.
        """
        fresh = token if token is not None else await self._session.tokens.fetch()
        await self._session.request({"type": "auth", "token": fresh})
        self._session.tokens.replace(fresh)
