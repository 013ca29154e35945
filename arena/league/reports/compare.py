"""`arena compare A B`: A's expected score per game over B, and whether they are separated.

The verdict is the table's rule (`arena.league.standings.places`): A's margin over B fitted from
every match that bears on them (their own meetings and, through shared opponents, the
rest), one sample per match (its games share the deals), and "A is better than B" only
when its interval is clear of zero. The head-to-head figure over the matches both
played is shown beside it: where every match seats both, the two are the same.
"""

from __future__ import annotations

from typing import Any

import sqlite_utils

from arena.errors import ConfigError
from arena.league import store
from arena.league.standings.places import evidence
from arena.league.standings.stats import Interval, head_to_head, mean_interval


def compare(
    db: sqlite_utils.Database, league_id: int, a: str, b: str, level: float = 0.95
) -> dict[str, Any]:
    """A over B per game: margin, its interval at `level`, matches, and a verdict."""
    outcomes = store.load_outcomes(db, league_id, deals=False)
    known = store.entrant_names(db, league_id)
    for name in (a, b):
        if name not in known:
            raise ConfigError(f"no entrant {name!r} in this league; entrants: {', '.join(known)}")
    if a == b:
        raise ConfigError("compare needs two different entrants")
    matches = [m for _, m in sorted(outcomes.items())]
    samples = [head_to_head(m, a, b) for m in matches if a in m.entrants and b in m.entrants]
    direct = mean_interval(samples, level)
    fitted = evidence(matches, known).difference(a, b, level)
    met = bool(samples)  # two that never met have no head-to-head margin, not one of 0
    if fitted.low is None or fitted.high is None:
        verdict = (
            "too few matches to say (at least 2 bearing on them are needed)"
            if met or fitted.n
            else f"{a} and {b} never met, and no match bears on both: there is no margin"
        )
    elif fitted.low > 0:
        verdict = f"{a} is better than {b}"
    elif fitted.high < 0:
        verdict = f"{b} is better than {a}"
    else:
        verdict = "not told apart yet: the interval includes zero"
    return {
        "a": a,
        "b": b,
        "margin": None if fitted.low is None and not met else round(fitted.mean, 2),
        "margin_ci": _ci(fitted),
        "level": level,
        "matches": direct.n,
        "evidence_matches": fitted.n,
        "head_to_head": {
            "margin": round(direct.mean, 2) if met else None,
            "margin_ci": _ci(direct),
            "matches": direct.n,
        },
        "verdict": verdict,
    }


def _ci(interval: Interval) -> list[float | None]:
    return [
        None if interval.low is None else round(interval.low, 2),
        None if interval.high is None else round(interval.high, 2),
    ]


def render_comparison(result: dict[str, Any]) -> str:
    def ci(pair: list[float | None]) -> str:
        low, high = pair
        return "n/a" if low is None or high is None else f"[{low:+.1f}, {high:+.1f}]"

    direct = result["head_to_head"]
    if result["margin"] is None:
        return (
            f"{result['a']} over {result['b']}: no margin, no match bears on both; "
            f"they never met\n{result['verdict']}"
        )
    if direct["margin"] is None:
        return (
            f"{result['a']} over {result['b']}: {result['margin']:+.2f} points per game, "
            f"{result['level']:.0%} interval {ci(result['margin_ci'])}, from the "
            f"{result['evidence_matches']} matches either played\n"
            "head to head: none, they never met (no match holds both)\n"
            f"{result['verdict']}"
        )
    return (
        f"{result['a']} over {result['b']}: {result['margin']:+.2f} points per game, "
        f"{result['level']:.0%} interval {ci(result['margin_ci'])}, from the "
        f"{result['evidence_matches']} matches either played\n"
        f"head to head: {direct['margin']:+.2f} per game, interval {ci(direct['margin_ci'])}, "
        f"{direct['matches']} matches both played\n"
        f"{result['verdict']}"
    )
