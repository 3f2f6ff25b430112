"""Hands values to callbacks and to async iterators, in order."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from typing import Generic, TypeVar

T = TypeVar("T")

logger = logging.getLogger("rollcall")


class Stream(Generic[T]):
    """An async iterator over the values published after it was made; it ends when its broadcaster finishes.

    It keeps at most `limit` values that were not read yet and drops the oldest beyond.
    """

    def __init__(self, owner: Broadcaster[T], limit: int) -> None:
        self._owner = owner
        self._queue: asyncio.Queue[tuple[bool, T | None]] = asyncio.Queue()
        self._limit = limit
        self._done = False

    def _put(self, value: T) -> None:
        if self._queue.qsize() >= self._limit:
            self._queue.get_nowait()
        self._queue.put_nowait((True, value))

    def _end(self) -> None:
        self._queue.put_nowait((False, None))

    def __aiter__(self) -> AsyncIterator[T]:
        return self

    async def __anext__(self) -> T:
        if self._done:
            raise StopAsyncIteration
        more, value = await self._queue.get()
        if not more:
            self._done = True
            raise StopAsyncIteration
        return value  # type: ignore[return-value]

    def close(self) -> None:
        """Stops receiving values; iteration ends after the ones already queued."""
        self._owner._streams.discard(self)
        if not self._done:
            self._end()


class Broadcaster(Generic[T]):
    """Publishes values to callbacks (called at once, in the publishing task) and to streams."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[[T], object]] = []
        self._streams: set[Stream[T]] = set()
        self._finished = False

    def add(self, callback: Callable[[T], object]) -> Callable[[], None]:
        """Adds a callback; returns a function that removes it."""
        self._callbacks.append(callback)

        def remove() -> None:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

        return remove

    def stream(self, limit: int = 4096) -> Stream[T]:
        """A new stream of the values published from now on."""
        stream: Stream[T] = Stream(self, limit)
        if self._finished:
            stream._end()
        else:
            self._streams.add(stream)
        return stream

    def publish(self, value: T) -> None:
        """Calls every callback with the value and queues it on every stream; a failing callback is logged."""
        for callback in list(self._callbacks):
            try:
                callback(value)
            except Exception:
                logger.exception("a rollcall callback failed")
        for stream in list(self._streams):
            stream._put(value)

    def finish(self) -> None:
        """Ends every stream; later streams end at once."""
        self._finished = True
        for stream in list(self._streams):
            stream._end()
        self._streams.clear()
