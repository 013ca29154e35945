"""A league's standings as last computed (migration 14), and the state of the league
they were computed from: what lets a page of a league of a million games read its
table in milliseconds (arena/league/reports/snapshot.py computes them)."""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any

import sqlite_utils

from arena.league.store.transactions import immediate


def league_stamp(db: sqlite_utils.Database, league_id: int) -> str:
    """What the standings of a league depend on, as one string: its stored matches
    (the newest id: a match is stored, never removed, and each takes a new id), its
    rating history (the last step, the rows at it and their sums) and its settings (a
    re-rating rewrites them). A few lookups in indexes, whatever the league's size."""
    newest = db.execute("SELECT MAX(id) FROM matches WHERE league_id = ?", [league_id]).fetchone()[
        0
    ]
    step = db.execute("SELECT MAX(step) FROM ratings WHERE league_id = ?", [league_id]).fetchone()[
        0
    ]
    last = db.execute(
        "SELECT COUNT(*), SUM(mu), SUM(sigma) FROM ratings WHERE league_id = ? AND step = ?",
        [league_id, step],
    ).fetchone()
    settings = db.execute("SELECT settings FROM leagues WHERE id = ?", [league_id]).fetchone()
    digest = hashlib.sha256((settings[0] if settings else "").encode()).hexdigest()[:16]
    return json.dumps([newest, step, list(last), digest])


def read_standings(
    db: sqlite_utils.Database, league_id: int
) -> tuple[str, dict[str, Any], bytes] | None:
    """The league's stored standings: (stamp, data, arrays), or None when there are
    none (or the database is from before migration 14)."""
    if "standings" not in db.table_names():
        return None
    row = db.execute(
        "SELECT stamp, data, arrays FROM standings WHERE league_id = ?", [league_id]
    ).fetchone()
    return None if row is None else (row[0], json.loads(row[1]), row[2])


def write_standings(
    db: sqlite_utils.Database, league_id: int, stamp: str, data: dict[str, Any], arrays: bytes
) -> None:
    """Replace the league's stored standings (one row a league)."""
    with immediate(db):
        db.execute(
            "INSERT OR REPLACE INTO standings (league_id, stamp, made_at, data, arrays) "
            "VALUES (?, ?, ?, ?, ?)",
            [league_id, stamp, time.time(), json.dumps(data), arrays],
        )
