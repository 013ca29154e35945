"""Issue 27 finding 15: in `arena play`, a timeout the machine caused (an overloaded
core, arena/bots/remote/load.py) is shown but not charged to the bot: not counted
toward --fail-on-fault or --max-faults, and the line says what to do."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app

THINKER = Path(__file__).resolve().parents[1] / "bot_scripts" / "thinker_bot.py"


@pytest.mark.slow
def test_finding_15_an_overloaded_timeout_is_not_charged_in_play(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(
        "arena.bots.remote.player.judge",
        lambda *_args: "runnable tasks waited for a core 0.2 s of 0.3 s, the bot ran 0.0 s",
    )  # the machine is judged overloaded at every late answer
    slow = f"{sys.executable} {THINKER} 0.4 --first 1"
    result = CliRunner().invoke(
        app,
        ["play", slow, "builtin:first", "builtin:random", "builtin:first", "--games", "1",
         "--move-timeout", "0.1", "--max-faults", "1", "--fail-on-fault", "--sandbox", "off",
         "--seed", "5", "--logs", str(tmp_path)],
    )  # fmt: skip
    assert "the machine was overloaded" in result.output, result.output
    assert "not charged to the bot" in result.output
    assert "give a longer --move-timeout" in result.output
    assert result.exit_code == 0, result.output  # --fail-on-fault: nothing charged
