"""TrueSkill ratings for a league, fed by duplicate margin, per seat-rotated match, per
deal or per game.

Ratings are a pure function of the stored results taken in schedule order, so they
are the same whatever order parallel matches finished in, and a resumed league
recomputes exactly what an uninterrupted one would have. Only the stored prefix of the
schedule with no gap is rated; a match stored beyond a gap waits for the gap to fill.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import trueskill

from arena.league.definition.config import RateBy, Ratings
from arena.league.definition.records import GameOutcome, MatchOutcome
from arena.league.standings.stats import match_margins

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
        self.spread = _Spread()  # rate_by = "margin": the league's margins so far
        self.margin_state = _MarginState(self.ratings)

    def add(self, name: str, mu: float | None = None) -> None:
        """A new entrant, its prior mean `mu` (the environment's by default) with the
        environment's sigma: a ladder's new version starts at its predecessor's mu,
        sigma reset to the prior (docs/ladder.md)."""
        if name in self.ratings:
            return
        start = self.env.mu if mu is None else mu
        self.ratings[name] = self.env.create_rating(mu=start)
        self.margin_state.add(name, start)

    def absorb(self, match: MatchOutcome) -> None:
        """Take one match into the margin feeding's sums without solving for the
        ratings (`solve` does, once): resuming a ladder of 100,000 matches adds them
        all, then solves once, with the same result as solving after each."""
        if self.rate_by != RateBy.NONE:
            self._by_margin(match, solve=False)

    def solve(self) -> None:
        """The margin feeding's posterior from every match absorbed so far."""
        self._solve()

    def apply(self, match: MatchOutcome) -> list[dict[str, Any]]:
        """Update from one match; returns the rating-history rows it adds."""
        rows: list[dict[str, Any]] = []
        entrants = match.entrants
        if self.rate_by == RateBy.NONE:  # a session with a person in it: nobody is rated
            return rows
        if self.rate_by == RateBy.MARGIN:
            self._by_margin(match)
            self._record(match, -1, [self.ratings[e] for e in self.ratings], rows, self.ratings)
            return rows
        for rotation, totals, faults in rating_updates(match, self.rate_by):
            ranks = ranking(entrants, totals, faults, self.forfeit)
            groups = [(self.ratings[e],) for e in entrants]
            new = self.env.rate(groups, ranks=ranks)
            self._record(match, rotation, [rating for (rating,) in new], rows)
        return rows

    def _record(
        self,
        match: MatchOutcome,
        rotation: int,
        new: list[trueskill.Rating],
        rows: list[dict[str, Any]],
        names: Iterable[str] | None = None,
    ) -> None:
        """Take one update's ratings (of `names`, by default the match's entrants) and
        add their rating-history rows."""
        self.steps += 1
        for entrant, rating in zip(match.entrants if names is None else names, new, strict=True):
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

    def _by_margin(self, match: MatchOutcome, solve: bool = True) -> None:
        """The margin-aware feeding (rate_by = "margin").

        TrueSkill's model is Gaussian: a skill per entrant with a prior N(mu, sigma^2),
        and a performance that is the skill plus noise of spread beta. Its ranking
        update keeps only who finished ahead of whom. This feeding keeps by how much:
        each entrant's duplicate margin in a match, in units of the spread of every
        margin stored so far, is one Gaussian observation of its skill minus the mean
        skill of the others at its table, with the noise of one performance (beta,
        widened by n/(n-1) since a table's margins sum to zero). The posterior of a
        Gaussian prior and Gaussian observations is exact, so after each match every
        entrant's mu and sigma are that posterior given all the matches so far (the
        scale, read from all of them, applies to all of them alike): in a league that
        seats the same entrants at every match, the order of mu is the order of the
        mean margins. An entrant whose faults reached the forfeit count gets no better
        a margin than the lowest at its table; forfeiters share the lowest of theirs.
        tau plays no part here (a bot's code does not change between matches)."""
        entrants = match.entrants
        margins = match_margins(match)
        faults = {e: sum(g.faults[e] for g in match.games) for e in entrants}
        forfeited = [e for e in entrants if faults[e] >= self.forfeit]
        if forfeited:
            floor = min(margins.values())
            for e in forfeited:
                margins[e] = floor
        self.spread.add(margins.values())
        state = self.margin_state
        size = len(entrants)
        noise = self.env.beta**2 * size / max(size - 1, 1)
        seats = [state.index[e] for e in entrants]
        design = np.eye(size) - (1.0 - np.eye(size)) / max(size - 1, 1)  # own - others' mean
        state.precision[np.ix_(seats, seats)] += design.T @ design / noise
        state.weighted[seats] += design.T @ np.array([margins[e] for e in entrants]) / noise
        if solve:
            self._solve()

    def _solve(self) -> None:
        """Every entrant's mu and sigma: the exact posterior of the margins so far."""
        state = self.margin_state
        if not state.names:
            return
        spread = self.spread.sd()
        scale = self.env.beta / spread if spread > 0 else 0.0
        prior = 1.0 / self.env.sigma**2
        precision = state.precision + np.eye(len(state.names)) * prior
        covariance = np.linalg.inv(precision)
        start = state.prior_mu * prior
        mean = covariance @ (start + scale * state.weighted)
        for i, name in enumerate(state.names):
            sigma = float(np.sqrt(covariance[i, i]))
            self.ratings[name] = self.env.create_rating(mu=float(mean[i]), sigma=sigma)


class _MarginState:
    """The sums the margin feeding's posterior is computed from: the observations'
    precision and their margins weighted by it (in points; scaled when read)."""

    def __init__(self, ratings: dict[str, trueskill.Rating]) -> None:
        self.names = list(ratings)
        self.index = {name: i for i, name in enumerate(self.names)}
        self.precision = np.zeros((len(self.names), len(self.names)))
        self.weighted = np.zeros(len(self.names))
        self.prior_mu = np.array([ratings[name].mu for name in self.names], dtype=float)

    def add(self, name: str, mu: float) -> None:
        """One more entrant, with no observation yet and its own prior mean."""
        self.index[name] = len(self.names)
        self.names.append(name)
        size = len(self.names)
        grown = np.zeros((size, size))
        grown[: size - 1, : size - 1] = self.precision
        self.precision = grown
        self.weighted = np.append(self.weighted, 0.0)
        self.prior_mu = np.append(self.prior_mu, mu)


class _Spread:
    """The running standard deviation of every margin seen (the scale a margin is read
    in: points per game mean different things in Trix and Trianon)."""

    def __init__(self) -> None:
        self.count, self.total, self.squares = 0, 0.0, 0.0

    def add(self, values: Iterable[float]) -> None:
        for value in values:
            self.count += 1
            self.total += value
            self.squares += value * value

    def sd(self) -> float:
        if self.count < 2:
            return 0.0
        mean = self.total / self.count
        return math.sqrt(max(self.squares / self.count - mean * mean, 0.0))


def rating_updates(
    match: MatchOutcome, rate_by: str
) -> list[tuple[int, dict[str, int], dict[str, int]]]:
    """The (rotation, scores, faults) rankings one match feeds TrueSkill, per `rate_by`.

    ("margin", the default, is not a ranking: `Rater._by_margin`.)

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
