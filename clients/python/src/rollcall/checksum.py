"""The roster checksum (docs/PROTOCOL.md, "patch") and the canonical JSON it hashes.

The checksum is the sum modulo 2^64 of one 64-bit FNV-1a hash per roster entry (`room`, and each participant by
uid), each taken over the entry's key, a zero byte and the entry's canonical JSON, written as 16 lower-case hex
digits. Canonical JSON sorts object keys by code point (the order of their UTF-8 bytes), has no whitespace, escapes
only the quote, the backslash and control characters, and writes everything else as UTF-8.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3
_MASK = 0xFFFFFFFFFFFFFFFF


def canonical_json(value: Any) -> str:
    """The canonical JSON text of a value.

    Args:
        value: a JSON value (dicts, lists, strings, integers, booleans, None).

    Returns:
        The text: keys sorted by code point, no whitespace, non-ASCII written as itself.
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def fnv1a64(data: bytes) -> int:
    """The 64-bit FNV-1a hash of some bytes.

    Args:
        data: the bytes.

    Returns:
        The hash, an integer below 2^64.
    """
    value = _FNV_OFFSET
    for byte in data:
        value = ((value ^ byte) * _FNV_PRIME) & _MASK
    return value


def entry_hash(key: str, entry: Any) -> int:
    """One roster entry's hash: FNV-1a of the key, a zero byte and the entry's canonical JSON.

    Args:
        key: `room`, or the participant's uid.
        entry: the entry.

    Returns:
        The hash, an integer below 2^64.
    """
    return fnv1a64(key.encode("utf-8") + b"\0" + canonical_json(entry).encode("utf-8"))


def checksum_hex(value: int) -> str:
    """A checksum written as the server writes it: 16 lower-case hex digits.

    Args:
        value: the checksum, an integer below 2^64.

    Returns:
        The text.
    """
    return f"{value & _MASK:016x}"


def roster_checksum_value(roster: Mapping[str, Any]) -> int:
    """The checksum of a roster object as an integer.

    Args:
        roster: `{"room": {...}, "participants": {uid: {...}}}`; a missing `room` counts as an empty object.

    Returns:
        The sum of the entries' hashes modulo 2^64.
    """
    total = entry_hash("room", roster.get("room", {}))
    participants = roster.get("participants") or {}
    for uid, entry in participants.items():
        total = (total + entry_hash(uid, entry)) & _MASK
    return total


def roster_checksum(roster: Mapping[str, Any]) -> str:
    """The checksum of a roster object, as the server sends it.

    Args:
        roster: `{"room": {...}, "participants": {uid: {...}}}`.

    Returns:
        16 lower-case hex digits.
    """
    return checksum_hex(roster_checksum_value(roster))
