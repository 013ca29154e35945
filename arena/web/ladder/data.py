"""What the ladder site shows, as plain data that both its pages and its JSON API read
(so the two cannot drift apart): the table, bots, versions with their published gate
reports, the promotion tests' progress, margins against each opponent, rating
histories with their promotions, the queue, and the paged lists of matches, games and
faults with their filters.

The table and a version's fields come from `arena ladder table` and `versions`
(arena/ladder/reports.py); every read is the store's (arena/league/store/). Nothing
here shows the organiser's folders: a gate report's paths keep their last part only,
as a fault's log keeps its file name (arena/web/pages.py)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import PurePath
from typing import Any

import sqlite_utils

from arena.bots.confinement.cgroups import pid_alive
from arena.errors import ConfigError
from arena.ladder.book import Ladder, State, open_ladder
from arena.ladder.promotion import pair_evidence, sprt
from arena.ladder.reports import match_item, table_rows, version_item
from arena.league.definition.records import MatchOutcome
from arena.league.standings.crosstable import crosstable
from arena.league.store.ladder_reads import (
    ladder_match_rows,
    version_events,
    version_history,
    version_rows,
)
from arena.league.store.ladder_site_reads import (
    ladder_faults_page,
    ladder_games_page,
    ladder_matches_page,
    match_game_ids,
    paired_match_rows,
)
from arena.league.store.site_reads import live_matches
from arena.web.ladder.params import BadRequest, Query, version_spec
from arena.web.ladder.stored import latest
from arena.web.ladder.stored import stored as held
from arena.web.pages import NotFound, shown_spec

# an absolute path's folders: `/srv/x/ladder-files/ab12/bot.py` -> `bot.py`
FOLDERS = re.compile(r"(?<![\w.~-])/(?:[^\s/'\"<>]+/)+")


def iso(stamp: float | None) -> str | None:
    """A stored time as ISO 8601 in UTC (`2026-12-07T05:13:51Z`), None when not known."""
    if stamp is None or not math.isfinite(stamp):
        return None
    return datetime.fromtimestamp(stamp, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def finite(value: float | None) -> float | None:
    """A number JSON can hold (NaN and infinities are None), rounded for reading."""
    return None if value is None or not math.isfinite(value) else round(value, 3)


def ladder_of(db: sqlite_utils.Database, name: str | None) -> Ladder:
    """The ladder the site shows, read again for each request (a freeze shows at once)."""
    try:
        return open_ladder(db, name)
    except ConfigError as err:
        raise NotFound(str(err)) from None


def about(db: sqlite_utils.Database, ladder: Ladder) -> dict[str, Any]:
    """The ladder's name, game, whether frozen, and its matches stored and in flight."""
    config = ladder.config
    stored = len(held(db, ladder.league_id).outcomes)
    return {
        "name": config.name,
        "game": config.game,
        "frozen": ladder.frozen,
        "matches_stored": stored,
        "in_flight": len(in_flight(db, ladder)),
        "promotion": {
            "delta": config.promotion.delta,
            "alpha": config.promotion.alpha,
            "beta": config.promotion.beta,
            "max_games": config.promotion.max_games,
            "mode": config.promotion.mode,
        },
    }


def table(db: sqlite_utils.Database, ladder: Ladder) -> list[dict[str, Any]]:
    """`arena ladder table --format json`'s rows: places tied as the command ties them,
    computed once for each state of the stored matches and the active versions (while
    another request computes it, the one before: arena/web/ladder/stored.py)."""
    snapshot = held(db, ladder.league_id)
    rows = version_rows(db, ladder.id, states=(State.ACTIVE,))
    key = tuple(tuple(r.values()) for r in rows)
    computed = latest(
        db,
        snapshot,
        "table",
        key,
        lambda: table_rows(
            db, ladder, rows=rows, outcomes=snapshot.outcomes.values(), faults=snapshot.faults
        ),
    )
    return [{**row, "place_range": list(row["place_range"])} for row in computed]


def bots(db: sqlite_utils.Database, ladder: Ladder) -> list[dict[str, Any]]:
    """Every bot in the order first submitted: its author, whether it is the house's,
    its versions, its active version's number (None when none is active) and the
    states of its versions."""
    out: dict[str, dict[str, Any]] = {}
    for row in version_rows(db, ladder.id):
        bot = out.setdefault(
            row["bot"],
            {
                "bot": row["bot"],
                "author": row["author"],
                "house": bool(row["house"]),
                "versions": 0,
                "active": None,
                "states": {},
            },
        )
        bot["versions"] += 1
        bot["states"][row["state"]] = bot["states"].get(row["state"], 0) + 1
        if row["state"] == State.ACTIVE:
            bot["active"] = row["number"]
    return list(out.values())


def versions(
    db: sqlite_utils.Database, ladder: Ladder, bot: str | None = None, state: str | None = None
) -> list[dict[str, Any]]:
    """Every version (of `bot`, in `state`) with the fields of `arena ladder versions
    --format json`, times in UTC and the command without folders."""
    faults = held(db, ladder.league_id).faults
    rows = version_rows(db, ladder.id, bot=bot, states=(state,) if state else ())
    return [published_version(row, faults) for row in rows]


def published_version(
    row: Mapping[str, Any], faults: Mapping[str, tuple[int, int]]
) -> dict[str, Any]:
    """A version's fields as the public site shows them (no organiser's path)."""
    item = version_item(dict(row), dict(faults), None)
    return {
        **item,
        "command": shown_spec(item["command"] or ""),
        "reason": hide_folders(item["reason"]),
        "created_at": iso(row["created_at"]),
        "changed_at": iso(row["changed_at"]),
        "mu": finite(item["mu"]),
        "sigma": finite(item["sigma"]),
        "start_mu": finite(item["start_mu"]),
    }


def hide_folders(text: str) -> str:
    """`text` with every absolute path cut to its last part (where the organiser keeps
    the ladder's files and logs is nobody else's business)."""
    return FOLDERS.sub("", text)


def published_gate(report_json: str | None) -> dict[str, Any] | None:
    """The gate's stored report as the public site shows it: verdict, tries, each
    step, the whole text, its paths without folders."""
    if not report_json:
        return None
    report = json.loads(report_json)
    return {
        "passed": bool(report.get("passed")),
        "tries": int(report.get("tries") or 0),
        "timed_out": bool(report.get("timed_out")),
        "steps": [
            {"name": str(s.get("name", "")), "passed": bool(s.get("passed"))}
            for s in report.get("steps") or []
            if isinstance(s, Mapping)
        ],
        "text": hide_folders(str(report.get("text") or "")),
    }


def version_row(db: sqlite_utils.Database, ladder: Ladder, bot: str, number: int) -> dict[str, Any]:
    """The stored row of `bot@number`; NotFound saying which versions there are."""
    rows = version_rows(db, ladder.id, bot=bot)
    if not rows:
        raise NotFound(f"no bot named {bot!r} on this ladder")
    for row in rows:
        if row["number"] == number:
            return row
    known = ", ".join(str(r["number"]) for r in rows)
    raise NotFound(f"bot {bot!r} has no version {number}; its versions: {known}")


def version_detail(
    db: sqlite_utils.Database, ladder: Ladder, bot: str, number: int
) -> dict[str, Any]:
    """One version with its gate report, its changes of state and its rating history."""
    row = version_row(db, ladder, bot, number)
    out = published_version(row, held(db, ladder.league_id).faults)
    out["gate"] = published_gate(row["gate_report"])
    out["events"] = [
        {"at": iso(e["at"]), "state": e["state"], "reason": hide_folders(e["reason"] or "")}
        for e in version_events(db, row["id"])
    ]
    out["ratings"] = [
        {"match": h["match_idx"], "mu": round(h["mu"], 3), "sigma": round(h["sigma"], 3)}
        for h in version_history(db, ladder.league_id, row["entrant"])
    ]
    return out


def current(versions: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The version a bot's page and API show margins of: its active one, else its
    newest that played (None when none did)."""
    active = [v for v in versions if v["state"] == State.ACTIVE]
    played = [v for v in versions if v["games"]]
    return (active or played or [None])[-1]


def in_flight(db: sqlite_utils.Database, ladder: Ladder) -> list[dict[str, Any]]:
    """The ladder's matches being played now by a run still alive."""
    rows = live_matches(db, ladder.league_id)
    return [
        {"match": m["idx"], "entrants": m["entrants"], "started_at": iso(m["started_at"])}
        for m in rows
        if m["run_pid"] and pid_alive(m["run_pid"])
    ]


def queue(db: sqlite_utils.Database, ladder: Ladder) -> dict[str, Any]:
    """The matches in flight, and those chosen and waiting for a worker, in order."""
    playing = in_flight(db, ladder)
    now = {m["match"] for m in playing}
    waiting = [
        {
            "match": r["idx"],
            "reason": r["reason"],
            "entrants": r["entrants"],
            "pair": r["pair_idx"],
            "chosen_at": iso(r["chosen_at"]),
        }
        for r in ladder_match_rows(db, ladder.id, ("queued",))
        if r["idx"] not in now
    ]
    return {"in_flight": playing, "waiting": waiting}


# -- the promotion test and the margins --------------------------------------------


def outcomes(db: sqlite_utils.Database, ladder: Ladder) -> Mapping[int, MatchOutcome]:
    """Every stored match's results (no deals: margins are all the site reads of them),
    as this process holds them (arena/web/ladder/stored.py)."""
    return held(db, ladder.league_id).outcomes


def promotion_tests(
    db: sqlite_utils.Database, ladder: Ladder, stored: Mapping[int, MatchOutcome]
) -> dict[str, dict[str, Any]]:
    """Each tested version's promotion test as it stands, by the candidate's entrant:
    the version it is tested against, each pair's difference (points a game, the
    candidate's margin minus the active version's on the same cards and opponents)
    and the test's verdict read with the ladder's `[promotion]` settings, as the run
    reads it (arena/ladder/source.py)."""
    settings = ladder.config.promotion
    pairs: dict[str, list[dict[str, Any]]] = {}  # by candidate, as the run keeps them
    against: dict[str, tuple[str, int]] = {}  # the active version, games a table
    for row in paired_match_rows(db, ladder.id):
        pair = row["pair_idx"]
        if pair is None or row["idx"] > pair or row["idx"] not in stored or pair not in stored:
            continue
        first, second = stored[row["idx"]], stored[pair]
        found = pair_evidence(first, second)
        if found is not None:
            candidate, active, diff = found
            pairs.setdefault(candidate, []).append(
                {"matches": [first.idx, second.idx], "difference": diff}
            )
            against[candidate] = (active, len(first.games))
    states = {row["entrant"]: row["state"] for row in version_rows(db, ladder.id)}
    out = {}
    for candidate, evidence in pairs.items():
        active, per_pair = against[candidate]
        verdict = sprt([p["difference"] for p in evidence], per_pair, settings)
        state = states.get(candidate, "")
        shown = [{**p, "difference": round(p["difference"], 3)} for p in evidence]
        out[candidate] = {
            "candidate": candidate,
            "active": active,
            "decision": verdict.decision,
            # The test runs only while the candidate is one: promoted or withdrawn by
            # its author meanwhile, its "continue" is where the test stopped.
            "state": state,
            "running": state == State.CANDIDATE and verdict.decision == "continue",
            "pairs": verdict.pairs,
            "games": verdict.games,
            "max_games": settings.max_games,
            "delta": settings.delta,
            "mean": finite(verdict.mean),
            "low": finite(verdict.low),
            "high": finite(verdict.high),
            "llr": finite(verdict.llr),
            "lower": finite(verdict.lower),
            "upper": finite(verdict.upper),
            "evidence": shown,
        }
    return out


def opponents(stored: Mapping[int, MatchOutcome], entrant: str) -> list[dict[str, Any]]:
    """`entrant`'s duplicate margin over each opponent it met, points a game, with the
    95% interval, over the matches both played; most matches first."""
    pairs = crosstable([o for o in stored.values() if entrant in o.entrants])
    rows = [
        {
            "opponent": b,
            "matches": p.interval.n,
            "margin": finite(p.interval.mean),
            "low": finite(p.interval.low),
            "high": finite(p.interval.high),
            "separated": p.separated,
        }
        for (a, b), p in pairs.items()
        if a == entrant
    ]
    return sorted(rows, key=lambda r: (-r["matches"], r["opponent"]))


def rating_series(
    db: sqlite_utils.Database, ladder: Ladder, rows: Sequence[Mapping[str, Any]]
) -> tuple[list[dict[str, Any]], list[tuple[int, str]]]:
    """The bot's versions' ratings after each match (rows for `charts.rating_chart`)
    and each promotion as (match number from 1, what happened), placed after the last
    match stored before it."""
    history = [
        {**h, "entrant": row["entrant"]}
        for row in rows
        for h in version_history(db, ladder.league_id, row["entrant"])
    ]
    finished = held(db, ladder.league_id).finished
    marks = []
    for row in rows:
        for event in version_events(db, row["id"]):
            if event["state"] != State.ACTIVE or event["reason"] == "a house bot":
                continue
            before = [idx for at, idx in finished if at <= event["at"]]
            marks.append((max(before) + 1 if before else 1, f"{row['entrant']} active"))
    return history, marks


# -- the paged lists --------------------------------------------------------------


def _entrants_of(db: sqlite_utils.Database, ladder: Ladder, value: str, key: str) -> list[str]:
    """The entrants a filter's value names: a version (`BOT@N`) or a bot's every
    version (`BOT`); BadRequest naming what there is when it names none."""
    if "@" in value:
        bot, number = version_spec(value, key)
        rows = [r for r in version_rows(db, ladder.id, bot=bot) if r["number"] == number]
        if not rows:
            raise BadRequest(f"{key}: no version {value[:80]!r} on this ladder")
    else:
        rows = version_rows(db, ladder.id, bot=value)
        if not rows:
            raise BadRequest(f"{key}: no bot named {value[:80]!r} on this ladder")
    return [r["entrant"] for r in rows]


def filters(db: sqlite_utils.Database, ladder: Ladder, query: Query) -> list[list[str]]:
    """The entrant groups `bot`, `version` and `opponent` name (see
    arena/league/store/ladder_site_reads.py): every one must have played."""
    groups = []
    bot = query.text("bot")
    if bot is not None:
        if "@" in bot:
            raise BadRequest("bot names a bot (alpha); version names one version (alpha@2)")
        groups.append(_entrants_of(db, ladder, bot, "bot"))
    version = query.text("version")
    if version is not None:
        version_spec(version, "version")
        groups.append(_entrants_of(db, ladder, version, "version"))
    opponent = query.text("opponent")
    if opponent is not None:
        groups.append(_entrants_of(db, ladder, opponent, "opponent"))
    return groups


MATCH_PARAMS = ("bot", "version", "opponent", "since", "until", "cursor", "limit")
GAME_PARAMS = ("bot", "version", "opponent", "cursor", "limit")
FAULT_PARAMS = ("bot", "version", "cursor", "limit")


def _page(items: list[dict[str, Any]], limit: int, key: str) -> dict[str, Any]:
    """One page of a list and the cursor of the next (None on the last page)."""
    more = len(items) > limit
    items = items[:limit]
    return {"items": items, "next_cursor": str(items[-1][key]) if more and items else None}


def matches(db: sqlite_utils.Database, ladder: Ladder, query: Query) -> dict[str, Any]:
    """A page of the ladder's matches, newest first, filtered."""
    groups, limit = filters(db, ladder, query), query.limit()
    since, until = query.time("since"), query.time("until")
    rows = ladder_matches_page(
        db,
        ladder.id,
        ladder.league_id,
        groups=groups,
        since=since,
        until=until,
        before=query.cursor(),
        limit=limit + 1,
    )
    ids = match_game_ids(db, ladder.league_id, [r["idx"] for r in rows if r["state"] == "stored"])
    items = [
        {
            **match_item(r),
            "chosen_at": iso(r["chosen_at"]),
            "finished_at": iso(r["finished_at"]),
            "seconds": finite(r["seconds"]),
            "games": ids.get(r["idx"], []),
        }
        for r in rows
    ]
    return _page(items, limit, "match")


def games(db: sqlite_utils.Database, ladder: Ladder, query: Query) -> dict[str, Any]:
    """A page of the ladder's stored games, newest first, filtered."""
    groups, limit = filters(db, ladder, query), query.limit()
    rows = ladder_games_page(
        db, ladder.league_id, groups=groups, before=query.cursor(), limit=limit + 1
    )
    items = [
        {
            "id": r["id"],
            "match": r["match_idx"],
            "rotation": r["rotation"],
            "players": r["players"],
            "totals": r["totals"],
            "ranks": r["ranks"],
            "finished_at": iso(r["finished_at"]),
        }
        for r in rows
    ]
    return _page(items, limit, "id")


def faults(db: sqlite_utils.Database, ladder: Ladder, query: Query) -> dict[str, Any]:
    """A page of the ladder's faults, newest first, of a bot's or a version's."""
    groups, limit = filters(db, ladder, query), query.limit()
    entrants = None
    for group in groups:
        entrants = group if entrants is None else [e for e in entrants if e in group]
    rows = ladder_faults_page(
        db, ladder.league_id, entrants=entrants, before=query.cursor(), limit=limit + 1
    )
    items = []
    for row in rows:
        log = row.get("log") or ""
        items.append(
            {
                "id": row["id"],
                "entrant": row["entrant"],
                "kind": row["kind"],
                "game_id": row["game_id"],
                "match": row["match_idx"],
                "rotation": row["rotation"],
                "seat": row["seat"],
                "deal": row["deal"],
                "decision": row.get("decision"),
                "event": row.get("event"),
                "expected": row.get("expected"),
                "got": row.get("got"),
                "detail": hide_folders(row.get("detail") or ""),
                "log": PurePath(log).name or None,
            }
        )
    return _page(items, limit, "id")
