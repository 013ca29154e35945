"""`arena upgrade --rerate`: rate a database's leagues again by the default feeding.

Ratings are a pure function of the stored matches and the league's settings, so a
league rated by an older feeding (say `rate_by = "deal"`, the default before
`"margin"`) can be rated again from its stored results without playing anything. Without
`--rerate`, `arena upgrade` only names those leagues; every table says which feeding its
ratings came from either way (docs/ratings.md, "Leagues rated by an older feeding").
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import sqlite_utils

from arena.league import store
from arena.league.definition.config import RATE_BY_DEFAULT, LockedSettings, RateBy, Ratings
from arena.league.standings.ratings import Rater, rate_prefix
from arena.league.store.schema import open_db


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
        for league_id, name, settings in store.league_settings(db):
            rate_by = settings.get("rate_by")
            if rate_by in (RATE_BY_DEFAULT, RateBy.NONE):  # NONE: a person played, never rated
                continue
            if rerate:
                _rerate(db, league_id, settings)
            found.append(Feeding(name, str(rate_by), rerate))
        return found
    finally:
        db.close()


def _rerate(db: sqlite_utils.Database, league_id: int, settings: LockedSettings) -> None:
    """Rate the league's stored matches again by the default feeding, and store that."""
    outcomes = store.load_outcomes(db, league_id)
    rater = Rater(
        Ratings(**settings["ratings"]),
        settings["entrants"],
        RATE_BY_DEFAULT,
        settings["forfeit_faults"],
    )
    _, rows = rate_prefix(outcomes, rater)
    store.rerate_league(db, league_id, {**settings, "rate_by": RATE_BY_DEFAULT}, rows)
