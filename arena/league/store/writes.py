"""Everything the arena writes to a league database, each write in one transaction.

Each match is written whole or not at all, so a run killed at any moment leaves every
match either stored or absent, and a resumed run plays exactly the missing ones.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

import sqlite_utils

from arena.errors import ConfigError, StorageError
from arena.games import get_game
from arena.league.definition.config import LeagueConfig
from arena.league.definition.records import PlayedGame, PlayedMatch
from arena.league.store.compaction import write_deals
from arena.league.store.replay_codec import pack_replay
from arena.league.store.schema import schedule_shape
from arena.league.store.transactions import immediate
from arena.play.deal_keys import deal_key_problem, key_fingerprint, new_deal_key

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
    """The league's id; a stored league whose locked settings differ is refused.

    A new league records the size of its schedule and reserves an id for each of its
    games (`first_game_id`, migration 5); a league stored before migration 4 whose size
    was not known gets it recorded here."""
    settings = config.locked_settings()
    rows = list(db["leagues"].rows_where("name = ?", [config.name]))
    if rows:
        league_id = rows[0]["id"]
        _check_deal_key(config, rows[0].get("deal_key"))
        _free_bad_key(db, config, league_id, rows[0].get("deal_key"))
        stored = json.loads(rows[0]["settings"])
        grown = _grown(config, stored, settings)
        if grown is not None:
            settings["history"] = grown
        else:
            settings["history"] = stored.get("history", [])
        shape = schedule_shape(config.game, settings)
        scheduled, per_match = shape if shape is not None else (None, None)
        with immediate(db):  # bot commands may change between runs: keep them current
            known = {
                row["name"]
                for row in db.query("SELECT name FROM entrants WHERE league_id = ?", [league_id])
            }
            for position, entrant in enumerate(config.entrants):
                if entrant.name not in known:  # an entrant the league grew by
                    db["entrants"].insert(
                        {
                            "league_id": league_id,
                            "name": entrant.name,
                            "bot": entrant.bot,
                            "position": position,
                        }
                    )
                db.execute(
                    "UPDATE entrants SET bot = ? WHERE league_id = ? AND name = ?",
                    [entrant.bot, league_id, entrant.name],
                )
            if grown is not None:
                db.execute(
                    "UPDATE leagues SET settings = ?, scheduled_matches = ? WHERE id = ?",
                    [json.dumps(settings), scheduled, league_id],
                )
            db.execute(
                "UPDATE leagues SET scheduled_matches = ?, games_per_match = ? "
                "WHERE id = ? AND scheduled_matches IS NULL",
                [scheduled, per_match, league_id],
            )
        return league_id
    shape = schedule_shape(config.game, settings)
    scheduled, per_match = shape if shape is not None else (None, None)
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
                    "scheduled_matches": scheduled,
                    "games_per_match": per_match,
                    "first_game_id": _next_free_game_id(db) if shape is not None else None,
                    "deal_key": config.deal_key or new_deal_key(),
                }
            )
            .last_pk
        )
        db["entrants"].insert_all(
            {"league_id": league_id, "name": e.name, "bot": e.bot, "position": i}
            for i, e in enumerate(config.entrants)
        )
    return league_id


def _check_deal_key(config: LeagueConfig, stored: str | None) -> None:
    """A league file that names a deal key must name the stored one: another key would
    deal the rest of the league from other cards than its first matches. A stored key
    that is not a valid key (an odd number of digits, stored by an arena that did not
    check) dealt nothing: the file's key, or a fresh one, takes its place
    (`_free_bad_key`)."""
    if not config.deal_key or config.deal_key == stored:
        return
    if stored and deal_key_problem(stored):
        return
    if stored is None:
        raise ConfigError(
            f"league {config.name!r} was stored before deal keys existed and deals from "
            f"its public seeds: {_drop_key(config)} to resume it, or "
            "give the league another name to play it from a key"
        )
    raise ConfigError(
        f"league {config.name!r} is stored with another deal key (its fingerprint is "
        f"{key_fingerprint(stored)}, the file's {key_fingerprint(config.deal_key)}): "
        f"{_drop_key(config)} to go on with the stored one (`arena league "
        "key` shows it), or give the league another name"
    )


def _drop_key(config: LeagueConfig) -> str:
    """How to stop giving a key, said for where the key came from: a league file's
    `deal_key`, or `arena play --deal-key` (whose config has no file of its own)."""
    if config.path.suffix == ".toml":
        return f"remove deal_key from the league file {config.path}"
    return "leave out --deal-key"


def _free_bad_key(
    db: sqlite_utils.Database, config: LeagueConfig, league_id: int, stored: str | None
) -> None:
    """Replace a stored deal key that no game can be dealt from (an odd number of hex
    digits, which an older arena stored before it failed): no match of the league can
    have been stored with it, so the league takes the file's key or a fresh one and
    plays, instead of being stuck under its name."""
    if not stored or deal_key_problem(stored) is None:
        return
    with immediate(db):
        played = db.execute(
            "SELECT COUNT(*) FROM matches WHERE league_id = ?", [league_id]
        ).fetchone()[0]
        if played:
            raise ConfigError(
                f"league {config.name!r} is stored with a deal key that is not valid "
                f"({deal_key_problem(stored)}) and has {played} matches: give the league "
                "another name"
            )
        db.execute(
            "UPDATE leagues SET deal_key = ? WHERE id = ?",
            [config.deal_key or new_deal_key(), league_id],
        )


GROWABLE = ("entrants", "rounds", "matches")  # what a stored league may add to


def _grown(
    config: LeagueConfig, stored: dict[str, Any], settings: dict[str, Any]
) -> list[dict[str, Any]] | None:
    """The league's sizes before this one, oldest first, when the file grows a stored
    league (new entrants at the end, more rounds or matches); None when it is the same
    size. ConfigError when a change would invalidate the stored matches."""
    for key in settings:
        if key in GROWABLE or stored.get(key) == settings[key]:
            continue
        raise ConfigError(
            f"league {config.name!r} is already in the database with {key} = "
            f"{stored.get(key)!r}, but {config.path.name} now says {settings[key]!r}. "
            f"Changing {key} would change the schedule, the rules or the ratings of "
            "the stored matches: restore it, or give the league a new name (or use "
            "another --db). A league can grow: add entrants at the end, or more rounds "
            "or matches."
            + (
                " The stored league's ratings can be rated again by the default feeding "
                "with `arena upgrade --rerate`."
                if key == "rate_by"
                else ""
            )
        )
    old, new = stored["entrants"], settings["entrants"]
    if new[: len(old)] != old:
        removed = [name for name in old if name not in new]
        problem = f"drops {', '.join(map(repr, removed))}" if removed else "reorders them"
        raise ConfigError(
            f"league {config.name!r} is already in the database with the entrants "
            f"{old!r}; {config.path.name} {problem}, and its stored matches would no longer "
            "be its schedule's: keep the stored entrants, in their order (new ones may be "
            "added at the end), or give the league a new name"
        )
    for key in ("rounds", "matches"):
        if key in settings and settings[key] < stored.get(key, settings[key]):
            raise ConfigError(
                f"league {config.name!r} is already in the database with {key} = "
                f"{stored[key]}; {config.path.name} says {settings[key]}, fewer: stored "
                f"matches would fall outside its schedule. A league can only grow: give "
                f"{key} = {stored[key]} or more"
            )
    if all(stored.get(key) == settings.get(key) for key in GROWABLE):
        return None
    step = {key: stored[key] for key in GROWABLE if key in stored}
    return [*stored.get("history", []), step]


def _next_free_game_id(db: sqlite_utils.Database) -> int:
    """The lowest game id above every stored game and every league's reserved ids."""
    used = db.execute("SELECT COALESCE(MAX(id), 0) FROM games").fetchone()[0]
    reserved = db.execute(
        "SELECT COALESCE(MAX(first_game_id + scheduled_matches * games_per_match - 1), 0) "
        "FROM leagues WHERE first_game_id IS NOT NULL"
    ).fetchone()[0]
    return max(used, reserved) + 1


def _game_id(
    db: sqlite_utils.Database, league: dict[str, Any], match_index: int, rotation: int
) -> int:
    """A game's id: its place in the league's reserved ids (match index, then rotation),
    so the same league stores the same ids however its matches finish or resume; a
    league stored before migration 5 has no reserved ids and takes the next free one."""
    first, scheduled, per_match = (
        league["first_game_id"],
        league["scheduled_matches"],
        league["games_per_match"],
    )
    if first is not None and match_index < scheduled and rotation < per_match:
        return first + match_index * per_match + rotation
    return _next_free_game_id(db)


@_writing("a match")
def store_match(
    db: sqlite_utils.Database,
    league_id: int,
    match: PlayedMatch,
    also: Callable[[sqlite_utils.Database], None] | None = None,
) -> bool:
    """Write one played match in one transaction: it is either all stored or not at all.
    False, and nothing written, when the league has that match index stored already
    (a match a cluster played twice is stored once). `also` writes, in the same
    transaction, what a competition keeps beside the match (a ladder: the versions'
    ratings), so that a run killed at any moment keeps both or neither."""
    with immediate(db):
        already = db.execute(
            "SELECT 1 FROM matches WHERE league_id = ? AND idx = ?", [league_id, match.index]
        ).fetchone()
        if already:
            return False
        league = db["leagues"].get(league_id)
        match_id = _insert_match(db, league_id, match)
        for game in match.games:
            game_id = _game_id(db, league, match.index, game.rotation)
            _insert_game(db, game, game_id=game_id, match_id=match_id, league_id=league_id)
        if "live_matches" in db.table_names():  # stored: no longer in flight
            db.execute(
                "DELETE FROM live_matches WHERE league_id = ? AND idx = ?",
                [league_id, match.index],
            )
        if also is not None:
            also(db)
    return True


def _insert_match(db: sqlite_utils.Database, league_id: int, match: PlayedMatch) -> int:
    """The match's row; its id."""
    return (
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
                "overload_replays": match.overload_replays,
                "worker": match.worker or None,
            }
        )
        .last_pk
    )


def _insert_game(
    db: sqlite_utils.Database, game: PlayedGame, *, game_id: int, match_id: int, league_id: int
) -> None:
    """One game of a match: its row and replay, each seat's result, each deal's
    scores (and the per-contract sums), and its faults."""
    replay = game.replay
    players = list(game.players)  # entrant names by seat
    db["games"].insert(
        {
            "id": game_id,
            "league_id": league_id,
            "match_id": match_id,
            "rotation": game.rotation,
            "seed": replay["seed"],
            "players": json.dumps(players),
            "totals": json.dumps(replay["totals"]),
            "ranks": json.dumps(replay["ranks"]),
            "decisions": game.decisions,
            "replay": pack_replay(replay),
        }
    )
    ids = {"game_id": game_id, "match_id": match_id, "league_id": league_id}
    db["results"].insert_all(_result_rows(game, ids))
    rows = _deal_rows(game, game_id)
    write_deals(db, players, rows)
    _add_contract_sums(db, league_id, rows)
    db["faults"].insert_all(_fault_rows(game, ids))


def _result_rows(game: PlayedGame, ids: dict[str, int]) -> list[dict[str, Any]]:
    """Each seat's total, rank, charged faults and think time in one game."""
    replay, players = game.replay, list(game.players)
    fault_counts = [0] * len(players)
    for fault in game.faults():
        fault_counts[fault.seat] += fault.charged
    think = replay.get("think") or [None] * len(players)
    return [
        {
            **_think_columns(think[seat]),
            **ids,
            "seat": seat,
            "entrant": players[seat],
            "total": replay["totals"][seat],
            "rank": replay["ranks"][seat],
            "faults": fault_counts[seat],
        }
        for seat in range(len(players))
    ]


def _deal_rows(game: PlayedGame, game_id: int) -> list[dict[str, Any]]:
    """Each seat's score in each deal of one game, with the deal's contract (or
    strain) and whether the seat declared and made it."""
    replay, players = game.replay, list(game.players)
    engine = get_game(replay["game"])  # its declarations: the label, the declarer
    rows = []
    for deal in replay["deals"]:
        label = engine.deal_label(deal)
        declarer, made = engine.deal_declarer(deal)
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
    return rows


def _fault_rows(game: PlayedGame, ids: dict[str, int]) -> list[dict[str, Any]]:
    """Every fault of one game, with its entrant, as `arena faults` reads them."""
    return [
        {
            **ids,
            "entrant": fault.entrant,
            "seat": fault.seat,
            "deal": f["deal"],
            "kind": fault.kind,
            "detail": f["detail"],
            "decision": f.get("decision"),  # replays before these keys: NULL
            "event": f.get("event"),
            "expected": f.get("expected"),
            "got": f.get("got"),
            "log": f.get("log") or None,
        }
        for fault in game.faults()
        for f in [fault.record]
    ]


def _add_contract_sums(
    db: sqlite_utils.Database, league_id: int, rows: list[dict[str, Any]]
) -> None:
    """Add a game's deal scores to `entrant_contracts` (migration 8), in the match's
    transaction: the sums a table's per-contract column reads."""
    if "entrant_contracts" not in db.table_names():
        return
    sums: dict[tuple[str, str], list[int]] = {}
    for row in rows:
        entry = sums.setdefault((row["entrant"], row["contract"]), [0, 0, 0, 0])
        entry[0] += 1
        entry[1] += row["score"]
        entry[2] += row["declarer"]
        entry[3] += row["made"] or 0
    db.conn.executemany(
        """INSERT INTO entrant_contracts VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (league_id, entrant, contract) DO UPDATE SET
             deals = deals + excluded.deals, score_sum = score_sum + excluded.score_sum,
             declared = declared + excluded.declared, made = made + excluded.made""",
        [(league_id, e, c, *values) for (e, c), values in sums.items()],
    )


def _think_columns(times: dict[str, Any] | None) -> dict[str, Any]:
    """A seat's think time in `results`: decisions asked and their wall and CPU
    milliseconds in all (CPU NULL when any decision's is unknown: no cgroup)."""
    if not times:
        return {"asked": None, "think_wall_ms": None, "think_cpu_ms": None}
    cpu = times["cpu_ms"]
    return {
        "asked": len(times["wall_ms"]),
        "think_wall_ms": sum(times["wall_ms"]),
        "think_cpu_ms": None if any(c is None for c in cpu) else sum(cpu),
    }


@_writing("the ratings")
def replace_ratings(
    db: sqlite_utils.Database, league_id: int, rows: Iterable[dict[str, Any]]
) -> None:
    """Rewrite a league's rating history (it is a pure function of the stored results)."""
    with immediate(db):
        db.execute("DELETE FROM ratings WHERE league_id = ?", [league_id])
        db["ratings"].insert_all({"league_id": league_id, **row} for row in rows)


@_writing("the ratings")
def rerate_league(
    db: sqlite_utils.Database,
    league_id: int,
    settings: Mapping[str, Any],
    rows: Iterable[dict[str, Any]],
) -> None:
    """A league rated again (`arena upgrade --rerate`): its stored settings (which say
    how it is rated) and its rating history replaced together, in one transaction."""
    with immediate(db):
        db.execute(
            "UPDATE leagues SET settings = ? WHERE id = ?", [json.dumps(settings), league_id]
        )
        db.execute("DELETE FROM ratings WHERE league_id = ?", [league_id])
        db["ratings"].insert_all({"league_id": league_id, **row} for row in rows)


@_writing("the ratings")
def append_ratings(
    db: sqlite_utils.Database, league_id: int, rows: Iterable[dict[str, Any]]
) -> None:
    """Add rating-history rows (the updates of newly rated matches)."""
    with immediate(db):
        db["ratings"].insert_all({"league_id": league_id, **row} for row in rows)


@_writing("the matches in flight")
def mark_in_flight(
    db: sqlite_utils.Database, league_id: int, idx: int, entrants: Iterable[str], *, run_pid: int
) -> None:
    """Record that match `idx` is being played now (the web pages show it in flight);
    `store_match` of that match removes the row."""
    with immediate(db):
        db["live_matches"].upsert(
            {
                "league_id": league_id,
                "idx": idx,
                "entrants": json.dumps(list(entrants)),
                "started_at": time.time(),
                "run_pid": run_pid,
            },
            pk=("league_id", "idx"),
        )


@_writing("the matches in flight")
def clear_in_flight(db: sqlite_utils.Database, league_id: int, idx: int | None = None) -> None:
    """Forget match `idx` in flight (stored, or given up), or every one of the league's
    (a run starting or ending: none of its matches is being played any more)."""
    where, params = ("league_id = ?", [league_id])
    if idx is not None:
        where, params = where + " AND idx = ?", [league_id, idx]
    with immediate(db):
        db.execute(f"DELETE FROM live_matches WHERE {where}", params)
