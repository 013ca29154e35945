"""`arena ladder run` killed with SIGKILL at five random moments, then resumed: no
process is left, nothing stored is lost or stored twice, and every match chosen
before a kill is played when the ladder resumes, with the seats and seed it was
chosen with; Ctrl-C (SIGTERM) ends a run cleanly."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.ladder.ladder_support import RANDOM_BOT, bot_folder, ladder_file, ok
from tests.support.bot_processes import marked_processes

pytestmark = pytest.mark.slow

HOUSE = """
[[house]]
name = "first"
bot = "builtin:first"

[[house]]
name = "mixed"
bot = "builtin:mixed:0.5"
"""


def _chosen(db: Path) -> dict[int, tuple[str, str, str]]:
    """Every chosen match: idx -> (state, seats, seed)."""
    with sqlite3.connect(db) as conn:
        return {
            idx: (state, entrants, seed)
            for idx, state, entrants, seed in conn.execute(
                "SELECT idx, state, entrants, seed FROM ladder_matches"
            )
        }


def _stored(db: Path) -> dict[int, tuple[str, str, int]]:
    """Every stored match: idx -> (seats, seed, games)."""
    if not db.exists():
        return {}
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = conn.execute("SELECT idx, entrants, seed, games FROM matches").fetchall()
        games = conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    assert games == sum(r[3] for r in rows), "a match stored without all its games"
    return {idx: (entrants, seed, count) for idx, entrants, seed, count in rows}


def _ladder(tmp_path: Path) -> Path:
    ok("ladder", "init", str(ladder_file(tmp_path, extra=HOUSE)))
    db = tmp_path / "arena.db"
    token = ok("ladder", "author", "add", "ann", "--db", str(db)).strip()
    ok("ladder", "submit", "rnd", str(bot_folder(tmp_path, "rnd", RANDOM_BOT.format(name="r"))),
       "--command", "python bot.py", "--db", str(db), env={"ARENA_TOKEN": token})
    return db


def _left(marker: str) -> list[str]:
    for _ in range(150):  # bounded: workers notice their parent's death within 0.2 s
        left = marked_processes(marker)
        if not left:
            return []
        time.sleep(0.1)
    return [p.describe() for p in left]


def test_kill_9_at_five_random_moments_then_resume(tmp_path: Path) -> None:
    db = _ladder(tmp_path)
    marker = str(tmp_path)
    (tmp_path / "tmp").mkdir()
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp")}  # every bot and worker carries it
    command = [sys.executable, "-m", "arena.cli", "ladder", "run", "--db", str(db),
               "--workers", "2"]  # fmt: skip
    rng = random.Random(26)
    stored: dict[int, tuple[str, str, int]] = {}
    waiting: dict[int, tuple[str, str, str]] = {}  # chosen, not stored, when a run was killed
    kills = 0
    try:
        for _ in range(5):
            process = subprocess.Popen(
                command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            try:
                need = len(stored) + rng.randint(0, 2)
                deadline = time.monotonic() + 90
                while time.monotonic() < deadline and process.poll() is None:
                    if len(_stored(db)) >= need:
                        break
                    time.sleep(0.05)
                time.sleep(rng.uniform(0.0, 1.5))
                if process.poll() is None:
                    process.send_signal(signal.SIGKILL)
                    kills += 1
                process.wait(timeout=10)
            finally:
                if process.poll() is None:
                    process.kill()
                    process.wait(timeout=10)
            assert _left(marker) == [], "processes outlived the killed run"
            now = _stored(db)
            assert {i: now[i] for i in stored} == stored, "a stored match changed or was lost"
            stored = now
            chosen = _chosen(db)
            waiting |= {i: c for i, c in chosen.items() if i not in now}
        assert kills == 5
        ok("ladder", "run", "--db", str(db), "--workers", "2", "--matches",
           str(len(waiting) + 2))
        final = _stored(db)
        assert {i: final[i] for i in stored} == stored
        for idx, (_, seats, seed) in waiting.items():
            if _chosen(db)[idx][0] == "dropped":
                continue
            assert idx in final, f"match {idx}, chosen before a kill, was never played"
            assert (json.loads(final[idx][0]), final[idx][1]) == (json.loads(seats), seed)
        with sqlite3.connect(db) as conn:
            marks = dict(conn.execute("SELECT idx, state FROM ladder_matches").fetchall())
        assert all(marks[i] == "stored" for i in final), "a stored match not marked stored"
        assert len(final) == len(set(final))
    finally:
        for proc in marked_processes(marker):
            os.kill(proc.pid, signal.SIGKILL)


def test_sigterm_ends_a_run_cleanly(tmp_path: Path) -> None:
    db = _ladder(tmp_path)
    marker = str(tmp_path)
    (tmp_path / "tmp").mkdir()
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp")}
    process = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "ladder", "run", "--db", str(db), "--workers", "1"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and len(_stored(db)) < 2:
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, err
    assert "stopped: the matches stored are kept" in err
    assert "Traceback" not in err
    assert _left(marker) == []
    assert len(_stored(db)) >= 2


def test_a_worker_lost_mid_match_is_the_machines_fault(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker killed as out of memory mid-match: the run goes on, the match is
    played again with its seats and seed, and no version is charged a fault."""
    from arena.league.workers import executors
    from tests.support.dying_worker import play_or_die_once

    db = _ladder(tmp_path)
    marker = tmp_path / "died"
    monkeypatch.setenv("ARENA_TEST_DIED", str(marker))
    monkeypatch.setattr(executors, "play_task", play_or_die_once)
    ok("ladder", "run", "--db", str(db), "--workers", "1", "--matches", "4")
    assert marker.exists(), "the worker did not die"
    stored = _stored(db)
    chosen = _chosen(db)
    assert sorted(stored) == [0, 1, 2, 3]
    assert (json.loads(stored[1][0]), stored[1][1]) == (json.loads(chosen[1][1]), chosen[1][2])
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM faults").fetchone()[0] == 0
