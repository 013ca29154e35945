"""Everything the arena reads of a ladder (docs/ladder.md): the ladder, its authors,
bots and versions, the matches it chose, and what its health rule and tables count.
"""

from __future__ import annotations

import json
from typing import Any

import sqlite_utils

from arena.errors import ConfigError

VERSION_COLUMNS = """v.id, v.number, v.entrant, v.sha256, v.command, v.folder, v.state,
    v.reason, v.created_at, v.changed_at, v.start_mu, v.mu, v.sigma, v.games,
    v.gate_report, b.name AS bot, COALESCE(a.name, 'house') AS author,
    b.author_id IS NULL AS house"""


def ladder_by_name(db: sqlite_utils.Database, name: str | None) -> dict[str, Any]:
    """The ladder called `name`, or the only one when no name is given; ConfigError
    says which ladders there are when that does not pick one."""
    if "ladders" not in db.table_names():
        raise ConfigError(_no_ladder())
    rows = [dict(r) for r in db.query("SELECT * FROM ladders ORDER BY id")]
    if name is not None:
        for row in rows:
            if row["name"] == name:
                return _ladder(row)
        known = ", ".join(repr(r["name"]) for r in rows) or "none"
        raise ConfigError(f"no ladder named {name!r} in this database; ladders: {known}")
    if not rows:
        raise ConfigError(_no_ladder())
    if len(rows) > 1:
        known = ", ".join(repr(r["name"]) for r in rows)
        raise ConfigError(f"this database holds several ladders ({known}): say which with --ladder")
    return _ladder(rows[0])


def _ladder(row: dict[str, Any]) -> dict[str, Any]:
    return {**row, "settings": json.loads(row["settings"])}


def _no_ladder() -> str:
    return (
        "this database holds no ladder yet: `arena ladder init LADDER.toml` makes one "
        "(docs/ladder.md)"
    )


def author_row(db: sqlite_utils.Database, ladder_id: int, name: str) -> dict[str, Any] | None:
    rows = list(db["authors"].rows_where("ladder_id = ? AND name = ?", [ladder_id, name]))
    return dict(rows[0]) if rows else None


def author_by_id(db: sqlite_utils.Database, author_id: int) -> dict[str, Any] | None:
    rows = list(db["authors"].rows_where("id = ?", [author_id]))
    return dict(rows[0]) if rows else None


def author_names(db: sqlite_utils.Database, ladder_id: int) -> list[str]:
    return [
        r["name"]
        for r in db.query("SELECT name FROM authors WHERE ladder_id = ? ORDER BY id", [ladder_id])
    ]


def bot_row(db: sqlite_utils.Database, ladder_id: int, name: str) -> dict[str, Any] | None:
    rows = list(db["ladder_bots"].rows_where("ladder_id = ? AND name = ?", [ladder_id, name]))
    return dict(rows[0]) if rows else None


def version_rows(
    db: sqlite_utils.Database,
    ladder_id: int,
    *,
    bot: str | None = None,
    states: tuple[str, ...] = (),
) -> list[dict[str, Any]]:
    """Every version of the ladder (of `bot`, in `states`), oldest first, with its
    bot's name and author ('house' for house bots)."""
    where, args = ["v.ladder_id = ?"], [ladder_id]
    if bot is not None:
        where.append("b.name = ?")
        args.append(bot)
    if states:
        where.append(f"v.state IN ({', '.join('?' * len(states))})")
        args += list(states)
    return [
        dict(r)
        for r in db.query(
            f"SELECT {VERSION_COLUMNS} FROM versions v JOIN ladder_bots b ON v.bot_id = b.id "
            f"LEFT JOIN authors a ON b.author_id = a.id WHERE {' AND '.join(where)} "
            "ORDER BY v.id",
            args,
        )
    ]


def version_events(db: sqlite_utils.Database, version_id: int) -> list[dict[str, Any]]:
    return [
        dict(r)
        for r in db.query(
            "SELECT at, state, reason FROM version_events WHERE version_id = ? ORDER BY id",
            [version_id],
        )
    ]


def ladder_match_rows(
    db: sqlite_utils.Database, ladder_id: int, states: tuple[str, ...] = ()
) -> list[dict[str, Any]]:
    """The matches the ladder chose, in the order chosen, with their state (queued,
    stored, dropped), why each was chosen, and each one's pair (a promotion test)."""
    where, args, order = "ladder_id = ?", [ladder_id], "idx"
    if states:
        where += f" AND state IN ({', '.join('?' * len(states))})"
        args += list(states)
        order = "+idx"  # the index by state, not every chosen match walked in order
    return [
        {**dict(r), "entrants": json.loads(r["entrants"])}
        for r in db.query(f"SELECT * FROM ladder_matches WHERE {where} ORDER BY {order}", args)
    ]


def stored_order(db: sqlite_utils.Database, league_id: int) -> list[int]:
    """The stored matches' indexes in the order they were stored: the order a ladder
    rates them in (its matches finish in any order, and none is waited for)."""
    return [
        r[0]
        for r in db.execute(
            "SELECT idx FROM matches WHERE league_id = ? ORDER BY id", [league_id]
        ).fetchall()
    ]


def recent_games(
    db: sqlite_utils.Database, league_id: int, entrant: str, limit: int
) -> list[tuple[int, int, int]]:
    """An entrant's last `limit` games, newest first: (decisions it was asked, faults
    charged to it, 1 when it crashed or failed to start in the game). Faults the
    machine caused are never charged, so they are not here."""
    return [
        (asked or 0, faults or 0, crashed)
        for asked, faults, crashed in db.execute(
            # the last games first, then their faults: a crash looked up for those
            # only, by the faults' index (league, entrant), not for every game it played
            """SELECT r.asked, r.faults,
                      EXISTS (SELECT 1 FROM faults f WHERE f.league_id = r.league_id
                              AND f.entrant = r.entrant AND f.game_id = r.game_id
                              AND f.kind IN ('crash', 'start-failure'))
               FROM (SELECT league_id, game_id, entrant, asked, faults FROM results
                     WHERE league_id = ? AND entrant = ? ORDER BY game_id DESC LIMIT ?) r
               ORDER BY r.game_id DESC""",
            [league_id, entrant, limit],
        ).fetchall()
    ]


def version_fault_counts(db: sqlite_utils.Database, league_id: int) -> dict[str, tuple[int, int]]:
    """Per entrant: (charged faults, games) over all its stored games."""
    return {
        entrant: (faults or 0, games)
        for entrant, faults, games in db.execute(
            "SELECT entrant, SUM(faults), COUNT(*) FROM results WHERE league_id = ? "
            "GROUP BY entrant",
            [league_id],
        ).fetchall()
    }


def version_history(
    db: sqlite_utils.Database, league_id: int, entrant: str
) -> list[dict[str, Any]]:
    """A version's rating after each match it played, oldest first."""
    return [
        dict(r)
        for r in db.query(
            "SELECT step, match_idx, mu, sigma FROM ratings WHERE league_id = ? "
            "AND entrant = ? ORDER BY step",
            [league_id, entrant],
        )
    ]


# -- test matches (docs/ladder.md, "Test matches") ------------------------------------


def tests_league_id(db: sqlite_utils.Database, ladder_id: int) -> int | None:
    """The league row holding the ladder's test matches' games; None before the first
    test match was asked for (or in a database of a schema before migration 11)."""
    if "test_matches" not in db.table_names():
        return None
    row = db.execute("SELECT tests_league_id FROM ladders WHERE id = ?", [ladder_id]).fetchone()
    return row[0] if row else None


TEST_COLUMNS = """t.id, t.ladder_id, t.author_id, a.name AS author, t.entrant, t.opponents,
    t.requested_at, t.state, t.reason, t.idx, t.seed, t.started_at, t.finished_at"""


def _test_rows(
    db: sqlite_utils.Database, where: str, args: list[Any], order: str, games: bool
) -> list[dict[str, Any]]:
    if "test_matches" not in db.table_names():
        return []
    rows = [
        dict(r)
        for r in db.query(
            f"SELECT {TEST_COLUMNS} FROM test_matches t JOIN authors a ON t.author_id = a.id "
            f"WHERE {where} ORDER BY t.id {order}",
            args,
        )
    ]
    league = tests_league_id(db, rows[0]["ladder_id"]) if rows else None
    for row in rows:
        row["opponents"] = json.loads(row["opponents"])
        row["entrants"] = [row["entrant"], *row["opponents"]]
        row["league_id"] = league
        row["games"] = []
    if games and league is not None:
        stored = {r["idx"]: r for r in rows if r["state"] == "stored" and r["idx"] is not None}
        indexes = sorted(stored)
        for start in range(0, len(indexes), 500):  # SQLite's bound on a query's parameters
            chunk = indexes[start : start + 500]
            marks = ", ".join("?" * len(chunk))
            for game_id, match_idx, rotation, players in db.execute(
                "SELECT g.id, m.idx, g.rotation, g.players FROM games g "
                "JOIN matches m ON g.match_id = m.id "
                f"WHERE m.league_id = ? AND m.idx IN ({marks}) ORDER BY g.rotation",
                [league, *chunk],
            ).fetchall():
                row = stored[match_idx]
                seats = json.loads(players)
                row["games"].append(
                    {
                        "id": game_id,
                        "rotation": rotation,
                        "players": seats,
                        "seat": seats.index(row["entrant"]),
                    }
                )
    return rows


def test_match_rows(
    db: sqlite_utils.Database, ladder_id: int, author_id: int
) -> list[dict[str, Any]]:
    """An author's own test matches, newest first: `id`, `entrant` (their version,
    BOT@N), `opponents`, `entrants` (the match's seats in its first rotation: the
    version, then the opponents), `requested_at`, `state` (queued, playing, stored or
    dropped) and `reason`, `idx` (the match's index once the run gave it out: its key
    in the tests league and in the live file), `seed`, `started_at`, `finished_at`,
    `league_id` (the tests league's) and, once stored, `games`: each game's `id`,
    `rotation`, `players` (entrant by seat) and `seat` (the author's version's seat in
    it, the seat view to show it with)."""
    return _test_rows(db, "t.ladder_id = ? AND t.author_id = ?", [ladder_id, author_id],
                      "DESC", True)  # fmt: skip


def test_match_row(
    db: sqlite_utils.Database, ladder_id: int, test_id: int
) -> dict[str, Any] | None:
    """One test match of the ladder (as `test_match_rows` gives them, with `author_id`
    and `author` to check that whoever asks owns it), or None."""
    rows = _test_rows(db, "t.ladder_id = ? AND t.id = ?", [ladder_id, test_id], "", True)
    return rows[0] if rows else None


def waiting_test_matches(db: sqlite_utils.Database, ladder_id: int) -> list[dict[str, Any]]:
    """The ladder's test matches not played yet (queued, or given out by a run that
    ended before it was stored), oldest first: the run's queue of them."""
    return _test_rows(
        db, "t.ladder_id = ? AND t.state IN ('queued', 'playing')", [ladder_id], "ASC", False
    )


def last_test_index(db: sqlite_utils.Database, ladder_id: int) -> int:
    """The highest match index a test match of the ladder was given (-1: none), which
    the run's counter stays above, so a test match and a rated one never share one."""
    if "test_matches" not in db.table_names():
        return -1
    row = db.execute(
        "SELECT MAX(idx) FROM test_matches WHERE ladder_id = ?", [ladder_id]
    ).fetchone()
    return -1 if row[0] is None else row[0]


def test_requests_since(
    db: sqlite_utils.Database, ladder_id: int, author_id: int, since: float
) -> list[float]:
    """When the author asked for each test match after `since`, oldest first."""
    return [
        r[0]
        for r in db.execute(
            "SELECT requested_at FROM test_matches WHERE ladder_id = ? AND author_id = ? "
            "AND requested_at > ? ORDER BY requested_at",
            [ladder_id, author_id, since],
        ).fetchall()
    ]


# Functions named test_... are no tests: pytest leaves them alone where a test imports them.
test_match_rows.__test__ = False  # type: ignore[attr-defined]
test_match_row.__test__ = False  # type: ignore[attr-defined]
test_requests_since.__test__ = False  # type: ignore[attr-defined]
