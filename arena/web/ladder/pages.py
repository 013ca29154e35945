"""Each page of the ladder site as plain data for its template, built from
arena/web/ladder/data.py (what the JSON API reads too): the table, a bot, a version,
the matches with their filters, and the queue. The replay viewer, a match's page and
the faults page are the league site's own (arena/web/pages.py)."""

from __future__ import annotations

from typing import Any

import sqlite_utils

from arena.ladder.book import Ladder
from arena.league.standings.places import place_text
from arena.league.store.ladder_reads import version_rows
from arena.web.charts import colour, rating_chart
from arena.web.ladder import data
from arena.web.ladder.params import Query
from arena.web.pages import NotFound

FAULTS_SHOWN = 100  # on a version's page; the API pages through every one

VERSION_PARAMS = ("opponent", "cursor", "limit")


def table_page(db: sqlite_utils.Database, ladder: Ladder) -> dict[str, Any]:
    """The table of active versions, tied places as `arena ladder table` shows them,
    every bot, and how many matches are in flight and waiting."""
    rows = data.table(db, ladder)
    for row in rows:
        row["place_text"] = place_text(*row["place_range"])
    about = data.about(db, ladder)
    queue = data.queue(db, ladder)
    return {
        "title": about["name"],
        "league": about["name"],
        "about": about,
        "rows": rows,
        "bots": data.bots(db, ladder),
        "waiting": len(queue["waiting"]),
    }


def _bot_rows(db: sqlite_utils.Database, ladder: Ladder, bot: str) -> list[dict[str, Any]]:
    rows = version_rows(db, ladder.id, bot=bot)
    if not rows:
        raise NotFound(f"no bot named {bot!r} on this ladder")
    return rows


def bot_page(db: sqlite_utils.Database, ladder: Ladder, bot: str) -> dict[str, Any]:
    """A bot: its versions and their states, its rating over time with each promotion
    marked, its margin against each opponent, and its promotion tests."""
    rows = _bot_rows(db, ladder, bot)
    versions = data.versions(db, ladder, bot=bot)
    stored = data.outcomes(db, ladder)
    tests = data.promotion_tests(db, ladder, stored)
    history, marks = data.rating_series(db, ladder, rows)
    entrants = [r["entrant"] for r in rows]
    colours = {name: colour(i) for i, name in enumerate(entrants)}
    current = data.current(rows)
    name = ladder.config.name
    return {
        "title": f"{bot} on {name}",
        "league": name,
        "bot": bot,
        "author": rows[0]["author"],
        "house": bool(rows[0]["house"]),
        "versions": [{**v, "colour": colours[v["entrant"]]} for v in versions],
        "chart": rating_chart(history, entrants, colours=colours, marks=marks),
        "current": current["entrant"] if current else None,
        "opponents": data.opponents(stored, current["entrant"]) if current else [],
        "tests": [tests[e] for e in entrants if e in tests],
    }


def version_page(
    db: sqlite_utils.Database, ladder: Ladder, bot: str, number: int, query: Query
) -> dict[str, Any]:
    """A version: its state and why, the gate's report, its changes of state, its
    promotion test, its margins, its games (filtered by opponent, paged) and its
    faults, each linking into the viewer at its decision."""
    detail = data.version_detail(db, ladder, bot, number)
    entrant = detail["entrant"]
    stored = data.outcomes(db, ladder)
    tests = data.promotion_tests(db, ladder, stored)
    games = data.games(db, ladder, Query({**query.values, "version": entrant}))
    faults = data.faults(db, ladder, Query({"version": entrant, "limit": str(FAULTS_SHOWN)}))
    name = ladder.config.name
    return {
        "title": f"{entrant} on {name}",
        "league": name,
        "version": detail,
        "opponent": query.text("opponent"),
        "test": tests.get(entrant),
        "opponents": data.opponents(stored, entrant),
        "games": games,
        "faults": faults["items"],
        "more_faults": faults["next_cursor"] is not None,
    }


def matches_page(db: sqlite_utils.Database, ladder: Ladder, query: Query) -> dict[str, Any]:
    """The ladder's matches, newest first, a page at a time, filtered by bot, version,
    opponent and time; each stored one with its games."""
    page = data.matches(db, ladder, query)
    shown = {key: query.values[key] for key in data.MATCH_PARAMS if query.values.get(key)}
    shown.pop("cursor", None)
    name = ladder.config.name
    return {
        "title": f"matches of {name}",
        "league": name,
        "filters": shown,
        "page": page,
        "next": {**shown, "cursor": page["next_cursor"]} if page["next_cursor"] else None,
    }


def queue_page(db: sqlite_utils.Database, ladder: Ladder) -> dict[str, Any]:
    """The matches being played now, and those chosen and waiting for a worker."""
    name = ladder.config.name
    return {"title": f"queue of {name}", "league": name, **data.queue(db, ladder)}
