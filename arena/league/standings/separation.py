"""When a league may stop: the rule behind `arena run --until-separated`.

A league stops after a match when all of these hold:

1. at least `min_matches` matches have been rated;
2. TrueSkill's place order (the table's: mu - 3 sigma, then mu) is the order of the
   strengths the table's separation rule fits from all the evidence
   (`arena.league.standings.places`: in a league where every match seats the same entrants,
   the order of the mean duplicate margins);
3. every two neighbours in that order are separated by that rule at `level`: their
   place ranges are single places.

The league is checked after every match, and every look is another chance for chance
to pass a test, so the level was chosen by measurement, not by the textbook
(`arena bench rating`; docs/ratings.md, "When a league stops").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.league.standings.places import evidence, place_ranges
from arena.league.standings.ratings import MatchOutcome, Rater


@dataclass(frozen=True)
class StopRule:
    level: float = 0.90
    min_matches: int = 15


def place_order(rater: Rater) -> tuple[str, ...]:
    """The table's order: conservative rating mu - 3 sigma, then mu, then name."""
    ratings = rater.ratings
    return tuple(
        sorted(ratings, key=lambda e: (-(ratings[e].mu - 3 * ratings[e].sigma), -ratings[e].mu, e))
    )


def stop_check(
    matches: Sequence[MatchOutcome], rater: Rater, rule: StopRule
) -> tuple[str, ...] | None:
    """The settled order if the league may stop after `matches` (rated in `rater`)."""
    if len(matches) < rule.min_matches:
        return None
    order = place_order(rater)
    proof = evidence(matches, order)
    fitted = {name: float(proof.strength[proof.index(name)]) for name in order}
    if order != tuple(sorted(order, key=lambda e: -fitted[e])):
        return None
    ranges = place_ranges(order, proof, rule.level)
    if any(first != last for first, last in ranges):
        return None
    return order
