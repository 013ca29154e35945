"""Issue 27, the second round of malformed inputs: deal keys, damaged, read-only and
locked databases, league growth and the messages of `arena run`. Each test names the
finding it answers."""

from __future__ import annotations

import dataclasses
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.league.definition.config import load_league
from arena.league.store import ensure_league, open_db
from arena.play.deal_keys import deal_key_problem
from tests.support.tiny_league import digest, tiny_db, tiny_file

runner = CliRunner()


@pytest.mark.parametrize("digits", [33, 35, 127])
def test_finding_2_an_odd_deal_key_is_refused_before_anything_is_stored(
    tmp_path: Path, digits: int
) -> None:
    league = tiny_file(tmp_path, extra=f'deal_key = "{"a" * digits}"')
    db = tmp_path / "arena.db"
    result = runner.invoke(app, ["run", str(league), "--db", str(db)])
    assert result.exit_code == 2 and "even number of hex digits" in result.output
    assert "Traceback" not in result.output and not db.exists()
    assert deal_key_problem("a" * digits) is not None and deal_key_problem("a" * 34) is None


def test_finding_2_arena_play_refuses_an_odd_deal_key(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["play", "builtin:random", "builtin:first", "builtin:random", "builtin:first",
              "--deal-key", "b" * 33, "--games", "1"],
    )  # fmt: skip
    assert result.exit_code == 2 and "--deal-key must have an even number" in result.output


def test_finding_2_a_league_stuck_by_an_old_odd_key_is_freed(tmp_path: Path) -> None:
    """An older arena stored the league row with a 33-digit key and then failed: the
    league plays now, from the file's valid key (or a fresh one)."""
    db = tmp_path / "arena.db"
    old_file = tiny_file(tmp_path, extra=f'deal_key = "{"e" * 32}"')
    stuck = dataclasses.replace(load_league(old_file), deal_key="c" * 33)
    conn = open_db(db)
    ensure_league(conn, stuck)  # as the older arena stored it, before it failed
    conn.close()
    bad_key = runner.invoke(app, ["run", str(tiny_file(tmp_path)), "--db", str(db)])
    assert bad_key.exit_code == 0, bad_key.output  # no key in the file: a fresh one
    assert "1 of 1 matches stored" in bad_key.output
    stored = sqlite3.connect(db).execute("SELECT deal_key FROM leagues").fetchone()[0]
    assert len(stored) == 32 and deal_key_problem(stored) is None


def test_finding_2_a_stuck_league_takes_the_files_valid_key(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    good = "d" * 32
    league = tiny_file(tmp_path, extra=f'deal_key = "{good}"')
    conn = open_db(db)
    ensure_league(conn, dataclasses.replace(load_league(league), deal_key="c" * 35))
    conn.close()
    result = runner.invoke(app, ["run", str(league), "--db", str(db)])
    assert result.exit_code == 0, result.output
    stored = sqlite3.connect(db).execute("SELECT deal_key FROM leagues").fetchone()[0]
    assert stored == good


def test_finding_10_arena_play_is_not_told_to_edit_a_league_file(tmp_path: Path) -> None:
    db = tmp_path / "play.db"
    bots = ["builtin:random", "builtin:first", "builtin:random", "builtin:first"]
    first = runner.invoke(app, ["play", *bots, "--games", "1", "--db", str(db),
                                "--league", "p", "--deal-key", "1" * 32])  # fmt: skip
    assert first.exit_code == 0, first.output
    again = runner.invoke(app, ["play", *bots, "--games", "1", "--db", str(db),
                                "--league", "p", "--deal-key", "2" * 32])  # fmt: skip
    assert again.exit_code == 2 and "another deal key" in again.output
    assert "league file" not in again.output and "leave out --deal-key" in again.output


def _damage(db: Path) -> None:
    """Overwrite 8 KiB in the middle of the file, as the issue's case did."""
    data = bytearray(db.read_bytes())
    middle = max(len(data) // 2, 4096)
    data[middle : middle + 8192] = b"\xa5" * min(8192, len(data) - middle)
    db.write_bytes(bytes(data))


def _intact(db: Path) -> bool:
    try:
        return sqlite3.connect(db).execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    except sqlite3.DatabaseError:
        return False


def _checkpointed(db: Path) -> None:
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.close()


@pytest.mark.parametrize("command", ["run", "upgrade"])
def test_finding_4_a_damaged_database_is_refused_before_writing(
    tmp_path: Path, command: str
) -> None:
    db = tiny_db(tmp_path)
    _checkpointed(db)
    _damage(db)
    assert not _intact(db)
    before = digest(db)
    league = tiny_file(tmp_path, extra="rounds = 2")
    argv = ["run", str(league)] if command == "run" else ["upgrade"]
    argv += ["--db", str(db)]
    result = runner.invoke(app, argv)
    assert result.exit_code == 2, result.output
    assert "is damaged" in result.output and ".recover" in result.output
    assert "backup" in result.output and "Traceback" not in result.output
    assert digest(db) == before


def test_finding_6_a_locked_database_is_called_locked(tmp_path: Path, monkeypatch) -> None:
    db = tiny_db(tmp_path)
    monkeypatch.setattr("arena.league.store.schema.BUSY_SECONDS", 0.2)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("PRAGMA journal_mode=DELETE")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        conn_timeout = "PRAGMA busy_timeout=10000"
        monkeypatch.setattr(
            "arena.league.store.schema.sqlite_utils.Database",
            _quick_busy(conn_timeout),
        )
        league = tiny_file(tmp_path, extra="rounds = 2")
        result = runner.invoke(app, ["run", str(league), "--db", str(db)])
    finally:
        holder.rollback()
        holder.close()
    assert result.exit_code == 2, result.output
    assert "is locked by another process" in result.output
    assert "not a league database" not in result.output


def _quick_busy(_: str):
    """sqlite_utils.Database whose busy timeout the opening code sets stays short."""
    import sqlite_utils

    class Quick(sqlite_utils.Database):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            real = self.conn

            class Conn:
                def __getattr__(self, name):
                    return getattr(real, name)

                def execute(self, sql, *rest):
                    if sql.startswith("PRAGMA busy_timeout"):
                        sql = "PRAGMA busy_timeout=100"
                    return real.execute(sql, *rest)

            self.conn = Conn()

    return Quick


def test_finding_6_a_database_in_a_read_only_folder_is_read(tmp_path: Path) -> None:
    """Run as root, a folder's mode does not stop writes: the folder is mounted
    read-only with bubblewrap (`make sandbox-tools` installs it)."""
    if shutil.which("bwrap") is None:
        pytest.fail("bubblewrap is missing: `make sandbox-tools` installs it")
    folder = tmp_path / "ro"
    folder.mkdir()
    db = tiny_db(folder)
    _checkpointed(db)  # a WAL database with nothing left to merge
    sqlite3.connect(db).execute("PRAGMA journal_mode=WAL").fetchall()
    for extra in folder.glob("arena.db-*"):
        extra.unlink()
    code = (
        "import sys; from arena.cli import app; sys.argv=['arena','table','--db',"
        f"{str(db)!r}]; app()"
    )
    probe = subprocess.run(["bwrap", "--bind", "/", "/", "--ro-bind", str(folder), str(folder),
                            "--dev", "/dev", sys.executable, "-c", code],
                           capture_output=True, text=True, timeout=60)  # fmt: skip
    if "Operation not permitted" in probe.stderr and "bwrap" in probe.stderr:
        pytest.fail(f"bubblewrap cannot make namespaces here: {probe.stderr.strip()}")
    assert probe.returncode == 0, probe.stderr
    assert "1 of 1 matches stored" in probe.stdout
    assert "not a league database" not in probe.stderr


def test_finding_6_a_read_only_database_is_called_read_only(tmp_path: Path) -> None:
    db = tiny_db(tmp_path)
    _checkpointed(db)
    if shutil.which("bwrap") is None:
        pytest.fail("bubblewrap is missing: `make sandbox-tools` installs it")
    league = tiny_file(tmp_path, extra="rounds = 2")
    code = (
        "import sys; from arena.cli import app; sys.argv=['arena','run',"
        f"{str(league)!r},'--db',{str(db)!r}]; app()"
    )
    probe = subprocess.run(["bwrap", "--bind", "/", "/", "--ro-bind", str(db), str(db),
                            "--dev", "/dev", sys.executable, "-c", code],
                           capture_output=True, text=True, timeout=60)  # fmt: skip
    assert probe.returncode == 2, probe.stderr
    assert "read-only" in probe.stderr and "not a league database" not in probe.stderr


@pytest.mark.parametrize("command", ["serve", "report"])
def test_finding_4_serve_and_report_refuse_a_damaged_database(
    tmp_path: Path, command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import uvicorn

    def served(*_args, **_kwargs) -> None:
        raise AssertionError("the damaged database was served")

    monkeypatch.setattr(uvicorn, "run", served)
    db = tiny_db(tmp_path)
    _checkpointed(db)
    _damage(db)
    out = tmp_path / "site"
    argv = ["serve", "--port", "8"] if command == "serve" else ["report", "--out", str(out)]
    result = runner.invoke(app, [*argv, "--db", str(db)])
    assert result.exit_code == 2, result.output
    assert "is damaged" in result.output and ".recover" in result.output
    assert not out.exists()
