"""A ladder's stored matches written in bulk, for the benches' big ladders
(arena/bench/ladder_site/big_ladder.py): the rows `store_match` and the ladder's run
write for each match (matches, chosen matches, games, results, deal scores and their
per-contract sums, faults, rating history, the versions' ratings), given whole and
written in one transaction with SQLite's syncing off while it lasts, instead of a
transaction per match. For a new database that nothing else is writing to."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import sqlite_utils

from arena.league.store.compaction import DEALS_INSERT, KEPT_INSERT, fold_tuples
from arena.league.store.transactions import immediate

COLUMNS = {
    "matches": "id, league_id, idx, seed, entrants, games, seconds, finished_at, "
    "overload_replays, worker",
    "ladder_matches": "ladder_id, idx, seed, entrants, reason, focus, pair_idx, rated, state, "
    "chosen_at",
    "games": "id, league_id, match_id, rotation, seed, players, totals, ranks, decisions, replay",
    "results": "game_id, match_id, league_id, seat, entrant, total, rank, faults",
    "deal_scores": "game_id, deal, seat, entrant, contract, score, declarer, made",
    "entrant_contracts": "league_id, entrant, contract, deals, score_sum, declared, made",
    "faults": "game_id, match_id, league_id, entrant, seat, deal, kind, detail, decision, "
    "event, expected, got",
    "ratings": "league_id, step, match_idx, rotation, entrant, mu, sigma",
}


def write_rows(
    db: sqlite_utils.Database,
    rows: Mapping[str, Sequence[tuple[Any, ...]]],
    ratings: Sequence[tuple[float, float, int, int, str]] = (),
) -> None:
    """Insert `rows` (table -> rows, each in COLUMNS' order) and set the versions'
    (mu, sigma, games) for (ladder id, entrant) in `ratings`, all or nothing. Deal
    scores are given a row a deal and seat, as `deal_scores` reads them, and stored
    folded (arena/league/store/compaction.py), their games' players taken from the
    games rows given with them."""
    conn = db.conn
    players = {row[0]: json.loads(row[5]) for row in rows.get("games", ())}
    conn.execute("PRAGMA synchronous=OFF")
    try:
        with immediate(db):
            for table, values in rows.items():
                if table == "deal_scores":
                    deals, kept = fold_tuples(values, players)
                    conn.executemany(DEALS_INSERT, deals)
                    conn.executemany(KEPT_INSERT, kept)
                    continue
                columns = COLUMNS[table]
                marks = ", ".join("?" * len(columns.split(",")))
                conn.executemany(f"INSERT INTO {table} ({columns}) VALUES ({marks})", values)
            conn.executemany(
                "UPDATE versions SET mu = ?, sigma = ?, games = ? WHERE ladder_id = ? "
                "AND entrant = ?",
                ratings,
            )
    finally:
        conn.execute("PRAGMA synchronous=NORMAL")


def replicate_league(
    db: sqlite_utils.Database,
    league_id: int,
    copies: int,
    say: Callable[[int], None] | None = None,
) -> None:
    """Store the league's matches `copies` times in all (the bench's big league,
    arena/bench/web.py): copy k of stored match `idx` is match `idx + k * stored` with
    every row its store wrote (its games with their replays as stored, results, deal
    scores, faults, and any other table of a game's rows), ids moved past the last
    copy's; the rating history repeated after its last step; the per-contract sums
    multiplied. Row by row in SQL, whatever a replay's encoding: a copy is the bytes
    `store_match` wrote. A transaction per copy, so the write-ahead log stays small."""
    conn = db.conn
    first, last, stored = conn.execute(
        "SELECT MIN(id), MAX(id), MAX(idx) + 1 FROM matches WHERE league_id = ?", [league_id]
    ).fetchone()
    g_first, g_last = conn.execute(
        "SELECT MIN(id), MAX(id) FROM games WHERE league_id = ?", [league_id]
    ).fetchone()
    steps = conn.execute(
        "SELECT COALESCE(MAX(step), 0) FROM ratings WHERE league_id = ?", [league_id]
    ).fetchone()[0]
    m_span, g_span = last - first + 1, g_last - g_first + 1
    m_top = conn.execute("SELECT COALESCE(MAX(id), 0) FROM matches").fetchone()[0]
    g_top = conn.execute("SELECT COALESCE(MAX(id), 0) FROM games").fetchone()[0]
    m_base, g_base = m_top - first + 1, g_top - g_first + 1  # copy 1 starts past every id
    by_game = [t for t in db.table_names() if "game_id" in db[t].columns_dict]
    originals = f"game_id BETWEEN {g_first} AND {g_last}"
    conn.execute("PRAGMA synchronous=OFF")
    try:
        for k in range(1, copies):
            m_shift, g_shift = m_base + (k - 1) * m_span, g_base + (k - 1) * g_span
            moved = {"id": None, "match_id": f"match_id + {m_shift}",
                     "game_id": f"game_id + {g_shift}"}  # fmt: skip
            renumbered = {"id": f"id + {m_shift}", "idx": f"idx + {k * stored}",
                          "seed": f"seed || '/{k}'"}  # fmt: skip
            rated = {"step": f"step + {k * steps}", "match_idx": f"match_idx + {k * stored}"}
            with immediate(db):
                where = f"league_id = {league_id} AND id BETWEEN {first} AND {last}"
                _copy(db, "matches", where, renumbered)
                where = f"id BETWEEN {g_first} AND {g_last}"
                _copy(db, "games", where, {**moved, "id": f"id + {g_shift}"})
                for table in by_game:
                    _copy(db, table, originals, moved)
                _copy(db, "ratings", f"league_id = {league_id} AND step <= {steps}", rated)
            if say is not None:
                say(k + 1)
        with immediate(db):
            conn.execute(
                f"UPDATE entrant_contracts SET deals = deals * {copies}, "
                f"score_sum = score_sum * {copies}, declared = declared * {copies}, "
                f"made = made * {copies} WHERE league_id = ?",
                [league_id],
            )
            conn.execute(
                "UPDATE leagues SET scheduled_matches = ? WHERE id = ?",
                [stored * copies, league_id],
            )
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the log merged: one file to move
    finally:
        conn.execute("PRAGMA synchronous=NORMAL")


def _copy(db: sqlite_utils.Database, table: str, where: str, moved: Mapping[str, Any]) -> None:
    """INSERT the rows of `table` matching `where` again, each column as it is or as
    `moved` says (an SQL expression; None: left out, a new row id)."""
    columns = [c for c in db[table].columns_dict if not (c in moved and moved[c] is None)]
    values = [moved.get(c) or c for c in columns]
    db.conn.execute(
        f"INSERT INTO {table} ({', '.join(columns)}) "
        f"SELECT {', '.join(values)} FROM {table} WHERE {where}"
    )
