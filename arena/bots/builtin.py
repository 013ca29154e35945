"""In-process bots for speed and tests, weakest to strongest: `builtin:first` (the
fallback move), `builtin:random`, `builtin:mixed:P` (the heuristic move with
probability P, else a random one), `builtin:greedy` (the heuristic bot) and
`builtin:sampler[:MS]` (the search bot).

They run inside the referee's process, take the same `Decision` every bot gets, and
never see more than `Decision.view` (the seat's observation) and the legal actions.
The mixed, greedy and sampler bots are twins of their external versions (`python -m
arena.strategies.mixed --p P`, `... greedy`, `... sampler --budget-ms MS`): given the
same game they make the same decisions, which tests check through the wire encoding.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from arena.cards import seeded_rng
from arena.errors import ConfigError
from arena.games.base import Action
from arena.play.referee import Decision, GameStart, Player


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


def _first(arg: str) -> Player:
    return FirstBot()


def _random(arg: str) -> Player:
    return RandomBot()


def _greedy(arg: str) -> Player:
    """The greedy heuristic (`arena.strategies.greedy`) through the real wire encoding,
    as `python -m arena.strategies.greedy` plays it."""
    from arena.bots.local import SdkPlayer
    from arena.strategies.greedy import GreedyBot

    return SdkPlayer(GreedyBot())


def _mixed(arg: str) -> Player:
    """The mixed bot (`arena.strategies.mixed`) in process: `builtin:mixed:P` plays the
    heuristic move with probability P (0 to 1), as `python -m arena.strategies.mixed
    --p P` does."""
    from arena.bots.mixed import mixed_player

    if not arg:
        raise ConfigError(
            "builtin:mixed needs P, the chance of the heuristic move (0 to 1): "
            "e.g. builtin:mixed:0.8"
        )
    try:
        p = float(arg)
    except ValueError:
        p = -1.0
    if not 0.0 <= p <= 1.0:  # also NaN, which no comparison passes
        raise ConfigError(
            f"builtin:mixed:{arg}: P is the chance of the heuristic move, a number from "
            "0 to 1, e.g. builtin:mixed:0.8"
        )
    return mixed_player(p)


def _sampler(arg: str) -> Player:
    """The search bot (`arena.strategies.sampler`) in process: `builtin:sampler:MS`
    thinks MS milliseconds a decision (default 200), as `python -m
    arena.strategies.sampler --budget-ms MS` does under the default move_timeout."""
    from arena.bots.sampler import SamplerPlayer
    from arena.strategies.sampler.bot import DEFAULT_BUDGET_MS

    budget = DEFAULT_BUDGET_MS
    if arg:
        try:
            budget = int(arg)
        except ValueError:
            budget = 0
        if budget <= 0:
            raise ConfigError(
                f"builtin:sampler:{arg}: the budget is a whole number of milliseconds "
                "above 0, e.g. builtin:sampler:200"
            )
    return SamplerPlayer(budget_ms=budget, name="sampler")


BUILTIN_BOTS: dict[str, tuple[Callable[[str], Player], bool]] = {
    "random": (_random, False),
    "first": (_first, False),
    "mixed": (_mixed, True),  # takes its probability: builtin:mixed:0.8
    "greedy": (_greedy, False),
    "sampler": (_sampler, True),  # takes a budget: builtin:sampler:200
}
"""In-process bots by name, weakest to strongest, and whether they take an option."""


def make_builtin(spec: str) -> Player:
    """The built-in bot `spec` names (`random`, `sampler:200`, ...); ConfigError listing
    them otherwise."""
    name, colon, arg = spec.partition(":")
    known = BUILTIN_BOTS.get(name)
    if known is None:
        raise ConfigError(
            f"unknown built-in bot 'builtin:{spec}'; built-in bots are: "
            + ", ".join(f"builtin:{n}" for n in BUILTIN_BOTS)
            + " (builtin:mixed:P plays the heuristic move with probability P, "
            "builtin:sampler:MS thinks MS milliseconds a decision)"
        )
    factory, takes_option = known
    if colon and not takes_option:
        raise ConfigError(f"builtin:{name} takes no option; got 'builtin:{spec}'")
    return factory(arg)
