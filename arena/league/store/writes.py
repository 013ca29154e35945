"""Everything the arena writes to a league database, each write in one transaction.

Each match is written whole or not at all, so a run killed at any moment leaves every
match either stored or absent, and a resumed run plays exactly the missing ones.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import sqlite_utils

from arena.errors import ConfigError, StorageError
from arena.games import get_game
from arena.league.config import LeagueConfig
from arena.league.records import PlayedMatch
from arena.league.store.schema import immediate

F = TypeVar("F", bound=Callable[..., Any])


def _writing(what: str) -> Callable[[F], F]:
    """A write whose failure in SQLite (a full disk, a read-only file, a lock not given
    up within the busy timeout) becomes a StorageError saying what could not be
    written; the transaction it was in is rolled back, so nothing half-written stays."""

    def wrap(write: F) -> F:
        @functools.wraps(write)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return write(*args, **kwargs)
            except sqlite3.OperationalError as err:
                raise StorageError(f"cannot write {what}: {err}") from None

        return run  # type: ignore[return-value]

    return wrap


@_writing("the league")
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
        with immediate(db):  # bot commands may change between runs: keep them current
            for entrant in config.entrants:
                db.execute(
                    "UPDATE entrants SET bot = ? WHERE league_id = ? AND name = ?",
                    [entrant.bot, league_id, entrant.name],
                )
        return league_id
    with immediate(db):
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


@_writing("a match")
def store_match(db: sqlite_utils.Database, league_id: int, match: PlayedMatch) -> None:
    """Write one played match in one transaction: it is either all stored or not at all."""
    with immediate(db):
        match_id = (
            db["matches"]
            .insert(
                {
                    "league_id": league_id,
                    "idx": match.index,
                    "seed": match.seed,
                    "entrants": json.dumps(list(match.entrants)),
                    "games": len(match.games),
                    "seconds": match.seconds,
                    "finished_at": time.time(),
                }
            )
            .last_pk
        )
        for game in match.games:
            replay = game.replay
            players = list(game.players)  # entrant names by seat
            game_id = (
                db["games"]
                .insert(
                    {
                        "league_id": league_id,
                        "match_id": match_id,
                        "rotation": game.rotation,
                        "seed": replay["seed"],
                        "players": json.dumps(players),
                        "totals": json.dumps(replay["totals"]),
                        "ranks": json.dumps(replay["ranks"]),
                        "decisions": game.decisions,
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


@_writing("the ratings")
def replace_ratings(
    db: sqlite_utils.Database, league_id: int, rows: Iterable[dict[str, Any]]
) -> None:
    """Rewrite a league's rating history (it is a pure function of the stored results)."""
    with immediate(db):
        db.execute("DELETE FROM ratings WHERE league_id = ?", [league_id])
        db["ratings"].insert_all({"league_id": league_id, **row} for row in rows)




@_writing("the ratings")
def append_ratings(
    db: sqlite_utils.Database, league_id: int, rows: Iterable[dict[str, Any]]
) -> None:
    """Add rating-history rows (the updates of newly rated matches)."""
    with immediate(db):
        db["ratings"].insert_all({"league_id": league_id, **row} for row in rows)
