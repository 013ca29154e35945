"""The pre-flight check of `arena run`, and the exit codes that report faults.

Before a league plays its first match every started entrant is launched once, greeted
and ended: one that cannot start stops the run with them all named in one list, unless
--allow-broken; a run whose matches had start-failures exits with code 3, and so does
`arena play --fail-on-fault` (and `arena run --fail-on-fault`) after any fault.
"""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.errors import ConfigError
from arena.league.definition.config import load_league
from arena.league.running.preflight import check_entrants
from tests.support.bot_processes import marked_processes

ROOT = Path(__file__).resolve().parents[2]
SCRIPTED = ROOT / "tests" / "bot_scripts" / "scripted_bot.py"
HOSTILE = ROOT / "tests" / "bot_scripts" / "hostile"
FAULT_EXIT_CODE = 3

EXITS_AT_ONCE = """
print("exit-bot: giving up before listening", flush=True)
raise SystemExit(4)
"""
GOOD_BOT = """
from arena.sdk import Bot, serve


class First(Bot):
    name = "fixed"

    def act(self, turn):
        return turn.legal[0]


serve(First())
"""

LEAGUE = """
[league]
name = "pre"
game = "trix"
seed = 11
schedule = "round-robin"
rounds = 1

[rules]
kingdoms = 1

[limits]
move_timeout = 2.0
startup_timeout = {startup}

[[entrant]]
name = "first"
bot = "builtin:first"

[[entrant]]
name = "exits"
bot = "python bots/exits_at_once.py"

[[entrant]]
name = "silent"
bot = "python bots/silent_bot.py"

[[entrant]]
name = "refuses"
bot = "python bots/scripted_bot.py --fault refuse"

[[entrant]]
name = "good"
bot = "python bots/scripted_bot.py --name good"
"""
BROKEN = ("exits", "silent", "refuses")


def _league(folder: Path, startup: float = 3.0) -> Path:
    """The league file and its bots, in a folder the sandboxed bots' users may read."""
    folder.chmod(0o755)
    bots = folder / "bots"
    bots.mkdir()
    bots.chmod(0o755)
    (bots / "exits_at_once.py").write_text(EXITS_AT_ONCE)
    for source in (HOSTILE / "silent_bot.py", HOSTILE / "_common.py", SCRIPTED):
        (bots / source.name).write_text(source.read_text())
    path = folder / "pre.toml"
    path.write_text(LEAGUE.format(startup=startup))
    return path


def _arena(*args: str) -> subprocess.CompletedProcess[str]:
    """`arena ARGS` as a user runs it: its own process, exit code, stdout and stderr."""
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, timeout=600
    )


def _stored(db_path: Path, what: str = "matches") -> int:
    if not db_path.exists():
        return 0
    db = sqlite3.connect(db_path)
    try:
        return db.execute(f"SELECT COUNT(*) FROM {what}").fetchone()[0]
    finally:
        db.close()


def _end_marked(marker: str) -> None:
    for proc in marked_processes(marker):
        try:
            os.kill(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _listed(error: str) -> list[str]:
    """The entrants named in the `error:` message's list, in order."""
    return re.findall(r"^- (\S+) \(", error, flags=re.MULTILINE)


@pytest.mark.slow
def test_a_league_with_bots_that_cannot_start_stops_before_playing_then_resumes_fixed(
    tmp_path,
) -> None:
    path = _league(tmp_path)
    db_path = tmp_path / "pre.db"
    try:
        refused = _arena("run", str(path), "--db", str(db_path), "--workers", "2")
        assert refused.returncode == 2, refused.stderr
        errors = [line for line in refused.stderr.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and "3 of the 4 entrants checked" in errors[0]
        assert "Traceback" not in refused.stderr
        error = refused.stderr[refused.stderr.index("error:") :]
        assert sorted(_listed(error)) == sorted(BROKEN)  # all three, in one list; good is not
        assert "--allow-broken" in error
        assert "exited at once" in error and "with code 4" in error
        assert "giving up before listening" in error
        assert "did not listen on $ARENA_BOT_ADDRESS" in error and "refused to play" in error
        logs = re.findall(r"its log: (\S+\.log)", error)
        assert len(logs) == 3 and all(Path(log).is_file() for log in logs)
        assert "checking 4 entrants" in refused.stderr and "good: ok" in refused.stderr
        assert _stored(db_path) == 0 and refused.stdout == ""  # nothing played, no table
        assert marked_processes(str(tmp_path / "bots")) == []

        # Fixed: the two broken files now hold a bot, the refusing command lost its flag.
        for name in ("exits_at_once.py", "silent_bot.py"):
            (tmp_path / "bots" / name).write_text(GOOD_BOT)
        path.write_text(path.read_text().replace(" --fault refuse", ""))
        resumed = _arena("run", str(path), "--db", str(db_path), "--workers", "2")
        assert resumed.returncode == 0, resumed.stderr
        assert "checking 4 entrants: all ok" in resumed.stderr
        assert _stored(db_path) == 5 and _stored(db_path, "faults") == 0
        assert "5 matches played now" in resumed.stdout
    finally:
        _end_marked(str(tmp_path / "bots"))


@pytest.mark.slow
def test_allow_broken_plays_and_exits_with_the_start_failure_code(tmp_path) -> None:
    path = _league(tmp_path)
    db_path = tmp_path / "pre.db"
    try:
        done = _arena("run", str(path), "--db", str(db_path), "--workers", "2", "--allow-broken")
        assert done.returncode == FAULT_EXIT_CODE, done.stderr
        assert "error:" not in done.stderr
        assert "playing anyway (--allow-broken)" in done.stderr
        assert "5 matches played now" in done.stdout and "place" in done.stdout  # the table
        assert _stored(db_path) == 5
        db = sqlite3.connect(db_path)
        kinds = db.execute("SELECT DISTINCT entrant, kind FROM faults ORDER BY entrant").fetchall()
        db.close()
        assert kinds == [(name, "start-failure") for name in sorted(BROKEN)]
        last = done.stderr.strip().splitlines()[-1]
        assert last.startswith(f"exit code {FAULT_EXIT_CODE}: ") and "start-failure" in last
        assert all(name in last for name in BROKEN) and "good" not in last
        assert marked_processes(str(tmp_path / "bots")) == []
    finally:
        _end_marked(str(tmp_path / "bots"))


RESUMED_LEAGUE = """
[league]
name = "resumed"
game = "trix"
seed = 4
schedule = "round-robin"

[rules]
kingdoms = 1

[limits]
startup_timeout = 5.0

[[entrant]]
name = "first"
bot = "builtin:first"

[[entrant]]
name = "random-a"
bot = "builtin:random"

[[entrant]]
name = "random-b"
bot = "builtin:random"

[[entrant]]
name = "random-c"
bot = "builtin:random"

[[entrant]]
name = "mine"
bot = "python bots/mine.py"
"""


@pytest.mark.slow
def test_a_resumed_league_checks_its_entrants_again(tmp_path, monkeypatch) -> None:
    """One match stored (the run stopped by a stopping rule that settles at once), then
    the bot breaks: the resumed run refuses before playing, naming it."""
    import arena.league.running.runner as runner_module

    tmp_path.chmod(0o755)
    (tmp_path / "bots").mkdir(mode=0o755)
    bot = tmp_path / "bots" / "mine.py"
    bot.write_text(GOOD_BOT)
    path = tmp_path / "resumed.toml"
    path.write_text(RESUMED_LEAGUE)
    db_path = tmp_path / "r.db"
    import arena.league.running.schedule_source as source_module

    monkeypatch.setattr(source_module, "stop_check", lambda *_: ("settled",))
    lines: list[str] = []
    first = runner_module.run_league(
        path, db_path, workers=1, until_separated=True, notice=lines.append
    )
    assert first.played == 1 and first.checked == 1 and first.broken == []
    assert "checking 1 entrant: all ok" in lines[-1]
    bot.write_text(EXITS_AT_ONCE)
    with pytest.raises(ConfigError) as refused:
        runner_module.run_league(path, db_path, workers=1)
    assert _listed(str(refused.value)) == ["mine"] and "with code 4" in str(refused.value)
    assert _stored(db_path) == 1
    assert marked_processes(str(bot)) == []


@pytest.mark.slow
@pytest.mark.parametrize("sandbox", ["on", "off"])
def test_the_check_starts_entrants_together_and_ends_every_process(tmp_path, sandbox) -> None:
    """Four bots that never listen, startup_timeout 2 s: four at a time the check takes
    one timeout, not four; two at a time, at least two. A grpc: entrant is reached
    (here: nothing listens at its socket), a builtin: one is not started; and no
    process the check started is left when it returns, in the sandbox or without (where
    nothing but the check itself ends them)."""
    folder = tmp_path / "league"
    folder.mkdir()
    path = _league(folder, startup=2.0)
    text = path.read_text().replace("[limits]\n", f'[limits]\nsandbox = "{sandbox}"\n')
    assert f'sandbox = "{sandbox}"' in text
    for copy in ("silent-2", "silent-3", "silent-4"):
        text += f'\n[[entrant]]\nname = "{copy}"\nbot = "python bots/silent_bot.py {copy}"\n'
    text += f'\n[[entrant]]\nname = "remote"\nbot = "grpc:unix:{tmp_path / "none.sock"}"\n'
    path.write_text(text)
    config = load_league(path)
    silent = ["silent", "silent-2", "silent-3", "silent-4"]
    lines: list[str] = []
    try:
        started = time.monotonic()
        checks = check_entrants(
            config,
            silent,
            log_dir=folder / "logs",
            db_path=folder / "x.db",
            parallel=4,
            say=lines.append,
        )
        together = time.monotonic() - started
        assert [c.name for c in checks] == silent and not any(c.ok for c in checks)
        assert 2.0 <= together < 7.0  # one after another takes at least 8 s
        assert marked_processes(str(folder / "bots")) == []

        started = time.monotonic()
        check_entrants(config, silent, log_dir=folder / "logs", db_path=folder / "x.db", parallel=2)
        assert time.monotonic() - started >= 4.0  # bounded: two at a time
        assert marked_processes(str(folder / "bots")) == []

        names = [e.name for e in config.entrants]
        checks = check_entrants(
            config, names, log_dir=folder / "logs", db_path=folder / "x.db", parallel=8
        )
        by_name = {c.name: c for c in checks}
        assert "first" not in by_name  # builtin: nothing to start
        assert by_name["good"].ok and by_name["exits"].log.endswith(".log")
        assert "could not be reached" in by_name["remote"].problem
        assert marked_processes(str(folder / "bots")) == []
    finally:
        _end_marked(str(folder / "bots"))
    assert lines[0].startswith("checking 4 entrants before the first match (4 at a time")
    assert lines[-1].startswith("checking 4 entrants: 4 of 4 cannot start")


def test_a_grpc_entrant_is_greeted_by_the_check(tmp_path) -> None:
    address = f"unix:{tmp_path / 'running.sock'}"
    process = subprocess.Popen(
        [sys.executable, str(SCRIPTED), "--name", "outside"],
        env={**os.environ, "ARENA_BOT_ADDRESS": address},
    )
    try:
        folder = tmp_path / "league"
        folder.mkdir()
        path = _league(folder)
        path.write_text(
            path.read_text() + f'\n[[entrant]]\nname = "remote"\nbot = "grpc:{address}"\n'
        )
        checks = check_entrants(
            load_league(path), ["remote"], log_dir=folder / "logs", db_path=folder / "x.db"
        )
        assert [(c.name, c.ok) for c in checks] == [("remote", True)]
    finally:
        process.terminate()
        process.wait(timeout=10)


runner = CliRunner()


def test_play_fail_on_fault_exits_non_zero_after_printing_everything(tmp_path) -> None:
    def play(fault: str, *flags: str):
        bots = ["builtin:first", "builtin:first", "builtin:first"]
        bot = f"python {SCRIPTED} --fault {fault}"
        args = ["play", *bots, bot, "--games", "2", "--rules", "kingdoms=1"]
        return runner.invoke(app, [*args, "--logs", str(tmp_path), "--sandbox", "off", *flags])

    faulty = play("illegal", "--fail-on-fault")
    assert faulty.exit_code == FAULT_EXIT_CODE, faulty.output
    assert faulty.stdout.count("fault: scripted") == 2  # both games printed, faults too
    assert "game 2 seed" in faulty.stdout
    assert "2 faults in 2 games" in faulty.stderr
    assert play("illegal").exit_code == 0  # faults without the flag: as before
    clean = play("none", "--fail-on-fault")
    assert clean.exit_code == 0, clean.output
    assert "fault" not in clean.stdout and "game 2 seed" in clean.stdout


FAULTY_LEAGUE = f"""
[league]
name = "illegal"
game = "trix"
seed = 2
schedule = "round-robin"

[rules]
kingdoms = 1

[[entrant]]
name = "a"
bot = "builtin:first"

[[entrant]]
name = "b"
bot = "builtin:first"

[[entrant]]
name = "c"
bot = "builtin:random"

[[entrant]]
name = "illegal"
bot = "python {SCRIPTED} --fault illegal"
"""


@pytest.mark.slow
def test_run_fail_on_fault_exits_non_zero_on_any_fault(tmp_path) -> None:
    path = tmp_path / "illegal.toml"
    path.write_text(FAULTY_LEAGUE)
    plain = _arena("run", str(path), "--db", str(tmp_path / "a.db"), "--workers", "1")
    assert plain.returncode == 0, plain.stderr  # an illegal move is no start-failure
    strict = _arena(
        "run", str(path), "--db", str(tmp_path / "b.db"), "--workers", "1", "--fail-on-fault"
    )
    assert strict.returncode == FAULT_EXIT_CODE, strict.stderr
    assert "place" in strict.stdout  # the table is printed first
    assert re.search(r"exit code 3: 4 faults \(4 illegal\) in the 1 matches", strict.stderr)
    again = _arena(
        "run", str(path), "--db", str(tmp_path / "b.db"), "--workers", "1", "--fail-on-fault"
    )
    assert again.returncode == 0, again.stderr  # nothing played now, nothing faulted now


def test_help_and_docs_give_the_exit_codes() -> None:
    for command in ("run", "play"):
        shown = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200"})
        assert "--fail-on-fault" in shown.output and "Exit codes" in shown.output
    shown = runner.invoke(app, ["run", "--help"], env={"COLUMNS": "200"})
    assert "--allow-broken" in shown.output
    leagues = (ROOT / "docs" / "leagues.md").read_text()
    assert "--allow-broken" in leagues and "exit code 3" in leagues.lower()
    assert "pre-flight" in leagues.lower()
    assert "--fail-on-fault" in (ROOT / "docs" / "bots.md").read_text()
