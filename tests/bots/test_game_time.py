"""`game_time`: a budget of think time per game, beside move_timeout and time_bank.

A bot that thinks almost its whole move_timeout on every decision could make a Trix
game last some 70 x move_timeout; with game_time its seat plays fallback moves once
the budget is spent, and it is not asked again in that game.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena.bots.remote.settings import RemoteSettings
from arena.bots.spec import started_players
from arena.errors import ConfigError
from arena.games import get_game
from arena.play.referee import RefereeSettings, play_game

THINKER = Path(__file__).resolve().parents[1] / "bot_scripts" / "thinker_bot.py"
GAME = get_game("trix")
OPTIONS = GAME.parse_options({"kingdoms": "1"})


def test_a_bot_that_spends_its_game_time_plays_fallbacks_for_the_rest(tmp_path) -> None:
    settings = RemoteSettings(move_timeout=0.5, startup_timeout=10.0, game_time=1.0)
    specs = [f"python {THINKER} 0.2", "builtin:first", "builtin:random", "builtin:first"]
    with started_players(
        specs, "trix", GAME.options_dict(OPTIONS), settings=settings, log_dir=tmp_path
    ) as players:
        result = play_game(
            GAME, players, "budget", OPTIONS, settings=RefereeSettings(max_faults=100)
        )
        log = players[0].log_path.read_text()
    asked = [line for line in log.splitlines() if line.startswith("asked ")]
    seat0 = [f for f in result.faults if f.seat == 0]
    assert 1 <= len(asked) <= 7  # about game_time / 0.2 s, then never again this game
    assert seat0 and {f.kind for f in seat0} == {"timeout"}
    assert "game_time of 1 s for the whole game is used up" in seat0[-1].detail
    own = sum(1 for d in result.replay["deals"] for e in d["events"] if e["seat"] == 0)
    assert len(seat0) + len(asked) >= own - 2  # every other decision was a fallback


def test_game_time_is_checked_like_every_time_limit() -> None:
    with pytest.raises(ConfigError, match="game_time"):
        RemoteSettings(game_time=-1.0)
    with pytest.raises(ConfigError, match="game_time"):
        RemoteSettings(game_time=float("nan"))


def _play(tmp_path: Path, bot: str, settings: RemoteSettings):
    from arena.bots.confinement.sandbox import Sandbox

    specs = [f"python {THINKER} {bot}", "builtin:first", "builtin:random", "builtin:first"]
    with started_players(
        specs,
        "trix",
        GAME.options_dict(OPTIONS),
        settings=settings,
        log_dir=tmp_path,
        sandbox=Sandbox(),
    ) as players:
        result = play_game(GAME, players, "clock", OPTIONS, settings=RefereeSettings(max_faults=3))
        cpu = list(players[0].cpu_latencies)
    return [f for f in result.faults if f.seat == 0], cpu, result


@pytest.mark.slow
def test_with_clock_cpu_a_sleeping_bot_is_not_charged_and_a_spinning_one_is(tmp_path) -> None:
    """clock = "cpu" (docs/sandbox.md): the limit is on the bot's own CPU time, read
    from its cgroup; the wall time is capped at 3 x the limit."""
    on_cpu = RemoteSettings(move_timeout=0.1, startup_timeout=10.0, clock="cpu")
    faults, cpu, result = _play(tmp_path / "sleeps", "0.15 --first 8", on_cpu)
    assert faults == [] and cpu and max(cpu) < 0.1  # 0.15 s asleep: under 3 x 0.1 s wall
    assert result.replay["think"][0]["cpu_ms"][0] is not None
    faults, _, _ = _play(tmp_path / "spins", "0.25 --spin --first 3", on_cpu)
    assert faults and {f.kind for f in faults} == {"timeout"}
    assert "of CPU time on the decision, more than its 0.100 s (clock = cpu" in faults[0].detail
    on_wall = RemoteSettings(move_timeout=0.1, startup_timeout=10.0)
    faults, _, _ = _play(tmp_path / "wall", "0.15 --first 3", on_wall)
    assert faults and "no answer within 0.100 s" in faults[0].detail  # the wall clock
    assert re.search(r"the bot used 0\.0\d\d s of CPU in those 0\.\d+ s", faults[0].detail)


def test_the_clock_must_be_wall_or_cpu() -> None:
    with pytest.raises(ConfigError, match="clock"):
        RemoteSettings(clock="sundial")
