"""The graded in-process opponents: `builtin:greedy` and `builtin:sampler[:MS]` make
the decisions their external bots make, given the same game."""

from __future__ import annotations

import pytest

from arena.bots.builtin import make_builtin
from arena.bots.local import SdkPlayer
from arena.bots.remote.settings import RemoteSettings
from arena.bots.sampler import SamplerPlayer
from arena.bots.spec import started_players
from arena.errors import ConfigError
from arena.games import get_game
from arena.play.referee import RefereeSettings, play_game
from arena.strategies.greedy import GreedyBot

# Both twins are asked every decision, forced ones too, as a table with a bot over gRPC
# asks them (a bot's seeded choices follow its decision numbers).
ASK_ALL = RefereeSettings(ask_forced=True)
GAME = get_game("trix")
SHORT = GAME.parse_options({"kingdoms": 1})


def _replay(first_seat: object, seed: str) -> dict:
    players = [first_seat, *(make_builtin("random") for _ in range(3))]
    return _without_think(play_game(GAME, players, seed, SHORT, settings=ASK_ALL).replay)


def test_builtin_greedy_plays_the_external_greedy_bots_game(tmp_path) -> None:
    with started_players(
        ["python -m arena.strategies.greedy"],
        "trix",
        GAME.options_dict(SHORT),
        settings=RemoteSettings(startup_timeout=30),
        log_dir=tmp_path,
    ) as (external,):
        remote = _replay(external, "twin-greedy")
    builtin = _replay(make_builtin("greedy"), "twin-greedy")
    assert remote["faults"] == [] and builtin["faults"] == []
    assert remote["deals"] == builtin["deals"]  # every event of every deal
    assert remote["totals"] == builtin["totals"]


@pytest.mark.slow
@pytest.mark.parametrize("game_name", ["trix", "trianon"])
def test_builtin_sampler_plays_the_external_sampler_bots_game(tmp_path, game_name) -> None:
    """Fixed work (2 samples a decision, a few ms) so that neither side is cut short by
    its clock: the same requests, through the wire or in process, give the same game."""
    game = get_game(game_name)
    options = game.parse_options({"kingdoms": 1} if game_name == "trix" else {})
    command = "python -m arena.strategies.sampler --samples 2 --budget-ms 5000"

    def replay(first_seat: object) -> dict:
        others = [make_builtin("random") for _ in range(game.seats - 1)]
        return _without_think(
            play_game(game, [first_seat, *others], "twin-sampler", options, settings=ASK_ALL).replay
        )

    with started_players(
        [command],
        game_name,
        game.options_dict(options),
        settings=RemoteSettings(startup_timeout=30),
        log_dir=tmp_path,
    ) as (external,):
        remote = replay(external)
    builtin = replay(SamplerPlayer(budget_ms=5000, samples=2))
    assert remote["faults"] == [] and builtin["faults"] == []
    assert remote["deals"] == builtin["deals"]  # every event of every deal
    assert remote["totals"] == builtin["totals"]


def test_builtin_sampler_takes_a_budget_and_is_the_sdk_bot_in_process() -> None:
    player = make_builtin("sampler:150")
    assert isinstance(player, SamplerPlayer) and player.sampler.budget_ms == 150
    assert make_builtin("sampler").sampler.budget_ms == 200  # the external bot's default
    greedy = make_builtin("greedy")
    assert isinstance(greedy, SdkPlayer) and isinstance(greedy.bot, GreedyBot)


@pytest.mark.parametrize(
    "spec, words",
    [
        ("sampler:0", "whole number of milliseconds above 0"),
        ("sampler:fast", "whole number of milliseconds above 0"),
        ("greedy:3", "takes no option"),
        ("smart", "builtin:greedy, builtin:sampler"),
    ],
)
def test_builtin_options_are_checked(spec, words) -> None:
    with pytest.raises(ConfigError, match=words):
        make_builtin(spec)


def _without_think(replay: dict) -> dict:
    """A replay without its think times: only a bot over gRPC is timed."""
    replay.pop("think", None)
    return replay
