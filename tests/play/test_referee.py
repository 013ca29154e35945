"""The referee with in-process bots: replays, fallback moves and faults."""

from __future__ import annotations

import json

import pytest

from arena.bots.builtin import FirstBot, RandomBot, make_builtin
from arena.errors import ArenaError, ConfigError
from arena.games import get_game, trix
from arena.play.faults import BotFault, FaultKind
from arena.play.referee import RefereeSettings, play_game
from tests.support.walks import asked_by_seat

GAME = get_game("trix")
SHORT = trix.parse_options({"kingdoms": 1})


class IllegalBot(FirstBot):
    """Answers a card it does not hold at every decision."""

    def act(self, decision):
        return 999


class RaisingBot(FirstBot):
    def act(self, decision):
        raise RuntimeError("bug in the bot")


class FaultyBot(FirstBot):
    def act(self, decision):
        raise BotFault(FaultKind.TIMEOUT, "no answer within 1.0 s")


def test_replay_has_the_documented_shape() -> None:
    replay = play_game(GAME, [RandomBot() for _ in range(4)], "shape", SHORT).replay
    assert list(replay) == [
        "format",
        "game",
        "options",
        "seed",
        "players",
        "deals",
        "totals",
        "ranks",
        "faults",
    ]
    assert replay["format"] == "arena-replay/1" and replay["game"] == "trix"
    assert replay["options"] == {
        "doubling": True,
        "kingdoms": 1,
        "tiebreak": "none",
        "first_king_card": "7H",
        "partners": False,
    }
    deal = replay["deals"][0]
    assert list(deal) == ["number", "king", "hands", "events", "scores"]
    assert deal["events"][0] == {
        "seat": deal["king"],
        "type": "contract",
        "contract": deal["events"][0]["contract"],
    }
    assert all(len(h) == 13 for h in deal["hands"])
    json.dumps(replay)  # plain JSON


def test_same_seed_same_replay() -> None:
    a = play_game(GAME, [RandomBot() for _ in range(4)], "again", SHORT).replay
    b = play_game(GAME, [RandomBot() for _ in range(4)], "again", SHORT).replay
    assert a == b


def test_illegal_answers_become_fallback_moves_and_faults() -> None:
    settings = RefereeSettings(max_faults=3)
    bots = [IllegalBot("bad"), FirstBot(), FirstBot(), FirstBot()]
    result = play_game(GAME, bots, "illegal", SHORT, settings=settings)
    faults = result.replay["faults"]
    assert len(faults) == 3 and all(f["kind"] == "illegal" and f["seat"] == 0 for f in faults)
    assert "not legal" in faults[0]["detail"]
    autos = [e for d in result.replay["deals"] for e in d["events"] if "auto" in e]
    assert [e["auto"] for e in autos[:3]] == ["illegal"] * 3
    assert all(e["auto"] == "max-faults" for e in autos[3:])
    # The fallback is the first legal action: the same game as builtin:first in seat 0.
    clean = play_game(GAME, [FirstBot() for _ in range(4)], "illegal", SHORT).replay
    # Every decision seat 0 would have been asked is a fallback, none other is (51 here).
    assert len(autos) == asked_by_seat(GAME, clean, SHORT)[0] > 3
    assert {e["seat"] for e in autos} == {0}
    assert result.replay["totals"] == clean["totals"]
    strip = [
        [{k: v for k, v in e.items() if k != "auto"} for e in d["events"]]
        for d in result.replay["deals"]
    ]
    assert strip == [d["events"] for d in clean["deals"]]


def test_a_raising_bot_is_a_crash_fault_and_the_game_completes() -> None:
    result = play_game(GAME, [FirstBot(), RaisingBot(), FirstBot(), FirstBot()], "r", SHORT)
    assert result.faults[0].kind == "crash" and "bug in the bot" in result.faults[0].detail
    assert len(result.replay["deals"]) == 5


def test_bot_fault_kind_is_recorded() -> None:
    result = play_game(GAME, [FirstBot(), FirstBot(), FaultyBot(), FirstBot()], "f", SHORT)
    assert {f.kind for f in result.faults} == {"timeout"}
    assert all(f.seat == 2 for f in result.faults)


def test_forced_moves_are_not_asked_unless_told() -> None:
    class Counter(FirstBot):
        def __init__(self) -> None:
            super().__init__()
            self.asked = 0
            self.kinds: set[str] = set()
            self.wrong_views: list[tuple[int, int]] = []  # (decision.seat, view.seat)

        def act(self, decision):
            self.asked += 1
            self.kinds.add(decision.kind)
            # Recorded, not asserted: the referee turns whatever a bot raises into a
            # crash fault and a fallback move, so an assert here could never fail the test.
            if decision.view.seat != decision.seat:
                self.wrong_views.append((decision.seat, decision.view.seat))
            return decision.legal[0]

    quiet = [Counter() for _ in range(4)]
    result = play_game(GAME, quiet, "forced", SHORT)
    eager = [Counter() for _ in range(4)]
    eager_result = play_game(
        GAME, eager, "forced", SHORT, settings=RefereeSettings(ask_forced=True)
    )
    assert result.faults == [] and eager_result.faults == []
    assert [b.wrong_views for b in quiet + eager] == [[]] * 8
    assert all(b.asked > 0 for b in quiet)  # every seat's view was looked at
    assert sum(b.asked for b in quiet) < sum(b.asked for b in eager) == result.decisions
    assert "pass" in set().union(*(b.kinds for b in eager))


def test_decision_view_is_closed_after_the_answer() -> None:
    kept = []

    class Keeper(FirstBot):
        def act(self, decision):
            kept.append(decision)
            return decision.legal[0]

    play_game(GAME, [Keeper(), FirstBot(), FirstBot(), FirstBot()], "keep", SHORT)
    with pytest.raises(ArenaError, match="only available while it is open"):
        _ = kept[-1].view


def test_unknown_builtin_is_a_clear_error() -> None:
    with pytest.raises(ConfigError, match="builtin:random"):
        make_builtin("smart")
