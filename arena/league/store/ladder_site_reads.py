"""What the ladder's web site and its JSON API read (`arena ladder serve`) beyond what
the reading commands read: the ladder's matches, games and faults a page at a time,
newest first, filtered by the versions that played.

Every list is paged by keyset (`before`: the last index or id of the page before), so
a page costs the same at the millionth match as at the first. A filter is a list of
groups of entrants (`groups`): a row is kept when, for every group, one of the
group's entrants played in it (a bot is the group of its versions; a version, or an
opponent, a group of one)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import sqlite_utils


def _groups_sql(groups: Sequence[Sequence[str]], entrants_of: str) -> tuple[str, list[Any]]:
    """The conditions that keep a row whose entrants (`entrants_of`: a table-valued
    expression of one `value` column) meet every group."""
    where, args = [], []
    for group in groups:
        marks = ", ".join("?" * len(group)) or "NULL"
        where.append(f"EXISTS (SELECT 1 FROM {entrants_of} WHERE value IN ({marks}))")
        args += list(group)
    return " AND ".join(where), args


def ladder_matches_page(
    db: sqlite_utils.Database,
    ladder_id: int,
    league_id: int,
    *,
    groups: Sequence[Sequence[str]] = (),
    since: float | None = None,
    until: float | None = None,
    before: int | None = None,
    limit: int = 50,
) -> list[dict[str, Any]]:
    """The ladder's chosen matches, newest first (by index), at most `limit`: index,
    state (queued, stored, dropped), why chosen, focus, pair, entrants, when chosen,
    and once stored when it finished and how long it took. `since`/`until` bound its
    time (when it finished, else when it was chosen), in Unix seconds."""
    where, args = ["lm.ladder_id = ?"], [league_id, ladder_id]
    if groups:
        # the first group's matches found through the results' index by entrant (with
        # those not stored, by state): walking every chosen match back from the newest
        # would read the whole ladder to find the few of a version that rarely played
        marks = ", ".join("?" * len(groups[0])) or "NULL"
        where.append(
            f"""lm.idx IN (SELECT m2.idx FROM results r JOIN matches m2 ON m2.id = r.match_id
                          WHERE r.league_id = ? AND r.entrant IN ({marks})
                          UNION SELECT idx FROM ladder_matches
                          WHERE ladder_id = ? AND state IN ('queued', 'dropped'))"""
        )
        args += [league_id, *groups[0], ladder_id]
        sql, more = _groups_sql(groups, "json_each(lm.entrants)")
        where.append(sql)
        args += more
    when = "COALESCE(m.finished_at, lm.chosen_at)"
    if since is not None:
        where.append(f"{when} >= ?")
        args.append(since)
    if until is not None:
        where.append(f"{when} <= ?")
        args.append(until)
    if before is not None:
        where.append("lm.idx < ?")
        args.append(before)
    args.append(limit)
    return [
        {**dict(r), "entrants": json.loads(r["entrants"])}
        for r in db.query(
            f"""SELECT lm.idx, lm.state, lm.reason, lm.focus, lm.pair_idx, lm.entrants,
                       lm.chosen_at, m.finished_at, m.seconds
                FROM ladder_matches lm
                LEFT JOIN matches m ON m.league_id = ? AND m.idx = lm.idx
                WHERE {" AND ".join(where)} ORDER BY lm.idx DESC LIMIT ?""",
            args,
        )
    ]


def match_game_ids(
    db: sqlite_utils.Database, league_id: int, indexes: Sequence[int]
) -> dict[int, list[int]]:
    """The stored games of the matches `indexes`, by match index, in rotation order."""
    if not indexes:
        return {}
    out: dict[int, list[int]] = {}
    marks = ", ".join("?" * len(indexes))
    for idx, game_id in db.execute(
        f"""SELECT m.idx, g.id FROM games g JOIN matches m ON g.match_id = m.id
            WHERE m.league_id = ? AND m.idx IN ({marks}) ORDER BY m.idx, g.rotation""",
        [league_id, *indexes],
    ).fetchall():
        out.setdefault(idx, []).append(game_id)
    return out


def ladder_games_page(
    db: sqlite_utils.Database,
    league_id: int,
    *,
    groups: Sequence[Sequence[str]] = (),
    before: int | None = None,
    limit: int = 50,
) -> list[dict[str, Any]]:
    """The ladder's stored games, newest first (by id), at most `limit`: id, match
    index, rotation, players, totals, ranks and when its match finished.

    Unfiltered, the games are read from the newest back through the index of games by
    league (migration 11) and the read stops at `limit`. Filtered, the first group's
    games are found through the results' index by entrant and only those are sorted:
    walking every game back from the newest would read the whole ladder to find the
    few games of a version and an opponent that rarely met."""
    where, args = [], []
    if groups:
        first, *others = groups
        marks = ", ".join("?" * len(first)) or "NULL"
        where.append(
            f"g.id IN (SELECT r.game_id FROM results r WHERE r.league_id = ? "
            f"AND r.entrant IN ({marks}))"
        )
        args += [league_id, *first]
        if others:
            sql, more = _groups_sql(
                others, "(SELECT r.entrant AS value FROM results r WHERE r.game_id = g.id)"
            )
            where.append(sql)
            args += more
    else:
        where.append("g.league_id = ?")
        args.append(league_id)
    if before is not None:
        where.append("g.id < ?")
        args.append(before)
    args.append(limit)
    return [
        {
            **dict(r),
            **{key: json.loads(r[key]) for key in ("players", "totals", "ranks")},
        }
        for r in db.query(
            f"""SELECT g.id, m.idx AS match_idx, g.rotation, g.players, g.totals, g.ranks,
                       m.finished_at
                FROM games g JOIN matches m ON g.match_id = m.id
                WHERE {" AND ".join(where)} ORDER BY g.id DESC LIMIT ?""",
            args,
        )
    ]


def ladder_faults_page(
    db: sqlite_utils.Database,
    league_id: int,
    *,
    entrants: Sequence[str] | None = None,
    before: int | None = None,
    limit: int = 50,
) -> list[dict[str, Any]]:
    """The ladder's faults, newest first (by id), at most `limit`, of `entrants` when
    given: each fault's columns with its match index and rotation."""
    where, args = ["f.league_id = ?"], [league_id]
    if entrants is not None:
        where.append(f"f.entrant IN ({', '.join('?' * len(entrants)) or 'NULL'})")
        args += list(entrants)
    if before is not None:
        where.append("f.id < ?")
        args.append(before)
    args.append(limit)
    return [
        dict(r)
        for r in db.query(
            f"""SELECT f.*, m.idx AS match_idx, g.rotation
                FROM faults f JOIN games g ON f.game_id = g.id JOIN matches m ON f.match_id = m.id
                WHERE {" AND ".join(where)} ORDER BY f.id DESC LIMIT ?""",
            args,
        )
    ]


def game_league(db: sqlite_utils.Database, game_id: int) -> int | None:
    """The league row a stored game belongs to (None when there is no such game)."""
    row = db.execute("SELECT league_id FROM games WHERE id = ?", [game_id]).fetchone()
    return None if row is None else row[0]


def ladder_data_version(db: sqlite_utils.Database) -> list[Any]:
    """What changes when a version is submitted or changes state (the gate's verdict,
    a promotion, a withdrawal): the ladder site's live pages poll it beside the
    league's `data_version`."""
    versions = db.execute("SELECT COUNT(*), MAX(id) FROM versions").fetchone()
    events = db.execute("SELECT COUNT(*), MAX(id) FROM version_events").fetchone()
    return [list(versions), list(events)]


def stored_since(
    db: sqlite_utils.Database, league_id: int, after_id: int
) -> tuple[list[tuple[int, int, list[str], float | None]], dict[int, list[tuple[Any, ...]]]]:
    """The league's matches stored after the match row `after_id` (a stored match is
    never changed, and each is stored with a higher id than every one before it):
    ([(match id, index, entrants, finished_at)] in the order stored, {match id:
    [(rotation, game id, seat, entrant, total, faults)] in rotation and seat order}).

    Each read is a range of ids on an index, so it costs what the new matches hold,
    not what the league holds; the games and results are read up to the last match
    row read, so a match stored meanwhile is read whole next time, never in part."""
    matches = [
        (match_id, idx, json.loads(entrants), finished_at)
        for match_id, idx, entrants, finished_at in db.execute(
            # +league_id: the rowid's range, not every match of the league
            "SELECT id, idx, entrants, finished_at FROM matches "
            "WHERE id > ? AND +league_id = ? ORDER BY id",
            [after_id, league_id],
        ).fetchall()
    ]
    if not matches:
        return [], {}
    upto = matches[-1][0]
    rotations = {
        game_id: rotation
        for game_id, rotation in db.execute(
            "SELECT id, rotation FROM games WHERE league_id = ? AND match_id > ? AND match_id <= ?",
            [league_id, after_id, upto],
        ).fetchall()
    }
    games: dict[int, list[tuple[Any, ...]]] = {}
    for match_id, game_id, seat, entrant, total, faults in db.execute(
        # +league_id: the index on (match_id, seat), not every result of the league
        "SELECT match_id, game_id, seat, entrant, total, faults FROM results "
        "WHERE match_id > ? AND match_id <= ? AND +league_id = ?",
        [after_id, upto, league_id],
    ).fetchall():
        games.setdefault(match_id, []).append(
            (rotations[game_id], game_id, seat, entrant, total, faults)
        )
    for rows in games.values():
        rows.sort()
    return matches, games


def stored_match_id(db: sqlite_utils.Database, match_id: int) -> tuple[int, int] | None:
    """(league, index) of the match row `match_id`, None when there is none."""
    row = db.execute("SELECT league_id, idx FROM matches WHERE id = ?", [match_id]).fetchone()
    return None if row is None else (row[0], row[1])


def paired_match_rows(db: sqlite_utils.Database, ladder_id: int) -> list[dict[str, Any]]:
    """The ladder's chosen matches that are one table of a promotion test's pair, in
    the order chosen: index, state, pair, entrants."""
    return [
        {**dict(r), "entrants": json.loads(r["entrants"])}
        for r in db.query(
            "SELECT idx, state, pair_idx, entrants FROM ladder_matches "
            "WHERE ladder_id = ? AND pair_idx IS NOT NULL ORDER BY idx",
            [ladder_id],
        )
    ]


def database_file(db: sqlite_utils.Database) -> str:
    """The file `db` reads (what the site keeps its copy of a ladder's matches by)."""
    return str(db.execute("PRAGMA database_list").fetchone()[2])


def newest_game_and_match(db: sqlite_utils.Database, league_id: int) -> tuple[int, int]:
    """(the newest stored game's id, the newest stored match's index) of a league."""
    game = db.execute("SELECT MAX(id) FROM games WHERE league_id = ?", [league_id]).fetchone()
    match = db.execute("SELECT MAX(idx) FROM matches WHERE league_id = ?", [league_id]).fetchone()
    return game[0], match[0]


def ladder_games_stored(db: sqlite_utils.Database) -> int:
    """The games stored by every ladder in the database."""
    row = db.execute(
        "SELECT COUNT(*) FROM games WHERE league_id IN (SELECT league_id FROM ladders)"
    ).fetchone()
    return int(row[0])


def bot_version_digests(db: sqlite_utils.Database, bot: str) -> list[dict[str, Any]]:
    """Every version of the bots named `bot` (entrant, sha256), oldest first."""
    return [
        dict(r)
        for r in db.query(
            "SELECT v.entrant, v.sha256 FROM versions v JOIN ladder_bots b "
            "ON v.bot_id = b.id WHERE b.name = ? ORDER BY v.id",
            [bot],
        )
    ]
