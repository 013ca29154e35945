"""A ladder's stored matches written in bulk, for the benches' big ladders
(arena/bench/ladder_site/big_ladder.py): the rows `store_match` and the ladder's run
write for each match (matches, chosen matches, games, results, deal scores and their
per-contract sums, faults, rating history, the versions' ratings), given whole and
written in one transaction with SQLite's syncing off while it lasts, instead of a
transaction per match. For a new database that nothing else is writing to."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import sqlite_utils

from arena.league.store.compaction import DEALS_INSERT, KEPT_INSERT, fold_tuples
from arena.league.store.schema import immediate

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
