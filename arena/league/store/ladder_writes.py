"""Everything the arena writes for a ladder (docs/ladder.md), each write in one
transaction: the ladder and its backing league, authors, bots, versions and their
states, the matches the matchmaker chose, and the ratings versions stand at.

A ladder's played matches are stored by `store_match` into its backing league, like
any league's; what is written here is what only a ladder has.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from typing import Any

import sqlite_utils

from arena.errors import ConfigError
from arena.league.store.transactions import immediate
from arena.league.store.writes import _writing
from arena.play.deal_keys import new_deal_key

LADDER_SCHEDULE = "ladder"  # the schedule a ladder's backing league is stored with
HOUSE = "house"  # the author house bots are shown under; no token belongs to it


@_writing("the ladder")
def create_ladder(
    db: sqlite_utils.Database,
    *,
    name: str,
    game: str,
    settings: dict[str, Any],
    locked: dict[str, Any],
    file: str,
    store: str,
    deal_key: str = "",
) -> int:
    """A new ladder and the league row that will hold its matches; ConfigError when a
    league or ladder of that name is in the database already (one name space: the
    site and `arena table --league` read a ladder's games under its name)."""
    with immediate(db):
        if db.execute("SELECT 1 FROM leagues WHERE name = ?", [name]).fetchone():
            kind = (
                "a ladder"
                if db.execute("SELECT 1 FROM ladders WHERE name = ?", [name]).fetchone()
                else "a league"
            )
            raise ConfigError(
                f"this database holds {kind} named {name!r} already: `arena ladder run` "
                "goes on with a stored ladder (no init needed), or give [ladder] name "
                "another name"
            )
        now = time.time()
        league_id = (
            db["leagues"]
            .insert(
                {
                    "name": name,
                    "game": game,
                    "settings": json.dumps(locked),
                    "file": file,
                    "created_at": now,
                    "deal_key": deal_key or new_deal_key(),
                }
            )
            .last_pk
        )
        return (
            db["ladders"]
            .insert(
                {
                    "name": name,
                    "game": game,
                    "settings": json.dumps(settings),
                    "file": file,
                    "store": store,
                    "league_id": league_id,
                    "created_at": now,
                }
            )
            .last_pk
        )


@_writing("the ladder's settings")
def update_ladder_settings(
    db: sqlite_utils.Database, ladder_id: int, settings: dict[str, Any], file: str
) -> None:
    """The settings a ladder runs with from now on (`arena ladder init` of a changed
    file: matchmaking, gate, promotion, health and limits may change; game, seed and
    rules may not, which the caller checks)."""
    with immediate(db):
        db.execute(
            "UPDATE ladders SET settings = ?, file = ? WHERE id = ?",
            [json.dumps(settings), file, ladder_id],
        )


@_writing("the ladder")
def freeze_ladder(db: sqlite_utils.Database, ladder_id: int) -> bool:
    """Stop submissions and promotions; False when it was frozen already."""
    with immediate(db):
        cursor = db.execute(
            "UPDATE ladders SET frozen_at = ? WHERE id = ? AND frozen_at IS NULL",
            [time.time(), ladder_id],
        )
        return cursor.rowcount > 0


@_writing("the author")
def add_author(db: sqlite_utils.Database, ladder_id: int, name: str, token_hash: str) -> int:
    """A new author with the hash of their token; ConfigError when the name is taken."""
    with immediate(db):
        if db.execute(
            "SELECT 1 FROM authors WHERE ladder_id = ? AND name = ?", [ladder_id, name]
        ).fetchone():
            raise ConfigError(
                f"an author named {name!r} exists already in this ladder: choose another "
                "name (a lost token cannot be shown again; `arena ladder author revoke` "
                "it and add the author under a new name)"
            )
        return (
            db["authors"]
            .insert(
                {
                    "ladder_id": ladder_id,
                    "name": name,
                    "token_hash": token_hash,
                    "created_at": time.time(),
                }
            )
            .last_pk
        )


@_writing("the author")
def revoke_author(db: sqlite_utils.Database, author_id: int) -> None:
    """The author's token stops working; their bots and versions stay as they are."""
    with immediate(db):
        db.execute(
            "UPDATE authors SET revoked_at = ?, token_hash = NULL WHERE id = ?",
            [time.time(), author_id],
        )


@_writing("a version")
def add_version(
    db: sqlite_utils.Database,
    *,
    ladder_id: int,
    league_id: int,
    bot: str,
    author_id: int | None,
    sha256: str,
    command: str,
    folder: str,
    state: str,
    start_mu: float,
    reason: str = "",
) -> tuple[int, int, bool]:
    """A new immutable version of `bot` (made, owned by `author_id`, when new): (its
    id, its number, True); or, when a version of the bot has these files and this
    command already, (that version's id, its number, False) and nothing is written.
    ConfigError when the bot belongs to another author."""
    with immediate(db):
        row = db.execute(
            "SELECT id, author_id FROM ladder_bots WHERE ladder_id = ? AND name = ?",
            [ladder_id, bot],
        ).fetchone()
        now = time.time()
        if row is None:
            bot_id = (
                db["ladder_bots"]
                .insert(
                    {
                        "ladder_id": ladder_id,
                        "name": bot,
                        "author_id": author_id,
                        "created_at": now,
                    }
                )
                .last_pk
            )
        else:
            bot_id, owner = row
            if owner != author_id:
                raise ConfigError(
                    f"the bot name {bot!r} belongs to another author: a bot name is its "
                    "first author's; submit under another name"
                )
            same = db.execute(
                "SELECT id, number FROM versions WHERE bot_id = ? AND sha256 = ? AND command = ?",
                [bot_id, sha256, command],
            ).fetchone()
            if same is not None:
                return same[0], same[1], False
        number = (
            db.execute(
                "SELECT COALESCE(MAX(number), 0) FROM versions WHERE bot_id = ?", [bot_id]
            ).fetchone()[0]
            + 1
        )
        entrant = f"{bot}@{number}"
        version_id = (
            db["versions"]
            .insert(
                {
                    "ladder_id": ladder_id,
                    "bot_id": bot_id,
                    "number": number,
                    "entrant": entrant,
                    "sha256": sha256,
                    "command": command,
                    "folder": folder,
                    "state": state,
                    "reason": reason,
                    "created_at": now,
                    "changed_at": now,
                    "start_mu": start_mu,
                    "games": 0,
                }
            )
            .last_pk
        )
        position = db.execute(
            "SELECT COALESCE(MAX(position), -1) + 1 FROM entrants WHERE league_id = ?",
            [league_id],
        ).fetchone()[0]
        db["entrants"].insert(
            {"league_id": league_id, "name": entrant, "bot": command, "position": position}
        )
        db["version_events"].insert(
            {"version_id": version_id, "at": now, "state": state, "reason": reason}
        )
        return version_id, number, True


@_writing("a version's state")
def set_states(
    db: sqlite_utils.Database, changes: Iterable[tuple[int, str, str]], *, in_transaction=False
) -> None:
    """Each (version id, new state, reason) written with its event, all together."""

    def write() -> None:
        now = time.time()
        for version_id, state, reason in changes:
            db.execute(
                "UPDATE versions SET state = ?, reason = ?, changed_at = ? WHERE id = ?",
                [state, reason, now, version_id],
            )
            db["version_events"].insert(
                {"version_id": version_id, "at": now, "state": state, "reason": reason}
            )

    if in_transaction:
        write()
        return
    with immediate(db):
        write()


@_writing("the gate's report")
def set_gate_report(
    db: sqlite_utils.Database, version_id: int, report: dict[str, Any], state: str, reason: str
) -> None:
    """The gate's whole report, and the state it leads to, in one transaction."""
    with immediate(db):
        db.execute(
            "UPDATE versions SET gate_report = ? WHERE id = ?", [json.dumps(report), version_id]
        )
        set_states(db, [(version_id, state, reason)], in_transaction=True)


@_writing("a chosen match")
def queue_matches(
    db: sqlite_utils.Database, ladder_id: int, rows: Sequence[dict[str, Any]]
) -> None:
    """Matches the matchmaker chose, before any is given out: a run killed now plays
    them again when it resumes."""
    with immediate(db):
        now = time.time()
        db["ladder_matches"].insert_all(
            {**row, "ladder_id": ladder_id, "state": "queued", "chosen_at": now} for row in rows
        )


def ladder_match_stored(
    db: sqlite_utils.Database,
    ladder: Any,
    idx: int,
    ratings: Sequence[tuple[str, float, float, int]],
    history: Sequence[dict[str, Any]],
) -> None:
    """Inside `store_match`'s transaction: the chosen match is stored, the versions'
    ratings and game counts (entrant, mu, sigma, games) are what it made them, and the
    rating history of its entrants has its rows, so a run killed after it keeps all
    or none. `ladder` is the opened ladder (its `id` and `league_id`)."""
    db.execute(
        "UPDATE ladder_matches SET state = 'stored' WHERE ladder_id = ? AND idx = ?",
        [ladder.id, idx],
    )
    db.conn.executemany(
        "UPDATE versions SET mu = ?, sigma = ?, games = ? WHERE ladder_id = ? AND entrant = ?",
        [(mu, sigma, games, ladder.id, entrant) for entrant, mu, sigma, games in ratings],
    )
    db["ratings"].insert_all({"league_id": ladder.league_id, **row} for row in history)


@_writing("a chosen match")
def drop_matches(db: sqlite_utils.Database, ladder_id: int, indexes: Iterable[int]) -> None:
    """Chosen matches that will not be played (a version in them left the ladder)."""
    with immediate(db):
        db.conn.executemany(
            "UPDATE ladder_matches SET state = 'dropped' WHERE ladder_id = ? AND idx = ? "
            "AND state = 'queued'",
            [(ladder_id, idx) for idx in indexes],
        )


# -- test matches (docs/ladder.md, "Test matches") ------------------------------------

TESTS_SUFFIX = " tests"  # the tests league of ladder "spring" is "spring tests"
REQUEST_WINDOW = 3600.0  # seconds: `[tests] per_hour` counts the requests of the last hour


def _tests_league(db: sqlite_utils.Database, ladder_id: int) -> int:
    """The league row that holds the ladder's test matches (inside a transaction), made
    the first time: the ladder's own league's game, settings (with `tests_of`, the
    ladder's name), file and deal key under the name "<ladder> tests". ConfigError when
    another league has that name."""
    row = db.execute(
        "SELECT l.tests_league_id, l.name, g.game, g.settings, g.file, g.deal_key "
        "FROM ladders l JOIN leagues g ON l.league_id = g.id WHERE l.id = ?",
        [ladder_id],
    ).fetchone()
    tests_id, name, game, settings, file, deal_key = row
    if tests_id is not None:
        return tests_id
    league = name + TESTS_SUFFIX
    if db.execute("SELECT 1 FROM leagues WHERE name = ?", [league]).fetchone():
        raise ConfigError(
            f"this database holds a league named {league!r}, the name the test matches of "
            f"ladder {name!r} are stored under: rename that league (or give the ladder "
            "another name) to take test matches"
        )
    tests_id = (
        db["leagues"]
        .insert(
            {
                "name": league,
                "game": game,
                "settings": json.dumps({**json.loads(settings), "tests_of": name}),
                "file": file,
                "created_at": time.time(),
                "deal_key": deal_key,
            }
        )
        .last_pk
    )
    db.execute("UPDATE ladders SET tests_league_id = ? WHERE id = ?", [tests_id, ladder_id])
    return tests_id


@_writing("a test match")
def queue_test_match(
    db: sqlite_utils.Database,
    *,
    ladder_id: int,
    author_id: int,
    entrant: str,
    opponents: Sequence[str],
    seed_prefix: str,
    per_hour: int,
    now: float,
) -> int | None:
    """A test match the author asked for, queued (the ladder's tests league made when
    this is the first): its id. None, and nothing written, when the author has asked for
    `per_hour` test matches already in the hour before `now` (counted and written in one
    transaction, so two requests at once cannot both pass). Its public seed is
    `seed_prefix` followed by its id."""
    with immediate(db):
        asked = db.execute(
            "SELECT COUNT(*) FROM test_matches WHERE ladder_id = ? AND author_id = ? "
            "AND requested_at > ?",
            [ladder_id, author_id, now - REQUEST_WINDOW],
        ).fetchone()[0]
        if asked >= per_hour:
            return None
        _tests_league(db, ladder_id)
        test_id = (
            db["test_matches"]
            .insert(
                {
                    "ladder_id": ladder_id,
                    "author_id": author_id,
                    "entrant": entrant,
                    "opponents": json.dumps(list(opponents)),
                    "requested_at": now,
                    "state": "queued",
                    "reason": "asked for by its author",
                }
            )
            .last_pk
        )
        db.execute(
            "UPDATE test_matches SET seed = ? WHERE id = ?", [f"{seed_prefix}{test_id}", test_id]
        )
        return test_id


@_writing("a test match")
def test_match_given(db: sqlite_utils.Database, ladder_id: int, test_id: int, idx: int) -> None:
    """The run gives test match `test_id` to a worker as match `idx` (an index of the
    ladder's one counter, never a rated match's): written before the worker has it, so
    a run killed now plays it again, as match `idx`, when it resumes."""
    with immediate(db):
        db.execute(
            "UPDATE test_matches SET state = 'playing', idx = ?, started_at = ? "
            "WHERE ladder_id = ? AND id = ? AND state IN ('queued', 'playing')",
            [idx, time.time(), ladder_id, test_id],
        )


def test_match_stored(
    db: sqlite_utils.Database, ladder_id: int, league_id: int, test_id: int, entrants: Sequence[str]
) -> None:
    """Inside `store_match`'s transaction (into the tests league `league_id`): the test
    match is stored, and its versions are entrants of the tests league (so the league's
    reading commands name them), all or none with its games."""
    db.execute(
        "UPDATE test_matches SET state = 'stored', reason = 'played', finished_at = ? "
        "WHERE ladder_id = ? AND id = ?",
        [time.time(), ladder_id, test_id],
    )
    for name in entrants:
        db.execute(
            """INSERT INTO entrants (league_id, name, bot, position)
               SELECT ?, v.entrant, v.command,
                      (SELECT COALESCE(MAX(position), -1) + 1 FROM entrants WHERE league_id = ?)
               FROM versions v WHERE v.ladder_id = ? AND v.entrant = ?
               AND NOT EXISTS (SELECT 1 FROM entrants e WHERE e.league_id = ? AND e.name = ?)""",
            [league_id, league_id, ladder_id, name, league_id, name],
        )


@_writing("a test match")
def mark_tests_stored(db: sqlite_utils.Database, ladder_id: int, test_ids: Iterable[int]) -> None:
    """Test matches whose games are stored but whose row says otherwise (a database
    written by hand, or a run of an arena that crashed between the two): stored."""
    with immediate(db):
        db.conn.executemany(
            "UPDATE test_matches SET state = 'stored', reason = 'played' "
            "WHERE ladder_id = ? AND id = ?",
            [(ladder_id, test_id) for test_id in test_ids],
        )


@_writing("a test match")
def drop_test_matches(
    db: sqlite_utils.Database, ladder_id: int, dropped: Iterable[tuple[int, str]]
) -> None:
    """Test matches that will not be played, each (id, why): a version in it left the
    ladder, or it took its worker down too often. A stored one stays stored."""
    with immediate(db):
        db.conn.executemany(
            "UPDATE test_matches SET state = 'dropped', reason = ? WHERE ladder_id = ? "
            "AND id = ? AND state IN ('queued', 'playing')",
            [(reason, ladder_id, test_id) for test_id, reason in dropped],
        )


# Functions named test_... are no tests: pytest leaves them alone where a test imports them.
test_match_given.__test__ = False  # type: ignore[attr-defined]
test_match_stored.__test__ = False  # type: ignore[attr-defined]
