"""The mixed bot (arena.strategies.mixed, served by sample_bots/mixed_bot.py) and its
in-process twin for benchmarks (its old names, aliases: tests/strategies/test_mixed_aliases.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arena.bots.builtin import FirstBot
from arena.bots.check import check_bot
from arena.bots.local import SdkPlayer
from arena.bots.mixed import mixed_player
from arena.games import get_game
from arena.play.referee import play_game
from arena.strategies.greedy import GreedyBot
from arena.strategies.mixed import MixedBot
from tests.independent.trianon_checker import check_replay as check_trianon_replay

ROOT = Path(__file__).resolve().parents[2]
MIXED = ROOT / "sample_bots" / "mixed_bot.py"
RUNGS = (0.6, 0.7, 0.8, 0.9)


def _replay(game_name: str, players, seed: str) -> dict:
    game = get_game(game_name)
    result = play_game(game, players[: game.seats], seed, game.parse_options({}))
    # The referee turns an error raised in a bot into a fault and a fallback move: a game
    # with faults would not be the bots' own play, so every game here must have none.
    assert result.faults == [], result.faults
    return result.replay


@pytest.mark.parametrize("game_name", ["trix", "trianon"])
def test_in_process_twin_decides_as_the_bot_does_through_the_wire(game_name) -> None:
    # The twin skips the wire; the SdkPlayer hands the bot's own code real request bytes.
    twin = [mixed_player(p) for p in RUNGS]
    wired = [SdkPlayer(MixedBot(p)) for p in RUNGS]
    a = _replay(game_name, twin, "ladder-twin")
    b = _replay(game_name, wired, "ladder-twin")
    assert a["deals"] == b["deals"] and a["totals"] == b["totals"]


def test_same_seed_replays_and_p_changes_the_play() -> None:
    first = _replay("trianon", [mixed_player(0.5) for _ in range(3)], "ladder-seed")
    again = _replay("trianon", [mixed_player(0.5) for _ in range(3)], "ladder-seed")
    other = _replay("trianon", [mixed_player(0.1) for _ in range(3)], "ladder-seed")
    assert first["deals"] == again["deals"]
    assert first["deals"] != other["deals"]


def test_p_one_is_the_heuristic_bot_and_p_zero_never_asks_it() -> None:
    assert type(MixedBot(1.0).greedy) is GreedyBot
    greedy = [SdkPlayer(GreedyBot()) for _ in range(3)]
    ladder = [mixed_player(1.0) for _ in range(3)]
    assert _replay("trianon", ladder, "p1")["deals"] == _replay("trianon", greedy, "p1")["deals"]

    never = [mixed_player(0.0) for _ in range(3)]
    asked = []  # recorded here: an error raised inside a bot's act becomes a fault
    for player in never:
        player.bot.greedy.act = lambda turn: asked.append(turn.kind) or turn.legal[0]
    played = _replay("trianon", never, "p0")
    assert asked == [], "p = 0 asked the heuristic bot"
    # Never asking it, every decision is the bot's random pick: the same game as players
    # that play random_choice's index at each of their decisions.
    picks = _replay("trianon", [_RandomPicks(0.0) for _ in range(3)], "p0")
    assert played["deals"] == picks["deals"] and played["totals"] == picks["totals"]
    assert check_trianon_replay(played) == []  # the totals the rules give for that play


class _RandomPicks(FirstBot):
    """Plays, at its n-th decision, legal[random_choice(bot seed, seat, n, len(legal))]:
    what the mixed bot plays when its coin says random (TypeError, a fault, if not)."""

    def __init__(self, p: float) -> None:
        super().__init__()
        self.rung = MixedBot(p)

    def start_game(self, start) -> None:
        self.seat, self.seed, self.decisions = start.seat, start.seed, 0

    def act(self, decision):
        self.decisions += 1
        pick = self.rung.random_choice(self.seed, self.seat, self.decisions, len(decision.legal))
        return decision.legal[pick]


def test_random_choice_follows_p_over_many_decisions() -> None:
    bot = MixedBot(0.7)
    heuristic = sum(bot.random_choice("s", 1, i, 5) is None for i in range(1, 2001))
    assert 0.65 < heuristic / 2000 < 0.75  # binomial sd 0.01: five sd either side
    # and exactly, for these fixed inputs: the choices are a pure function of seed, seat,
    # decision and p, so stored leagues of it replay only while this count stays put.
    assert heuristic == 1360
    picks = {bot.random_choice("s", 1, i, 5) for i in range(1, 2001)} - {None}
    assert picks == {0, 1, 2, 3, 4}


@pytest.mark.parametrize("command", [[str(MIXED)], ["-m", "arena.strategies.mixed"]])
def test_the_external_bot_passes_check_bot_and_refuses_a_bad_p(tmp_path, command) -> None:
    # The sample script and the package module, the same bot under the same flags.
    spec = " ".join(["python", *command, "--p", "0.7", "--name", "rung"])
    report = check_bot(spec, "trianon", log_dir=tmp_path)
    assert report.clean, "\n".join(report.lines())
    assert report.name == "rung"
    bad = subprocess.run(
        [sys.executable, *command, "--p", "1.5"], capture_output=True, text=True, timeout=30
    )
    assert bad.returncode == 2 and "probability" in bad.stderr
