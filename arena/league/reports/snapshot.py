"""A league's standings, computed once and read by every page until the league changes.

The league and entrant pages show the table (every entrant's rating, margin and place
range), the evidence that separates entrants, the crosstable and the rating chart.
Computed from the stored results they read every result of the league: a league of a
million games and 500 entrants takes seconds. So they are computed once (`refresh`:
the end of `arena run`, `arena bench web`'s builder) and stored (migration 14, with
the state of the league they were computed from: `league_stamp`); a page reads them
(`standings`) when that state is still the league's, and computes them again when it
is not, so a page never shows standings older than the league. What is stored is
what the computation returns, numbers unrounded: the table's rows, the evidence's
fitted strengths, covariance and counts, and per pair of entrants the crosstable's
interval; a page makes its cells from them as it does from a fresh computation.

The rating chart draws at most `CHART_LINES` entrants (the first of the table) and
`CHART_POINTS` matches (evenly spaced, the last always among them): a chart of 500
lines over 250,000 matches would be megabytes of SVG no one can read.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import sqlite_utils

from arena.league import store
from arena.league.reports.table import TableRow, league_rows
from arena.league.standings.crosstable import Pairing, crosstable
from arena.league.standings.places import Evidence, evidence
from arena.league.standings.stats import Interval
from arena.league.store import site_reads
from arena.league.store.snapshots import league_stamp, read_standings, write_standings

FORMAT = 3  # what the stored data holds; standings of another format are computed again
CHART_LINES = 20  # entrants drawn on the rating chart: the first of the table
CHART_POINTS = 250  # matches drawn on it at most: evenly spaced, the last one always


class Pairs:
    """The crosstable: A's margin over B per game for every ordered pair that met (as
    `crosstable` returns it), held as arrays so that stored standings need not make a
    `Pairing` for each of 250,000 pairs a page does not show."""

    def __init__(self, names: Sequence[str], mean: np.ndarray, low: np.ndarray,
                 high: np.ndarray, n: np.ndarray) -> None:  # fmt: skip
        self.names = tuple(names)
        self.where = {name: i for i, name in enumerate(self.names)}
        self.mean, self.low, self.high, self.n = mean, low, high, n

    @classmethod
    def of(cls, names: Sequence[str], pairs: Mapping[tuple[str, str], Pairing]) -> Pairs:
        """The arrays of `crosstable`'s pairings over `names` (the league's entrants)."""
        size = len(names)
        where = {name: i for i, name in enumerate(names)}
        mean, low, high = (np.full((size, size), np.nan) for _ in range(3))
        n = np.zeros((size, size), dtype=np.int64)
        for (a, b), pairing in pairs.items():
            if a in where and b in where:
                i, j, interval = where[a], where[b], pairing.interval
                mean[i, j] = interval.mean
                low[i, j] = np.nan if interval.low is None else interval.low
                high[i, j] = np.nan if interval.high is None else interval.high
                n[i, j] = interval.n
        return cls(names, mean, low, high, n)

    def get(self, pair: tuple[str, str]) -> Pairing | None:
        """A's pairing with B, or None when they never met."""
        i, j = self.where.get(pair[0]), self.where.get(pair[1])
        if i is None or j is None or self.n[i, j] == 0:
            return None
        low, high = float(self.low[i, j]), float(self.high[i, j])
        interval = Interval(
            float(self.mean[i, j]),
            None if np.isnan(low) else low,
            None if np.isnan(high) else high,
            int(self.n[i, j]),
        )
        return Pairing(pair[0], pair[1], interval)


@dataclass
class Standings:
    """What the league and entrant pages show of the league as a whole."""

    rows: list[TableRow]  # `league_rows`: the table, best first
    proof: Evidence  # `evidence` of every stored match
    pairs: Pairs  # `crosstable` of every stored match
    history: list[dict[str, Any]]  # the rating chart's rows (`chart_history`)
    asked: dict[str, int]  # decisions each entrant was asked in all (0: never timed)


def chart_history(
    history: Iterable[Mapping[str, Any]], order: Sequence[str]
) -> list[dict[str, Any]]:
    """The rows of `site_reads.rating_history` the chart draws: those of the first
    `CHART_LINES` entrants of the table `order`, at no more than `CHART_POINTS`
    matches (all of them in a league that has no more)."""
    drawn = set(order[:CHART_LINES])
    rows = [dict(row) for row in history if row["entrant"] in drawn]
    matches = sorted({row["match_idx"] for row in rows})
    if len(matches) > CHART_POINTS:
        step = (len(matches) - 1) / (CHART_POINTS - 1)
        kept = {matches[round(k * step)] for k in range(CHART_POINTS)}
        rows = [row for row in rows if row["match_idx"] in kept]
    return rows


def compute(db: sqlite_utils.Database, league_id: int) -> Standings:
    """The standings from every stored result of the league."""
    _, settings = store.league_record(db, league_id)
    names = list(settings["entrants"])
    outcomes = store.load_outcomes(db, league_id, deals=False)
    proof = evidence(outcomes.values(), names)  # the table's and the crosstable's
    rows = league_rows(db, league_id, outcomes, proof=proof)
    pairs = Pairs.of(list(proof.names), crosstable(outcomes.values()))
    order = [row["name"] for row in rows]
    history = chart_history(site_reads.rating_history(db, league_id), order)
    asked = {e: s.get("asked") or 0 for e, s in store.entrant_stats(db, league_id).items()}
    return Standings(rows, proof, pairs, history, asked)


def standings(db: sqlite_utils.Database, league_id: int) -> Standings:
    """The league's standings: the stored ones while the league is as they were
    computed from, else computed now (the same figures, a few seconds later at a
    million games)."""
    stored = read_standings(db, league_id)
    if stored is not None:
        stamp, data, arrays = stored
        if data.get("format") == FORMAT and stamp == league_stamp(db, league_id):
            return _loaded(data, arrays)
    return compute(db, league_id)


def refresh(db: sqlite_utils.Database, league_id: int) -> Standings:
    """Compute the league's standings and store them with the league's state (for a
    database that can be written: the end of `arena run`, the bench's builder)."""
    stamp = league_stamp(db, league_id)  # before: a match stored meanwhile makes it stale
    result = compute(db, league_id)
    proof, pairs = result.proof, result.pairs
    counts, together = proof.counts()
    buffer = io.BytesIO()
    np.savez(
        buffer,
        strength=proof.strength,
        covariance=proof.covariance,
        counts=counts.astype(np.int32),  # counts of matches: exact in 32 bits
        together=together.astype(np.int32),
        mean=pairs.mean,
        low=pairs.low,
        high=pairs.high,
        n=pairs.n.astype(np.int32),
    )
    data = {
        "format": FORMAT,
        "rows": result.rows,
        "names": list(proof.names),
        "component": list(proof.component),
        "residual_dof": proof.residual_dof,
        "pairs": list(pairs.names),
        "history": result.history,
        "asked": result.asked,
    }
    write_standings(db, league_id, stamp, data, buffer.getvalue())
    return result


def store_standings(db_path: Path, league: str) -> None:
    """`refresh` the standings of the league called `league` in the database at
    `db_path` (`arena run`, once its run ends)."""
    db = store.open_db(db_path)
    try:
        refresh(db, store.league_id_by_name(db, league)[0])
    finally:
        db.close()


def _loaded(data: dict[str, Any], arrays: bytes) -> Standings:
    """Standings as `refresh` stored them."""
    held = np.load(io.BytesIO(arrays))
    proof = Evidence.restored(
        data["names"],
        held["strength"],
        held["covariance"],
        data["component"],
        data["residual_dof"],
        (held["counts"].astype(np.float64), held["together"].astype(np.float64)),
    )
    pairs = Pairs(data["pairs"], held["mean"], held["low"], held["high"], held["n"])
    rows: list[TableRow] = data["rows"]
    return Standings(rows, proof, pairs, data["history"], data["asked"])
