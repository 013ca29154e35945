"""In-process bots for speed and tests: `builtin:random` and `builtin:first`.

They run inside the referee's process, take the same `Decision` every bot gets, and
never see more than `Decision.view` (the seat's observation) and the legal actions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from arena.cards import seeded_rng
from arena.errors import ConfigError
from arena.games.base import Action
from arena.play.referee import Decision, GameStart


class FirstBot:
    """Always the first legal action in the game's documented order (the fallback move)."""

    wants_notices = False

    def __init__(self, name: str = "first") -> None:
        self.name = name

    def start_game(self, start: GameStart) -> None:
        pass

    def act(self, decision: Decision) -> Action:
        return decision.legal[0]

    def end_deal(self, seat: int, deal: Mapping[str, Any]) -> None:
        pass

    def end_game(self, seat: int, replay: Mapping[str, Any]) -> None:
        pass


class RandomBot(FirstBot):
    """Uniform over the legal actions, from a random source seeded by (bot seed, seat).

    So a game between built-in bots is fully determined by its seed: replays repeat.
    """

    def __init__(self, name: str = "random") -> None:
        super().__init__(name)
        self._random: Callable[[], float] = seeded_rng("builtin:random").random

    def start_game(self, start: GameStart) -> None:
        self._random = seeded_rng("builtin:random", start.game, start.seed, start.seat).random

    def act(self, decision: Decision) -> Action:
        legal = decision.legal
        return legal[int(self._random() * len(legal))]


BUILTIN_BOTS: dict[str, type[FirstBot]] = {"random": RandomBot, "first": FirstBot}


def make_builtin(name: str) -> FirstBot:
    """The built-in bot called `name`; ConfigError listing them otherwise."""
    try:
        return BUILTIN_BOTS[name](name)
    except KeyError:
        raise ConfigError(
            f"unknown built-in bot 'builtin:{name}'; built-in bots are: "
            + ", ".join(f"builtin:{n}" for n in BUILTIN_BOTS)
        ) from None
