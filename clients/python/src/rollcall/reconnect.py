"""When and how often a client reconnects after its connection drops."""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class ReconnectPolicy:
    """Exponential backoff with jitter.

    The delay before attempt n (from 1) is `initial_delay * multiplier ** (n - 1)`, capped at `max_delay`, plus up to
    `jitter` of it at random, so many clients do not reconnect in step. Attempts count from 1 again after a
    connection that authenticated.

    Attributes:
        max_attempts: the most attempts after one drop; 0 disables reconnecting.
        initial_delay: seconds before the first attempt.
        max_delay: the largest delay, in seconds.
        multiplier: the factor between consecutive delays.
        jitter: the fraction of each delay added at random, 0 to 1.
    """

    max_attempts: int = 10
    initial_delay: float = 0.2
    max_delay: float = 10.0
    multiplier: float = 2.0
    jitter: float = 0.2

    def delay(self, attempt: int, rng: random.Random | None = None) -> float:
        """The delay before an attempt, in seconds.

        Args:
            attempt: the attempt number, from 1.
            rng: the random source for the jitter; default the module's.
        """
        exponent = max(0, attempt - 1)
        base = self.initial_delay
        for _ in range(min(exponent, 64)):
            base *= self.multiplier
            if base >= self.max_delay:
                break
        base = min(self.max_delay, base)
        spread = max(0.0, min(1.0, self.jitter))
        return base + (rng or random).uniform(0.0, base * spread) if spread > 0 else base


NEVER = ReconnectPolicy(max_attempts=0)
"""No reconnecting: a dropped connection closes the client."""
