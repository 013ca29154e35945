"""The read side of the ladder's JSON API, under `/api/v1`: the ladder, its table,
bots, versions, matches, the queue, games (each replay as the `arena-replay/1` JSON
`arena replay` reads) and faults. Every list is a page, `{"items": [...],
"next_cursor": ...}`, of at most `limit` items (default 50, at most 500); the next
page is asked with `cursor=` the `next_cursor` given, and the last page's is null.

Each route is a function of the open database, the ladder, the request's checked
query and its path's values, returning what is sent as JSON; `ROUTES` lists them with
the query parameters each takes, and arena/web/ladder/openapi.py describes every one
(a test holds the two together)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlite_utils

from arena.ladder.book import STATES, Ladder
from arena.league.store import game_replay
from arena.league.store.ladder_site_reads import game_league
from arena.web.ladder import data
from arena.web.ladder.params import BadRequest, Query
from arena.web.pages import NotFound

PREFIX = "/api/v1"
PAGE_PARAMS = ("cursor", "limit")


def _offset_page(items: list[Any], query: Query) -> dict[str, Any]:
    """A page of a list held whole (the table, the bots, the versions: one row a
    version): the cursor is the position of the next item."""
    start, limit = query.cursor() or 0, query.limit()
    page = items[start : start + limit]
    more = start + limit < len(items)
    return {"items": page, "next_cursor": str(start + limit) if more else None}


def ladder(db: sqlite_utils.Database, lad: Ladder, query: Query) -> dict[str, Any]:
    return data.about(db, lad)


def table(db: sqlite_utils.Database, lad: Ladder, query: Query) -> dict[str, Any]:
    return _offset_page(data.table(db, lad), query)


def bots(db: sqlite_utils.Database, lad: Ladder, query: Query) -> dict[str, Any]:
    return _offset_page(data.bots(db, lad), query)


def bot(db: sqlite_utils.Database, lad: Ladder, query: Query, name: str) -> dict[str, Any]:
    """A bot with its versions, its promotion tests, and its current version's margin
    against each opponent (as its page shows them)."""
    found = [b for b in data.bots(db, lad) if b["bot"] == name]
    if not found:
        raise NotFound(f"no bot named {name!r} on this ladder")
    versions = data.versions(db, lad, bot=name)
    stored = data.outcomes(db, lad)
    tests = data.promotion_tests(db, lad, stored)
    current = data.current(versions)
    return {
        **found[0],
        "version_list": versions,
        "promotion_tests": [tests[v["entrant"]] for v in versions if v["entrant"] in tests],
        "current": current["entrant"] if current else None,
        "opponents": data.opponents(stored, current["entrant"]) if current else [],
    }


def versions(db: sqlite_utils.Database, lad: Ladder, query: Query) -> dict[str, Any]:
    state = query.text("state")
    if state is not None and state not in STATES:
        raise BadRequest(f"state is one of {', '.join(STATES)}")
    name = query.text("bot")
    if name is not None and not data.versions(db, lad, bot=name):
        raise BadRequest(f"bot: no bot named {name[:80]!r} on this ladder")
    return _offset_page(data.versions(db, lad, bot=name, state=state), query)


def version(
    db: sqlite_utils.Database, lad: Ladder, query: Query, name: str, number: int
) -> dict[str, Any]:
    """A version with its gate report, changes of state, ratings, promotion test and
    margin against each opponent."""
    detail = data.version_detail(db, lad, name, number)
    stored = data.outcomes(db, lad)
    tests = data.promotion_tests(db, lad, stored)
    return {
        **detail,
        "promotion_test": tests.get(detail["entrant"]),
        "opponents": data.opponents(stored, detail["entrant"]),
    }


def matches(db: sqlite_utils.Database, lad: Ladder, query: Query) -> dict[str, Any]:
    return data.matches(db, lad, query)


def queue(db: sqlite_utils.Database, lad: Ladder, query: Query) -> dict[str, Any]:
    return data.queue(db, lad)


def games(db: sqlite_utils.Database, lad: Ladder, query: Query) -> dict[str, Any]:
    return data.games(db, lad, query)


def game(db: sqlite_utils.Database, lad: Ladder, query: Query, game_id: int) -> dict[str, Any]:
    """A stored game of this ladder as its `arena-replay/1` replay (its match is stored
    whole, so every card may be shown)."""
    replay = game_replay(db, game_id) if game_league(db, game_id) == lad.league_id else None
    if replay is None:
        raise NotFound(f"no stored game {game_id} on this ladder")
    return replay


def faults(db: sqlite_utils.Database, lad: Ladder, query: Query) -> dict[str, Any]:
    return data.faults(db, lad, query)


@dataclass(frozen=True)
class ApiRoute:
    path: str  # under PREFIX, with Starlette's convertors
    handler: Callable[..., Any]
    params: tuple[str, ...]


ROUTES = (
    ApiRoute("/ladder", ladder, ()),
    ApiRoute("/table", table, PAGE_PARAMS),
    ApiRoute("/bots", bots, PAGE_PARAMS),
    ApiRoute("/bots/{name:name}", bot, ()),
    ApiRoute("/versions", versions, ("bot", "state", *PAGE_PARAMS)),
    ApiRoute("/versions/{name:name}/{number:id}", version, ()),
    ApiRoute("/matches", matches, data.MATCH_PARAMS),
    ApiRoute("/queue", queue, ()),
    ApiRoute("/games", games, data.GAME_PARAMS),
    ApiRoute("/games/{game_id:id}", game, ()),
    ApiRoute("/faults", faults, data.FAULT_PARAMS),
)
