"""What a duel found, as plain data: the question, the evidence, the verdict and each
pair (`arena duel --json` prints it; its text is made from it, so the two cannot
disagree; docs/duel.md names every field)."""

from __future__ import annotations

import math
from typing import Any

from arena.duel.runner import Duel
from arena.duel.tables import SIDES


def summary(duel: Duel, interrupted: bool = False) -> dict[str, Any]:
    """Everything a duel found, as plain data (`arena duel --json`; docs/duel.md names
    every field): the question, the evidence, the verdict and each pair."""
    request, verdict = duel.request, duel.verdict()
    low, high = duel.interval()
    settings = request.settings
    pairs = duel.pairs
    first = next((p.number for p in pairs if p.verdict.decision in ("accept", "reject")), None)
    faults = {who: 0 for who in ("A", "B", "opponents")}
    overloads = 0
    for pair in pairs:
        for f in pair.faults:
            if f.fault.overload:
                overloads += 1
            else:
                faults[f.who if f.who in SIDES else "opponents"] += 1
    n = len(pairs)
    return {
        "a": request.a,
        "b": request.b,
        "opponents": list(duel.opponents),
        "game": duel.game.name,
        "rules": duel.game.options_dict(duel.options),
        "margin0": settings.margin0,
        "margin1": settings.margin1,
        "alpha": settings.alpha,
        "beta": settings.beta,
        "max_games": settings.max_games,
        "min_pairs": settings.min_pairs,
        "matches": request.matches,
        "pairs": n,
        "games": sum(p.games for p in pairs),
        "games_per_pair": duel.games_per_pair,
        "mean": _number(verdict.mean),
        "low": _number(low),
        "high": _number(high),
        "a_margin": _number(sum(p.a_margin for p in pairs) / n) if n else None,
        "b_margin": _number(sum(p.b_margin for p in pairs) / n) if n else None,
        "llr": _number(verdict.llr),
        "lower": verdict.lower,
        "upper": verdict.upper,
        "decision": verdict.decision,
        "verdict": VERDICTS[verdict.decision],
        "decided_at": first,
        "interrupted": interrupted,
        "faults": faults,
        "overloads": overloads,
        "steps": [
            {
                "pair": p.number,
                "seed": p.seed,
                "a_margin": p.a_margin,
                "b_margin": p.b_margin,
                "difference": p.difference,
            }
            for p in pairs
        ],
    }


VERDICTS = {
    "accept": "A better",  # H1: A is better by margin1
    "reject": "A not better",  # H0: A is better by margin0 at most
    "undecided": "undecided",  # max_games reached first
    "continue": "undecided",  # stopped before the test could decide (--matches, Ctrl-C)
}


def _number(x: float) -> float | str | None:
    """A float as JSON holds it: nan (no evidence yet) as null, infinities (differences
    that do not vary) as the strings "inf" and "-inf"."""
    if math.isnan(x):
        return None
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x
