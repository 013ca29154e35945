"""Everything the arena reads from a league database: every query in one place.

The tables, the rating inputs, fault reports and game lists are built from these
functions; nothing outside `arena.league.store` holds SQL.
"""

from __future__ import annotations

import json
from typing import Any

import sqlite_utils

from arena.errors import ConfigError
from arena.league.definition.config import LockedSettings
from arena.league.definition.records import GameOutcome, MatchOutcome, PlayedGame
from arena.league.store.compaction import deal_score_rows
from arena.league.store.replay_codec import unpack_replay


def stored_match_indexes(db: sqlite_utils.Database, league_id: int) -> set[int]:
    return {
        row["idx"] for row in db.query("SELECT idx FROM matches WHERE league_id = ?", [league_id])
    }


def league_id_by_name(db: sqlite_utils.Database, name: str | None) -> tuple[int, str]:
    """The league called `name`, or the only (or latest) league when no name is given."""
    if "leagues" not in db.table_names():
        raise ConfigError("this database holds no league yet: run `arena run LEAGUE.toml` first")
    if name:
        rows = list(db["leagues"].rows_where("name = ?", [name]))
        if not rows:
            known = ", ".join(r["name"] for r in db["leagues"].rows) or "none"
            raise ConfigError(f"no league named {name!r} in this database; leagues: {known}")
        return rows[0]["id"], rows[0]["name"]
    rows = sorted(  # the latest league; a ladder's (docs/ladder.md) only when nothing else
        db["leagues"].rows_where(order_by="id desc"),
        key=lambda r: json.loads(r["settings"]).get("schedule") == "ladder",
    )[:1]
    if not rows:
        raise ConfigError("this database holds no league yet: run `arena run LEAGUE.toml` first")
    return rows[0]["id"], rows[0]["name"]


def league_record(db: sqlite_utils.Database, league_id: int) -> tuple[str, LockedSettings]:
    """The league's game and the settings it was scheduled and rated with."""
    row = db["leagues"].get(league_id)
    return row["game"], json.loads(row["settings"])


def league_settings(db: sqlite_utils.Database) -> list[tuple[int, str, LockedSettings]]:
    """Every league of the database: its id, name and the settings it is stored with."""
    return [
        (row["id"], row["name"], json.loads(row["settings"]))
        for row in db.query("SELECT id, name, settings FROM leagues ORDER BY id")
    ]


def league_facts(db: sqlite_utils.Database, league_id: int) -> dict[str, Any]:
    """What a table says about its league: name, game, settings, file, the matches
    scheduled (None when not recorded), the matches stored, and when the last was."""
    row = db["leagues"].get(league_id)
    stored, last = db.execute(
        "SELECT COUNT(*), MAX(finished_at) FROM matches WHERE league_id = ?", [league_id]
    ).fetchone()
    return {
        "name": row["name"],
        "game": row["game"],
        "settings": json.loads(row["settings"]),
        "file": row["file"],
        "scheduled": row.get("scheduled_matches"),
        "stored": stored,
        "last_stored_at": last,
    }


def entrant_names(db: sqlite_utils.Database, league_id: int) -> list[str]:
    """The league's entrants in league-file order."""
    return [
        row["name"]
        for row in db.query(
            "SELECT name FROM entrants WHERE league_id = ? ORDER BY position", [league_id]
        )
    ]


def load_outcomes(
    db: sqlite_utils.Database, league_id: int, deals: bool = True
) -> dict[int, MatchOutcome]:
    """Every stored match's results, by schedule index: what the ratings are fed.
    Without `deals`, the games' totals and faults only (each game's `deals` left
    empty): enough for margins, and a league of 10,000 games reads it in a tenth of
    the time (its deal scores are 800,000 rows)."""
    matches = {
        match_id: (idx, json.loads(entrants))
        for match_id, idx, entrants in db.execute(
            "SELECT id, idx, entrants FROM matches WHERE league_id = ?", [league_id]
        )
    }
    placed = {  # game id -> (match idx, rotation): from the covering index alone
        game_id: (matches[match_id][0], rotation)
        for game_id, match_id, rotation in db.execute(
            "SELECT id, match_id, rotation FROM games WHERE league_id = ?", [league_id]
        )
    }
    results = sorted(
        (placed[game_id] + (seat,), game_id, entrant, total, faults)
        for game_id, seat, entrant, total, faults in db.execute(
            "SELECT game_id, seat, entrant, total, faults FROM results WHERE league_id = ?",
            [league_id],
        )
    )  # in schedule order: match, rotation, seat (three queries, no join to sort)
    outcomes: dict[int, MatchOutcome] = {}
    games: dict[int, GameOutcome] = {}
    by_idx = {idx: entrants for idx, entrants in matches.values()}
    for (idx, rotation, _), game_id, entrant, total, faults in results:
        match = outcomes.get(idx)
        if match is None:
            match = outcomes[idx] = MatchOutcome(idx, by_idx[idx])
        game = games.get(game_id)
        if game is None:
            game = games[game_id] = GameOutcome(rotation, {}, {})
            match.games.append(game)
        game.totals[entrant] = total
        game.faults[entrant] = faults
    if not deals:
        return outcomes
    deal_rows = sorted(
        (r["game_id"], r["deal"], r["seat"], r["entrant"], r["score"])
        for r in deal_score_rows(db, "g.league_id = ?", [league_id])
    )
    for game_id, deal, _, entrant, score in deal_rows:
        game = games[game_id]
        while len(game.deals) < deal:
            game.deals.append({})
        game.deals[deal - 1][entrant] = score
    return outcomes


def entrant_stats(db: sqlite_utils.Database, league_id: int) -> dict[str, dict[str, Any]]:
    """Per entrant: matches and games played, mean score per game, faults, and (from
    migration 7 on) the decisions it was asked and their wall and CPU milliseconds in
    all (NULL for bots inside the referee; CPU NULL where a bot had no cgroup)."""
    think = (
        ", SUM(asked) AS asked, SUM(think_wall_ms) AS think_wall_ms, "
        "CASE WHEN COUNT(think_cpu_ms) = COUNT(asked) THEN SUM(think_cpu_ms) END "
        "AS think_cpu_ms"
        if "think_wall_ms" in db["results"].columns_dict
        else ""
    )
    return {
        row["entrant"]: row
        for row in db.query(
            f"""SELECT entrant, COUNT(DISTINCT match_id) AS matches, COUNT(*) AS games,
                       AVG(total) AS mean_score, SUM(faults) AS faults{think}
                FROM results WHERE league_id = ? GROUP BY entrant""",
            [league_id],
        )
    }


def latest_ratings(db: sqlite_utils.Database, league_id: int) -> list[dict[str, Any]]:
    """Each entrant's last rating-history row: entrant, mu, sigma, match_idx. One
    lookup per entrant in the index by entrant and step (migration 8), where a
    grouping over the whole history read all of it (200,000 rows in a league of
    10,000 games rated per deal)."""
    out = []
    for name in entrant_names(db, league_id):
        row = db.execute(
            """SELECT mu, sigma, match_idx FROM ratings WHERE league_id = ? AND entrant = ?
               ORDER BY step DESC LIMIT 1""",
            [league_id, name],
        ).fetchone()
        if row is not None:
            out.append({"entrant": name, "mu": row[0], "sigma": row[1], "match_idx": row[2]})
    return out


def contract_means(db: sqlite_utils.Database, league_id: int) -> list[dict[str, Any]]:
    """Per entrant and contract (Trix): the mean deal score (from `entrant_contracts`,
    the sums kept as matches are stored)."""
    return list(
        db.query(
            """SELECT entrant, contract, CAST(score_sum AS REAL) / deals AS mean
               FROM entrant_contracts WHERE league_id = ? ORDER BY contract, entrant""",
            [league_id],
        )
    )


def strain_counts(db: sqlite_utils.Database, league_id: int) -> list[dict[str, Any]]:
    """Per entrant and strain (Trianon): the contracts declared and made."""
    return list(
        db.query(
            """SELECT entrant, contract, declared, made FROM entrant_contracts
               WHERE league_id = ? AND declared > 0 ORDER BY contract, entrant""",
            [league_id],
        )
    )


def fault_records(
    db: sqlite_utils.Database, league_id: int, entrant: str | None = None
) -> list[dict[str, Any]]:
    """The league's faults in playing order (match, rotation, fault), optionally of one
    entrant, each with its match index, rotation and the league's game."""
    where, params = "f.league_id = ?", [league_id]
    if entrant is not None:
        where += " AND f.entrant = ?"
        params.append(entrant)
    return list(
        db.query(
            f"""SELECT f.*, m.idx AS match_idx, g.rotation, l.game AS game_name
                FROM faults f JOIN games g ON f.game_id = g.id
                JOIN matches m ON f.match_id = m.id JOIN leagues l ON f.league_id = l.id
                WHERE {where} ORDER BY m.idx, g.rotation, f.id""",
            params,
        )
    )


def game_records(db: sqlite_utils.Database, league_id: int | None = None) -> list[dict[str, Any]]:
    """Stored games (of one league, or of all), by id: league, the game's number in its
    league's schedule (match index * games per match + rotation + 1), match, rotation,
    seed, players, totals and ranks."""
    where, params = ("WHERE g.league_id = ?", [league_id]) if league_id is not None else ("", [])
    return [
        {
            "id": r["id"],
            "league": r["league"],
            "number": (
                None if r["per_match"] is None else r["idx"] * r["per_match"] + r["rotation"] + 1
            ),
            "match": r["idx"],
            "rotation": r["rotation"],
            "seed": r["seed"],
            "players": json.loads(r["players"]),
            "totals": json.loads(r["totals"]),
            "ranks": json.loads(r["ranks"]),
        }
        for r in db.query(
            "SELECT g.id, g.rotation, g.seed, g.players, g.totals, g.ranks, m.idx, "
            "l.name AS league, l.games_per_match AS per_match FROM games g "
            "JOIN matches m ON g.match_id = m.id JOIN leagues l ON g.league_id = l.id "
            f"{where} ORDER BY g.id",
            params,
        )
    ]


def game_replay(db: sqlite_utils.Database, game_id: int) -> dict[str, Any] | None:
    """A stored game's replay, or None when there is no such game."""
    if "games" not in db.table_names():
        return None
    rows = list(db.query("SELECT replay FROM games WHERE id = ?", [game_id]))
    return unpack_replay(rows[0]["replay"]) if rows else None


def stored_deal_key(db: sqlite_utils.Database, league_id: int) -> str:
    """The key the league's deals come from; "" for a league stored before keys
    existed (its deals come from its public seeds, arena/play/deal_keys.py)."""
    row = db.execute("SELECT deal_key FROM leagues WHERE id = ?", [league_id]).fetchone()
    return (row[0] if row else None) or ""


def match_records(
    db: sqlite_utils.Database, league_id: int, latest: int | None = None
) -> list[dict[str, Any]]:
    """The league's stored matches in schedule order: idx, entrants (a list), seconds,
    games, finished_at, worker (migration 9: who played it) and overload_replays (0 for
    matches stored before migration 7). With `latest`, only the last `latest` of them,
    newest first: read backwards by the index of matches by league and index, where
    all of them are read otherwise (a page's latest matches of a league of millions)."""
    replays = (
        "COALESCE(overload_replays, 0)" if "overload_replays" in db["matches"].columns_dict else "0"
    )
    order = "ORDER BY idx" if latest is None else "ORDER BY idx DESC LIMIT ?"
    params = [league_id] if latest is None else [league_id, int(latest)]
    return [
        {**row, "entrants": json.loads(row["entrants"])}
        for row in db.query(
            f"""SELECT idx, entrants, seconds, games, finished_at, worker,
                       {replays} AS overload_replays
                FROM matches WHERE league_id = ? {order}""",
            params,
        )
    ]


def played_games(db: sqlite_utils.Database, league_id: int) -> dict[int, list[PlayedGame]]:
    """The league's stored games as a worker returned them, by match index and in
    rotation order: what the result check reads again (`arena bench cluster`)."""
    out: dict[int, list[PlayedGame]] = {}
    for row in db.query(
        "SELECT m.idx, g.rotation, g.players, g.decisions, g.replay FROM games g "
        "JOIN matches m ON g.match_id = m.id WHERE g.league_id = ? ORDER BY m.idx, g.rotation",
        [league_id],
    ):
        out.setdefault(row["idx"], []).append(
            PlayedGame(
                row["rotation"],
                tuple(json.loads(row["players"])),
                unpack_replay(row["replay"]),
                row["decisions"],
            )
        )
    return out
