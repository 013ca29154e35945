"""`arena duel`: end to end with a real bot process on loopback, its output (text and
JSON), the deal key, the refusals before any bot starts, and Ctrl-C."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from tests.support.bot_processes import live_processes

ROOT = Path(__file__).resolve().parents[2]
KEY = "5e" * 16

runner = CliRunner()


def _bot_copy(folder: Path, name: str) -> Path:
    """The sample random bot under a name of this test's own, so that its processes are
    told apart from any other test's."""
    folder.mkdir(exist_ok=True)
    bot = folder / name
    bot.write_text((ROOT / "sample_bots" / "random_bot.py").read_text())
    return bot


def _processes_of(bot: Path, arena: int = 0) -> list[int]:
    return [p.pid for p in live_processes() if str(bot).encode() in p.cmdline and p.pid != arena]


def _duel(*args: str) -> list[str]:
    return ["duel", *args, "--opponents", "builtin:random", "--rules", "kingdoms=1"]


def test_a_real_bot_duels_and_the_deal_key_repeats_every_figure(tmp_path) -> None:
    bot = _bot_copy(tmp_path / "bots", "duel_random_bot.py")
    args = _duel(f"python {bot}", "builtin:random", "--matches", "2", "--sandbox", "off",
                 "--logs", str(tmp_path / "logs"), "--deal-key", KEY)  # fmt: skip
    first = runner.invoke(app, [*args, "--json"])
    assert first.exit_code == 0, first.output
    result = json.loads(first.stdout)
    assert result["a"] == f"python {bot}" and result["opponents"] == ["builtin:random"] * 3
    assert result["pairs"] == 2 and result["games"] == 16 and result["games_per_pair"] == 8
    assert [s["seed"] for s in result["steps"]] == ["duel-1", "duel-2"]
    assert result["decision"] == "continue" and result["verdict"] == "undecided"
    assert result["faults"] == {"A": 0, "B": 0, "opponents": 0}
    assert result["low"] < result["mean"] < result["high"]
    assert "pair 1: 8 games" in first.stderr and "pair 2: 16 games" in first.stderr
    assert "deal key" not in first.stderr  # given: nothing to tell
    assert _processes_of(bot) == []
    again = runner.invoke(app, [*args, "--json"])
    assert again.stdout == first.stdout  # byte for byte: the same deals, the same moves
    text = runner.invoke(app, args)
    assert text.exit_code == 0, text.output
    assert f"A: python {bot}" in text.stdout
    assert (
        "A - B: " in text.stdout and "verdict: undecided after 2 pairs (--matches 2)" in text.stdout
    )
    assert f"{result['mean']:+.1f} points a game" in text.stdout


def test_without_a_deal_key_a_fresh_one_is_printed_and_deals_the_same_cards_again() -> None:
    args = _duel("builtin:greedy", "builtin:random", "--matches", "2", "--json")
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    said = [line for line in first.stderr.splitlines() if line.startswith("deal key ")]
    assert len(said) == 1
    key = said[0].split()[2].rstrip(":")
    again = runner.invoke(app, [*args, "--deal-key", key])
    assert again.stdout == first.stdout


def test_greedy_against_random_is_decided_for_greedy() -> None:
    result = runner.invoke(app, _duel("builtin:greedy", "builtin:random", "--deal-key", KEY))
    assert result.exit_code == 0, result.output
    assert "verdict: A is better: H1 accepted (A better by 20)" in result.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["--until-decided", "--matches", "3"], "--until-decided and --matches 3 do not go"),
        (["--margin1", "0"], "--margin1 must be a number of points a game above 0"),
        (["--margin0", "30"], r"--margin1 must be .* above --margin0 \(30\)"),
        (["--alpha", "0.7"], "--alpha must be a probability"),
        (["--max-games", "0"], "--max-games must be a whole number of at least 1"),
        (["--min-pairs", "1"], "--min-pairs must be a whole number of at least 2"),
        (["--opponents", "builtin:random", "--opponents", "builtin:first"], "or 3 specs"),
        (["--deal-key", "xyz"], "--deal-key must be 32 to 128 hex digits"),
        (["--rules", "kingdoms=9"], "kingdoms"),
        (["--game", "trianon", "--opponents", "a", "--opponents", "b", "--opponents", "c"],
         "or 2 specs"),
    ],
)  # fmt: skip
def test_errors_say_what_to_do_before_any_bot_starts(args, message, tmp_path) -> None:
    bot = _bot_copy(tmp_path / "bots", "never_started_bot.py")
    result = runner.invoke(app, ["duel", f"python {bot}", "builtin:random", *args,
                                 "--sandbox", "off", "--logs", str(tmp_path / "logs")])  # fmt: skip
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ")
    assert re.search(message, result.stderr), result.stderr
    assert not (tmp_path / "logs").exists()  # nothing started, not even a log folder


def test_ctrl_c_prints_the_result_so_far_and_ends_every_bot(tmp_path) -> None:
    """No verdict before 10,000 pairs: only the interrupt ends this duel."""
    bot = _bot_copy(tmp_path / "bots", "ctrl_c_duel_bot.py")
    command = [sys.executable, "-m", "arena.cli", *_duel(f"python {bot}", f"python {bot}"),
               "--sandbox", "off", "--logs", str(tmp_path / "logs"), "--max-games", "100000",
               "--min-pairs", "10000"]  # fmt: skip
    # A child inherits an ignored SIGINT (pytest started in the background by a shell
    # without job control has one) but not a handler: with one set here, the duel gets
    # Ctrl-C as a terminal's foreground job does.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
        )
    finally:
        signal.signal(signal.SIGINT, previous)
    try:
        assert process.stderr is not None
        seen = []
        deadline = time.monotonic() + 120  # a bound on a broken run, not a measurement
        while time.monotonic() < deadline and not any(s.startswith(b"pair 2:") for s in seen):
            line = process.stderr.readline()
            if not line:
                break  # it ended by itself: the asserts below say how
            seen.append(line)
        os.killpg(process.pid, signal.SIGINT)  # what the terminal does on Ctrl-C
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
    err = b"".join(seen) + err
    assert process.returncode == 130, (out + err).decode(errors="replace")
    assert b"Traceback" not in err
    assert b"interrupted after" in err and b"every bot process was ended" in err
    assert b"verdict: undecided after" in out and b"(interrupted)" in out
    for _ in range(100):  # the kernel finishing the kills
        if not _processes_of(bot, process.pid):
            break
        time.sleep(0.1)
    assert _processes_of(bot, process.pid) == []
