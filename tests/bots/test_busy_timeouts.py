"""A timeout caused by the bot still working on an earlier decision says so.

An SDK bot answers one decision at a time: while `act` is busy, the next request waits
unread, so one slow decision makes the next ones time out as well. The referee sees the
first time out unanswered and nothing come back before the next times out."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.bots.remote.faults import wrong_decision
from arena.bots.remote.settings import RemoteSettings
from arena.bots.spec import started_players
from arena.games import get_game
from arena.play.referee import RefereeSettings, play_game
from arena.wire.v1 import bot_pb2 as pb

GAME = get_game("trix")
SHORT = GAME.parse_options({"kingdoms": 1})
SCRIPTED = Path(__file__).resolve().parents[1] / "bot_scripts" / "scripted_bot.py"

SLOW_ONCE = """
import time
from arena.sdk import Bot, serve


SLEEPS = {SLEEPS}


class SlowOnce(Bot):
    name = "slow-once"

    def act(self, turn):
        # holds the bot's only thread: the requests after it wait unread
        time.sleep(SLEEPS.get(turn.decision_id, 0.0))
        return turn.legal[0]


serve(SlowOnce())
"""

BUSY = "the bot was still busy with decision 3 when this one was asked"


def _slow_bot(tmp_path: Path, sleeps: dict[int, float]) -> str:
    bot = tmp_path / "slow_once.py"
    bot.write_text(SLOW_ONCE.replace("{SLEEPS}", repr(sleeps)))
    return f"python {bot}"


def _faults(spec: str, tmp_path: Path, transport: str, move_timeout: float = 0.3):
    settings = RemoteSettings(move_timeout, 10.0, 0.0, transport)
    specs = [spec, "builtin:first", "builtin:first", "builtin:first"]
    with started_players(
        specs, "trix", GAME.options_dict(SHORT), settings=settings, log_dir=tmp_path
    ) as players:
        result = play_game(GAME, players, "busy", SHORT, settings=RefereeSettings(max_faults=20))
    return {f.decision: f.detail for f in result.faults if f.seat == 0}


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["stream", "unary"])
def test_timeouts_behind_a_slow_decision_name_it(tmp_path, transport) -> None:
    faults = _faults(_slow_bot(tmp_path, {3: 1.0}), tmp_path, transport)
    assert 3 in faults and "busy" not in faults[3]  # the slow one itself: a plain timeout
    later = sorted(n for n in faults if n > 3)
    assert later and later == list(range(4, 4 + len(later)))  # the run right behind it
    for n in later:
        assert BUSY in faults[n], faults[n]
        assert "no answer within 0.300 s" in faults[n]


def test_a_bot_that_answers_the_next_decision_is_not_called_busy(tmp_path) -> None:
    """The scripted bot serves each call on a thread of its own: it answers decision 4
    while decision 3 still sleeps, so only decision 3 times out, with no such note."""
    faults = _faults(f"python {SCRIPTED} --fault timeout --at 3", tmp_path, "stream")
    assert list(faults) == [3] and "busy" not in faults[3]


@pytest.mark.slow
def test_an_answer_in_between_ends_the_run(tmp_path) -> None:
    """Decision 3 overruns a little: decision 4 is answered once the bot is free, so
    when decision 8 times out later the bot was busy with nothing else."""
    faults = _faults(_slow_bot(tmp_path, {3: 0.7, 8: 0.7}), tmp_path, "stream", 0.5)
    assert sorted(faults) == [3, 8]
    assert "busy" not in faults[3] and "busy" not in faults[8]


def test_a_late_answer_to_a_timed_out_decision_is_called_so() -> None:
    reply = pb.DecisionReply(decision_id=3, action=pb.Action(type="pass"))
    late = wrong_decision(5, reply, {3})
    assert "a late answer to decision 3, which had timed out" in late.detail
    assert "still busy with it when this one was asked" in late.detail
    assert "late answer" not in wrong_decision(5, reply, {4}).detail
