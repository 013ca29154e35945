"""Which entrants the stored evidence separates, and the place ranges that follow.

The rule (docs/ratings.md, "When two bots can be called different"): every entrant of a
seat-rotated match plays the same deals, so within a match the difference of two
entrants' scores is free of card luck. Each match gives every entrant at its table a
*centred score* (its score per game minus the table's mean), and the league is fitted
by least squares to

    centred score of e in match k  =  s_e - mean of s_j over the table of match k

so that `s_a - s_b` is A's expected score per game over B at one table. Two entrants who
met are compared on their own games and, through the opponents they share, on every
other game that bears on them; when every match seats the same entrants it is exactly
the paired head-to-head difference of `arena compare`. Its uncertainty is a
cluster-robust (sandwich) variance with the match as the cluster (a match's games share
their deals, so the match is the independent sample), and a Student t interval with one
degree of freedom less than the matches either entrant played (or the fit's residual
degrees of freedom, when fewer). Two entrants are compared only once each has played
`MIN_EACH` (3) matches: before that a sandwich variance can be zero by construction (a
fit with no residual freedom), and it claimed pairs apart wrongly in every early
league measured. Two entrants are *separated* when that interval at the table's level
(95%) lies wholly on one side of zero.

Everything here is a pure function of the stored matches, so the table, the web pages,
`arena compare`, the stopping rule and any other table read one rule.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from arena.league.definition.records import MatchOutcome
from arena.league.standings.stats import Interval, t_quantile

LEVEL = 0.95  # the level of the table, the pages and `arena compare`
MIN_EACH = 3  # matches each of two entrants must have played before they are compared


@dataclass(frozen=True)
class Evidence:
    """The fitted strengths of a league's entrants and their covariance."""

    names: tuple[str, ...]
    strength: np.ndarray  # points per game above the mean of the entrant's component
    covariance: np.ndarray
    component: tuple[int, ...]  # entrants that can be compared share a component (-1: none)
    played: np.ndarray  # played[k, i]: entrant i sat at match k's table (no rows: counted)
    residual_dof: int  # the fit's degrees of freedom left for its residuals

    def index(self, name: str) -> int:
        where = self.__dict__.get("_where")
        if where is None:
            where = {n: i for i, n in enumerate(reversed(self.names))}
            where = {n: len(self.names) - 1 - i for n, i in where.items()}  # the first
            object.__setattr__(self, "_where", where)
        return where[name]

    def better_matrix(self, order: Sequence[str], level: float = LEVEL) -> np.ndarray:
        """`better(order[i], order[j])` for every i and j at once: the same arithmetic
        as `difference`, element by element in numpy (a table of 500 entrants asks for
        up to 249,500 pairs)."""
        at = np.array([self.index(name) for name in order], dtype=np.intp)
        counts, together = self._counts()
        c, both = counts[at], together[np.ix_(at, at)]
        n = (c[:, None] + c[None, :] - both).astype(np.int64)
        component = np.array(self.component, dtype=np.int64)[at]
        comparable = (component[:, None] >= 0) & (component[:, None] == component[None, :])
        each = np.minimum(c[:, None], c[None, :]).astype(np.int64)
        dof = np.minimum(n - 1, self.residual_dof)
        asked = comparable & (each >= MIN_EACH) & (dof >= 1)
        strength = self.strength[at]
        mean = strength[:, None] - strength[None, :]
        cov = self.covariance[np.ix_(at, at)]
        diagonal = cov.diagonal()
        quantile = np.zeros(dof.shape)
        for value in np.unique(dof[asked]):
            quantile[asked & (dof == value)] = t_quantile(0.5 + level / 2.0, int(value))
        with np.errstate(invalid="ignore"):  # a one-match league's covariance is infinite
            variance = diagonal[:, None] + diagonal[None, :] - 2 * cov
            half = quantile * np.sqrt(np.maximum(variance, 0.0))
            return asked & (mean - half > 0)

    def difference(self, a: str, b: str, level: float = LEVEL) -> Interval:
        """A's expected score per game over B at one table, with its interval at
        `level` (no interval when they cannot be compared or when fewer than two
        matches bear on them); `n` is the matches either played."""
        i, j = self.index(a), self.index(b)
        counts, together = self._counts()
        n = int(counts[i] + counts[j] - together[i, j])  # the matches either played
        if self.component[i] < 0 or self.component[i] != self.component[j]:
            return Interval(0.0, None, None, n)
        mean = float(self.strength[i] - self.strength[j])
        each = int(min(counts[i], counts[j]))
        dof = min(n - 1, self.residual_dof)
        if each < MIN_EACH or dof < 1:
            return Interval(mean, None, None, n)
        variance = float(self.covariance[i, i] + self.covariance[j, j] - 2 * self.covariance[i, j])
        half = t_quantile(0.5 + level / 2.0, dof) * math.sqrt(max(variance, 0.0))
        return Interval(mean, mean - half, mean + half, n)

    def _counts(self) -> tuple[np.ndarray, np.ndarray]:
        """The matches each entrant played, and each pair played together (computed
        once: a table of 100 entrants asks for 4,950 pairs)."""
        cached = self.__dict__.get("_counted")
        if cached is None:
            played = self.played.astype(np.float64)  # BLAS; counts are exact below 2**53
            cached = (played.sum(axis=0), np.rint(played.T @ played))
            object.__setattr__(self, "_counted", cached)
        return cached

    def counts(self) -> tuple[np.ndarray, np.ndarray]:
        """The matches each entrant played (a vector) and each pair played together (a
        matrix): what `difference` needs of the matches besides the fit, and all that
        stored standings keep of them (arena/league/reports/snapshot.py)."""
        return self._counts()

    @classmethod
    def restored(
        cls,
        names: Sequence[str],
        strength: np.ndarray,
        covariance: np.ndarray,
        component: Sequence[int],
        residual_dof: int,
        counts: tuple[np.ndarray, np.ndarray],
    ) -> Evidence:
        """Evidence as `evidence` fitted it, from what stored standings keep (its
        arrays and `counts()`), without the matches."""
        proof = cls(
            tuple(names),
            strength,
            covariance,
            tuple(component),
            np.zeros((0, len(names)), dtype=bool),
            residual_dof,
        )
        object.__setattr__(proof, "_counted", counts)
        return proof

    def better(self, a: str, b: str, level: float = LEVEL) -> bool:
        """Whether the evidence shows A better than B: the interval lies above zero."""
        interval = self.difference(a, b, level)
        return interval.low is not None and interval.low > 0


def evidence(outcomes: Iterable[MatchOutcome], names: Sequence[str] = ()) -> Evidence:
    """Fit the strengths of every entrant in `names` (and any other met in `outcomes`)
    from the stored matches: the least-squares fit and its sandwich covariance above."""
    matches = sorted(outcomes, key=lambda m: m.idx)
    order = list(dict.fromkeys([*names, *(e for m in matches for e in m.entrants)]))
    where = {name: i for i, name in enumerate(order)}
    n, count = len(order), len(matches)
    normal = np.zeros((n, n))
    rhs = np.zeros(n)
    tables: dict[int, tuple[list[int], list[list[int]], list[list[float]]]] = {}
    for k, match in enumerate(matches):  # the tables grouped by size, in match order
        games = max(len(match.games), 1)
        totals = [float(sum(g.totals[e] for g in match.games)) for e in match.entrants]
        mean = sum(totals) / len(totals)
        rows, seats, scores = tables.setdefault(len(totals), ([], [], []))
        rows.append(k)
        seats.append([where[e] for e in match.entrants])
        scores.append([(t - mean) / games for t in totals])
    fits = []
    for size, (_, seats, scores) in tables.items():
        at, score = np.array(seats, dtype=np.intp), np.array(scores)
        block = np.eye(size) - 1.0 / size  # the table's centring
        np.add.at(
            normal, (at[:, :, None], at[:, None, :]), np.broadcast_to(block, at.shape + (size,))
        )
        np.add.at(rhs, at, score)
        fits.append((at, score))
    component = _components(order, matches, where)
    pinv = np.linalg.pinv(normal, hermitian=True) if n else normal
    strength = pinv @ rhs
    # the sum of each match's outer product of its residuals at its seats, and the
    # matches each pair sat at together, summed by pair of seats: a dense matrix of a
    # row per match would be 1 GB for a league of a million games and 500 entrants
    meat = np.zeros(n * n)
    together = np.zeros(n * n)
    for at, score in fits:
        fitted = strength[at] - strength[at].mean(axis=1, keepdims=True)
        residual = score - fitted
        pair = (at[:, :, None] * n + at[:, None, :]).ravel()
        meat += np.bincount(
            pair, weights=(residual[:, :, None] * residual[:, None, :]).ravel(), minlength=n * n
        )
        together += np.bincount(pair, minlength=n * n)
    meat, together = meat.reshape(n, n), together.reshape(n, n)
    correction = count / (count - 1) if count > 1 else math.inf
    covariance = correction * (pinv @ meat @ pinv) if count > 1 else np.full((n, n), math.inf)
    linked = sum(1 for c in component if c >= 0) - len({c for c in component if c >= 0})
    residual_dof = sum(len(m.entrants) - 1 for m in matches) - linked
    return Evidence.restored(
        order, strength, covariance, component, residual_dof, (together.diagonal().copy(), together)
    )


def _components(
    order: Sequence[str], matches: Sequence[MatchOutcome], where: dict[str, int]
) -> list[int]:
    """Entrants linked by shared tables, directly or through others, share a number;
    an entrant that never played has -1."""
    parent = list(range(len(order)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    seen: set[int] = set()
    for match in matches:
        seats = [where[e] for e in match.entrants]
        seen.update(seats)
        for other in seats[1:]:
            parent[root(other)] = root(seats[0])
    return [root(i) if i in seen else -1 for i in range(len(order))]


def separated_pairs(
    order: Sequence[str], proof: Evidence, level: float = LEVEL
) -> set[tuple[str, str]]:
    """The pairs (upper, lower) of `order` (best first) that the evidence shows in
    that order. A pair the evidence shows the other way round is not separated: the
    table does not claim an order the evidence contradicts."""
    out = set()
    for i, upper in enumerate(order):
        for lower in order[i + 1 :]:
            if proof.better(upper, lower, level):
                out.add((upper, lower))
    return out


def place_ranges(
    order: Sequence[str], proof: Evidence, level: float = LEVEL
) -> list[tuple[int, int]]:
    """Each entrant's place range (first, last; places from 1) in the table `order`:
    the entrant and its neighbours up and down the table, as far as the first one it is
    separated from. So a range never holds an entrant separated from the one it is
    shown for, and entrants shown with the same range are pairwise not separated: a
    group of tied places never holds two entrants the evidence separates."""
    apart = proof.better_matrix(order, level)  # `separated_pairs`, as a matrix
    ranges = []
    for p in range(len(order)):
        first = p
        while first > 0 and not apart[first - 1, p]:
            first -= 1
        last = p
        while last < len(order) - 1 and not apart[p, last + 1]:
            last += 1
        ranges.append((first + 1, last + 1))
    return ranges


def place_text(first: int, last: int) -> str:
    """`3`, or `2-4` for a place the evidence cannot narrow to one."""
    return str(first) if first == last else f"{first}-{last}"
