"""The same ladder, with a fixed seed and the same order of events (one match at a
time), stores the same matches on a loopback Dask cluster as on a local worker: the
same tables chosen, the same deals, the same scores; a command house bot travels to
the cluster as an archive."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.ladder.ladder_support import RANDOM_BOT, bot_folder, ladder_file, ok
from tests.support.cluster_support import dask_processes

pytestmark = [pytest.mark.cluster, pytest.mark.slow]

HOUSE = """
[[house]]
name = "first"
bot = "builtin:first"

[[house]]
name = "mixed"
bot = "builtin:mixed:0.5"

[[house]]
name = "script"
bot = "python house/bot.py"
"""


def _ladder(folder: Path) -> Path:
    folder.mkdir(parents=True)
    bot_folder(folder, "house", RANDOM_BOT.format(name="script"))
    path = ladder_file(folder, extra=HOUSE)
    ok("ladder", "init", str(path))
    return folder / "arena.db"


def _stored(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        matches = conn.execute("SELECT idx, entrants, seed FROM matches ORDER BY idx").fetchall()
        games = conn.execute(
            "SELECT m.idx, g.rotation, g.players, g.totals FROM games g "
            "JOIN matches m ON g.match_id = m.id ORDER BY m.idx, g.rotation"
        ).fetchall()
        chosen = conn.execute(
            "SELECT idx, entrants, seed, reason, state FROM ladder_matches ORDER BY idx"
        ).fetchall()
    return [matches, games, chosen]


def test_a_ladder_on_a_cluster_stores_what_a_local_run_stores(tmp_path: Path) -> None:
    local = _ladder(tmp_path / "local")
    ok("ladder", "run", "--db", str(local), "--workers", "1", "--matches", "5")
    remote = _ladder(tmp_path / "remote")
    with dask_processes(tmp_path / "dask") as dask:
        address = dask.start_scheduler()
        dask.start_worker("w1")
        ok("ladder", "run", "--db", str(remote), "--cluster", address, "--matches", "5")
    expected, got = _stored(local), _stored(remote)
    assert len(expected[0]) == 5
    assert any("script@1" in seats for _, seats, _ in expected[0]), "the shipped bot played"
    assert got == expected
    with sqlite3.connect(remote) as conn:
        workers = {w for (w,) in conn.execute("SELECT worker FROM matches")}
    assert all(w.startswith("tcp://127.0.0.1") for w in workers), workers
