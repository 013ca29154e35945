"""Head-to-head margins of every pair of entrants, and the places they cannot separate.

`arena compare A B` shows one pair; a league page shows them all at once (the
crosstable). Whether two entrants are separated is not read from these alone (pairs
that rarely met have wide intervals): `arena.league.standings.places` decides it from every game
that bears on them.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass

from arena.league.definition.records import MatchOutcome
from arena.league.standings.stats import Interval, head_to_head, mean_interval


@dataclass(frozen=True)
class Pairing:
    """A's margin over B per game, over the matches where both played."""

    a: str
    b: str
    interval: Interval

    @property
    def separated(self) -> bool:
        """True when the interval is clear of zero: the matches tell the two apart."""
        return self.interval.excludes(0.0)


def crosstable(
    outcomes: Iterable[MatchOutcome], level: float = 0.95
) -> dict[tuple[str, str], Pairing]:
    """Every ordered pair (A, B) that shared a match: A's margin over B, as `arena
    compare` computes it, in one pass over the matches (a match of four entrants feeds
    its six pairs)."""
    samples: dict[tuple[str, str], list[float]] = {}
    for match in sorted(outcomes, key=lambda m: m.idx):
        for a, b in itertools.combinations(sorted(set(match.entrants)), 2):
            samples.setdefault((a, b), []).append(head_to_head(match, a, b))
    out: dict[tuple[str, str], Pairing] = {}
    for (a, b), values in samples.items():
        interval = mean_interval(values, level)
        out[(a, b)] = Pairing(a, b, interval)
        out[(b, a)] = Pairing(b, a, _negated(interval))
    return out


def _negated(interval: Interval) -> Interval:
    low = None if interval.high is None else -interval.high
    high = None if interval.low is None else -interval.low
    return Interval(-interval.mean, low, high, interval.n)
