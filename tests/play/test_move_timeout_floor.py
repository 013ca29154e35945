"""Issue 27 finding 8: a move_timeout below the floor this arena serves reliably
(`MOVE_TIMEOUT_FLOOR`, docs/leagues.md "Time limits") is warned about with the figure,
in a league file and in `arena play`, for started bots (built-in bots are not timed)."""

from __future__ import annotations

import sys
from pathlib import Path

from typer.testing import CliRunner

from arena.bots.remote.settings import MOVE_TIMEOUT_FLOOR, move_timeout_warning
from arena.cli import app
from tests.support.tiny_league import tiny_file

runner = CliRunner()
THINKER = Path(__file__).resolve().parents[1] / "bot_scripts" / "thinker_bot.py"


def test_finding_8_the_floor_is_said_with_its_figure() -> None:
    said = move_timeout_warning(0.001, "--move-timeout")
    assert said is not None and "0.001 s is below 0.05 s" in said
    assert move_timeout_warning(MOVE_TIMEOUT_FLOOR, "--move-timeout") is None


def test_finding_8_arena_play_warns_of_a_move_timeout_below_the_floor(tmp_path: Path) -> None:
    bot = f"{sys.executable} {THINKER} 0"
    argv = ["play", bot, "builtin:first", "builtin:random", "builtin:first", "--games", "1",
            "--sandbox", "off", "--move-timeout", "0.001", "--startup-timeout", "0.1",
            "--logs", str(tmp_path)]  # fmt: skip
    result = runner.invoke(app, argv)
    assert "warning: --move-timeout 0.001 s is below 0.05 s" in result.output
    builtins = ["builtin:random", "builtin:first"] * 2
    quiet = runner.invoke(app, ["play", *builtins, "--games", "1", "--move-timeout", "0.001"])
    assert quiet.exit_code == 0 and "below 0.05 s" not in quiet.output


def test_finding_8_a_league_file_below_the_floor_is_warned_about(tmp_path: Path) -> None:
    league = tiny_file(tmp_path)
    started = f'bot = "{sys.executable} {THINKER} 0"'
    text = league.read_text().replace('bot = "builtin:random"', started, 1)
    league.write_text(text + "\n[limits]\nmove_timeout = 0.001\nstartup_timeout = 0.1\n")
    result = runner.invoke(app, ["run", str(league), "--db", str(tmp_path / "a.db")])
    assert "[limits] move_timeout 0.001 s is below 0.05 s" in result.output, result.output
