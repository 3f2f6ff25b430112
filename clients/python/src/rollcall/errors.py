"""Every error the client raises: a base class, the gateway's error codes as classes, and connection failures.

A refusal from the gateway (an `error` message, or an error answer of the server API) raises the class of its code,
so a bot can write `except CallFullError:`; every such class is a `ServerError` with `code` and `message`.
"""

from __future__ import annotations

from .protocol import FINAL_CLOSE_CODES


class RollcallError(Exception):
    """The base class of every error this package raises."""


class ServerError(RollcallError):
    """The gateway refused a request; `code` is the protocol's code (`ERR_FORBIDDEN`, ...).

    Each code's class has its `CODE` and `HTTP_STATUS`, the status the server API answers it with.

    Attributes:
        code: the error code.
        message: the gateway's explanation.
        status: the HTTP status, for an answer of the server API; None over WebSocket.
    """

    CODE = ""
    HTTP_STATUS = 0

    def __init__(self, code: str, message: str = "", status: int | None = None) -> None:
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code
        self.message = message
        self.status = status


class BadRequestError(ServerError):
    """`ERR_BAD_REQUEST`: malformed JSON, an unknown type or field, a wrong type, a value too long."""

    CODE = "ERR_BAD_REQUEST"
    HTTP_STATUS = 400


class UnauthorizedError(ServerError):
    """`ERR_UNAUTHORIZED`: not authenticated yet, or the token (or API key) failed verification."""

    CODE = "ERR_UNAUTHORIZED"
    HTTP_STATUS = 401


class TokenExpiredError(ServerError):
    """`ERR_TOKEN_EXPIRED`: the token expired without a refresh; the connection closes with 4002."""

    CODE = "ERR_TOKEN_EXPIRED"
    HTTP_STATUS = 401


class NotGroupMemberError(ServerError):
    """`ERR_NOT_GROUP_MEMBER`: the token gives no access to this room or group."""

    CODE = "ERR_NOT_GROUP_MEMBER"
    HTTP_STATUS = 403


class CallFullError(ServerError):
    """`ERR_CALL_FULL`: no seat left for this role."""

    CODE = "ERR_CALL_FULL"
    HTTP_STATUS = 429


class BannedError(ServerError):
    """`ERR_BANNED`: the user is banned from this room."""

    CODE = "ERR_BANNED"
    HTTP_STATUS = 403


class RoomLockedError(ServerError):
    """`ERR_ROOM_LOCKED`: the room is locked; only moderators, admins and bots with `lock` join the call."""

    CODE = "ERR_ROOM_LOCKED"
    HTTP_STATUS = 403


class ForbiddenError(ServerError):
    """`ERR_FORBIDDEN`: the request needs a moderator or a bot capability."""

    CODE = "ERR_FORBIDDEN"
    HTTP_STATUS = 403


class NotInRoomError(ServerError):
    """`ERR_NOT_IN_ROOM`: the request needs the client to have joined the room."""

    CODE = "ERR_NOT_IN_ROOM"
    HTTP_STATUS = 409


class NotFoundError(ServerError):
    """`ERR_NOT_FOUND`: the target is not in the call, or the room does not exist."""

    CODE = "ERR_NOT_FOUND"
    HTTP_STATUS = 404


class ConflictError(ServerError):
    """`ERR_CONFLICT`: a version-checked write (`if_seq`) found the attributes, metadata or permissions changed after
    that sequence number; nothing was changed. Read them again and retry."""

    CODE = "ERR_CONFLICT"
    HTTP_STATUS = 409


class FloorTakenError(ServerError):
    """`ERR_FLOOR_TAKEN`: the room lets one participant present at a time (the presenter floor) and someone else
    is presenting; wait, or ask a moderator to hand you the floor."""

    CODE = "ERR_FLOOR_TAKEN"
    HTTP_STATUS = 409


class AdmissionDeniedError(ServerError):
    """`ERR_ADMISSION_DENIED`: a moderator turned the join away from the room's waiting room; the message carries
    the reason. Joining again waits again."""

    CODE = "ERR_ADMISSION_DENIED"
    HTTP_STATUS = 403

    @property
    def reason(self) -> str | None:
        """The reason the moderator gave, from the message (`a moderator did not let you in: REASON`); None when
        they gave none."""
        _, colon, reason = self.message.partition(": ")
        return reason if colon and reason else None


class WaitExpiredError(ServerError):
    """`ERR_WAIT_EXPIRED`: the join waited in the waiting room as long as the room lets anyone wait; join again to
    wait again."""

    CODE = "ERR_WAIT_EXPIRED"
    HTTP_STATUS = 408


class WaitingRoomFullError(ServerError):
    """`ERR_WAITING_ROOM_FULL`: the room's waiting room holds as many as it may; try again later."""

    CODE = "ERR_WAITING_ROOM_FULL"
    HTTP_STATUS = 429


class MethodNotAllowedError(ServerError):
    """`ERR_METHOD_NOT_ALLOWED`: the server API's resource does not take that method."""

    CODE = "ERR_METHOD_NOT_ALLOWED"
    HTTP_STATUS = 405


class TooManyRoomsError(ServerError):
    """`ERR_TOO_MANY_ROOMS`: this connection is in too many rooms."""

    CODE = "ERR_TOO_MANY_ROOMS"
    HTTP_STATUS = 429


class RoomFullError(ServerError):
    """`ERR_ROOM_FULL`: the room has as many participants and observers as it takes."""

    CODE = "ERR_ROOM_FULL"
    HTTP_STATUS = 429


class TooManyConnectionsError(ServerError):
    """`ERR_TOO_MANY_CONNECTIONS`: the user has as many connections open as allowed; this one closes with 4010."""

    CODE = "ERR_TOO_MANY_CONNECTIONS"
    HTTP_STATUS = 429


class TooManySubscriptionsError(ServerError):
    """`ERR_TOO_MANY_SUBSCRIPTIONS`: the user is in this room from as many connections as allowed."""

    CODE = "ERR_TOO_MANY_SUBSCRIPTIONS"
    HTTP_STATUS = 429


class TooLargeError(ServerError):
    """`ERR_TOO_LARGE`: attributes or metadata past their limits (the message names the limit)."""

    CODE = "ERR_TOO_LARGE"
    HTTP_STATUS = 413


class RateLimitedError(ServerError):
    """`ERR_RATE_LIMITED`: past a rate, such as more signals from one user to one room per second than the gateway
    takes; wait a moment."""

    CODE = "ERR_RATE_LIMITED"
    HTTP_STATUS = 429


class UnavailableError(ServerError):
    """`ERR_UNAVAILABLE`: the room's store (the embedded one, or the cluster's shared store) could not be read or did
    not answer; try again (in a cluster the change may or may not have been made)."""

    CODE = "ERR_UNAVAILABLE"
    HTTP_STATUS = 503


class BusyError(ServerError):
    """`ERR_BUSY`: cluster mode, too many requests wait for the same room; try again."""

    CODE = "ERR_BUSY"
    HTTP_STATUS = 503


_BY_CODE: dict[str, type[ServerError]] = {
    error.CODE: error
    for error in (
        BadRequestError,
        UnauthorizedError,
        TokenExpiredError,
        NotGroupMemberError,
        CallFullError,
        BannedError,
        RoomLockedError,
        ForbiddenError,
        NotInRoomError,
        NotFoundError,
        ConflictError,
        FloorTakenError,
        AdmissionDeniedError,
        WaitExpiredError,
        WaitingRoomFullError,
        MethodNotAllowedError,
        TooManyRoomsError,
        RoomFullError,
        TooManyConnectionsError,
        TooManySubscriptionsError,
        TooLargeError,
        RateLimitedError,
        UnavailableError,
        BusyError,
    )
}


def server_error(code: str, message: str = "", status: int | None = None) -> ServerError:
    """The error for a code: its own class when the code is known, `ServerError` otherwise.

    Args:
        code: the protocol's error code.
        message: the gateway's explanation.
        status: the HTTP status of a server API answer.

    Returns:
        The error, ready to raise.
    """
    return _BY_CODE.get(code, ServerError)(code, message, status)


class UnsubscribedError(RollcallError):
    """The gateway took a subscription out of its room (the error of its `Ended`).

    Attributes:
        reason: `replaced` or `access_revoked`, as the gateway sent it.
    """

    def __init__(self, room: str, reason: str) -> None:
        super().__init__(f"taken out of {room} by the gateway: {reason}")
        self.reason = reason


class ConnectionClosed(RollcallError):
    """The connection closed (or could not open) while something waited on it.

    Attributes:
        code: the close code received, None when the connection dropped without a Close frame.
        reason: the close reason.
    """

    def __init__(self, code: int | None = None, reason: str = "") -> None:
        text = "connection closed" + (f" with {code}" if code is not None else "") + (f": {reason}" if reason else "")
        super().__init__(text)
        self.code = code
        self.reason = reason

    @property
    def is_final(self) -> bool:
        """Whether the code ends the session for good (4001-4005), so reconnecting would not help."""
        return self.code in FINAL_CLOSE_CODES


class NotConnected(RollcallError):
    """The client is not connected (not yet, reconnecting, or closed)."""


class RequestTimeout(RollcallError):
    """No answer came within the request timeout."""


class ProtocolError(RollcallError):
    """The gateway sent something the client cannot use."""


class HTTPError(RollcallError):
    """A server API answer that is not the API's JSON error form (such as 413 for a body that is too large).

    Attributes:
        status: the HTTP status.
        body: the answer's body as text.
    """

    def __init__(self, status: int, body: str) -> None:
        super().__init__(f"HTTP {status}: {body[:200]}")
        self.status = status
        self.body = body


class TokenError(RollcallError):
    """A token that cannot be minted or does not verify.

    Attributes:
        kind: which check failed: `invalid_key`, `invalid_claims`, `malformed`, `too_large`,
            `unsupported_algorithm`, `unknown_key`, `bad_signature`, `expired`, `not_yet_valid`, `wrong_issuer` or
            `wrong_audience`.
    """

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind


class ConnectError(RollcallError):
    """The WebSocket could not be opened: the address, TCP, TLS or the upgrade failed, or it took too long."""
