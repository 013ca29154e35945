"""The mixed bot's names (docs/bots.md, "Renamed bots"): `builtin:mixed:P`,
`arena.strategies.mixed`, `sample_bots/mixed_bot.py`; and its old names, kept as
aliases for league files in the wild: `python -m arena.strategies.ladder`,
`python sample_bots/ladder_bot.py` and `import arena.strategies.ladder` each still work,
print exactly one deprecation line on stderr, and play the same games as the new name
for the same seed; a league stored with the old command resumes, its stored settings
equal."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.bots.builtin import make_builtin
from arena.bots.check import check_bot
from arena.cli import app
from arena.errors import ConfigError
from arena.league.running.runner import run_league
from arena.strategies.mixed import DEPRECATION, MixedBot

ROOT = Path(__file__).resolve().parents[2]
KEY = "00112233445566778899aabbccddeeff"
NEW = {
    "module": "python -m arena.strategies.mixed --p 0.6",
    "script": f"python {ROOT / 'sample_bots' / 'mixed_bot.py'} --p 0.6",
}
OLD = {
    "module": "python -m arena.strategies.ladder --p 0.6",
    "script": f"python {ROOT / 'sample_bots' / 'ladder_bot.py'} --p 0.6",
}
runner = CliRunner()


def _python(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=60, cwd=ROOT
    )


def test_importing_the_old_module_says_so_once_and_gives_the_same_class() -> None:
    code = (
        "import arena.strategies.ladder as old, arena.strategies.mixed as new\n"
        "import arena.strategies.ladder\n"  # again: still one line
        "assert old.LadderBot is new.MixedBot and old.main is new.main\n"
        "print(old.LadderBot(0.5).name)"
    )
    done = _python("-c", code)
    assert done.returncode == 0, done.stderr
    assert done.stderr == DEPRECATION + "\n"
    assert done.stdout == "mixed-0.5\n"


def test_the_new_names_say_nothing_of_deprecation() -> None:
    done = _python("-c", "import arena.strategies.mixed, arena.bots.mixed, arena.bots.builtin")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    for command in (["-m", "arena.strategies.mixed"], ["sample_bots/mixed_bot.py"]):
        refused = _python(*command, "--p", "1.5")
        assert refused.returncode == 2 and "deprecated" not in refused.stderr


@pytest.mark.parametrize(
    "command", [["-m", "arena.strategies.ladder"], ["sample_bots/ladder_bot.py"]]
)
def test_the_old_commands_print_one_line_and_parse_as_before(command) -> None:
    refused = _python(*command, "--p", "1.5")
    assert refused.returncode == 2 and "p must be a probability" in refused.stderr
    lines = refused.stderr.splitlines()
    assert lines.count(DEPRECATION) == 1 and lines[0] == DEPRECATION
    assert sum("deprecated" in line for line in lines) == 1


@pytest.mark.parametrize("which", ["module", "script"])
def test_an_old_command_passes_check_bot_and_logs_one_deprecation_line(tmp_path, which) -> None:
    report = check_bot(OLD[which] + " --name rung", "trianon", log_dir=tmp_path)
    assert report.clean, "\n".join(report.lines())
    assert report.name == "rung"
    logs = list(tmp_path.rglob("*.log"))
    assert len(logs) == 1, logs
    assert logs[0].read_text().splitlines().count(DEPRECATION) == 1


def _played(tmp_path: Path, name: str, spec: str, game: str = "trix") -> list[dict]:
    """The replays of `arena play` with `spec` in seat 0 against random bots, over two
    seat-rotated matches of one fixed deal key and seed."""
    seats = 4 if game == "trix" else 3
    folder = tmp_path / name
    args = [
        "play", spec, *["builtin:random"] * (seats - 1), "--game", game, "--matches", "1",
        "--seed", "alias", "--deal-key", KEY, "--replays", str(folder), "--sandbox", "off",
        "--logs", str(tmp_path / f"{name}-logs"), "--rules", "kingdoms=1",
    ]  # fmt: skip
    if game == "trianon":
        args = args[:-2]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    replays = [json.loads(p.read_text()) for p in sorted(folder.glob("game-*.json"))]
    assert replays and all(r["faults"] == [] for r in replays)
    return replays


def _games(replays: list[dict]) -> list[tuple]:
    """What was played, without the seats' names (which come from the spec typed)."""
    return [(r["seed"], r["deals"], r["totals"], r["ranks"]) for r in replays]


@pytest.mark.parametrize("which", ["module", "script"])
def test_an_old_name_plays_the_same_games_as_the_new_one(tmp_path, which) -> None:
    new = _played(tmp_path, "new", NEW[which])
    old = _played(tmp_path, "old", OLD[which])
    assert _games(old) == _games(new)
    logs = list((tmp_path / "old-logs").rglob("*.log"))
    assert logs  # the bot's process wrote its log, with one line each time it started
    for log in logs:
        assert log.read_text().splitlines().count(DEPRECATION) == 1, log.read_text()


@pytest.mark.parametrize("game", ["trix", "trianon"])
def test_builtin_mixed_is_the_mixed_bot_in_process(tmp_path, game) -> None:
    """`builtin:mixed:1` always takes the heuristic move: builtin:greedy's games; P = 0
    never does; and a P between replays exactly for the same seed. (That the in-process
    player decides as the external bot's code does through the wire encoding is
    tests/strategies/test_mixed_bot.py's twin test.)"""
    always = _played(tmp_path, "always", "builtin:mixed:1", game)
    assert _games(always) == _games(_played(tmp_path, "greedy", "builtin:greedy", game))
    assert _games(always) != _games(_played(tmp_path, "never", "builtin:mixed:0", game))
    once = _played(tmp_path, "once", "builtin:mixed:0.6", game)
    assert _games(once) == _games(_played(tmp_path, "again", "builtin:mixed:0.6", game))


@pytest.mark.parametrize(
    "bad", ["mixed", "mixed:", "mixed:1.5", "mixed:-0.1", "mixed:nan", "mixed:inf", "mixed:x"]
)
def test_builtin_mixed_refuses_a_p_that_is_not_a_probability(bad) -> None:
    with pytest.raises(ConfigError, match=r"builtin:mixed.*0 to 1.*builtin:mixed:0\.8"):
        make_builtin(bad)


def test_builtin_mixed_is_listed_among_the_built_in_bots() -> None:
    with pytest.raises(ConfigError, match=r"builtin:mixed, .*builtin:mixed:P plays"):
        make_builtin("ladder:0.5")  # never a built-in name: the word is free


def _league(folder: Path, bot: str, rounds: int) -> Path:
    text = (
        f'[league]\nname = "renamed"\ngame = "trix"\nseed = 3\ndeal_key = "{KEY}"\n'
        f'rounds = {rounds}\nschedule = "round-robin"\n[rules]\nkingdoms = 1\n'
        '[limits]\nsandbox = "off"\n'
        f'\n[[entrant]]\nname = "p06"\nbot = "{bot}"\n'
    )
    for i in range(3):
        text += f'\n[[entrant]]\nname = "r{i}"\nbot = "builtin:random"\n'
    path = folder / "renamed.toml"
    path.write_text(text)
    return path


def _stored(db: Path) -> tuple[str, list[str]]:
    """The league's stored settings and its entrants' commands."""
    with sqlite3.connect(db) as conn:
        settings = conn.execute("SELECT settings FROM leagues").fetchone()[0]
        bots = [row[0] for row in conn.execute("SELECT bot FROM entrants ORDER BY position")]
    conn.close()
    return settings, bots


@pytest.mark.slow
def test_a_league_stored_with_the_old_command_resumes_with_either_name(tmp_path) -> None:
    old_folder, new_folder = tmp_path / "old", tmp_path / "new"
    old_folder.mkdir()
    new_folder.mkdir()
    old_file = _league(old_folder, OLD["module"], 1)
    run_league(old_file, old_folder / "arena.db", workers=1)
    settings, bots = _stored(old_folder / "arena.db")
    assert bots[0] == OLD["module"]
    # The same file again: nothing is refused, the stored settings stay as they were.
    run_league(old_file, old_folder / "arena.db", workers=1)
    assert _stored(old_folder / "arena.db")[0] == settings
    # The file now names the new command: the stored league resumes (settings equal,
    # the entrant's command kept current) and grows by a round.
    _league(old_folder, NEW["module"], 2)
    run_league(old_file, old_folder / "arena.db", workers=1)
    after, bots = _stored(old_folder / "arena.db")
    assert bots[0] == NEW["module"]
    assert {k: v for k, v in json.loads(after).items() if k not in ("rounds", "history")} == {
        k: v for k, v in json.loads(settings).items() if k not in ("rounds", "history")
    }
    # A league played under the new name alone stores the same games.
    run_league(_league(new_folder, NEW["module"], 2), new_folder / "arena.db", workers=1)
    table = runner.invoke(app, ["table", "--db", str(old_folder / "arena.db")])
    fresh = runner.invoke(app, ["table", "--db", str(new_folder / "arena.db")])
    assert table.exit_code == 0 and fresh.exit_code == 0
    assert _without_clock(table.output) == _without_clock(fresh.output)
    old_games = runner.invoke(app, ["games", "--db", str(old_folder / "arena.db")])
    new_games = runner.invoke(app, ["games", "--db", str(new_folder / "arena.db")])
    assert old_games.output == new_games.output


def _without_clock(output: str) -> list[str]:
    """A table's lines but the one saying when it was printed, each without its last
    column (the bots' think times, which differ between any two runs)."""
    lines = [line for line in output.splitlines() if " UTC; arena " not in line]
    return [line.rsplit(None, 1)[0] if line.strip() else line for line in lines]


def test_the_class_keeps_the_draws_stored_leagues_were_played_with() -> None:
    """The coin is hashed from "ladder/P/seed/seat/decision": renaming the bot must not
    change it, or every stored league of it would stop replaying."""
    bot = MixedBot(0.7)
    assert [bot.random_choice("s", 1, i, 5) for i in range(1, 9)] == [
        MixedBot(0.7, "other").random_choice("s", 1, i, 5) for i in range(1, 9)
    ]
    heuristic = sum(bot.random_choice("s", 1, i, 5) is None for i in range(1, 2001))
    assert heuristic == 1360  # the count the ladder bot's test pinned before the rename
