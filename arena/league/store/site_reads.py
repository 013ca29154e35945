"""What the league's web pages read (`arena serve`, `arena report`): every query of the
site, each answered from an index (a league page of 50 entrants and 10,000 games must
render in well under 300 ms), none reading a replay but the one game a page shows.
"""

from __future__ import annotations

import json
from typing import Any

import sqlite_utils

from arena.league.store import reads
from arena.league.store.compaction import deal_score_rows
from arena.league.store.replay_codec import unpack_replay


def league_summaries(db: sqlite_utils.Database) -> list[dict[str, Any]]:
    """Every league in the database, newest first: id, name, game, when it was made,
    matches scheduled (None when not recorded) and stored, and when the last was."""
    if "leagues" not in db.table_names():
        return []
    return list(
        db.query(
            """SELECT l.id, l.name, l.game, l.created_at, l.scheduled_matches AS scheduled,
                      COUNT(m.id) AS stored, MAX(m.finished_at) AS last_stored_at
               FROM leagues l LEFT JOIN matches m ON m.league_id = l.id
               GROUP BY l.id ORDER BY l.id DESC"""
        )
    )


def rating_history(db: sqlite_utils.Database, league_id: int) -> list[dict[str, Any]]:
    """Each entrant's rating after each stored match it played: match_idx, entrant, mu,
    sigma, in schedule order (the last update of the match; with `rate_by = "deal"` a
    match has one per deal). The match's last step comes from the index by match; the
    rows of those steps from the primary key (a join on the steps instead was measured
    a hundred times slower: SQLite scanned the steps for every row)."""
    return list(
        db.query(
            """SELECT match_idx, entrant, mu, sigma FROM ratings
               WHERE league_id = ? AND step IN (
                   SELECT MAX(step) FROM ratings WHERE league_id = ? GROUP BY match_idx)
               ORDER BY step, entrant""",
            [league_id, league_id],
        )
    )


def live_matches(db: sqlite_utils.Database, league_id: int) -> list[dict[str, Any]]:
    """The league's matches being played now (idx, entrants, started_at, run_pid), as
    `arena run` recorded them; [] for a database from before migration 8."""
    if "live_matches" not in db.table_names():
        return []
    return [
        {**row, "entrants": json.loads(row["entrants"])}
        for row in db.query(
            "SELECT idx, entrants, started_at, run_pid FROM live_matches "
            "WHERE league_id = ? ORDER BY idx",
            [league_id],
        )
    ]


def data_version(db: sqlite_utils.Database) -> list[Any]:
    """A value that changes whenever a page could: a match stored, a league made or
    grown, a match starting or ending (the live pages poll it)."""
    version = [
        db.execute("SELECT COUNT(*), MAX(id) FROM leagues").fetchone()
        if "leagues" in db.table_names()
        else None,
        db.execute("SELECT COUNT(*), MAX(id) FROM matches").fetchone()
        if "matches" in db.table_names()
        else None,
    ]
    if "live_matches" in db.table_names():
        version.append(
            db.execute("SELECT COUNT(*), MAX(started_at), SUM(idx) FROM live_matches").fetchone()
        )
    return [list(v) if v is not None else None for v in version]


def league_game_totals(db: sqlite_utils.Database, league_id: int) -> list[dict[str, Any]]:
    """Every stored game of the league with its totals, by id (the static report's
    `--games best:N` picks the closest finishes without reading a replay)."""
    return [
        {"id": row["id"], "totals": json.loads(row["totals"]) if row["totals"] else []}
        for row in db.query(
            "SELECT id, totals FROM games WHERE league_id = ? ORDER BY id", [league_id]
        )
    ]


def entrant_games(
    db: sqlite_utils.Database,
    league_id: int,
    entrant: str,
    limit: int | None = None,
    offset: int = 0,
) -> list[dict[str, Any]]:
    """The games `entrant` played in the league, in schedule order: game id, match
    index, rotation, seat, total, rank, faults, decisions asked and think time; all of
    them, or `limit` from the `offset`-th on (the server's pages of an entrant that
    played thousands)."""
    think = (
        "r.asked, r.think_wall_ms, r.think_cpu_ms"
        if "think_wall_ms" in db["results"].columns_dict
        else "NULL AS asked, NULL AS think_wall_ms, NULL AS think_cpu_ms"
    )
    page = "" if limit is None else f"LIMIT {int(limit)} OFFSET {int(offset)}"
    order = "r.game_id" if page and _ids_follow_schedule(db, league_id) else "m.idx, g.rotation"
    return list(
        db.query(
            f"""SELECT r.game_id, m.idx AS match_idx, g.rotation, r.seat, r.total, r.rank,
                       r.faults, {think}
                FROM results r JOIN games g ON r.game_id = g.id
                JOIN matches m ON r.match_id = m.id
                WHERE r.league_id = ? AND r.entrant = ? ORDER BY {order} {page}""",
            [league_id, entrant],
        )
    )


def _ids_follow_schedule(db: sqlite_utils.Database, league_id: int) -> bool:
    """Whether every stored game of the league has its reserved id (migration 5: first
    game id + match index * games a match + rotation), so that game id order is
    schedule order: a league with reserved ids whose every stored match lies within
    its reservation (a grown league's later matches, like a league's from before
    migration 5, take the next free id instead). Read by index."""
    if "first_game_id" not in db["leagues"].columns_dict:
        return False
    row = db.execute(
        "SELECT first_game_id, scheduled_matches, games_per_match FROM leagues WHERE id = ?",
        [league_id],
    ).fetchone()
    if row is None or None in row:
        return False
    last = db.execute("SELECT MAX(idx) FROM matches WHERE league_id = ?", [league_id]).fetchone()
    return last[0] is None or last[0] < row[1]


def latest_matches(db: sqlite_utils.Database, league_id: int, limit: int) -> list[dict[str, Any]]:
    """The league's last `limit` stored matches, newest (highest index) first, with the
    keys of `reads.match_records`."""
    return reads.match_records(db, league_id, latest=limit)


def match_row(db: sqlite_utils.Database, league_id: int, idx: int) -> dict[str, Any] | None:
    """The stored match `idx` of the league (id, idx, seed, entrants, seconds,
    finished_at, worker), or None."""
    rows = list(
        db.query(
            "SELECT id, idx, seed, entrants, seconds, finished_at, worker FROM matches "
            "WHERE league_id = ? AND idx = ?",
            [league_id, idx],
        )
    )
    return {**rows[0], "entrants": json.loads(rows[0]["entrants"])} if rows else None


def match_games(db: sqlite_utils.Database, match_id: int) -> list[dict[str, Any]]:
    """A match's games by rotation: id, rotation, players, totals, ranks."""
    return [
        {
            **row,
            "players": json.loads(row["players"]),
            "totals": json.loads(row["totals"]),
            "ranks": json.loads(row["ranks"]),
        }
        for row in db.query(
            "SELECT id, rotation, players, totals, ranks FROM games WHERE match_id = ? "
            "ORDER BY rotation",
            [match_id],
        )
    ]


def match_deal_scores(db: sqlite_utils.Database, match_id: int) -> list[dict[str, Any]]:
    """Every deal score of a match's games: game_id, deal, seat, entrant, contract
    (its label), score (and the game's rotation, which orders them after the deal)."""
    rows = deal_score_rows(db, "g.match_id = ?", [match_id])
    return sorted(rows, key=lambda r: (r["deal"], r["rotation"], r["seat"]))


def game_row(db: sqlite_utils.Database, game_id: int) -> dict[str, Any] | None:
    """A stored game with its league and match: id, league_id, league, game, match_idx,
    rotation, players, totals, ranks and the replay (parsed), or None."""
    if "games" not in db.table_names():
        return None
    rows = list(
        db.query(
            """SELECT g.id, g.league_id, l.name AS league, l.game, m.idx AS match_idx,
                      g.rotation, g.players, g.totals, g.ranks, g.replay
               FROM games g JOIN matches m ON g.match_id = m.id
               JOIN leagues l ON g.league_id = l.id WHERE g.id = ?""",
            [game_id],
        )
    )
    if not rows:
        return None
    row = rows[0]
    return {
        **row,
        **{key: json.loads(row[key]) for key in ("players", "totals", "ranks")},
        "replay": unpack_replay(row["replay"]),
    }


def league_game_ids(db: sqlite_utils.Database, league_id: int) -> list[int]:
    """The ids of the league's stored games (the static report writes a page each)."""
    return [
        row["id"]
        for row in db.query("SELECT id FROM games WHERE league_id = ? ORDER BY id", [league_id])
    ]


def entrant_bots(db: sqlite_utils.Database, league_id: int) -> dict[str, str]:
    """Each entrant's bot spec, as its league file last gave it."""
    return {
        row["name"]: row["bot"]
        for row in db.query("SELECT name, bot FROM entrants WHERE league_id = ?", [league_id])
    }
