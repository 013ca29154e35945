"""The sampler as an in-process player (`builtin:sampler`): no wire, same choices.

It reads `Decision.view`, the engine's view of its seat, which is exactly what the
SDK bot's `turn.state()` rebuilds from a request (`arena.sdk.views`), and numbers its
decisions and seeds its randomness as the SDK does (`Turn.rng`), so in a game with the
same seed it makes the same decisions as `SamplerBot` run through `SdkPlayer`; it only
saves the encoding and decoding of each request.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from arena.games.base import Action
from arena.play.referee import Decision, GameStart
from arena.sdk.state import SeatState
from arena.sdk.turn import decision_seed
from arena.strategies.sampler.bot import DEFAULT_BUDGET_MS, Sampler, Stats


class SamplerPlayer:
    """A referee `Player` running the sampler in the referee's process."""

    wants_notices = False

    def __init__(
        self,
        budget_ms: float = DEFAULT_BUDGET_MS,
        samples: int | None = None,
        name: str = "sampler",
        time_ms: int = 1000,
    ) -> None:
        self.name = name
        self.time_ms = time_ms  # what a remote bot would be told (move_timeout)
        self.sampler = Sampler(budget_ms, samples)
        self._seed = ""
        self._seat = 0
        self._decision_id = 0

    @property
    def stats(self) -> Stats:
        return self.sampler.stats

    def start_game(self, start: GameStart) -> None:
        self._seed = start.seed
        self._seat = start.seat
        self._decision_id = 0

    def act(self, decision: Decision) -> Action:
        self._decision_id += 1
        rng = random.Random(decision_seed(self._seed, self._seat, self._decision_id))
        return self.sampler.decide(SeatState(decision.view), rng, self.time_ms)

    def end_deal(self, seat: int, deal: Mapping[str, Any]) -> None:
        pass

    def end_game(self, seat: int, replay: Mapping[str, Any]) -> None:
        pass
