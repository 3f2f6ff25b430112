"""HS256 tokens (RFC 7519) for backends: minting them as `rollcall token` does, and verifying them.

A token minted here is byte for byte the one `rollcall token` prints for the same claims and key: the header is
`{"alg":"HS256","typ":"JWT","kid":...}` (`kid` only when the key has an ID), the payload holds the claims in a fixed
order (`iss`, `sub`, `aud`, `exp`, `nbf`, `iat`, `name`, `avatar`, `rooms` sorted by room id, `groups`, `caps`,
`attrs` sorted by key, `admission` sorted by room id),
leaving out absent values and empty collections, in compact JSON with non-ASCII written as UTF-8.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import TokenError

ROLES = ("admin", "moderator", "participant", "viewer", "bot")
"""The roles a token can give in a room."""

ADMISSION_RULES = ("wait", "bypass")
"""What the `admission` claim can say of a room's waiting room: the holder waits even while it is off, or joins
without waiting while it is on."""

MINIMUM_SECRET_BYTES = 32
MAXIMUM_SECRET_BYTES = 1024
MAXIMUM_TOKEN_BYTES = 8 * 1024
_BASE64URL = re.compile(r"[A-Za-z0-9_-]*")


@dataclass(frozen=True)
class TokenKey:
    """An HS256 secret, optionally named by a key ID (`kid`) so several keys can be live during a rotation.

    Attributes:
        secret: the secret bytes, 32 to 1024 of them.
        kid: the key ID tokens signed with this key carry in their header, or None.
    """

    secret: bytes = field(repr=False)
    kid: str | None = None

    def __post_init__(self) -> None:
        if self.kid is not None and not self.kid:
            raise TokenError("invalid_key", "the key ID is empty")
        if not MINIMUM_SECRET_BYTES <= len(self.secret) <= MAXIMUM_SECRET_BYTES:
            raise TokenError(
                "invalid_key", f"the secret must be {MINIMUM_SECRET_BYTES} to {MAXIMUM_SECRET_BYTES} bytes long"
            )

    @classmethod
    def parse(cls, text: str) -> TokenKey:
        """Reads a key as `auth.keys` lists it: `kid:secret`, or a bare secret without a colon.

        Args:
            text: the key's text; the secret is its UTF-8 bytes.

        Returns:
            The key.
        """
        kid, colon, secret = text.partition(":")
        if not colon:
            return cls(text.encode("utf-8"))
        return cls(secret.encode("utf-8"), kid)


@dataclass(frozen=True)
class TokenClaims:
    """What a token says about its holder (docs/PROTOCOL.md, "Authentication").

    Attributes:
        subject: the user's uid (`sub`).
        expires_at: when the token stops being valid, seconds since the epoch (`exp`).
        name: the display name.
        avatar: an `https` or `http` URL of the user's picture.
        rooms: the role in each room the token gives access to, by room id.
        groups: the groups the user is a member of.
        caps: a bot's capabilities (`mute`, `remove`, `ban`, `promote`, `pin`, `end`, `record`, `speaker`,
            `attributes`, `metadata`).
        attributes: participant attributes the backend vouches for (`attrs`); the participant cannot change them.
        not_before: `nbf`, seconds since the epoch.
        issued_at: `iat`, seconds since the epoch.
        issuer: `iss`.
        audience: `aud`; one string in the token is a one-element tuple here.
        kid: the key ID of the header, set by verification.
        admission: what the holder does at each room's waiting room, by room id: `wait` (waits even while it is
            off: a guest link) or `bypass` (joins without waiting while it is on).
    """

    subject: str
    expires_at: int
    name: str | None = None
    avatar: str | None = None
    rooms: Mapping[str, str] = field(default_factory=dict)
    groups: tuple[str, ...] = ()
    caps: tuple[str, ...] = ()
    attributes: Mapping[str, str] = field(default_factory=dict)
    not_before: int | None = None
    issued_at: int | None = None
    issuer: str | None = None
    audience: tuple[str, ...] = ()
    kid: str | None = None
    admission: Mapping[str, str] = field(default_factory=dict)

    def payload(self) -> dict[str, Any]:
        """The claims as a payload object, in the signer's member order."""
        members: dict[str, Any] = {}
        if self.issuer is not None:
            members["iss"] = self.issuer
        members["sub"] = self.subject
        if len(self.audience) == 1:
            members["aud"] = self.audience[0]
        elif self.audience:
            members["aud"] = list(self.audience)
        members["exp"] = self.expires_at
        if self.not_before is not None:
            members["nbf"] = self.not_before
        if self.issued_at is not None:
            members["iat"] = self.issued_at
        if self.name is not None:
            members["name"] = self.name
        if self.avatar is not None:
            members["avatar"] = self.avatar
        if self.rooms:
            members["rooms"] = {room: self.rooms[room] for room in sorted(self.rooms)}
        if self.groups:
            members["groups"] = list(self.groups)
        if self.caps:
            members["caps"] = list(self.caps)
        if self.attributes:
            members["attrs"] = {key: self.attributes[key] for key in sorted(self.attributes)}
        if self.admission:
            members["admission"] = {room: self.admission[room] for room in sorted(self.admission)}
        return members

    @classmethod
    def from_payload(cls, payload: Any, kid: str | None = None) -> TokenClaims:
        """Reads claims from a decoded payload, checking each known claim's type and shape as the gateway does.

        Args:
            payload: the decoded payload.
            kid: the header's key ID.

        Returns:
            The claims.

        Raises:
            TokenError: `malformed` for a payload that is not an object, `invalid_claims` for a missing, mistyped
                or disallowed claim.
        """
        if not isinstance(payload, dict):
            raise TokenError("malformed", "the payload is not a JSON object")
        subject = _string(payload, "sub")
        if subject is None:
            raise TokenError("invalid_claims", "sub is missing")
        if not subject:
            raise TokenError("invalid_claims", "sub is empty")
        expires_at = _integer(payload, "exp")
        if expires_at is None:
            raise TokenError("invalid_claims", "exp is missing")
        avatar = _string(payload, "avatar")
        if avatar is not None and not _is_web_address(avatar):
            raise TokenError("invalid_claims", "avatar is not an https or http URL")
        return cls(
            subject=subject,
            expires_at=expires_at,
            name=_string(payload, "name"),
            avatar=avatar,
            rooms=_rooms(payload),
            groups=_string_array(payload, "groups"),
            caps=_string_array(payload, "caps"),
            attributes=_attributes(payload),
            not_before=_integer(payload, "nbf"),
            issued_at=_integer(payload, "iat"),
            issuer=_string(payload, "iss"),
            audience=_audience(payload),
            kid=kid,
            admission=_admission(payload),
        )


def mint_token(
    key: TokenKey,
    uid: str,
    *,
    name: str | None = None,
    avatar: str | None = None,
    rooms: Mapping[str, str] | Iterable[str] = (),
    role: str = "participant",
    groups: Iterable[str] = (),
    caps: Iterable[str] = (),
    attributes: Mapping[str, str] | None = None,
    ttl: int = 3600,
    expires_at: int | None = None,
    issued_at: int | None = None,
    not_before: int | None = None,
    issuer: str | None = None,
    audience: str | Sequence[str] | None = None,
    admission: Mapping[str, str] | None = None,
) -> str:
    """Mints an HS256 token, as `rollcall token` does.

    Args:
        key: the signing key; its `kid` goes into the header.
        uid: the user's uid (`sub`).
        name: the display name.
        avatar: an `https` or `http` URL.
        rooms: room id to role, or room ids that all get `role` (as `rollcall token --room R --role ROLE`).
        role: the role for rooms given without one: admin, moderator, participant, viewer or bot.
        groups: the groups the user is a member of.
        caps: a bot's capabilities.
        attributes: participant attributes the backend vouches for (`attrs`).
        ttl: the lifetime in seconds, counted from `issued_at`, when `expires_at` is not given.
        expires_at: `exp`, seconds since the epoch.
        issued_at: `iat`; default now.
        not_before: `nbf`.
        issuer: `iss`.
        audience: `aud`, one string or several.
        admission: room id to `wait` or `bypass`, for the rooms' waiting rooms (as `rollcall token --room R
            --admission RULE`).

    Returns:
        The compact serialization, `header.payload.signature`.

    Raises:
        TokenError: `invalid_claims` for claims the gateway would refuse (an empty uid, an unknown role, ...).
    """
    now = int(time.time()) if issued_at is None else issued_at
    if isinstance(rooms, Mapping):
        room_roles = {str(room): str(value) for room, value in rooms.items()}
    else:
        room_roles = dict.fromkeys(rooms, role)
    if isinstance(audience, str):
        audiences: tuple[str, ...] = (audience,)
    else:
        audiences = tuple(audience or ())
    claims = TokenClaims(
        subject=uid,
        expires_at=now + ttl if expires_at is None else expires_at,
        name=name,
        avatar=avatar,
        rooms=room_roles,
        groups=tuple(groups),
        caps=tuple(caps),
        attributes=dict(attributes or {}),
        not_before=not_before,
        issued_at=now,
        issuer=issuer,
        audience=audiences,
        admission=dict(admission or {}),
    )
    return sign_claims(key, claims)


def sign_claims(key: TokenKey, claims: TokenClaims) -> str:
    """Signs claims into a token; the header carries the key's ID (the claims' `kid` is ignored).

    Args:
        key: the signing key.
        claims: the claims; checked as a verifier would check their shape.

    Returns:
        The compact serialization.

    Raises:
        TokenError: `invalid_claims` for claims the gateway would refuse.
    """
    payload = claims.payload()
    TokenClaims.from_payload(payload)
    header: dict[str, Any] = {"alg": "HS256", "typ": "JWT"}
    if key.kid is not None:
        header["kid"] = key.kid
    signing_input = _encode_json(header) + "." + _encode_json(payload)
    signature = hmac.new(key.secret, signing_input.encode("ascii"), hashlib.sha256).digest()
    return signing_input + "." + _b64url(signature)


def verify_token(
    token: str,
    keys: TokenKey | Sequence[TokenKey],
    *,
    now: int | None = None,
    leeway: int = 30,
    issuer: str | None = None,
    audience: str | None = None,
) -> TokenClaims:
    """Verifies a token as the gateway does and returns its claims.

    Checks, in order: the length and the three base64url parts, the header (`alg` exactly `HS256`, `typ` JWT, no
    `crit`), the key named by `kid` (a token without one uses the key without an ID, or the only key), the
    signature in constant time, the claims' shapes, `exp`, `nbf` and `iat` against `now` with `leeway`, then
    `issuer` and `audience` when given.

    Args:
        token: the compact serialization.
        keys: the key or keys the token may be signed with.
        now: seconds since the epoch; default now.
        leeway: the tolerance for clock differences, in seconds.
        issuer: the `iss` every token must have, or None.
        audience: the value `aud` must contain, or None.

    Returns:
        The claims, with `kid` set to the header's.

    Raises:
        TokenError: naming the first check that failed.
    """
    key_list = [keys] if isinstance(keys, TokenKey) else list(keys)
    raw = token.encode("utf-8")
    if len(raw) > MAXIMUM_TOKEN_BYTES:
        raise TokenError("too_large", f"the token is longer than {MAXIMUM_TOKEN_BYTES} bytes")
    parts = token.split(".")
    if len(parts) != 3:
        raise TokenError("malformed", "the token does not have exactly three parts")
    header = _decode_json(parts[0], "header")
    kid = _check_header(header)
    key = _key_for(kid, key_list)
    signature = _b64url_decode(parts[2])
    if signature is None:
        raise TokenError("malformed", "the signature is not base64url")
    expected = hmac.new(key.secret, (parts[0] + "." + parts[1]).encode("ascii"), hashlib.sha256).digest()
    if not hmac.compare_digest(signature, expected):
        raise TokenError("bad_signature", "the signature does not match")
    claims = TokenClaims.from_payload(_decode_json(parts[1], "payload"), kid)
    current = int(time.time()) if now is None else now
    if claims.expires_at + leeway <= current:
        raise TokenError("expired", f"exp is more than {leeway} s in the past")
    if claims.not_before is not None and claims.not_before > current + leeway:
        raise TokenError("not_yet_valid", f"nbf is more than {leeway} s in the future")
    if claims.issued_at is not None and claims.issued_at > current + leeway:
        raise TokenError("not_yet_valid", f"iat is more than {leeway} s in the future")
    if issuer is not None and claims.issuer != issuer:
        raise TokenError("wrong_issuer", "iss is missing or not the expected issuer")
    if audience is not None and audience not in claims.audience:
        raise TokenError("wrong_audience", "aud is missing or does not contain the expected audience")
    return claims


# MARK: Encoding


def _encode_json(value: Any) -> str:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return _b64url(text.encode("utf-8"))


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64url_decode(text: str) -> bytes | None:
    """Strict unpadded base64url: only the alphabet, no single character over, no stray bits in the last one."""
    if not _BASE64URL.fullmatch(text) or len(text) % 4 == 1:
        return None
    try:
        data = base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        return None
    return data if _b64url(data) == text else None


def _decode_json(part: str, name: str) -> Any:
    data = _b64url_decode(part)
    if data is None:
        raise TokenError("malformed", f"the {name} is not base64url")
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise TokenError("malformed", f"the {name} is not JSON") from None


def _check_header(header: Any) -> str | None:
    if not isinstance(header, dict):
        raise TokenError("malformed", "the header is not a JSON object")
    if "alg" not in header:
        raise TokenError("malformed", "the header has no alg")
    if not isinstance(header["alg"], str):
        raise TokenError("malformed", "the header's alg is not a string")
    if header["alg"] != "HS256":
        raise TokenError("unsupported_algorithm", "only HS256 is accepted")
    if "typ" in header and (not isinstance(header["typ"], str) or header["typ"].lower() != "jwt"):
        raise TokenError("malformed", "the header's typ is not JWT")
    if "crit" in header:
        raise TokenError("malformed", "the header has crit, and no header extension is supported")
    kid = header.get("kid")
    if kid is not None and (not isinstance(kid, str) or not kid):
        raise TokenError("malformed", "the header's kid is not a non-empty string")
    if "kid" in header and kid is None:
        raise TokenError("malformed", "the header's kid is not a non-empty string")
    return kid


def _key_for(kid: str | None, keys: list[TokenKey]) -> TokenKey:
    if kid is not None:
        for key in keys:
            if key.kid == kid:
                return key
        raise TokenError("unknown_key", "no key has the token's kid")
    for key in keys:
        if key.kid is None:
            return key
    if len(keys) != 1:
        raise TokenError("unknown_key", "the token has no kid and there are several keys")
    return keys[0]


# MARK: Claims


def _string(payload: dict[str, Any], claim: str) -> str | None:
    if claim not in payload:
        return None
    value = payload[claim]
    if not isinstance(value, str):
        raise TokenError("invalid_claims", f"{claim} is not a string")
    return value


def _integer(payload: dict[str, Any], claim: str) -> int | None:
    if claim not in payload:
        return None
    value = payload[claim]
    if isinstance(value, bool) or not isinstance(value, int):
        raise TokenError("invalid_claims", f"{claim} is not an integer number of seconds")
    return value


def _string_array(payload: dict[str, Any], claim: str) -> tuple[str, ...]:
    if claim not in payload:
        return ()
    value = payload[claim]
    if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
        raise TokenError("invalid_claims", f"{claim} is not an array of non-empty strings")
    return tuple(value)


def _attributes(payload: dict[str, Any]) -> dict[str, str]:
    if "attrs" not in payload:
        return {}
    value = payload["attrs"]
    if not isinstance(value, dict):
        raise TokenError("invalid_claims", "attrs is not an object")
    for key, text in value.items():
        if not isinstance(text, str):
            raise TokenError("invalid_claims", f"attrs.{key[:32]} is not a string")
    return dict(value)


def _audience(payload: dict[str, Any]) -> tuple[str, ...]:
    if "aud" not in payload:
        return ()
    value = payload["aud"]
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(value)
    raise TokenError("invalid_claims", "aud is neither a string nor an array of strings")


def _rooms(payload: dict[str, Any]) -> dict[str, str]:
    if "rooms" not in payload:
        return {}
    value = payload["rooms"]
    if not isinstance(value, dict):
        raise TokenError("invalid_claims", "rooms is not an object of room IDs to roles")
    rooms: dict[str, str] = {}
    for room, role in value.items():
        if not room:
            raise TokenError("invalid_claims", "rooms has an empty room ID")
        if not isinstance(role, str):
            raise TokenError("invalid_claims", "rooms has a role that is not a string")
        if role not in ROLES:
            raise TokenError("invalid_claims", f"rooms has an unknown role; the roles are {', '.join(ROLES)}")
        rooms[room] = role
    return rooms


def _admission(payload: dict[str, Any]) -> dict[str, str]:
    if "admission" not in payload:
        return {}
    value = payload["admission"]
    if not isinstance(value, dict):
        raise TokenError("invalid_claims", "admission is not an object of room IDs to 'wait' or 'bypass'")
    for room, rule in value.items():
        if not room:
            raise TokenError("invalid_claims", "admission has an empty room ID")
        if rule not in ADMISSION_RULES:
            raise TokenError("invalid_claims", "admission has a value other than 'wait' or 'bypass'")
    return dict(value)


def _is_web_address(text: str) -> bool:
    lowered = text.lower()
    return any(lowered.startswith(scheme) and len(text.encode()) > len(scheme) for scheme in ("https://", "http://"))
