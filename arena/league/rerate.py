"""`arena upgrade --rerate`: rate a database's leagues again by the default feeding.

Ratings are a pure function of the stored matches and the league's settings, so a
league rated by an older feeding (say `rate_by = "deal"`, the default before
`"margin"`) can be rated again from its stored results without playing anything. Without
`--rerate`, `arena upgrade` only names those leagues; every table says which feeding its
ratings came from either way (docs/ratings.md, "Leagues rated by an older feeding").
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlite_utils

from arena.league import store
from arena.league.config import RATE_BY_DEFAULT, Ratings
from arena.league.ratings import Rater, rate_prefix
from arena.league.store.schema import immediate, open_db


@dataclass(frozen=True)
class Feeding:
    """A league whose ratings are not of the default feeding, and what was done."""

    league: str
    rate_by: str
    rerated: bool


def older_feedings(path: Path, rerate: bool = False) -> list[Feeding]:
    """The leagues of the database at `path` rated by a feeding other than the default;
    with `rerate`, each is rated again by the default feeding (its stored settings say
    so from then on, so the table and a resumed run agree)."""
    db = open_db(path)
    try:
        found = []
        for row in list(db["leagues"].rows):
            settings = json.loads(row["settings"])
            rate_by = settings.get("rate_by")
            if rate_by == RATE_BY_DEFAULT:
                continue
            if rerate:
                _rerate(db, row["id"], settings)
            found.append(Feeding(row["name"], str(rate_by), rerate))
        return found
    finally:
        db.close()


def _rerate(db: sqlite_utils.Database, league_id: int, settings: dict[str, Any]) -> None:
    outcomes = store.load_outcomes(db, league_id)
    rater = Rater(
        Ratings(**settings["ratings"]), settings["entrants"], RATE_BY_DEFAULT,
        settings["forfeit_faults"],
    )  # fmt: skip
    _, rows = rate_prefix(outcomes, rater)
    settings = {**settings, "rate_by": RATE_BY_DEFAULT}
    with immediate(db):
        db.execute(
            "UPDATE leagues SET settings = ? WHERE id = ?", [json.dumps(settings), league_id]
        )
    store.replace_ratings(db, league_id, rows)
