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


@pytest.mark.slow
def test_finding_15_an_answer_the_machine_made_late_is_not_charged_either(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An answer that comes, but after the decision's time (the referee woke late to
    read it: what a loaded machine does), is judged like no answer at all: the machine
    overloaded, it is shown and not charged; the bot's own lateness still is."""
    from arena.bots.remote.player import RemotePlayer

    think = RemotePlayer._think

    def late(self, started, ended, cpu_start, cpu_end):  # every answer read 1.5 s late
        return think(self, started, ended + 1.5, cpu_start, cpu_end)

    monkeypatch.setattr(RemotePlayer, "_think", late)
    argv = ["play", f"{sys.executable} {THINKER} 0.0", "builtin:first", "builtin:random",
            "builtin:first", "--games", "1", "--rules", "kingdoms=1", "--move-timeout", "1",
            "--max-faults", "1", "--fail-on-fault", "--sandbox", "off", "--seed", "5",
            "--logs", str(tmp_path)]  # fmt: skip
    monkeypatch.setattr("arena.bots.remote.player.judge", lambda *_args: "")
    charged = CliRunner().invoke(app, argv)
    assert "timeout: no answer within 1.000 s" in charged.output, charged.output
    assert "not charged" not in charged.output and charged.exit_code == 3, charged.output
    monkeypatch.setattr(
        "arena.bots.remote.player.judge",
        lambda *_args: "runnable tasks waited for a core 1.4 s of 1.5 s, the bot ran 0.0 s",
    )
    spared = CliRunner().invoke(app, argv)
    assert "the machine was overloaded (runnable tasks waited" in spared.output, spared.output
    assert "not charged to the bot" in spared.output
    assert spared.exit_code == 0, spared.output  # --fail-on-fault: nothing charged
