"""Rollcall for Python: the asyncio client, the server API client and token helpers.

- `Client` connects to the gateway, joins rooms and keeps each room's roster live (`Room`, `RosterStore`).
- `Connection` is one WebSocket speaking the protocol, for scripts that want every message.
- `ServerAPI` and `AsyncServerAPI` drive the server API (docs/API.md) for backends and bots.
- `mint_token` and `verify_token` make and check HS256 tokens as `rollcall token` does.
"""

from .checksum import canonical_json, roster_checksum
from .client import Client
from .connection import AuthMode, Connection
from .errors import (
    FINAL_CLOSE_CODES,
    BadRequestError,
    BannedError,
    BusyError,
    CallFullError,
    ConnectError,
    ConnectionClosed,
    ForbiddenError,
    HTTPError,
    NotConnected,
    NotFoundError,
    NotGroupMemberError,
    NotInRoomError,
    ProtocolError,
    RequestTimeout,
    RollcallError,
    RoomFullError,
    ServerError,
    TokenError,
    TokenExpiredError,
    TooLargeError,
    TooManyConnectionsError,
    TooManyRoomsError,
    TooManySubscriptionsError,
    UnauthorizedError,
    UnavailableError,
    server_error,
)
from .events import (
    Ack,
    ConnectionLost,
    DriftDetected,
    Ended,
    Event,
    EventReceived,
    ParticipantAdded,
    ParticipantRemoved,
    ParticipantUpdated,
    Resumed,
    RoomChange,
    RoomUpdated,
    SnapshotReplaced,
)
from .merge_patch import apply_merge_patch, merge_patch_diff
from .mirror import Rejoin, RoomMirror
from .participant import Participant
from .reconnect import NEVER, ReconnectPolicy
from .room import Room
from .roster import PatchOutcome, RosterDrift, RosterStore
from .server_api import AsyncServerAPI, ServerAPI
from .session import Status
from .tokens import TokenClaims, TokenKey, mint_token, sign_claims, verify_token
from .tokensource import TokenProvider
from .views import EventMode, JoinAs, View, ViewFilter, ViewSort

__all__ = [
    "FINAL_CLOSE_CODES",
    "NEVER",
    "Ack",
    "AsyncServerAPI",
    "AuthMode",
    "BadRequestError",
    "BannedError",
    "BusyError",
    "CallFullError",
    "Client",
    "ConnectError",
    "Connection",
    "ConnectionClosed",
    "ConnectionLost",
    "DriftDetected",
    "Ended",
    "Event",
    "EventMode",
    "EventReceived",
    "ForbiddenError",
    "HTTPError",
    "JoinAs",
    "NotConnected",
    "NotFoundError",
    "NotGroupMemberError",
    "NotInRoomError",
    "Participant",
    "ParticipantAdded",
    "ParticipantRemoved",
    "ParticipantUpdated",
    "PatchOutcome",
    "ProtocolError",
    "ReconnectPolicy",
    "Rejoin",
    "RequestTimeout",
    "Resumed",
    "RollcallError",
    "Room",
    "RoomChange",
    "RoomFullError",
    "RoomMirror",
    "RoomUpdated",
    "RosterDrift",
    "RosterStore",
    "ServerAPI",
    "ServerError",
    "SnapshotReplaced",
    "Status",
    "TokenClaims",
    "TokenError",
    "TokenExpiredError",
    "TokenKey",
    "TokenProvider",
    "TooLargeError",
    "TooManyConnectionsError",
    "TooManyRoomsError",
    "TooManySubscriptionsError",
    "UnauthorizedError",
    "UnavailableError",
    "View",
    "ViewFilter",
    "ViewSort",
    "apply_merge_patch",
    "canonical_json",
    "merge_patch_diff",
    "mint_token",
    "roster_checksum",
    "server_error",
    "sign_claims",
    "verify_token",
]
