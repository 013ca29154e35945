"""TrueSkill ratings for a league, fed per seat-rotated match, per deal or per game.

Ratings are a pure function of the stored results taken in schedule order, so they
are the same whatever order parallel matches finished in, and a resumed league
recomputes exactly what an uninterrupted one would have. Only the stored prefix of the
schedule with no gap is rated; a match stored beyond a gap waits for the gap to fill.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import trueskill

from arena.league.definition.config import RateBy, Ratings
from arena.league.definition.records import GameOutcome, MatchOutcome

__all__ = ["GameOutcome", "MatchOutcome", "Rater", "rate_prefix", "rating_updates", "ranking"]


def ranking(
    entrants: Sequence[str], totals: dict[str, int], faults: dict[str, int], forfeit: int
) -> list[int]:
    """TrueSkill ranks (0 is best, ties equal) of `entrants` by total; an entrant whose
    faults reached `forfeit` is ranked last (forfeiters tie among themselves)."""
    keyed = [
        (1 if faults.get(e, 0) >= forfeit else 0, -totals[e]) for e in entrants
    ]  # smaller is better
    return [sum(1 for other in keyed if other < mine) for mine in keyed]


class Rater:
    """The league's TrueSkill environment and current ratings."""

    def __init__(self, params: Ratings, entrants: Iterable[str], rate_by: str, forfeit: int):
        self.env = trueskill.TrueSkill(
            mu=params.mu,
            sigma=params.sigma,
            beta=params.beta,
            tau=params.tau,
            draw_probability=params.draw_probability,
            backend=None,
        )
        self.ratings = {name: self.env.create_rating() for name in entrants}
        self.rate_by = rate_by
        self.forfeit = forfeit
        self.steps = 0

    def apply(self, match: MatchOutcome) -> list[dict[str, Any]]:
        """Update from one match; returns the rating-history rows it adds."""
        rows: list[dict[str, Any]] = []
        entrants = match.entrants
        updates = rating_updates(match, self.rate_by)
        for rotation, totals, faults in updates:
            ranks = ranking(entrants, totals, faults, self.forfeit)
            groups = [(self.ratings[e],) for e in entrants]
            new = self.env.rate(groups, ranks=ranks)
            self.steps += 1
            for entrant, (rating,) in zip(entrants, new, strict=True):
                self.ratings[entrant] = rating
                rows.append(
                    {
                        "step": self.steps,
                        "match_idx": match.idx,
                        "rotation": rotation,
                        "entrant": entrant,
                        "mu": rating.mu,
                        "sigma": rating.sigma,
                    }
                )
        return rows


def rating_updates(
    match: MatchOutcome, rate_by: str
) -> list[tuple[int, dict[str, int], dict[str, int]]]:
    """The (rotation, scores, faults) rankings one match feeds TrueSkill, per `rate_by`.

    - "match": one update from the scores summed over the rotations (card luck cancels);
    - "game": one update per game (rotation), the naive feeding;
    - "deal": one update per deal number, each entrant's scores on that deal summed over
      the rotations, so every update compares the bots on the same cards (duplicate
      play) and a match gives many small, nearly independent comparisons. Only deal
      numbers played in every rotation are used. Faults are the match's in every update.
    """
    entrants = match.entrants
    if rate_by == RateBy.GAME:
        return [(g.rotation, g.totals, g.faults) for g in match.games]
    faults = {e: sum(g.faults[e] for g in match.games) for e in entrants}
    if rate_by == RateBy.DEAL:
        count = min((len(g.deals) for g in match.games), default=0)
        return [
            (-1, {e: sum(g.deals[k].get(e, 0) for g in match.games) for e in entrants}, faults)
            for k in range(count)
        ]
    totals = {e: sum(g.totals[e] for g in match.games) for e in entrants}
    return [(-1, totals, faults)]


def rate_prefix(
    outcomes: dict[int, MatchOutcome], rater: Rater, start: int = 0
) -> tuple[int, list[dict[str, Any]]]:
    """Apply stored matches start, start+1, ... while there is no gap; returns the next
    index to rate and the history rows added."""
    rows: list[dict[str, Any]] = []
    idx = start
    while idx in outcomes:
        rows += rater.apply(outcomes[idx])
        idx += 1
    return idx, rows
