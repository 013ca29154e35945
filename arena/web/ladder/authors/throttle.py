"""How often something may be tried: sign-in attempts per address and per author.

An author's token is 32 random bytes, so guessing it is hopeless; the limit is there
so that nobody can make the server hash all day (argon2 is slow on purpose) or lock
out an author by trying their name: the per-author limit counts failed attempts only,
and a right token from an address that has not been throttled still signs in. A
sliding window of the times of recent attempts, in memory (one server process).
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field


@dataclass
class Window:
    """At most `limit` events per `seconds` for each key."""

    limit: int
    seconds: float
    events: dict[str, deque[float]] = field(default_factory=dict)
    max_keys: int = 100_000  # past this many keys the oldest are forgotten

    def _recent(self, key: str, now: float) -> deque[float]:
        times = self.events.get(key)
        if times is None:
            if len(self.events) >= self.max_keys:
                for old in list(self.events)[: self.max_keys // 10]:
                    del self.events[old]
            times = self.events[key] = deque()
        while times and times[0] <= now - self.seconds:
            times.popleft()
        return times

    def wait(self, key: str, now: float | None = None) -> float:
        """Seconds until `key` may try again (0 when it may now)."""
        now = time.monotonic() if now is None else now
        times = self._recent(key, now)
        if len(times) < self.limit:
            return 0.0
        return max(0.0, times[0] + self.seconds - now)

    def note(self, key: str, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        self._recent(key, now).append(now)


@dataclass
class SignInLimits:
    """Sign-in attempts: every attempt counted per address, failures per author."""

    per_address: Window = field(default_factory=lambda: Window(20, 600.0))
    per_author: Window = field(default_factory=lambda: Window(10, 600.0))

    def wait(self, address: str, author: str | None, now: float | None = None) -> float:
        waits = [self.per_address.wait(address, now)]
        if author:
            waits.append(self.per_author.wait(author, now))
        return max(waits)

    def attempted(self, address: str, now: float | None = None) -> None:
        self.per_address.note(address, now)

    def failed(self, author: str | None, now: float | None = None) -> None:
        if author:
            self.per_author.note(author, now)
