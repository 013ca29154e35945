"""`arena compare A B`: A's duplicate margin over B in the matches where both played.

Both held the same seats' cards in the same matches, so the difference of their scores
is free of card luck; one sample per match (its games share the deals), a Student t
interval over the matches, and a verdict only when the interval is clear of zero.
"""

from __future__ import annotations

from typing import Any

import sqlite_utils

from arena.errors import ConfigError
from arena.league import store
from arena.league.standings.stats import head_to_head, mean_interval


def compare(
    db: sqlite_utils.Database, league_id: int, a: str, b: str, level: float = 0.95
) -> dict[str, Any]:
    """A over B per game: margin, its interval at `level`, matches, and a verdict."""
    outcomes = store.load_outcomes(db, league_id)
    known = store.entrant_names(db, league_id)
    for name in (a, b):
        if name not in known:
            raise ConfigError(f"no entrant {name!r} in this league; entrants: {', '.join(known)}")
    if a == b:
        raise ConfigError("compare needs two different entrants")
    samples = [
        head_to_head(m, a, b)
        for _, m in sorted(outcomes.items())
        if a in m.entrants and b in m.entrants
    ]
    interval = mean_interval(samples, level)
    if not samples:  # issue 27 finding 10: no margin at all, not a margin of zero
        verdict = f"{a} and {b} never met: no match holds both, so there is no margin"
    elif interval.low is None or interval.high is None:
        verdict = "too few shared matches to say (at least 2 are needed)"
    elif interval.low > 0:
        verdict = f"{a} is better than {b}"
    elif interval.high < 0:
        verdict = f"{b} is better than {a}"
    else:
        verdict = "not told apart yet: the interval includes zero"
    return {
        "a": a,
        "b": b,
        "margin": round(interval.mean, 2) if samples else None,
        "margin_ci": [
            None if interval.low is None else round(interval.low, 2),
            None if interval.high is None else round(interval.high, 2),
        ],
        "level": level,
        "matches": interval.n,
        "verdict": verdict,
    }


def render_comparison(result: dict[str, Any]) -> str:
    low, high = result["margin_ci"]
    if result["margin"] is None:
        head = f"{result['a']} over {result['b']}: no margin, 0 matches both played"
        return f"{head}\n{result['verdict']}"
    ci = "n/a" if low is None else f"[{low:+.1f}, {high:+.1f}]"
    return (
        f"{result['a']} over {result['b']}: {result['margin']:+.2f} points per game, "
        f"{result['level']:.0%} interval {ci}, {result['matches']} matches both played\n"
        f"{result['verdict']}"
    )
