"""When a league may stop: the rule behind `arena run --until-separated`.

A league stops after a match when all of these hold:

1. at least `min_matches` matches have been rated;
2. TrueSkill's place order (the table's: mu - 3 sigma, then mu) is the order of the
   entrants' mean duplicate margins;
3. every two neighbours in that order are told apart by their head-to-head margin:
   the interval at `level` of the upper one's margin over the lower one, one sample
   per match both played, lies wholly above zero.

The league is checked after every match, and every look is another chance for chance
to pass a test, so the level was chosen by measurement, not by the textbook:
`arena bench rating` on the close ladder (p = 0.6..0.9) found 90% intervals stopping
with the true order in 96 of 100 leagues (none wrong, 4 still going at 160 games),
where 95% and 99% intervals left 9 and 38 leagues still going; on four practically
equal bots it stopped in none of 30 leagues (docs/ratings.md, "When a league stops").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.league.standings.ratings import MatchOutcome, Rater
from arena.league.standings.stats import head_to_head, margin_samples, mean_interval


@dataclass(frozen=True)
class StopRule:
    level: float = 0.90
    min_matches: int = 5


def place_order(rater: Rater) -> tuple[str, ...]:
    """The table's order: conservative rating mu - 3 sigma, then mu, then name."""
    ratings = rater.ratings
    return tuple(
        sorted(ratings, key=lambda e: (-(ratings[e].mu - 3 * ratings[e].sigma), -ratings[e].mu, e))
    )


def neighbours_apart(matches: Sequence[MatchOutcome], upper: str, lower: str, level: float) -> bool:
    """Whether `upper`'s head-to-head margin over `lower` is surely above zero."""
    samples = [
        head_to_head(m, upper, lower)
        for m in matches
        if upper in m.entrants and lower in m.entrants
    ]
    interval = mean_interval(samples, level)
    return interval.low is not None and interval.low > 0


def stop_check(
    matches: Sequence[MatchOutcome], rater: Rater, rule: StopRule
) -> tuple[str, ...] | None:
    """The settled order if the league may stop after `matches` (rated in `rater`)."""
    if len(matches) < rule.min_matches:
        return None
    order = place_order(rater)
    samples = margin_samples(matches)
    means = {e: sum(v) / len(v) for e, v in samples.items() if v}
    if any(e not in means for e in order):
        return None
    if order != tuple(sorted(order, key=lambda e: -means[e])):
        return None
    for upper, lower in zip(order, order[1:], strict=False):
        if not neighbours_apart(matches, upper, lower, rule.level):
            return None
    return order
