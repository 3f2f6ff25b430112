"""The table of requests waiting for their answers, by id."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import RollcallError, server_error


@dataclass
class _Pending:
    future: asyncio.Future[dict[str, Any]]
    room: str | None
    completes_on_roster: bool
    ack: dict[str, Any] | None = field(default=None)
    held_until: float | None = field(default=None)


class PendingRequests:
    """Matches answers (`ack`, `result`, `pong`, `welcome`, `error`) to the requests that carry their id.

    A join or view completes when the room's roster arrives (its `snapshot`, or `resumed` after a resume) after the
    `ack`, so the caller finds the roster in place; the future then holds the `ack`. A join the gateway holds in the
    room's waiting room (`waiting`) is held past the request timeout (`hold`).
    """

    def __init__(self) -> None:
        self._next_id = 0
        self._pending: dict[int, _Pending] = {}

    def add(
        self, room: str | None = None, completes_on_roster: bool = False
    ) -> tuple[int, asyncio.Future[dict[str, Any]]]:
        """Registers a request; returns its id and the future its answer completes.

        Args:
            room: the room a join or view is about.
            completes_on_roster: whether the request completes on the room's roster rather than on its `ack`.
        """
        self._next_id += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[self._next_id] = _Pending(future, room, completes_on_roster)
        return self._next_id, future

    def discard(self, request_id: int) -> None:
        """Forgets a request (it timed out, or could not be sent).

        Args:
            request_id: its id.
        """
        self._pending.pop(request_id, None)

    def hold(self, request_id: object, until: float) -> bool:
        """Lets a join wait past the request timeout, until `until` (the loop's clock): the gateway holds it in the
        waiting room. False when no request has that id.

        Args:
            request_id: the `id` of the `waiting` message.
            until: the time the request may wait until; a later `hold` replaces it.
        """
        if not isinstance(request_id, int) or isinstance(request_id, bool) or request_id not in self._pending:
            return False
        self._pending[request_id].held_until = until
        return True

    def held_until(self, request_id: int) -> float | None:
        """Until when a request may wait past its timeout; None when the gateway did not hold it.

        Args:
            request_id: its id.
        """
        pending = self._pending.get(request_id)
        return pending.held_until if pending is not None else None

    def fail_room(self, room: str, error: RollcallError) -> None:
        """Fails the joins and views of a room still waiting for its roster (the room was left while they waited).

        Args:
            room: the room.
            error: the error each raises.
        """
        for request_id, pending in list(self._pending.items()):
            if pending.room == room and pending.completes_on_roster:
                del self._pending[request_id]
                if not pending.future.done():
                    pending.future.set_exception(error)

    def answer(self, message: Mapping[str, Any]) -> bool:
        """Completes the request a message answers; False when the message answers none.

        Args:
            message: an `ack`, `result`, `pong`, `welcome` or `error` message.
        """
        request_id = message.get("id")
        if not isinstance(request_id, int) or isinstance(request_id, bool) or request_id not in self._pending:
            return False
        pending = self._pending[request_id]
        kind = message.get("type")
        if kind == "error":
            del self._pending[request_id]
            error = server_error(str(message.get("code") or "ERR_UNKNOWN"), str(message.get("message") or ""))
            if not pending.future.done():
                pending.future.set_exception(error)
            return True
        if kind == "ack" and pending.completes_on_roster:
            pending.ack = dict(message)
            return True
        del self._pending[request_id]
        if not pending.future.done():
            pending.future.set_result(dict(message))
        return True

    def roster_arrived(self, room: str) -> None:
        """Completes the acknowledged join or view waiting for a room's roster.

        Args:
            room: the room whose snapshot or `resumed` arrived.
        """
        for request_id, pending in list(self._pending.items()):
            if pending.room == room and pending.completes_on_roster and pending.ack is not None:
                del self._pending[request_id]
                if not pending.future.done():
                    pending.future.set_result(pending.ack)
                return

    def fail_all(self, error: RollcallError) -> None:
        """Fails every waiting request, when the connection closed.

        Args:
            error: the error each request raises.
        """
        pending, self._pending = self._pending, {}
        for request in pending.values():
            if not request.future.done():
                request.future.set_exception(error)
