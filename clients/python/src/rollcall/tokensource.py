"""Where the client's token comes from: a fixed token, a provider called for fresh ones, or both."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable

from .errors import ConnectError, RollcallError

TokenProvider = Callable[[], Awaitable[str] | str]
"""A callable (plain or async) that returns a fresh token, such as one that asks the application's backend."""


class TokenSource:
    """The token to present now, and fresh ones from the provider when there is one.

    Without a provider the first token is used for every connection. With one, the first connection uses the
    given token (or asks the provider when none was given) and every reconnect asks the provider, so a connection
    lost for longer than a token lives still comes back.
    """

    def __init__(self, token: str | None, provider: TokenProvider | None, timeout: float) -> None:
        if token is None and provider is None:
            raise RollcallError("a token or a token provider is needed")
        self._token = token
        self._provider = provider
        self._timeout = timeout

    @property
    def can_refresh(self) -> bool:
        """Whether a provider can give fresh tokens."""
        return self._provider is not None

    @property
    def token(self) -> str | None:
        """The last token given or fetched."""
        return self._token

    def replace(self, token: str) -> None:
        """Keeps a token the application refreshed itself, for later connections.

        Args:
            token: the token.
        """
        self._token = token

    async def for_connection(self, reconnecting: bool) -> str:
        """The token for a new connection.

        Args:
            reconnecting: whether an earlier connection authenticated (then the provider is asked, if any).
        """
        if self._token is None or (reconnecting and self._provider is not None):
            return await self.fetch()
        return self._token

    async def fetch(self) -> str:
        """A fresh token from the provider (or the current one without a provider).

        Raises:
            ConnectError: the provider failed, returned something other than a non-empty string, or took longer
                than the timeout.
        """
        if self._provider is None:
            assert self._token is not None
            return self._token
        try:
            result = self._provider()
            token = await asyncio.wait_for(result, self._timeout) if inspect.isawaitable(result) else result
        except asyncio.TimeoutError:
            raise ConnectError(f"the token provider gave no token within {self._timeout} s") from None
        except RollcallError:
            raise
        except Exception as error:
            raise ConnectError(f"the token provider failed: {error!r}") from error
        if not isinstance(token, str) or not token:
            raise ConnectError("the token provider returned no token")
        self._token = token
        return token
