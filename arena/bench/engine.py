"""`arena bench engine`: whole games between four `builtin:random` bots on one core.

The games are played through the real referee (so the replay of every game is built
too), and then the same games with the engine alone and an observation built for
every decision, so that a slowdown can be traced to its layer. Nothing is asserted.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from arena.bots.builtin import make_builtin
from arena.cards import seeded_rng
from arena.games import get_game
from arena.play.referee import play_game


@dataclass
class EngineFigures:
    games: int
    decisions: int
    seconds: float
    engine_seconds: float

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.seconds

    @property
    def engine_games_per_second(self) -> float:
        return self.games / self.engine_seconds

    def lines(self, game: str) -> list[str]:
        """The figures as `arena bench engine` prints them."""
        return [
            f"{game}: {self.games} full games, {self.decisions} decisions, one core",
            f"through the referee (bots, validation, replays): "
            f"{self.games_per_second:,.1f} games/s, {self.decisions_per_second:,.0f} decisions/s",
            f"engine alone, observation built for every decision: "
            f"{self.engine_games_per_second:,.1f} games/s",
        ]


def bench_engine(game_name: str = "trix", games: int = 300, seed: str = "bench") -> EngineFigures:
    """Play `games` full games twice: through the referee, then engine + observe only."""
    game = get_game(game_name)
    options = game.parse_options({})
    players = [make_builtin("random") for _ in range(game.seats)]
    seeds = [f"{seed}-{i}" for i in range(games)]
    decisions = 0
    start = time.perf_counter()
    for s in seeds:
        result = play_game(game, players, s, options)
        decisions += result.decisions
    seconds = time.perf_counter() - start

    apply, observe = game.apply, game.observe
    start = time.perf_counter()
    for s in seeds:
        state = game.new_game(f"{s}/engine", options)
        rand = seeded_rng("bench", s).random
        while state.to_move >= 0:
            legal = observe(state, state.to_move).legal
            apply(state, legal[int(rand() * len(legal))])
    engine_seconds = time.perf_counter() - start
    return EngineFigures(games, decisions, seconds, engine_seconds)
