"""League storage: one SQLite file, written with sqlite-utils.

WAL mode, and each match written in one transaction, so that a run killed at any
moment leaves every match either whole or absent. The schema is made by numbered
migrations recorded in `schema_migrations`; the README documents every table.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import sqlite_utils

from arena.errors import ConfigError
from arena.games import get_game
from arena.league.config import LeagueConfig


def _migration_1(db: sqlite_utils.Database) -> None:
    """The first schema: leagues, entrants, matches, games, results, deals, faults, ratings."""
    db["leagues"].create(
        {"id": int, "name": str, "game": str, "settings": str, "file": str, "created_at": float},
        pk="id",
        not_null={"name", "game", "settings"},
    )
    db["leagues"].create_index(["name"], unique=True)
    db["entrants"].create(
        {"id": int, "league_id": int, "name": str, "bot": str, "position": int},
        pk="id",
        foreign_keys=[("league_id", "leagues")],
    )
    db["entrants"].create_index(["league_id", "name"], unique=True)
    db["matches"].create(
        {
            "id": int,
            "league_id": int,
            "idx": int,
            "seed": str,
            "entrants": str,
            "games": int,
            "seconds": float,
            "finished_at": float,
        },  # fmt: skip
        pk="id",
        foreign_keys=[("league_id", "leagues")],
    )
    db["matches"].create_index(["league_id", "idx"], unique=True)
    db["games"].create(
        {
            "id": int,
            "league_id": int,
            "match_id": int,
            "rotation": int,
            "seed": str,
            "players": str,
            "totals": str,
            "ranks": str,
            "decisions": int,
            "replay": str,
        },  # fmt: skip
        pk="id",
        foreign_keys=[("league_id", "leagues"), ("match_id", "matches")],
    )
    db["games"].create_index(["match_id"])
    db["results"].create(
        {
            "game_id": int,
            "match_id": int,
            "league_id": int,
            "seat": int,
            "entrant": str,
            "total": int,
            "rank": int,
            "faults": int,
        },  # fmt: skip
        pk=("game_id", "seat"),
        foreign_keys=[("game_id", "games")],
    )
    db["results"].create_index(["league_id", "entrant"])
    db["results"].create_index(["match_id", "seat"])
    db["deal_scores"].create(
        {
            "game_id": int,
            "deal": int,
            "seat": int,
            "entrant": str,
            "contract": str,
            "score": int,
        },  # fmt: skip
        pk=("game_id", "deal", "seat"),
        foreign_keys=[("game_id", "games")],
    )
    db["faults"].create(
        {
            "id": int,
            "game_id": int,
            "match_id": int,
            "league_id": int,
            "entrant": str,
            "seat": int,
            "deal": int,
            "kind": str,
            "detail": str,
        },  # fmt: skip
        pk="id",
        foreign_keys=[("game_id", "games")],
    )
    db["faults"].create_index(["league_id", "entrant"])
    db["ratings"].create(
        {
            "league_id": int,
            "step": int,
            "match_idx": int,
            "rotation": int,
            "entrant": str,
            "mu": float,
            "sigma": float,
        },  # fmt: skip
        pk=("league_id", "step", "entrant"),
        foreign_keys=[("league_id", "leagues")],
    )


def _migration_2(db: sqlite_utils.Database) -> None:
    """Declarers: which seat declared a deal's contract and whether it was made (Trianon
    tables show contracts declared, made and failed per strain)."""
    db["deal_scores"].add_column("declarer", int)  # 1 for the declaring seat, else 0
    db["deal_scores"].add_column("made", int)  # on the declarer's row: 1 made, 0 failed


def _migration_3(db: sqlite_utils.Database) -> None:
    """Fault reports a bot author can act on (`arena faults`): the decision (the seat's
    n-th in its game), the replay event, what was expected, what came back, the log.

    Faults stored before this migration keep NULL in the new columns: their replays do
    not hold these facts, and guessing them would mislead."""
    for column, kind in (
        ("decision", int),
        ("event", int),
        ("expected", str),
        ("got", str),
        ("log", str),
    ):
        db["faults"].add_column(column, kind)


MIGRATIONS: list[tuple[int, str, Callable[[sqlite_utils.Database], None]]] = [
    (1, "leagues, entrants, matches, games, results, deal scores, faults, ratings", _migration_1),
    (2, "deal_scores.declarer and deal_scores.made", _migration_2),
    (3, "faults.decision, event, expected, got and log", _migration_3),
]


def open_db(path: str | Path) -> sqlite_utils.Database:
    """Open (creating if needed) a league database, in WAL mode, migrated to the latest."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite_utils.Database(path)
    except (OSError, sqlite3.Error) as err:
        raise ConfigError(
            f"cannot open the league database {path}: {err}; give --db the path of a file"
        ) from None
    try:
        db.conn.execute("PRAGMA busy_timeout=10000")
        tables = db.table_names()
        if tables and "schema_migrations" not in tables:
            db.close()  # someone else's database: adding the league tables would change it
            raise ConfigError(
                f"{path} is a SQLite database but not a league database (it has tables "
                f"{', '.join(sorted(tables)[:5])} and no schema_migrations): give --db the "
                "arena.db that `arena run` wrote, or a path where none exists yet"
            )
        db.conn.execute("PRAGMA journal_mode=WAL")
        db.conn.execute("PRAGMA synchronous=NORMAL")  # WAL: durable at checkpoints, never torn
        migrate(db)
    except sqlite3.DatabaseError as err:
        db.close()
        raise ConfigError(
            f"{path} is not a league database ({err}): give --db the arena.db that "
            "`arena run` wrote, or a path where none exists yet"
        ) from None
    return db


def migrate(db: sqlite_utils.Database) -> list[int]:
    """Apply the migrations not yet recorded; each in its own transaction."""
    if "schema_migrations" not in db.table_names():
        db["schema_migrations"].create(
            {"version": int, "name": str, "applied_at": float}, pk="version"
        )
    done = {row["version"] for row in db["schema_migrations"].rows}
    applied = []
    for version, name, apply in MIGRATIONS:
        if version in done:
            continue
        with db.atomic():
            apply(db)
            db["schema_migrations"].insert(
                {"version": version, "name": name, "applied_at": time.time()}
            )
        applied.append(version)
    return applied


def ensure_league(db: sqlite_utils.Database, config: LeagueConfig) -> int:
    """The league's id; a stored league whose locked settings differ is refused."""
    settings = config.locked_settings()
    rows = list(db["leagues"].rows_where("name = ?", [config.name]))
    if rows:
        stored = json.loads(rows[0]["settings"])
        for key in settings:
            if stored.get(key) != settings[key]:
                raise ConfigError(
                    f"league {config.name!r} is already in the database with {key} = "
                    f"{stored.get(key)!r}, but {config.path.name} now says {settings[key]!r}. "
                    f"Changing {key} would change the schedule, the rules or the ratings of "
                    "the stored matches: restore it, or give the league a new name (or use "
                    "another --db)."
                )
        league_id = rows[0]["id"]
        with db.atomic():  # bot commands may change between runs: keep them current
            for entrant in config.entrants:
                db.execute(
                    "UPDATE entrants SET bot = ? WHERE league_id = ? AND name = ?",
                    [entrant.bot, league_id, entrant.name],
                )
        return league_id
    with db.atomic():
        league_id = (
            db["leagues"]
            .insert(
                {
                    "name": config.name,
                    "game": config.game,
                    "settings": json.dumps(settings),
                    "file": str(config.path),
                    "created_at": time.time(),
                }
            )
            .last_pk
        )
        db["entrants"].insert_all(
            {"league_id": league_id, "name": e.name, "bot": e.bot, "position": i}
            for i, e in enumerate(config.entrants)
        )
    return league_id


def stored_match_indexes(db: sqlite_utils.Database, league_id: int) -> set[int]:
    return {
        row["idx"] for row in db.query("SELECT idx FROM matches WHERE league_id = ?", [league_id])
    }


def store_match(db: sqlite_utils.Database, league_id: int, match: dict[str, Any]) -> None:
    """Write one played match (as `arena.league.runner` reports it) in one transaction."""
    with db.atomic():
        match_id = (
            db["matches"]
            .insert(
                {
                    "league_id": league_id,
                    "idx": match["idx"],
                    "seed": match["seed"],
                    "entrants": json.dumps(match["entrants"]),
                    "games": len(match["games"]),
                    "seconds": match["seconds"],
                    "finished_at": time.time(),
                }
            )
            .last_pk
        )
        for game in match["games"]:
            replay = game["replay"]
            players = game["players"]  # entrant names by seat
            game_id = (
                db["games"]
                .insert(
                    {
                        "league_id": league_id,
                        "match_id": match_id,
                        "rotation": game["rotation"],
                        "seed": replay["seed"],
                        "players": json.dumps(players),
                        "totals": json.dumps(replay["totals"]),
                        "ranks": json.dumps(replay["ranks"]),
                        "decisions": game["decisions"],
                        "replay": json.dumps(replay, separators=(",", ":")),
                    }
                )
                .last_pk
            )
            fault_counts = [0] * len(players)
            for fault in replay["faults"]:
                fault_counts[fault["seat"]] += 1
            db["results"].insert_all(
                {
                    "game_id": game_id,
                    "match_id": match_id,
                    "league_id": league_id,
                    "seat": seat,
                    "entrant": players[seat],
                    "total": replay["totals"][seat],
                    "rank": replay["ranks"][seat],
                    "faults": fault_counts[seat],
                }
                for seat in range(len(players))
            )
            rows = []
            for deal in replay["deals"]:
                label = _deal_label(replay["game"], deal)
                declarer, made = _declarer(replay["game"], deal)
                for seat, score in enumerate(deal["scores"]):
                    rows.append(
                        {
                            "game_id": game_id,
                            "deal": deal["number"],
                            "seat": seat,
                            "entrant": players[seat],
                            "contract": label,
                            "score": score,
                            "declarer": int(seat == declarer),
                            "made": int(made) if seat == declarer else None,
                        }
                    )
            db["deal_scores"].insert_all(rows)
            db["faults"].insert_all(
                {
                    "game_id": game_id,
                    "match_id": match_id,
                    "league_id": league_id,
                    "entrant": players[f["seat"]],
                    "seat": f["seat"],
                    "deal": f["deal"],
                    "kind": f["kind"],
                    "detail": f["detail"],
                    "decision": f.get("decision"),  # replays before these keys: NULL
                    "event": f.get("event"),
                    "expected": f.get("expected"),
                    "got": f.get("got"),
                    "log": f.get("log") or None,
                }
                for f in replay["faults"]
            )


def _deal_label(game: str, deal: dict[str, Any]) -> str:
    """What a deal was played as: the Trix contract, or the Trianon strain ("H", "SS",
    "NT", ...) or "trianon" for an all-pass round."""
    label = get_game(game).deal_contract(deal)
    return label.lstrip("0123456789") if game == "trianon" else label


def _declarer(game: str, deal: dict[str, Any]) -> tuple[int, bool | None]:
    """The declaring seat and whether it made its contract (-1, None: no declarer)."""
    return get_game(game).deal_declarer(deal)


def replace_ratings(
    db: sqlite_utils.Database, league_id: int, rows: Iterable[dict[str, Any]]
) -> None:
    """Rewrite a league's rating history (it is a pure function of the stored results)."""
    with db.atomic():
        db.execute("DELETE FROM ratings WHERE league_id = ?", [league_id])
        db["ratings"].insert_all({"league_id": league_id, **row} for row in rows)


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
    rows = list(db["leagues"].rows_where(order_by="id desc", limit=1))
    if not rows:
        raise ConfigError("this database holds no league yet: run `arena run LEAGUE.toml` first")
    return rows[0]["id"], rows[0]["name"]
