"""The issue's acceptance checks for the sample bots, through the real CLI."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.bots.check import check_bot
from arena.bots.confinement.sandbox import Sandbox
from arena.cli import app
from tests.independent.trix_checker import check_replay

ROOT = Path(__file__).resolve().parents[2]
GREEDY = f"python {ROOT / 'sample_bots' / 'greedy_bot.py'}"
RANDOM = f"python {ROOT / 'sample_bots' / 'random_bot.py'}"
JS = f"node {ROOT / 'sample_bots' / 'js_bot' / 'bot.js'}"
SCRIPTED = ROOT / "tests" / "bot_scripts" / "scripted_bot.py"


@pytest.mark.slow
def test_a_seat_rotated_match_of_every_kind_of_bot(tmp_path, js_bot_installed) -> None:
    runner = CliRunner()
    result = runner.invoke(
        app,
        ["play", GREEDY, RANDOM, JS, "builtin:random", "--matches", "1", "--seed", "m",
         "--replays", str(tmp_path / "replays"), "--logs", str(tmp_path / "logs"), "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    games = [json.loads(line) for line in result.output.splitlines()]
    assert [g["rotation"] for g in games] == [0, 1, 2, 3]
    assert {g["seed"] for g in games} == {"m-1"}  # one seed for the whole match
    assert {frozenset(g["players"]) for g in games} == {
        frozenset({"greedy_bot", "random_bot", "js_bot", "random"})  # named by their specs
    }
    for seat in range(4):  # each bot in each seat once
        assert len({g["players"][seat] for g in games}) == 4
    for game in games:
        assert game["faults"] == 0
        replay = json.loads(Path(game["replay"]).read_text())
        assert check_replay(replay) == []
    hands = {json.dumps(json.loads(Path(g["replay"]).read_text())["deals"][0]["hands"])
             for g in games}  # fmt: skip
    assert len(hands) == 1  # the same deals in every rotation


@pytest.mark.slow
@pytest.mark.parametrize("game", ["trix", "trianon"])
@pytest.mark.parametrize("spec", [GREEDY, RANDOM, JS])
def test_check_bot_passes_every_sample_bot(tmp_path, spec, game, js_bot_installed) -> None:
    report = check_bot(spec, game, log_dir=tmp_path)
    assert report.clean, "\n".join(report.lines())
    assert report.latencies and report.decisions >= 10  # a Trianon deal asks about 15


@pytest.mark.slow
@pytest.mark.parametrize(
    ("module", "name", "game"),
    [
        ("arena.strategies.greedy", "greedy", "trix"),
        ("arena.strategies.greedy", "greedy", "trianon"),
        ("arena.strategies.uniform", "random-py", "trix"),
    ],
)
def test_the_package_bots_run_as_modules_in_the_sandbox(tmp_path, module, name, game) -> None:
    # `python -m MODULE`: no file argument, so the bot's own folder is its program's; the
    # module comes from the arena package, which the sandbox binds read-only.
    report = check_bot(f"python -m {module}", game, log_dir=tmp_path, sandbox=Sandbox())
    assert report.clean, "\n".join(report.lines())
    assert report.name == name and report.decisions >= 10


def test_the_package_never_reaches_into_sample_bots() -> None:
    """An installed arena has no sample_bots/ folder: no module names it as a path part."""
    for path in sorted((ROOT / "arena").rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        names = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)]
        assert "sample_bots" not in names, path


def test_the_strategies_import_nothing_of_the_rules_engine() -> None:
    """They play from what the SDK decodes, as external bots do."""
    code = (
        "import sys, arena.strategies.greedy, arena.strategies.mixed, arena.strategies.uniform; "
        "print(sorted(m for m in sys.modules if m.startswith('arena.')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    loaded = set(ast.literal_eval(done.stdout))
    assert "arena.strategies.greedy.trianon" in loaded
    engine_side = {m for m in loaded if m.split(".")[1] in ("games", "play", "bots", "league")}
    assert not engine_side and "arena.wire.codec" not in loaded  # the SDK's wire parts only


def test_check_bot_fails_an_illegal_bot_with_exit_code_1(tmp_path) -> None:
    runner = CliRunner()
    result = runner.invoke(
        app,
        ["check-bot", f"python {SCRIPTED} --fault always-illegal", "--logs", str(tmp_path)],
    )
    assert result.exit_code == 1
    assert "illegal x" in result.output and "verdict: FAIL" in result.output


def test_check_bot_reports_a_bot_that_cannot_start(tmp_path) -> None:
    report = check_bot(f"python {SCRIPTED} --fault refuse", "trix", log_dir=tmp_path)
    assert not report.clean and "refuses on purpose" in report.start_error


def test_matches_summary_gives_the_mean_per_game() -> None:
    runner = CliRunner()
    result = runner.invoke(
        app, ["play", "builtin:first", "builtin:random", "builtin:random", "builtin:first",
              "--matches", "2", "--rules", "kingdoms=1", "--deal-key", "5e" * 16],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    sums: dict[str, int] = {}
    for line in result.output.splitlines():
        if "(sum over 4 rotations)" in line:
            parts = line.split(": ", 1)[1].split()
            for name, total in zip(parts[::2], parts[1::2], strict=True):
                sums[name] = sums.get(name, 0) + int(total)
    assert sorted(sums) == ["first", "first#2", "random", "random#2"]  # the four seats' bots
    mean_line = result.stdout.splitlines()[-1]  # the deal key's line is on stderr
    assert mean_line.startswith("mean score per game over 2 matches (8 games)")
    shown = dict(zip(mean_line.split(": ", 1)[1].split()[::2],
                     mean_line.split(": ", 1)[1].split()[1::2], strict=True))  # fmt: skip
    assert shown.keys() == sums.keys()
    for name, total in sums.items():
        assert float(shown[name]) == pytest.approx(total / 8, abs=0.0501)  # one decimal
