"""A database that cannot be written (a full disk) stops the run with one `error:` line
that says what happened and that the stored matches are kept, with no traceback; the
resumed run completes, and its table is the table of a run that was never stopped."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import arena.league.running.runner as runner_module
from arena.cli import app
from arena.league.store import open_db, open_existing
from tests.cli.test_cli import builtin_league

runner = CliRunner()
ROUNDS = 'rounds = 3\nschedule = "round-robin"'


def _league(folder: Path, rounds: str = ROUNDS) -> Path:
    """Four built-in bots, full games of 4 kingdoms: a match adds pages enough to the
    compact store (a 1-kingdom match fits in the free room of the first pages)."""
    path = builtin_league(folder, rounds)
    path.write_text(path.read_text().replace("kingdoms = 1", "kingdoms = 4"))
    return path


def _pages(db_path: Path) -> int:
    """The pages in use (the file's, less those free for reuse)."""
    database = open_existing(db_path)
    try:
        pages = database.conn.execute("PRAGMA page_count").fetchone()[0]
        return pages - database.conn.execute("PRAGMA freelist_count").fetchone()[0]
    finally:
        database.close()


def _match_pages(folder: Path) -> int:
    """The pages one match of the league takes in its database, measured: a fresh
    database's pages in use after one match less an empty one's."""
    folder.mkdir()
    one = runner.invoke(app, ["run", str(_league(folder, "rounds = 1")), "--workers", "1"])
    assert one.exit_code == 0, one.output
    empty = folder / "empty.db"
    open_db(empty).close()
    return _pages(folder / "arena.db") - _pages(empty)


def _stored(db: Path) -> int:
    database = open_existing(db)
    try:
        return len(list(database["matches"].rows))
    finally:
        database.close()


@pytest.mark.slow
def test_a_full_disk_stops_the_run_and_the_resumed_run_completes(tmp_path, monkeypatch) -> None:
    league = _league(tmp_path)
    match_pages = _match_pages(tmp_path / "one")
    assert match_pages >= 2
    real_open = runner_module.open_db

    def nearly_full(path):  # type: ignore[no-untyped-def]
        """SQLite's own limit on the file's size: writes past it fail as on a full disk."""
        db = real_open(path)
        pages = db.conn.execute("PRAGMA page_count").fetchone()[0]
        db.conn.execute(f"PRAGMA max_page_count = {pages + match_pages * 3 // 2}")
        return db

    monkeypatch.setattr(runner_module, "open_db", nearly_full)
    stopped = runner.invoke(app, ["run", str(league), "--workers", "1"])
    assert stopped.exit_code == 2, stopped.output
    assert "Traceback" not in stopped.output
    error = [line for line in stopped.output.splitlines() if line.startswith("error: ")]
    assert len(error) == 1, stopped.output
    assert "cannot write a match: database or disk is full" in error[0]
    stored = _stored(tmp_path / "arena.db")  # how many fit depends on SQLite's page use
    assert 1 <= stored < 3
    assert f"the {stored} matches stored so far are kept" in error[0]
    assert "run the league again to resume it" in error[0]

    monkeypatch.undo()
    resumed = runner.invoke(app, ["run", str(league), "--workers", "1", "--format", "json"])
    assert resumed.exit_code == 0, resumed.output
    assert f"{3 - stored} matches played now, {stored} were stored before" in resumed.output
    solo = tmp_path / "solo"
    solo.mkdir()
    whole = runner.invoke(
        app, ["run", str(_league(solo)), "--workers", "1", "--format", "json"],
    )  # fmt: skip
    assert whole.exit_code == 0, whole.output
    assert _table(resumed.output) == _table(whole.output)


def _table(output: str) -> str:
    return output[output.index("[") :]


@pytest.mark.slow
def test_a_read_only_database_is_one_error_line_and_is_left_as_it_was(
    tmp_path, monkeypatch
) -> None:
    """As root a file's mode does not stop a write, so SQLite is told the file is
    read-only (`query_only`): the run fails before playing, saying so."""
    league = builtin_league(tmp_path, 'rounds = 1\nschedule = "round-robin"')
    assert runner.invoke(app, ["run", str(league), "--workers", "1"]).exit_code == 0
    real_open = runner_module.open_db

    def read_only(path):  # type: ignore[no-untyped-def]
        db = real_open(path)
        db.conn.execute("PRAGMA query_only = 1")
        return db

    monkeypatch.setattr(runner_module, "open_db", read_only)
    refused = runner.invoke(app, ["run", str(league), "--workers", "1"])
    assert refused.exit_code == 2 and "Traceback" not in refused.output
    assert refused.output.startswith("error: cannot write the league: attempt to write a readonly")
    assert "every match stored before is kept" in refused.output
    assert _stored(tmp_path / "arena.db") == 1


@pytest.mark.slow
def test_a_worker_that_dies_is_one_error_line_and_the_resumed_run_completes(
    tmp_path, monkeypatch
) -> None:
    """A worker killed mid-match (as the kernel kills one out of memory) stops the run
    with an error line, not a traceback; the stored matches are kept."""
    import arena.league.workers.executors as executors
    from tests.support.dying_worker import play_or_die

    league = builtin_league(tmp_path, 'rounds = 3\nschedule = "round-robin"')
    monkeypatch.setattr(executors, "play_task", play_or_die)
    stopped = runner.invoke(app, ["run", str(league), "--workers", "1"])
    assert stopped.exit_code == 2 and "Traceback" not in stopped.output, stopped.output
    error = [line for line in stopped.output.splitlines() if line.startswith("error: ")]
    assert len(error) == 1 and "a worker process died while playing match 1" in error[0]
    assert "run the league again to resume it" in error[0]
    monkeypatch.undo()
    resumed = runner.invoke(app, ["run", str(league), "--workers", "1"])
    assert resumed.exit_code == 0 and "matches played now" in resumed.output
    assert _stored(tmp_path / "arena.db") == 3
