"""`arena check-bot` sets up every decision kind itself, and never fails a bot that had
no fault for what the deals (or its own legal choices) did not put to it."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.bots.builtin import FirstBot, RandomBot
from arena.bots.check import CheckReport, check_bot, game_plan
from arena.cli import app
from arena.games import get_game
from arena.play.referee import RefereeSettings, play_game

runner = CliRunner()
TRIX = get_game("trix")
OPTIONS = TRIX.parse_options({})

NEVER_BIDS = """
from arena.sdk import Bot, serve


class NeverBids(Bot):
    name = "never-bids"
    games = ("trianon",)

    def act(self, turn):
        return turn.legal[0]  # pass in the bidding, the lowest card in play


serve(NeverBids())
"""

BIDS = """
from arena.sdk import Bot, serve


class Bids(Bot):
    name = "bids"
    games = ("trianon",)

    def act(self, turn):
        if turn.kind == "bid" and len(turn.legal) > 1:
            return turn.legal[1]  # the lowest bid allowed
        return turn.legal[0]


serve(Bids())
"""

LAST = """
from arena.sdk import Bot, serve


class Last(Bot):
    name = "last"

    def act(self, turn):
        return turn.legal[-1]  # the King's last contract, every exposure, the highest card


serve(Last())
"""


def _bot(tmp_path: Path, name: str, source: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    return f"python {path}"


class LastBot(FirstBot):
    def act(self, decision):
        return decision.legal[-1]


def _asked(game_seed: str, seat: int, bot) -> tuple[set[str], set[str]]:
    """The kinds the seat was asked in the game, and the kinds of its first decision in
    each deal another seat was King of."""
    kinds: set[str] = set()
    first: dict[int, str] = {}

    class Recorder(type(bot)):  # the policy under test, recording what it is asked
        def act(self, decision):
            kinds.add(decision.kind)
            first.setdefault(decision.view.deal, decision.kind)
            return super().act(decision)

    players = [FirstBot() for _ in range(4)]
    players[seat] = Recorder(bot.name)
    result = play_game(TRIX, players, game_seed, OPTIONS, settings=RefereeSettings(ask_forced=True))
    kings = {d["number"]: d["king"] for d in result.replay["deals"]}
    return kinds, {kind for deal, kind in first.items() if kings[deal] != seat}


def test_the_trix_seat_chosen_meets_every_kind_whatever_the_bot_plays() -> None:
    """The chosen seed and seat put contract, expose, play and pass to the bot, be it a
    bot that always takes the first, the last or a random legal action: its first
    decisions in the other Kings' deals hold an expose and a pass whatever it plays."""
    chosen = 0
    for n in range(1, 13):
        game_seed = f"guarantee-{n}"
        seat = TRIX.seat_asked_every_kind(game_seed, OPTIONS)
        if seat is None:
            continue
        chosen += 1
        for bot in (FirstBot(), LastBot("last"), RandomBot()):
            kinds, first = _asked(game_seed, seat, bot)
            assert kinds == set(TRIX.decision_kinds), (game_seed, seat, bot.name)
            assert {"expose", "pass"} <= first, (game_seed, seat, bot.name)
    assert chosen >= 6  # most seeds have such a seat


def test_the_plan_starts_with_a_seed_and_seat_that_meet_every_kind() -> None:
    plan = game_plan(TRIX, OPTIONS, "check")
    first_seed, seat = plan[0]
    assert TRIX.seat_asked_every_kind(first_seed, OPTIONS) == seat
    assert len(plan) == len({s for s, _ in plan}) <= 4


def test_a_trix_bot_that_plays_the_last_action_is_covered_in_one_game(tmp_path) -> None:
    report = check_bot(_bot(tmp_path, "last", LAST), "trix", log_dir=tmp_path)
    assert report.clean and report.covered, "\n".join(report.lines())
    assert report.games == 1 and report.gaps() == []


@pytest.mark.slow
def test_a_trianon_bot_that_never_bids_passes_with_the_reason(tmp_path) -> None:
    result = runner.invoke(
        app,
        [
            "check-bot",
            _bot(tmp_path, "never", NEVER_BIDS),
            "--game",
            "trianon",
            "--sandbox",
            "off",
            "--logs",
            str(tmp_path / "logs"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "decision kinds missing raise" in result.output
    assert "  - raise: never bid, so was never asked to raise: not a fault" in result.output
    assert "verdict: PASS" in result.output


def test_a_trianon_bot_that_bids_is_made_declarer_and_asked_to_raise(tmp_path) -> None:
    report = check_bot(_bot(tmp_path, "bids", BIDS), "trianon", log_dir=tmp_path)
    assert report.bids >= 1 and "raise" in report.kinds_seen
    assert report.clean and report.covered and report.games == 1, "\n".join(report.lines())


def _report(game: str, seen: set[str], faults: Counter[str] | None = None) -> CheckReport:
    needed = tuple(get_game(game).decision_kinds)
    return CheckReport(
        "python bot.py",
        game=game,
        name="bot",
        kinds_needed=needed,
        kinds_seen=seen,
        faults=faults or Counter(),
        games=1,
    )


def test_what_was_not_met_is_explained_and_fails_only_with_faults() -> None:
    unlucky = _report("trix", {"contract", "play", "pass"})
    assert unlucky.clean
    assert [(g.what, g.bot_fault) for g in unlucky.gaps()] == [("expose", False)]
    assert "never held a card it may expose" in "\n".join(unlucky.lines())
    assert unlucky.lines()[-1] == "verdict: PASS"
    faulty = _report("trix", {"contract", "play", "pass"}, Counter({"timeout": 2}))
    assert not faulty.clean and faulty.gaps()[0].bot_fault
    assert "its faults (timeout) took decisions" in faulty.gaps()[0].why
    assert faulty.lines()[-1] == "verdict: FAIL"


def test_check_bot_names_the_log_on_each_fault_line(tmp_path) -> None:
    scripted = Path(__file__).resolve().parents[1] / "bot_scripts" / "scripted_bot.py"
    report = check_bot(f"python {scripted} --fault illegal", "trix", log_dir=tmp_path)
    assert not report.clean and report.fault_details
    line = report.fault_details[0]
    assert line.startswith("game 1 deal ") and " decision 3: illegal: " in line
    log = line.rsplit("; log: ", 1)[1]
    assert Path(log).resolve() == Path(report.log_path).resolve() and Path(log).exists()
