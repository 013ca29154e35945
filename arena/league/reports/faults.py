"""Fault reports from a league database (`arena faults`): one entry per fault, with
what a bot's author needs to find the moment and act on it.

Each entry names the stored game (`arena replay GAME_ID` shows it), the deal, the
decision (the seat's n-th decision in that game: an external bot received it as the
request's `decision_id`), the replay event that holds the fallback move, what the
referee expected, what came back (truncated), and the bot's log file. Faults stored
before schema migration 3 lack the decision, expectation, answer and log: they show
"-" rather than a guess.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import sqlite_utils

from arena.errors import ConfigError
from arena.league import store
from arena.league.reports.formats import TextOrJson, text_safe

FORMATS = tuple(TextOrJson)


def fault_rows(
    db: sqlite_utils.Database, league_id: int, bot: str | None = None
) -> list[dict[str, Any]]:
    """The league's faults in playing order (match, rotation, deal, decision), optionally
    only those of the entrant called `bot`; ConfigError names the entrants when `bot`
    is not one of them."""
    if bot is not None:
        names = store.entrant_names(db, league_id)
        if bot not in names:
            raise ConfigError(
                f"no entrant named {bot!r} in this league; entrants: {', '.join(names) or 'none'}"
            )
    rows = store.fault_records(db, league_id, bot)
    return [
        {
            "entrant": row["entrant"],
            "kind": row["kind"],
            "game_id": row["game_id"],
            "game": row["game_name"],
            "match": row["match_idx"],
            "rotation": row["rotation"],
            "seat": row["seat"],
            "deal": row["deal"],
            "decision": row["decision"],
            "event": row["event"],
            "expected": row["expected"],
            "got": row["got"],
            "log": row["log"],
            "detail": row["detail"],
        }
        for row in rows
    ]


def _shown(value: Any) -> str:
    """A fault's field for the text report: "-" when unknown, and never a control
    character (what came back is the bot's own text)."""
    return "-" if value is None or value == "" else text_safe(str(value))


def render_faults(rows: Sequence[dict[str, Any]], fmt: str = TextOrJson.TEXT) -> str:
    """The faults as text (a block per fault) or JSON (a list of the rows)."""
    if fmt == TextOrJson.JSON:
        return json.dumps(list(rows), indent=1)
    if not rows:
        return "no faults"
    blocks = []
    for row in rows:
        blocks.append(
            "\n".join(
                [
                    f"{text_safe(row['entrant'])}: {row['kind']} in game {row['game_id']} "
                    f"({row['game']}, "
                    f"match {row['match']} rotation {row['rotation']}, seat {row['seat']}), "
                    f"deal {row['deal']}, decision {_shown(row['decision'])}"
                    + (f" (replay event {row['event']})" if row["event"] is not None else ""),
                    f"  expected: {_shown(row['expected'])}",
                    f"  got:      {_shown(row['got'])}",
                    f"  log:      {_shown(row['log'])}",
                    f"  detail:   {_shown(row['detail'].splitlines()[0] if row['detail'] else '')}",
                ]
            )
        )
    return "\n\n".join(blocks) + f"\n\n{len(rows)} fault{'s' if len(rows) != 1 else ''}"
