"""The sampler's games at fixed work are pinned: with 4 sampled deals a decision it plays
exactly the games it played before it was rewritten on the SDK's public API (issue 32:
its behaviour must not change). The digests were taken from the code before the move
(the sampler importing the engines directly) and are those of every deal's events.

A change meant to change the sampler's play (a new playout rule, new beliefs) changes
them: measure its strength (docs/bots.md, "The sampler, and how it grows with work"),
then pin the new games here with the printout of this module
(`.venv/bin/python -m tests.strategies.test_sampler_pinned`).
"""

from __future__ import annotations

import hashlib
import json

import pytest

from arena.bots.local import SdkPlayer
from arena.bots.sampler import SamplerPlayer
from arena.games import get_game
from arena.play.referee import play_game
from arena.strategies.greedy import GreedyBot
from arena.strategies.sampler import SamplerBot

PINNED = {
    "trix": "999831930ecebd8b9ad25e07d862c00b5f2d959c896789425fac19cbf8cbe6cf",
    "trianon": "c205a979a8449a24d0d8d59b9dc8be914f117ae8c84da97f9b85d5e706867830",
}
OPTIONS = {"trix": {"kingdoms": 1}, "trianon": {"target": 300}}


def digest(game_name: str, sdk: bool) -> str:
    """The sampler (4 deals a decision, never short of time) in seat 0 against greedy
    bots, in process or as the SDK bot through the wire; its deals' digest."""
    game = get_game(game_name)
    if sdk:
        hero = SdkPlayer(SamplerBot(samples=4, budget_ms=60_000), time_ms=0)
    else:
        hero = SamplerPlayer(samples=4, budget_ms=60_000, time_ms=0)
    players = [hero, *(SdkPlayer(GreedyBot()) for _ in range(game.seats - 1))]
    options = game.parse_options(OPTIONS[game_name])
    replay = play_game(game, players, "sampler-pinned", options).replay
    return hashlib.sha256(json.dumps(replay["deals"], sort_keys=True).encode()).hexdigest()


@pytest.mark.parametrize("game_name", sorted(PINNED))
def test_the_sampler_plays_its_pinned_games(game_name: str) -> None:
    assert digest(game_name, sdk=False) == PINNED[game_name]
    assert digest(game_name, sdk=True) == PINNED[game_name]


if __name__ == "__main__":
    for name in sorted(PINNED):
        print(f'    "{name}": "{digest(name, sdk=False)}",')
