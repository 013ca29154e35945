"""Errors that name their cause (arena/errors.py): a held league lock, a refused
database schema, a sandbox or cgroup that cannot be had and a forged result each raise
their own child of `ArenaError`, none of them a `ConfigError` (which is kept for what a
user configured); and the CLI still turns each into the one `error:` line it printed
before, with exit code 2."""

from __future__ import annotations

import dataclasses
import os
import sqlite3
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import arena.bots.confinement.sandbox as sandbox_module
import arena.bots.process as process_module
import arena.league.running.result_check as result_check
import arena.league.store.schema as schema
from arena.bots.confinement.sandbox import Sandbox
from arena.bots.process import BotProcess
from arena.cli import app
from arena.errors import (
    ArenaError,
    ConfigError,
    ForgedResult,
    LeagueLocked,
    SandboxError,
    SchemaError,
)
from arena.league.definition.config import load_league
from arena.league.running.lock import league_lock, lock_path
from arena.league.running.runner import league_schedule, run_league
from arena.league.workers.worker import play_scheduled_match
from tests.cli.test_cli import builtin_league

runner = CliRunner()
REPO = Path(__file__).resolve().parent.parent
NEW_CLASSES = [LeagueLocked, SchemaError, SandboxError, ForgedResult]


@pytest.mark.parametrize("kind", NEW_CLASSES)
def test_each_cause_is_an_arena_error_but_not_a_configuration_error(kind) -> None:
    assert issubclass(kind, ArenaError) and not issubclass(kind, ConfigError)
    assert kind.__doc__ and len(kind.__doc__) > 40  # says what happened and why


def test_botError_is_gone_since_nothing_raised_it() -> None:
    import arena.errors as errors

    assert not hasattr(errors, "BotError")


def _one_error_line(output: str) -> str:
    lines = output.splitlines()
    errors = [line for line in lines if line.startswith("error: ")]
    assert len(errors) == 1, output
    return errors[0]


def test_a_held_lock_raises_league_locked_and_arena_run_says_the_same_line(tmp_path) -> None:
    league = builtin_league(tmp_path)  # name "b"
    db = tmp_path / "arena.db"
    with league_lock(db, "b"):  # a second open file of the lock is refused by flock
        with pytest.raises(LeagueLocked) as caught:
            with league_lock(db, "b"):
                pass
        pid, since = lock_path(db, "b").read_text().split()
        message = (
            f"league 'b' is being run by process {pid} since {since} (lock "
            f"{lock_path(db, 'b')}); wait for it to end, or stop it, before running the "
            "league again"
        )
        assert str(caught.value) == message and pid == str(os.getpid())
        result = runner.invoke(app, ["run", str(league), "--db", str(db)])
    assert result.exit_code == 2
    assert _one_error_line(result.output) == f"error: {message}"
    assert not db.exists()  # refused before the database was opened


def test_a_lock_file_that_cannot_be_made_is_still_a_configuration_error(tmp_path) -> None:
    db = tmp_path / "a-file" / "arena.db"
    (tmp_path / "a-file").write_text("not a folder")  # --db names a path below a file
    with pytest.raises(ConfigError, match="cannot make the lock file"):
        with league_lock(db, "b"):
            pass


def _league_db(tmp_path: Path) -> Path:
    league = builtin_league(tmp_path, 'rounds = 1\nschedule = "round-robin"')
    run_league(league, tmp_path / "arena.db", workers=1)
    return tmp_path / "arena.db"


def _cli_says(args: list[str], err: Exception) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert _one_error_line(result.output) == f"error: {err}"


def test_a_newer_schema_raises_schema_error_for_readers_and_writers(tmp_path) -> None:
    db = _league_db(tmp_path)
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO schema_migrations VALUES (99, 'from a later arena', 0)")
    conn.close()
    for opener in (schema.open_existing, schema.open_db):
        with pytest.raises(SchemaError, match="schema version 99, newer than") as caught:
            opener(db)
    _cli_says(["table", "--db", str(db)], caught.value)
    _cli_says(["upgrade", "--db", str(db)], caught.value)


def test_an_older_schema_raises_schema_error_for_a_reader(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:1])
    schema.open_db(tmp_path / "old.db").close()
    monkeypatch.undo()
    with pytest.raises(SchemaError, match="schema version 1, older than") as caught:
        schema.open_existing(tmp_path / "old.db")
    _cli_says(["games", "--db", str(tmp_path / "old.db")], caught.value)
    schema.open_db(tmp_path / "old.db").close()  # a writer upgrades it instead


def test_files_that_are_not_league_databases_raise_schema_error(tmp_path) -> None:
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (text)")
    conn.close()
    garbage = tmp_path / "notes.db"
    garbage.write_text("not a database\n" * 100)
    for path in (other, garbage):
        with pytest.raises(SchemaError, match="not a league database") as writing:
            schema.open_db(path)
        with pytest.raises(SchemaError, match="not a league database") as reading:
            schema.open_existing(path)
        _cli_says(["faults", "--db", str(path)], reading.value)
        _cli_says(["run", str(builtin_league(tmp_path)), "--db", str(path)], writing.value)
    assert garbage.read_text() == "not a database\n" * 100


def test_a_missing_database_is_still_a_configuration_error(tmp_path) -> None:
    with pytest.raises(ConfigError) as caught:
        schema.open_existing(tmp_path / "none.db")
    assert not isinstance(caught.value, SchemaError)


def test_no_sandbox_here_raises_sandbox_error_and_arena_play_says_it(monkeypatch) -> None:
    monkeypatch.setattr(sandbox_module, "sandbox_problem", lambda: "bwrap is missing")
    with pytest.raises(SandboxError, match="cannot sandbox the bots: bwrap is missing") as caught:
        sandbox_module.sandbox_notice(True, "pass --sandbox off")
    bot = f"python {REPO / 'sample_bots' / 'random_bot.py'}"
    args = ["play", bot, "builtin:random", "builtin:random", "builtin:random", "--games", "1"]
    _cli_says(args, caught.value)


def test_a_league_without_its_sandbox_raises_sandbox_error_and_arena_run_says_it(
    tmp_path, monkeypatch
) -> None:
    league = builtin_league(tmp_path, bots=(f"python {REPO / 'sample_bots' / 'random_bot.py'}",))
    monkeypatch.setattr(sandbox_module, "sandbox_problem", lambda: "bwrap is missing")
    with pytest.raises(SandboxError, match='put sandbox = "off" under') as caught:
        run_league(league, tmp_path / "arena.db", workers=1)
    _cli_says(["run", str(league), "--db", str(tmp_path / "arena.db")], caught.value)


def _refuse_cgroups(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", "/sys/fs/cgroup/memory/arena-x")

    monkeypatch.setattr(process_module.BotCgroup, "create", staticmethod(refused))


def test_a_cgroup_that_cannot_be_made_raises_sandbox_error(tmp_path, monkeypatch) -> None:
    if sandbox_module.sandbox_problem():
        pytest.fail(f"this test needs the sandbox: {sandbox_module.sandbox_problem()} "
                    "(`make sandbox-tools` installs bubblewrap)")  # fmt: skip
    _refuse_cgroups(monkeypatch)
    bot = BotProcess([sys.executable, "-c", "pass"], tmp_path / "bot.log", sandbox=Sandbox())
    try:
        with pytest.raises(SandboxError, match="cannot make the bot's cgroup: .*Permission"):
            bot.start()
        assert bot.process is None  # nothing was started
    finally:
        bot.close()


def test_a_cgroup_failure_is_still_an_entrant_that_cannot_start(tmp_path, monkeypatch) -> None:
    """A league's pre-flight check catches the new class as it caught ConfigError: the
    entrant is named among those that cannot start, and nothing is played."""
    if sandbox_module.sandbox_problem():
        pytest.fail(f"this test needs the sandbox: {sandbox_module.sandbox_problem()} "
                    "(`make sandbox-tools` installs bubblewrap)")  # fmt: skip
    league = builtin_league(tmp_path, bots=(f"python {REPO / 'sample_bots' / 'random_bot.py'}",))
    _refuse_cgroups(monkeypatch)
    with pytest.raises(ConfigError, match="cannot make the bot's cgroup") as caught:
        run_league(league, tmp_path / "arena.db", workers=1)
    assert "cannot start, so no match was played" in str(caught.value)


def test_a_bot_folder_closed_to_others_raises_sandbox_error(tmp_path) -> None:
    folder = tmp_path / "closed"
    folder.mkdir(mode=0o700)
    with pytest.raises(SandboxError, match=f"chmod o\\+rx {folder}"):
        sandbox_module._check_readable(folder)
    folder.chmod(0o755)
    sandbox_module._check_readable(folder)  # open to others: nothing to say


def test_a_sandboxed_bot_in_a_closed_folder_raises_sandbox_error_and_play_says_it(
    tmp_path,
) -> None:
    """Provoked for real: a bot script in a folder only its owner may read, started in
    the sandbox, where it would run as a user of its own."""
    if sandbox_module.sandbox_problem() or not sandbox_module.per_bot_users():
        pytest.fail("this test needs the sandbox with users of its own "
                    "(`make sandbox-tools` installs bubblewrap)")  # fmt: skip
    folder = tmp_path / "closed"
    folder.mkdir(mode=0o700)
    script = folder / "bot.py"
    script.write_text((REPO / "sample_bots" / "random_bot.py").read_text())
    bot = BotProcess([sys.executable, str(script)], tmp_path / "bot.log", sandbox=Sandbox())
    try:
        with pytest.raises(SandboxError, match="cannot be read by other users") as caught:
            bot.start()
        assert bot.process is None
    finally:
        bot.close()
    args = ["play", f"python {script}", "builtin:random", "builtin:random", "builtin:random",
            "--logs", str(tmp_path / "logs")]  # fmt: skip
    _cli_says(args, caught.value)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    folder = tmp_path_factory.mktemp("forged")
    league = builtin_league(folder, bots=("builtin:greedy",))
    config = load_league(league)
    match = league_schedule(config)[0]
    return config, match, play_scheduled_match(config, match, str(folder / "logs"))


def test_a_forged_result_raises_forged_result_naming_what_differs(played) -> None:
    config, match, honest = played
    result_check.check_played_match(config, match, honest)  # the honest one passes
    first = honest.games[0]
    totals = list(first.replay["totals"])
    replay = {**first.replay, "totals": [totals[0] + 100, *totals[1:]]}
    forged = dataclasses.replace(
        honest, games=(dataclasses.replace(first, replay=replay), *honest.games[1:])
    )
    with pytest.raises(ForgedResult) as caught:
        result_check.check_played_match(config, match, forged)
    assert str(caught.value).startswith("game 1 of the match: its totals [")
    assert not isinstance(caught.value, ConfigError)
    assert result_check.ForgedResult is ForgedResult  # the runner's name for it


def test_a_forged_event_is_a_forged_result_too(played) -> None:
    """An event the rules do not allow there: the replay reader says so with a
    ConfigError (a user's replay file), which the check turns into a ForgedResult."""
    config, match, honest = played
    first = honest.games[0]
    replay = dict(first.replay)
    deals = [dict(d) for d in replay["deals"]]
    events = [dict(e) for e in deals[0]["events"]]
    events[0]["seat"] = (events[0].get("seat", 0) + 1) % 4
    deals[0]["events"] = events
    replay["deals"] = deals
    forged = dataclasses.replace(
        honest, games=(dataclasses.replace(first, replay=replay), *honest.games[1:])
    )
    with pytest.raises(ForgedResult, match="game 1 of the match: deal 1 event"):
        result_check.check_played_match(config, match, forged)
