"""What each page of the site shows, as plain data for its template: the same data for
`arena serve` and for `arena report`, so the two cannot drift apart.

Each function takes an open league database and returns the template's context, or
raises `NotFound` for a league, entrant, match or game the database does not hold.
Everything is computed from the store's reads; a stored game's hands are shown only
once its match is stored whole (a match in flight is shown without cards)."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import PurePath
from typing import Any

import sqlite_utils

from arena.bots.confinement.cgroups import pid_alive
from arena.errors import ArenaError, ConfigError
from arena.games import get_game
from arena.games.base import DealSummary
from arena.league import store
from arena.league.reports.faults import fault_rows
from arena.league.reports.snapshot import CHART_LINES, Pairs, Standings, standings
from arena.league.reports.table import COLUMNS, about_lines, cell, league_about
from arena.league.standings.crosstable import Pairing
from arena.league.standings.places import Evidence, place_text
from arena.league.store import site_reads
from arena.play.replay_frames import game_outline
from arena.web import live_view
from arena.web.charts import colour, margin_chart, rating_chart
from arena.web.links import Links


class NotFound(ArenaError):
    """A page of something the database does not hold (the server answers 404)."""


def _league(db: sqlite_utils.Database, name: str) -> tuple[int, str]:
    try:
        return store.league_id_by_name(db, name)
    except ConfigError as err:
        raise NotFound(str(err)) from None


def leagues_page(db: sqlite_utils.Database) -> dict[str, Any]:
    """Every league with its game, progress and leader (the best conservative rating)."""
    leagues = []
    for row in site_reads.league_summaries(db):
        ratings = store.latest_ratings(db, row["id"])
        best = max(ratings, key=lambda r: (r["mu"] - 3 * r["sigma"], r["mu"]), default=None)
        leagues.append(
            {
                **row,
                "leader": best["entrant"] if best else None,
                "leader_rating": round(best["mu"] - 3 * best["sigma"], 2) if best else None,
                "in_flight": len(_in_flight(db, row["id"])),
            }
        )
    return {"title": "Leagues", "leagues": leagues}


CROSS_MAX = 30  # entrants in the league page's crosstable: the first of the table
TABLE_ROWS = 100  # rows of the table the league page shows at a time (`?page=`)
LATEST_MATCHES = 20  # matches the league page lists, newest first
GAMES_PER_PAGE = 200  # games an entrant page lists at a time (`?page=`)
PAGE_COLUMNS = tuple(c for c in COLUMNS if c.key != "place_range")
"""`arena table`'s columns as the page shows them: its place cell shows the range."""


def _in_flight(db: sqlite_utils.Database, league_id: int) -> list[dict[str, Any]]:
    """The league's matches being played now by a run that is still alive (a killed
    run's rows stay until the next run of the league clears them)."""
    rows = site_reads.live_matches(db, league_id)
    return [m for m in rows if m["run_pid"] and pid_alive(m["run_pid"])]


def league_page(
    db: sqlite_utils.Database,
    name: str,
    page: int | None = None,
    held: Standings | None = None,
) -> dict[str, Any]:
    """The table with every column of `arena table`, its provenance, tied places, the
    rating and margin charts, the crosstable and the matches in flight. The table whole
    (`page` None: the static report), or `TABLE_ROWS` rows of it from page `page` on
    (the server: a ladder's league has hundreds of entrants), the margin chart of the
    same rows. `held`: the league's standings, when the caller has them already."""
    league_id, name = _league(db, name)
    game, settings = store.league_record(db, league_id)
    if held is None:  # stored while the league is unchanged (snapshot.py)
        held = standings(db, league_id)
    rows, proof, pairs = held.rows, held.proof, held.pairs
    order = [row["name"] for row in rows]
    spans = [tuple(row["place_range"]) for row in rows]  # the table's rule (places.py)
    numbered = {span: i for i, span in enumerate(sorted(set(spans)), start=1)}
    groups = [numbered[span] for span in spans]
    colours = {entrant: colour(i) for i, entrant in enumerate(settings["entrants"])}
    about = _published_about(league_about(db, league_id))
    summary = get_game(game).deal_summary
    table = []
    for row, group, span in zip(rows, groups, spans, strict=True):
        place = place_text(*span)
        table.append(
            {
                "row": row,
                "group": group,
                "place": place,
                "colour": colours.get(row["name"], "#333"),
                "cells": [_table_cell(key, row[key], summary) for key, _ in PAGE_COLUMNS],
            }
        )
    page_count = max(1, -(-len(table) // TABLE_ROWS))
    shown, table_page = table, None
    if page is not None:
        if not 1 <= page <= page_count:
            raise NotFound(f"the table of {name!r} has {page_count} pages; there is no page {page}")
        shown = table[(page - 1) * TABLE_ROWS : page * TABLE_ROWS]
        first = (page - 1) * TABLE_ROWS + 1
        table_page = {"page": page, "pages": page_count, "first": first,
                      "last": first + len(shown) - 1}  # fmt: skip
    return {
        "title": name,
        "league": name,
        "game": game,
        "standing": _standing(table),
        "summary": {"noun": summary.noun, "kind": str(summary.kind)},
        "abbreviations": [
            {"short": summary.abbreviation(label), "long": label}
            for label in summary.labels
            if summary.abbreviation(label) != label
        ],
        "about": about,
        "about_lines": about_lines(about),
        "columns": [title for _, title in PAGE_COLUMNS],
        "table": shown,
        "table_page": table_page,
        "entrants": len(table),
        "legend": [{"name": t["row"]["name"], "colour": t["colour"]} for t in table[:CHART_LINES]],
        "rating_chart": rating_chart(held.history, order[:CHART_LINES], colours=colours),
        "chart_lines": min(len(order), CHART_LINES),
        "margin_chart": margin_chart([t["row"] for t in shown], colours),
        "cross": _cross_rows(order[:CROSS_MAX], pairs, proof),
        "cross_of": len(order),
        "in_flight": _in_flight(db, league_id),
        "matches": site_reads.latest_matches(db, league_id, LATEST_MATCHES),
        "faults": sum(row["faults"] for row in rows),
        # once every match is stored the key may be published: replaying the league
        # elsewhere needs it, and no bot can use it any more (docs/leagues.md)
        "deal_key": store.stored_deal_key(db, league_id) if about["finished"] else None,
    }


def _standing(table: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """Who leads and how sure that is, in words above the table: the leader by rating,
    and the places its own range spans (those of the entrants the evidence cannot yet
    tell from it)."""
    if not table:
        return None
    first = table[0]
    last = first["row"]["place_range"][1]
    return {"leader": first["row"]["name"], "place": first["place"], "shared": last}


def _published_about(about: dict[str, Any]) -> dict[str, Any]:
    """`league_about` as a published page shows it: the league file by its name alone
    (where the organiser keeps it is nobody else's business)."""
    file = about.get("file")
    return {**about, "file": PurePath(file).name if file else None}


def _table_cell(key: str, value: Any, summary: DealSummary) -> dict[str, Any]:
    """A cell's text and the value the table sorts it by."""
    if key == "place_range":
        sort = value[0]
    elif key == "duplicate_margin_ci":
        sort = value[0] if value[0] is not None else ""
    elif key == "think_ms":
        sort = "" if value is None else value["wall"]
    elif key == "per_contract":
        sort = cell(key, value, summary)
    else:
        sort = value
    return {"key": key, "text": cell(key, value, summary), "sort": sort}


def _cross_rows(order: Sequence[str], pairs: Pairs, proof: Evidence) -> list[Any]:
    """The crosstable in table order: row A, column B is A's margin over B per game."""
    out = []
    for a in order:
        cells = []
        for b in order:
            pairing = pairs.get((a, b))
            cells.append(_pair_cell(a, b, pairing, proof))
        out.append({"name": a, "cells": cells})
    return out


def _pair_cell(a: str, b: str, pairing: Pairing | None, proof: Evidence) -> dict[str, Any]:
    """A's head-to-head margin over B; shown separated ("sep") by the table's rule, from
    all the evidence (arena.league.standings.places), which the title gives too."""
    if a == b:
        return {"text": "", "class": "self", "title": ""}
    fitted = proof.difference(a, b)
    overall = (
        ""
        if fitted.low is None or fitted.high is None
        else f"; from all the evidence {fitted.mean:+.1f}, 95% interval "
        f"[{fitted.low:+.1f}, {fitted.high:+.1f}]"
    )
    apart = fitted.excludes(0.0)
    if pairing is None:
        klass = f"sep {'better' if fitted.mean > 0 else 'worse'}" if apart else "none"
        return {"text": "", "class": klass, "title": f"{a} and {b} never met{overall}"}
    interval = pairing.interval
    ci = (
        "too few matches for an interval"
        if interval.low is None or interval.high is None
        else f"95% interval [{interval.low:+.1f}, {interval.high:+.1f}]"
    )
    sign = "better" if (fitted.mean if apart else interval.mean) > 0 else "worse"
    klass = f"sep {sign}" if apart else "tied"
    return {
        "text": f"{interval.mean:+.0f}",
        "class": klass,
        "title": f"{a} over {b}: {interval.mean:+.1f} per game over {interval.n} "
        f"matches, {ci}{overall}",
    }


def entrant_page(
    db: sqlite_utils.Database, league: str, entrant: str, page: int = 1
) -> dict[str, Any]:
    """One entrant: its row of the table, per label of the game's `deal_summary` (Trix's
    contracts, Trianon's strains), its margin against each opponent, faults and their
    rate, think time, and page `page` of its games, `GAMES_PER_PAGE` to a page (an
    entrant of a ladder's league plays thousands). NotFound for a page it has not."""
    head, league_id = _entrant_head(db, league, entrant)
    pages = _games_pages(head["row"]["games"], GAMES_PER_PAGE)
    if not 1 <= page <= pages:
        raise NotFound(f"{entrant!r} has {pages} pages of games; there is no page {page}")
    return _with_games(db, head, league_id, page, pages, GAMES_PER_PAGE)


def entrant_pages(
    db: sqlite_utils.Database,
    league: str,
    entrant: str,
    per_page: int,
    held: Standings | None = None,
) -> Iterator[dict[str, Any]]:
    """Every page of an entrant's games, `per_page` to a page, as `entrant_page` makes
    one (the static report's): what the pages share is read and computed once (the
    league's standings not at all when given, `held`)."""
    head, league_id = _entrant_head(db, league, entrant, held)
    pages = _games_pages(head["row"]["games"], per_page)
    for page in range(1, pages + 1):
        yield _with_games(db, head, league_id, page, pages, per_page)


def _games_pages(games: int, per_page: int) -> int:
    return max(1, -(-games // per_page))


def _with_games(
    db: sqlite_utils.Database,
    head: dict[str, Any],
    league_id: int,
    page: int,
    pages: int,
    per_page: int,
) -> dict[str, Any]:
    """An entrant page: what every page of it shows, with page `page` of its games."""
    games = site_reads.entrant_games(
        db, league_id, head["entrant"], per_page, (page - 1) * per_page
    )
    title = head["title"] if page == 1 else f"{head['title']}: games, page {page}"
    return {**head, "title": title, "games": games, "games_page": {"page": page, "pages": pages}}


def _entrant_head(
    db: sqlite_utils.Database, league: str, entrant: str, held: Standings | None = None
) -> tuple[dict[str, Any], int]:
    """What every page of an entrant's games shows above them, and its league's id."""
    league_id, league = _league(db, league)
    game, settings = store.league_record(db, league_id)
    if entrant not in settings["entrants"]:
        shown = settings["entrants"][:50]
        more = len(settings["entrants"]) - len(shown)
        raise NotFound(
            f"no entrant {entrant!r} in league {league!r}; entrants: "
            + ", ".join(shown)
            + (f" and {more} more" if more > 0 else "")
        )
    if held is None:  # stored while the league is unchanged (snapshot.py)
        held = standings(db, league_id)
    rows, proof, pairs = held.rows, held.proof, held.pairs
    row = next(r for r in rows if r["name"] == entrant)
    opponents = []
    for other in rows:
        if other["name"] != entrant:
            pairing = pairs.get((entrant, other["name"]))
            opponents.append(
                {
                    "name": other["name"],
                    "cell": _pair_cell(entrant, other["name"], pairing, proof),
                    "matches": pairing.interval.n if pairing is not None else 0,
                }
            )
    asked = held.asked.get(entrant, 0)
    faults = [shown_fault(row) for row in fault_rows(db, league_id, entrant)]
    summary = get_game(game).deal_summary
    head = {
        "title": f"{entrant} in {league}",
        "league": league,
        "game": game,
        "entrant": entrant,
        "bot": shown_spec(site_reads.entrant_bots(db, league_id).get(entrant, "")),
        "row": row,
        "summary": {"noun": summary.noun, "kind": str(summary.kind)},
        "per_contract": [
            {"name": summary.abbreviation(name), "long": name, "value": value}
            for name, value in row["per_contract"].items()
        ],
        "opponents": opponents,
        "faults": faults,
        "fault_rate": {
            "per_game": row["faults"] / row["games"] if row["games"] else 0.0,
            "per_1000": 1000 * row["faults"] / asked if asked else None,
        },
        "think": row["think_ms"],
    }
    return head, league_id


LOG_TAIL = 4000  # characters of a bot's log shown with its fault


def shown_fault(row: Mapping[str, Any]) -> dict[str, Any]:
    """A fault as a published page shows it: its detail with the log's folders cut
    (the organiser's paths), what the bot sent only when the detail does not already
    say it, its first line as a summary, and the end of the bot's log when the file is
    still there (what the bot printed: its traceback, for one that raised)."""
    log = row.get("log") or ""
    name = PurePath(log).name if log else ""
    detail = (row.get("detail") or "").replace(log, name) if log else row.get("detail") or ""
    got = row.get("got")
    return {
        **row,
        "detail": detail,
        "summary": detail.splitlines()[0] if detail else "",
        "got": None if got and got in detail else got,
        "log": name,
        "log_tail": _log_tail(log),
    }


def _log_tail(path: str) -> str | None:
    """The last LOG_TAIL characters of a bot's log, without control characters other
    than newlines and tabs (None when there is no such file)."""
    if not path:
        return None
    try:
        with open(path, "rb") as file:
            file.seek(0, 2)
            size = file.tell()
            file.seek(max(0, size - 4 * LOG_TAIL))
            text = file.read().decode("utf-8", "replace")[-LOG_TAIL:]
    except OSError:
        return None
    return "".join(ch for ch in text if ch in "\n\t" or ch.isprintable())


def shown_spec(spec: str) -> str:
    """A bot spec as a published page shows it: each word without its folders (the
    organiser's paths are nobody else's business; `python bots/mine.py` -> `python
    mine.py`)."""
    return " ".join(word.rstrip("/").rsplit("/", 1)[-1] for word in spec.split())


def match_page(
    db: sqlite_utils.Database,
    league: str,
    idx: int,
    live: Mapping[str, Any] | None = None,
    live_hands: bool = False,
) -> dict[str, Any]:
    """A stored match's rotated games side by side, deal by deal: for each deal and
    each seat's cards, who held them in each rotation and what they scored with them
    (the best marked). A match in flight shows how far it is (`live`: its live file),
    and whether its game's cards may be watched (arena/web/live_view.py)."""
    league_id, league = _league(db, league)
    game, _ = store.league_record(db, league_id)
    match = site_reads.match_row(db, league_id, idx)
    if match is None:
        in_flight = [m for m in _in_flight(db, league_id) if m["idx"] == idx]
        if in_flight:
            return {
                "title": f"{league} match {idx}",
                "league": league,
                "game": game,
                "idx": idx,
                "in_flight": in_flight[0],
                "live": live_view.progress(live) if live else None,
                "live_shown": bool(live) and live_view.cards_shown(live, live_hands),
                "games": [],
                "deals": [],
            }
        raise NotFound(f"league {league!r} has no stored match {idx}")
    games = site_reads.match_games(db, match["id"])
    scores = site_reads.match_deal_scores(db, match["id"])
    by_game = {g["id"]: i for i, g in enumerate(games)}
    seats = get_game(game).seats
    deals: dict[int, list[list[dict[str, Any] | None]]] = {}
    for row in scores:
        grid = deals.setdefault(row["deal"], [[None] * len(games) for _ in range(seats)])
        grid[row["seat"]][by_game[row["game_id"]]] = {
            "entrant": row["entrant"],
            "contract": row["contract"],
            "score": row["score"],
        }
    out = []
    for number, grid in sorted(deals.items()):
        hands = []
        for seat, cells in enumerate(grid):
            present = [c["score"] for c in cells if c is not None]
            best = max(present) if present else None
            spread = (max(present) - min(present)) if present else 0
            hands.append(
                {
                    "seat": seat,
                    "cells": [
                        None if c is None else {**c, "best": spread > 0 and c["score"] == best}
                        for c in cells
                    ],
                }
            )
        out.append({"number": number, "hands": hands, "contracts": _column_contracts(grid)})
    totals: dict[str, list[int]] = {}
    for g in games:
        for name, total in zip(g["players"], g["totals"], strict=True):
            totals.setdefault(name, []).append(total)
    summary = sorted(
        ({"name": n, "totals": t, "mean": sum(t) / len(t)} for n, t in totals.items()),
        key=lambda s: -s["mean"],
    )
    return {
        "title": f"{league} match {idx}",
        "league": league,
        "game": game,
        "idx": idx,
        "match": match,
        "in_flight": None,
        "games": games,
        "deals": out,
        "summary": summary,
    }


def _column_contracts(grid: list[list[dict[str, Any] | None]]) -> list[str | None]:
    """Each rotation's contract of a deal when every seat's cell names the same one (a
    deal is played under one contract), said once in the deal's first row instead of in
    every seat's cell; None where the cells differ or are missing, which then name it."""
    out: list[str | None] = []
    for column in zip(*grid, strict=True):
        named = {c["contract"] for c in column if c is not None}
        out.append(named.pop() if len(named) == 1 and None not in column else None)
    return out


def game_page(db: sqlite_utils.Database, game_id: int, links: Links) -> dict[str, Any]:
    """The replay viewer's page: the game's outline and where each deal's frames are."""
    row = site_reads.game_row(db, game_id)
    if row is None:
        raise NotFound(f"no stored game {game_id}")
    return game_page_of(row, game_outline(row["replay"]), links)


def game_page_of(row: Mapping[str, Any], outline: dict[str, Any], links: Links) -> dict[str, Any]:
    """`game_page` of a stored game's row (`site_reads.game_row`) and its outline,
    already made (the static report makes it on the frames' own pass)."""
    game_id = row["id"]
    return {
        "title": f"game {game_id}",
        "game_id": game_id,
        "league": row["league"],
        "match_idx": row["match_idx"],
        "rotation": row["rotation"],
        "outline": outline,
        "deal_urls": [links.deal_data(game_id, n + 1) for n in range(len(row["replay"]["deals"]))],
    }


def watchable(
    db: sqlite_utils.Database,
    league: str,
    idx: int,
    live: Mapping[str, Any] | None,
    live_hands: bool = False,
) -> str:
    """The league's name when the game being played in match `idx` may be watched now;
    NotFound when the match is not in flight, or its cards are hidden until its last
    rotation (arena/web/live_view.py)."""
    league_id, league = _league(db, league)
    in_flight = any(m["idx"] == idx for m in _in_flight(db, league_id))
    if not in_flight or live is None or not live_view.cards_shown(live, live_hands):
        raise NotFound(
            f"match {idx} of {league!r} has no game that may be watched now: it is not in "
            "flight, or its cards are hidden until its last rotation (a later rotation "
            "replays the same deals)"
        )
    return league


def live_deal_body(
    db: sqlite_utils.Database,
    league: str,
    idx: int,
    live: Mapping[str, Any] | None,
    number: int,
    live_hands: bool,
) -> str:
    """Deal `number` of a match in play as the viewer's JSON frames, once the match may
    be watched (`watchable`) and has that deal; the league site and the ladder site
    serve it alike. JSON, never a script: a page of another origin may run a script it
    includes, but may not read a JSON response (nosniff, same-origin resource policy)."""
    watchable(db, league, idx, live, live_hands)
    assert live is not None  # watchable refused a match without one
    if not 1 <= number <= len(live["deals"]):
        raise NotFound(f"no deal {number} yet")
    return live_view.live_deal_json(live, number, live_hands)


def stored_live_game(db: sqlite_utils.Database, league: str, idx: int) -> int | None:
    """The stored game that match `idx`'s live page hands over to once the match is
    stored (its last rotation's, the one that was watched); None while it is not."""
    league_id, _ = _league(db, league)
    match = site_reads.match_row(db, league_id, idx)
    games = site_reads.match_games(db, match["id"]) if match else []
    return games[-1]["id"] if games else None


def live_game_page(
    db: sqlite_utils.Database,
    league: str,
    idx: int,
    live: Mapping[str, Any] | None,
    links: Links,
    live_hands: bool = False,
) -> dict[str, Any]:
    """The viewer on the game being played in match `idx`, when its cards may be shown
    (NotFound otherwise: see `watchable`)."""
    league = watchable(db, league, idx, live, live_hands)
    assert live is not None  # watchable refused a match without a live file
    outline = live_view.live_outline(live, live_hands)
    return {
        "title": f"{league} match {idx}, live",
        "league": league,
        "game_id": 0,
        "match_idx": idx,
        "rotation": live["rotation"],
        "outline": outline,
        "deal_urls": [links.live_deal(league, idx, n + 1) for n in range(len(outline["deals"]))],
        "live_game": True,
        "live_page": True,
    }


def stored_replay(db: sqlite_utils.Database, game_id: int) -> dict[str, Any]:
    """A stored game's replay (the viewer's deal data is built from it)."""
    replay = store.game_replay(db, game_id)
    if replay is None:
        raise NotFound(f"no stored game {game_id}")
    return replay


def faults_page(db: sqlite_utils.Database, league: str) -> dict[str, Any]:
    """Every fault of the league, each with where the viewer shows its decision."""
    league_id, league = _league(db, league)
    rows = [shown_fault(row) for row in fault_rows(db, league_id)]
    return {
        "title": f"faults in {league}",
        "league": league,
        "faults": rows,
        "kinds": sorted({r["kind"] for r in rows}),
        "entrants": sorted({r["entrant"] for r in rows}),
    }


def now() -> float:
    """The time pages say they were made at."""
    return time.time()
