"""Means with confidence intervals, and the duplicate margins they are taken of.

A league's games are not independent samples: the four games of a seat-rotated match
share their deals, so an entrant's scores in them move together. The independent
sample is the match. So a margin's interval is a Student t interval over one number
per match, never over games (which would claim about twice the certainty there is).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from arena.league.definition.records import MatchOutcome


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (Lentz's method)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c if abs(1.0 + aa / c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c if abs(1.0 + aa / c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with `df` degrees of freedom."""
    tail = 0.5 * _incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


@functools.lru_cache(maxsize=4096)
def t_quantile(q: float, df: float) -> float:
    """The t value below which a fraction `q` of Student's t(df) lies (by bisection;
    cached: a crosstable of 50 entrants asks it for 1,225 pairs of a few sizes)."""
    if not 0.0 < q < 1.0:
        raise ValueError(f"q must lie strictly between 0 and 1, not {q}")
    if q < 0.5:
        return -t_quantile(1.0 - q, df)
    low, high = 0.0, 1.0
    while t_cdf(high, df) < q:
        high *= 2.0
    for _ in range(200):
        mid = (low + high) / 2.0
        if t_cdf(mid, df) < q:
            low = mid
        else:
            high = mid
        if high - low < 1e-12 * max(1.0, high):
            break
    return (low + high) / 2.0


@dataclass(frozen=True)
class Interval:
    """A sample mean and its two-sided confidence interval (None below two samples)."""

    mean: float
    low: float | None
    high: float | None
    n: int

    def excludes(self, value: float = 0.0) -> bool:
        """Whether the interval lies wholly on one side of `value`."""
        return (
            self.low is not None
            and self.high is not None
            and (self.low > value or self.high < value)
        )


def mean_interval(samples: Sequence[float], level: float = 0.95) -> Interval:
    """The mean of independent samples with its Student t interval at `level`."""
    n = len(samples)
    if n == 0:
        return Interval(0.0, None, None, 0)
    mean = math.fsum(samples) / n
    if n < 2:
        return Interval(mean, None, None, n)
    variance = math.fsum((x - mean) ** 2 for x in samples) / (n - 1)
    half = t_quantile(0.5 + level / 2.0, n - 1) * math.sqrt(variance / n)
    return Interval(mean, mean - half, mean + half, n)


def match_margins(match: MatchOutcome) -> dict[str, float]:
    """Each entrant's duplicate margin in one match, per game: its score minus the mean
    score of the others who held the same seat's cards in the match's other games.

    In a full rotation every entrant holds every seat equally often, so this equals
    (own total - mean of the others' totals) / games each entrant played."""
    totals = {e: sum(g.totals[e] for g in match.games) for e in match.entrants}
    games = len(match.games)
    n = len(match.entrants)
    whole = sum(totals.values())
    return {e: (t - (whole - t) / (n - 1)) / games for e, t in totals.items()}


def head_to_head(match: MatchOutcome, a: str, b: str) -> float:
    """A's duplicate margin over B in one match, per game: in a full rotation both held
    every seat's cards equally often, so it is the difference of their totals per game."""
    return sum(g.totals[a] - g.totals[b] for g in match.games) / len(match.games)


def margin_samples(matches: Sequence[MatchOutcome]) -> dict[str, list[float]]:
    """Every entrant's per-match margins, in schedule order."""
    out: dict[str, list[float]] = {}
    for match in matches:
        for entrant, margin in match_margins(match).items():
            out.setdefault(entrant, []).append(margin)
    return out
