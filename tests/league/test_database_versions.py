"""The database's version respected: the reading commands (`table`, `games`, `replay`,
`compare`, `faults`) never write to a database or migrate it; a database of a newer
schema than this arena knows is refused by every command with both versions; an older
one is upgraded only by a command that writes (`arena run`, `arena upgrade`)."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

import arena.league.store.schema as schema
from arena.cli import app
from arena.league.running.runner import run_league
from tests.cli.test_cli import builtin_league

runner = CliRunner()
READERS = [["table"], ["games"], ["faults"], ["compare", "e0", "e1"], ["replay", "1"]]


def _league_db(tmp_path: Path) -> Path:
    league = builtin_league(tmp_path, 'rounds = 2\nschedule = "round-robin"')
    run_league(league, tmp_path / "arena.db", workers=1)
    return tmp_path / "arena.db"


def _fingerprint(db: Path) -> tuple[str, int, int]:
    """The database file's digest and modification time, and the bytes of its write-ahead
    log. A reader of a WAL database makes SQLite create the log and its shared-memory
    index (`-wal`, `-shm`) if they are missing; a reader writes no page to the log."""
    wal = db.with_name(db.name + "-wal")
    return (
        hashlib.sha256(db.read_bytes()).hexdigest(),
        db.stat().st_mtime_ns,
        wal.stat().st_size if wal.exists() else 0,
    )


@pytest.mark.slow
def test_the_reading_commands_leave_the_database_as_it_was(tmp_path) -> None:
    db = _league_db(tmp_path)
    before = _fingerprint(db)
    for command in READERS:
        result = runner.invoke(app, [*command, "--db", str(db)])
        assert result.exit_code == 0, (command, result.output)
    assert _fingerprint(db) == before


def test_a_newer_schema_is_refused_by_every_command_and_left_alone(tmp_path) -> None:
    db = _league_db(tmp_path)
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO schema_migrations VALUES (99, 'from a later arena', 0)")
    conn.close()
    before = _fingerprint(db)
    latest = schema.MIGRATIONS[-1][0]
    for command in [*READERS, ["upgrade"], ["run", str(tmp_path / "b.toml")]]:
        result = runner.invoke(app, [*command, "--db", str(db)])
        assert result.exit_code == 2, (command, result.output)
        assert "schema version 99, newer than this arena knows" in result.output
        assert f"(version {latest}," in result.output
    assert _fingerprint(db) == before


def test_an_older_schema_is_read_only_after_an_upgrade(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:1])
    old = schema.open_db(tmp_path / "old.db")
    old.close()
    monkeypatch.undo()
    before = _fingerprint(tmp_path / "old.db")
    refused = runner.invoke(app, ["table", "--db", str(tmp_path / "old.db")])
    assert refused.exit_code == 2 and "schema version 1, older than" in refused.output
    assert "arena upgrade --db" in refused.output
    assert _fingerprint(tmp_path / "old.db") == before  # the refusal changed nothing
    done = runner.invoke(app, ["upgrade", "--db", str(tmp_path / "old.db")])
    latest = schema.MIGRATIONS[-1][0]
    assert done.exit_code == 0 and f"schema version {latest} (was 1)" in done.output
    again = runner.invoke(app, ["upgrade", "--db", str(tmp_path / "old.db")])
    assert "already; nothing to do" in again.output
    empty = runner.invoke(app, ["table", "--db", str(tmp_path / "old.db")])
    assert "holds no league yet" in empty.output  # read now, not refused for its version


@pytest.mark.parametrize("command", [["upgrade"], ["table"]])
def test_a_missing_database_is_named(tmp_path, command) -> None:
    result = runner.invoke(app, [*command, "--db", str(tmp_path / "none.db")])
    assert result.exit_code == 2 and "no database at" in result.output
