"""The reconnect policy's delays, and the error classes of the gateway's codes."""

from __future__ import annotations

import random

import pytest

from rollcall import (
    NEVER,
    CallFullError,
    ConnectionClosed,
    ForbiddenError,
    ReconnectPolicy,
    ServerError,
    server_error,
)


def test_delays_double_up_to_the_cap() -> None:
    policy = ReconnectPolicy(initial_delay=0.5, max_delay=3, multiplier=2, jitter=0)
    assert [policy.delay(attempt) for attempt in range(1, 6)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    assert policy.delay(10_000) == 3.0
    assert NEVER.max_attempts == 0


def test_jitter_adds_at_most_its_fraction() -> None:
    policy = ReconnectPolicy(initial_delay=1, max_delay=8, jitter=0.25)
    rng = random.Random(1)
    delays = [policy.delay(3, rng) for _ in range(200)]
    assert all(4.0 <= delay <= 5.0 for delay in delays)
    assert len({round(delay, 6) for delay in delays}) > 100, "the jitter spreads reconnects"


def test_codes_map_to_their_classes() -> None:
    full = server_error("ERR_CALL_FULL", "no seat left")
    assert isinstance(full, CallFullError) and full.code == "ERR_CALL_FULL" and str(full) == "ERR_CALL_FULL: no seat left"
    forbidden = server_error("ERR_FORBIDDEN", status=403)
    assert isinstance(forbidden, ForbiddenError) and forbidden.status == 403
    unknown = server_error("ERR_SOMETHING_NEW")
    assert type(unknown) is ServerError and unknown.code == "ERR_SOMETHING_NEW"
    with pytest.raises(ServerError):
        raise full


def test_final_close_codes() -> None:
    assert [ConnectionClosed(code).is_final for code in (4001, 4002, 4003, 4004, 4005)] == [True] * 5
    assert [ConnectionClosed(code).is_final for code in (None, 1000, 1001, 1012, 4008, 4009)] == [False] * 6
