"""One WebSocket to the gateway speaking the rooms protocol: JSON messages, authentication, close codes.

`Connection` does not reconnect and keeps no rooms: `Client` builds on it, and scripts or tests that want to see
every message as it comes use it directly.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping
from typing import Any, Literal
from urllib.parse import quote

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed as WebSocketClosed
from websockets.exceptions import InvalidHandshake, InvalidURI

from .errors import ConnectError, ConnectionClosed, ProtocolError, RequestTimeout, server_error

AuthMode = Literal["query", "header", "message"]
"""How the token travels: the `token` query parameter, an `Authorization: Bearer` header, or an `auth` message."""

MAXIMUM_MESSAGE_BYTES = 16 * 1024 * 1024
"""The largest message accepted from the gateway (a large room's snapshot can pass the library's 1 MiB default)."""


class Connection:
    """An open WebSocket to the gateway.

    Attributes:
        welcome: the gateway's `welcome` once the token was accepted, None before (or without a token).
    """

    def __init__(self, websocket: ClientConnection) -> None:
        self._websocket = websocket
        self._next_id = 0
        self.welcome: dict[str, Any] | None = None

    @classmethod
    async def open(
        cls,
        url: str,
        token: str | None = None,
        *,
        auth: AuthMode = "query",
        open_timeout: float = 10.0,
        welcome_timeout: float = 10.0,
        compression: bool = True,
        headers: Mapping[str, str] | None = None,
        **options: Any,
    ) -> Connection:
        """Opens a WebSocket and, given a token, authenticates; returns after the `welcome`.

        Args:
            url: the rooms endpoint, `ws://HOST:PORT/v1/ws` or `wss://...`.
            token: the JWT, or None to authenticate later (or never).
            auth: how the token travels.
            open_timeout: seconds for TCP, TLS and the upgrade together.
            welcome_timeout: seconds to wait for the `welcome` after the upgrade.
            compression: whether to offer permessage-deflate.
            headers: extra request header fields, such as `Origin`.
            **options: passed to `websockets.asyncio.client.connect` (`ssl`, `ping_interval`, `proxy`, ...).

        Returns:
            The connection.

        Raises:
            ConnectError: the WebSocket could not be opened.
            UnauthorizedError: the gateway refused the token (it then closes with 4001).
            ConnectionClosed: the connection closed before the `welcome`.
            RequestTimeout: no `welcome` within `welcome_timeout`.
        """
        extra = dict(headers or {})
        if token is not None and auth == "query":
            url = f"{url}{'&' if '?' in url else '?'}token={quote(token, safe='')}"
        elif token is not None and auth == "header":
            extra["Authorization"] = f"Bearer {token}"
        settings: dict[str, Any] = {
            "proxy": None,
            "close_timeout": 2.0,
            "max_size": MAXIMUM_MESSAGE_BYTES,
            **options,
        }
        try:
            websocket = await connect(
                url,
                additional_headers=extra or None,
                compression="deflate" if compression else None,
                open_timeout=open_timeout,
                **settings,
            )
        except (OSError, InvalidHandshake, InvalidURI, asyncio.TimeoutError) as error:
            raise ConnectError(f"cannot open {url.split('?')[0]}: {error or type(error).__name__}") from error
        connection = cls(websocket)
        if token is not None:
            try:
                await connection._authenticate(token, auth, welcome_timeout)
            except BaseException:
                connection.abort()
                raise
        return connection

    async def _authenticate(self, token: str, auth: AuthMode, timeout: float) -> None:
        request_id = None
        if auth == "message":
            request_id = self.next_id()
            await self.send({"type": "auth", "id": request_id, "token": token})
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        for _ in range(1000):
            remaining = deadline - loop.time()
            if remaining <= 0:
                break
            message = await self.receive(timeout=remaining)
            if message.get("type") == "welcome":
                self.welcome = message
                return
            if message.get("type") == "error" and message.get("id") in (None, request_id):
                raise server_error(str(message.get("code") or "ERR_UNKNOWN"), str(message.get("message") or ""))
        raise RequestTimeout(f"no welcome within {timeout} s")

    # MARK: Sending

    def next_id(self) -> int:
        """A new request id, unique on this connection."""
        self._next_id += 1
        return self._next_id

    async def send(self, message: Mapping[str, Any] | str | bytes) -> None:
        """Sends a message: a mapping as JSON text, text and bytes as they are (bytes go as a binary frame).

        Args:
            message: the message.

        Raises:
            ConnectionClosed: the connection is closed.
        """
        data = message if isinstance(message, (str, bytes)) else json.dumps(message, separators=(",", ":"))
        try:
            await self._websocket.send(data)
        except WebSocketClosed as closed:
            raise self._closed(closed) from None

    # MARK: Receiving

    async def receive(self, timeout: float | None = None) -> dict[str, Any]:
        """The next message, parsed.

        Args:
            timeout: seconds to wait; None waits as long as the connection lives.

        Raises:
            ConnectionClosed: the connection closed (with the close code received, if any).
            RequestTimeout: nothing arrived within `timeout`.
            ProtocolError: the gateway sent something that is not a JSON object.
        """
        try:
            raw = await asyncio.wait_for(self._websocket.recv(), timeout)
        except asyncio.TimeoutError:
            raise RequestTimeout(f"no message within {timeout} s") from None
        except WebSocketClosed as closed:
            raise self._closed(closed) from None
        try:
            message = json.loads(raw)
        except ValueError:
            raise ProtocolError(f"not JSON: {raw[:80]!r}") from None
        if not isinstance(message, dict):
            raise ProtocolError(f"not a JSON object: {raw[:80]!r}")
        return message

    def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        return self._messages()

    async def _messages(self) -> AsyncIterator[dict[str, Any]]:
        while True:
            try:
                yield await self.receive()
            except ConnectionClosed:
                return

    # MARK: Closing

    async def close(self, code: int = 1000, reason: str = "") -> None:
        """Closes with the close handshake.

        Args:
            code: the close code.
            reason: a short reason.
        """
        await self._websocket.close(code, reason)

    def abort(self) -> None:
        """Drops the TCP connection at once, without a close handshake, as a network failure would."""
        transport = self._websocket.transport
        if transport is not None:
            transport.abort()

    @property
    def close_code(self) -> int | None:
        """The close code received, once closed; None while open or when the connection dropped."""
        return self._websocket.close_code

    @property
    def is_compressed(self) -> bool:
        """Whether the gateway agreed to permessage-deflate."""
        return bool(self._websocket.protocol.extensions)

    @property
    def websocket(self) -> ClientConnection:
        """The underlying `websockets` connection."""
        return self._websocket

    @staticmethod
    def _closed(closed: WebSocketClosed) -> ConnectionClosed:
        if closed.rcvd is not None:
            return ConnectionClosed(closed.rcvd.code, closed.rcvd.reason)
        return ConnectionClosed(None, "the connection dropped")
