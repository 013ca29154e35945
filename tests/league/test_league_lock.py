"""One run per league at a time: a second `arena run` of a league that is running is
refused, naming the process and since when; a killed run leaves no stuck lock; two
different leagues in one database run at once, each ending with a solo run's table."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.league.running.lock import league_lock, lock_path
from tests.cli.test_cli import builtin_league

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]


def _hold(db: str, league: str, ready) -> None:  # type: ignore[no-untyped-def]
    with league_lock(Path(db), league):
        ready.set()
        time.sleep(60)


@pytest.mark.slow
def test_a_running_league_refuses_a_second_run_and_a_killed_one_leaves_no_lock(tmp_path):
    league = builtin_league(tmp_path)  # name "b"
    db = tmp_path / "arena.db"
    ready = multiprocessing.get_context("spawn").Event()
    holder = multiprocessing.get_context("spawn").Process(
        target=_hold, args=(str(db), "b", ready)
    )
    holder.start()
    try:
        assert ready.wait(30), "the holder did not take the lock"
        refused = runner.invoke(app, ["run", str(league), "--db", str(db)])
        assert refused.exit_code == 2, refused.output
        assert f"league 'b' is being run by process {holder.pid} since 20" in refused.output
        assert not db.exists()  # refused before the database was opened
        os.kill(holder.pid, signal.SIGKILL)
        holder.join(10)
        assert lock_path(db, "b").exists()  # the file stays; its lock died with the holder
        after = runner.invoke(app, ["run", str(league), "--db", str(db)])
        assert after.exit_code == 0, after.output
    finally:
        if holder.is_alive():
            holder.kill()
        holder.join(10)


def _arena(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "arena.cli", *args],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _finish(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    try:
        out, err = process.communicate(timeout=300)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate(timeout=10)
    return process.returncode, out, err


@pytest.mark.slow
def test_two_runs_of_one_league_give_one_refusal_and_a_solo_runs_table(tmp_path) -> None:
    league = builtin_league(tmp_path, 'rounds = 60\nschedule = "round-robin"')
    db = tmp_path / "arena.db"
    first = _arena("run", str(league), "--db", str(db), "--workers", "1", "--format", "json")
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not lock_path(db, "b").exists():
            time.sleep(0.05)
        second = _arena("run", str(league), "--db", str(db), "--workers", "1")
        code, _, err = _finish(second)
    finally:
        first_code, first_out, first_err = _finish(first)
    assert first_code == 0, first_err
    assert code == 2 and "league 'b' is being run by process" in err, err
    solo = tmp_path / "solo"
    solo.mkdir()
    alone = runner.invoke(
        app, ["run", str(builtin_league(solo, 'rounds = 60\nschedule = "round-robin"')),
              "--workers", "1", "--format", "json"],
    )  # fmt: skip
    assert _rows(first_out) == _rows(alone.output)


def _rows(output: str) -> list[dict]:
    return json.loads(output[output.index("[") :])


@pytest.mark.slow
def test_two_leagues_in_one_database_run_at_once(tmp_path) -> None:
    files, solos = [], []
    for name in ("one", "two"):
        folder = tmp_path / name
        folder.mkdir()
        path = builtin_league(folder, f'rounds = 30\nschedule = "round-robin"\nseed = "{name}"')
        path.write_text(path.read_text().replace('name = "b"', f'name = "{name}"', 1))
        files.append(path)
        solos.append(runner.invoke(app, ["run", str(path), "--db", str(folder / "solo.db"),
                                         "--workers", "1", "--format", "json"]).output)  # fmt: skip
    shared = tmp_path / "shared.db"
    runs = [_arena("run", str(f), "--db", str(shared), "--workers", "1", "--format", "json")
            for f in files]  # fmt: skip
    results = [_finish(run) for run in runs]
    for (code, out, err), solo in zip(results, solos, strict=True):
        assert code == 0, err
        assert _rows(out) == _rows(solo)


def _open_new(path: str, results) -> None:  # in a process of its own
    from arena.league.store.schema import open_db

    try:
        open_db(path).close()
        results.put("ok")
    except Exception as err:  # reported to the test, which names it
        results.put(repr(err))


def test_two_runs_opening_one_new_database_at_once_both_get_it(tmp_path) -> None:
    """SQLite fails a switch to WAL at once ("database is locked", no busy wait) while
    another connection is in a transaction: open_db waits for it instead (before, 21 of
    80 such openings failed)."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    outcomes = []
    for attempt in range(20):
        path = str(tmp_path / f"new-{attempt}.db")
        results = context.Queue()
        processes = [context.Process(target=_open_new, args=(path, results)) for _ in range(2)]
        for process in processes:
            process.start()
        for process in processes:
            process.join(timeout=60)
        outcomes += [results.get(timeout=10) for _ in processes]
    assert outcomes == ["ok"] * 40, [o for o in outcomes if o != "ok"][:3]
