"""The default reconnect policy, the same in the three clients (docs/CLIENT.md): ten attempts, 200 ms doubling to
10 s, 20 % jitter."""

from rollcall import ReconnectPolicy


def test_the_default_makes_ten_attempts_from_200_ms_doubling_to_10_s() -> None:
    policy = ReconnectPolicy()
    assert (policy.max_attempts, policy.initial_delay, policy.max_delay, policy.multiplier, policy.jitter) == (
        10, 0.2, 10.0, 2.0, 0.2,
    )
