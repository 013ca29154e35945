"""The sequential test on paired duplicate margins: is A better than B, and by how much?

Both the ladder's promotion test (arena/ladder/promotion.py: a candidate version against
its author's active one) and `arena duel` (two bots an author names) read their
evidence the same way. A and B sit at two tables with the same opponents in the same
seats, dealt the same cards (the two matches of a pair share one deal seed). Each table
is a seat-rotated duplicate match, so each side's duplicate margin
(`arena.league.standings.stats.match_margins`) has already cancelled most of the card
luck; the difference of the two margins also cancels what is left of the deal and who
the opponents were. One pair of matches gives one number, the paired difference in
points a game (A's margin minus B's), and pairs are independent of each other.

The test is a sequential probability ratio test of H0 "the mean difference is
`margin0`" against H1 "it is `margin1`" (margin1 > margin0; the ladder's case is
margin0 = 0, margin1 = delta: "no better" against "better by delta"), read after every
pair: accept H1 when the log-likelihood ratio reaches ln((1 - beta) / alpha), accept H0
(reject H1) when it falls to ln(beta / (1 - alpha)), Wald's bounds. Between them the
test goes on, up to `max_games`, where it stops undecided.

Why this test. The differences' spread is not known in advance: it depends on the
game, the bots and the opponents (measured on Trix mixed bots: 100 to 140 points a
game for one pair of matches). The test is Wald's for a normal mean with the variance
estimated from the differences so far, as fishtest's and cutechess's SPRTs plug theirs
in:

    LLR = n * (margin1 - margin0) * (mean - (margin0 + margin1) / 2) / v,
    v = s^2 * (1 + INFLATION / n)

with s^2 the differences' unbiased variance. It grows with the evidence however far
the mean lies beyond either margin, so a side much better (or much worse) is decided
in a handful of pairs. Its weakness is the one the inflation answers: while the sample
is small, s^2 is often much too small, and the plain plug-in form accepted H1 for a
mean at H0 6 to 9% of the time for an alpha of 5% (constructed normal differences,
3,000 seeds, margin1 - margin0 from 0.16 to 1.5 of the spread). Widening the variance
by 1 + 10/n (and no decision before `min_pairs` pairs, default 5) kept both error
rates at or under 5% at every ratio measured, and decided a mean 4 spreads from H0 in
5 to 9 pairs (docs/ladder.md, "Promotion on evidence"). The generalized ratio, each
hypothesis at its own best variance, keeps the rates too, but its evidence per pair is
bounded by about (margin1 - margin0) / spread whatever the mean: on real ladder pairs
a candidate 230 points a game better than its predecessor, its interval [+186, +278]
after 10 pairs, was still undecided. The statistic depends on the two margins only
through their difference and their midpoint, so moving both by the same amount is
the same as moving every difference the other way.

What interval to show beside the verdict. A Student t interval read at the pair where
a sequential test stops is too narrow: the test stops when the mean has wandered far
enough, so the interval at that moment leans the way it wandered. On constructed
differences of mean 0 (a bot against itself; 2,000 seeds at each of four spreads) it
left out 0 in 6 to 9% of decided tests for a 95% interval. `sequence_interval` is a
confidence sequence instead (Robbins' normal mixture, as in Howard, Ramdas, McAuliffe
and Sekhon, "Time-uniform, nonparametric, nonasymptotic confidence sequences", 2021):
it holds at every n at once, so wherever the test stops. It is 1.6 to 1.9 times as
wide as the t interval, and left out 0 in 0.05 to 0.9% of those tests. It uses the
test's own widened variance; its width is least at `SEQUENCE_TUNED` pairs, near where
the tests measured stop.

`sprt_unpaired` is the same test without the pairing: A's and B's margins each from
their own tables, on their own deals; the difference of the two means, with the
variance of a difference of independent means. It exists to measure what the pairing
saves (`arena bench ladder`, `arena bench duel`).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.errors import ConfigError
from arena.league.definition.records import MatchOutcome
from arena.league.standings.stats import match_margins, mean_interval, t_quantile

DECISIONS = ("accept", "reject", "continue", "undecided")
"""accept: H1 (A better by margin1); reject: H0 (A better by margin0 at most); continue:
play on; undecided: the games ran out first."""

INFLATION = 10.0
"""The variance is widened by 1 + INFLATION / n while n is small (the module says why)."""


@dataclass(frozen=True)
class SprtSettings:
    """The two hypotheses (points a game A is better than B by) and the test's limits."""

    margin0: float = 0.0  # H0: A is better by this (0: "no better")
    margin1: float = 20.0  # H1: A is better by this; above margin0
    alpha: float = 0.05  # P(accept H1 | H0 true)
    beta: float = 0.05  # P(accept H0 | H1 true)
    max_games: int = 200  # games counted (as the caller counts them) before undecided
    min_pairs: int = 5  # no decision before this many pairs: the variance needs them

    def __post_init__(self) -> None:
        check_settings(vars(self))

    @property
    def lower(self) -> float:
        """Wald's lower bound: at or below it H0 is accepted."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Wald's upper bound: at or above it H1 is accepted."""
        return math.log((1.0 - self.beta) / self.alpha)


def check_settings(
    values: Mapping[str, Any], prefix: str = "", names: Mapping[str, str] | None = None
) -> None:
    """ConfigError naming the first of `values` (`SprtSettings`' fields by name) that
    cannot work, as the caller spells it: `prefix` before the name (`--`,
    `[promotion] `) and `names` for names of its own (the ladder's `delta` is margin1)."""
    names = names or {}

    def bad(field: str, what: str) -> ConfigError:
        return ConfigError(
            f"{prefix}{names.get(field, field)} must be {what}, not {values[field]!r}"
        )

    def number(value: object) -> bool:
        return isinstance(value, int | float) and not isinstance(value, bool)

    margin0, margin1 = values["margin0"], values["margin1"]
    if not number(margin0) or not math.isfinite(margin0):
        raise bad("margin0", "a number of points a game")
    if not (number(margin1) and math.isfinite(margin1) and margin1 > margin0):
        above = (
            f"{margin0:g}" if margin0 == 0 else f"{names.get('margin0', 'margin0')} ({margin0:g})"
        )
        raise bad("margin1", f"a number of points a game above {above}")
    for field in ("alpha", "beta"):
        value = values[field]
        if not number(value) or not 0 < value < 0.5:
            raise bad(field, "a probability above 0 and below 0.5 (say 0.05)")
    for field, least in (("max_games", 1), ("min_pairs", 2)):
        value = values[field]
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise bad(field, f"a whole number of at least {least}")


@dataclass(frozen=True)
class Verdict:
    """Where the test stands: its decision and the evidence behind it."""

    decision: str  # "accept" | "reject" | "continue" | "undecided"
    pairs: int  # paired matches counted (unpaired: the fewer of the two sides' matches)
    games: int  # the games counted against max_games
    mean: float  # mean paired difference, points a game (nan with no pairs)
    low: float  # its 95% interval (Student t; Welch's when unpaired), nan below 2 pairs
    high: float
    llr: float  # the log-likelihood ratio of H1 (margin1) to H0 (margin0)
    lower: float  # H0 accepted at or below
    upper: float  # H1 accepted at or above

    @property
    def decided(self) -> bool:
        """Whether the test has ended (either hypothesis accepted, or undecided at the cap)."""
        return self.decision != "continue"


def paired_difference(
    candidate_match: MatchOutcome, active_match: MatchOutcome, candidate: str, active: str
) -> float:
    """A's (the candidate's) duplicate margin per game at its table minus B's (the
    active version's) at its table: the two matches must seat the same opponents in the
    same places, with A where B sits, and have as many games (both are dealt from one
    seed). Anything else is not a pair, and a ValueError (a bug of the caller, never a
    user's mistake)."""
    swapped = [active if e == candidate else e for e in candidate_match.entrants]
    if candidate not in candidate_match.entrants or active in candidate_match.entrants:
        raise ValueError(f"{candidate!r} must sit at its table, and {active!r} must not")
    if swapped != list(active_match.entrants):
        raise ValueError(
            "not a promotion pair: the tables "
            f"{candidate_match.entrants} and {active_match.entrants} differ in more than "
            f"{candidate!r} for {active!r}"
        )
    if len(candidate_match.games) != len(active_match.games) or not candidate_match.games:
        raise ValueError(
            "not a promotion pair: the matches have "
            f"{len(candidate_match.games)} and {len(active_match.games)} games"
        )
    return match_margins(candidate_match)[candidate] - match_margins(active_match)[active]


def verdict(
    settings: SprtSettings,
    pairs: int,
    games: int,
    mean: float,
    interval: tuple[float, float],
    llr: float,
) -> Verdict:
    """The decision the ratio `llr` makes after `pairs` pairs (`games` games), with the
    evidence it is shown with. A decision reached at the cap beats undecided."""
    lower, upper = settings.lower, settings.upper
    if pairs >= settings.min_pairs and llr >= upper:
        decision = "accept"
    elif pairs >= settings.min_pairs and llr <= lower:
        decision = "reject"
    elif games >= settings.max_games:
        decision = "undecided"
    else:
        decision = "continue"
    return Verdict(decision, pairs, games, mean, interval[0], interval[1], llr, lower, upper)


def profile_llr(n: int, mean: float, variance: float, margin0: float, margin1: float) -> float:
    """n (margin1 - margin0) (mean - (margin0 + margin1)/2) / v for n differences of mean
    `mean` and maximum-likelihood variance `variance`, v being the unbiased variance
    widened by 1 + INFLATION / n (the module says why). +-inf when the differences do
    not vary at all and lie on one side of the midpoint; 0 with fewer than two."""
    if n <= 1:
        return 0.0
    centre = mean - (margin0 + margin1) / 2.0
    v = variance * n / (n - 1) * (1.0 + INFLATION / n)
    if v <= 0.0:
        return math.copysign(math.inf, centre) if centre else 0.0
    return n * (margin1 - margin0) * centre / v


def llr_from_sums(n: int, total: float, squares: float, margin0: float, margin1: float) -> float:
    """`paired_llr` from n, the sum and the sum of squares (so a simulation can read it
    after every pair without summing again)."""
    if n <= 1:
        return 0.0
    mean = total / n
    return profile_llr(n, mean, max(0.0, squares / n - mean * mean), margin0, margin1)


def paired_llr(differences: Sequence[float], margin0: float, margin1: float) -> float:
    """The log-likelihood ratio of mean `margin1` to mean `margin0` for normal
    differences, the variance estimated from them and widened while they are few (in
    two passes: the sum of squares less the squared sum loses the variance of
    differences that barely vary)."""
    n = len(differences)
    if n <= 1:
        return 0.0
    mean = math.fsum(differences) / n
    variance = math.fsum((x - mean) ** 2 for x in differences) / n
    return profile_llr(n, mean, variance, margin0, margin1)


def unpaired_llr(d: float, var: float, n: int, margin0: float, margin1: float) -> float:
    """The unpaired log-likelihood ratio from the difference of means `d`, its
    (maximum-likelihood) variance `var` and the pairs `n`: the paired formula for n
    differences of mean d and variance n * var."""
    return profile_llr(n, d, n * var, margin0, margin1)


def sprt(differences: Sequence[float], games_per_pair: int, settings: SprtSettings) -> Verdict:
    """The verdict after `differences` (paired differences of duplicate margins, points a
    game, in the order played), each pair worth `games_per_pair` games against
    `max_games`. Read it after every pair: the test is sequential."""
    n = len(differences)
    interval = mean_interval(differences)
    mean = interval.mean if n else math.nan
    bounds = (
        (interval.low, interval.high)
        if interval.low is not None and interval.high is not None
        else (math.nan, math.nan)
    )
    llr = paired_llr(differences, settings.margin0, settings.margin1)
    return verdict(settings, n, n * games_per_pair, mean, bounds, llr)


def sprt_unpaired(
    a_margins: Sequence[float],
    b_margins: Sequence[float],
    games_per_match: int,
    settings: SprtSettings,
) -> Verdict:
    """The unpaired counterpart: each side's margins (points a game, one per match)
    from independent tables. The difference of the means d has the variance
    var = va/na + vb/nb; the log-likelihood ratio is the paired test's for n = the fewer
    matches of the two sides and differences of mean d and variance n * var (for equal
    counts: as if the i-th matches of the two sides were a pair, which they are not), so
    the two tests differ only in the spread they meet. The interval is Welch's. `pairs`
    is that n (no decision before `min_pairs`); `games` is A's matches times
    `games_per_match`."""
    na, nb = len(a_margins), len(b_margins)
    n = min(na, nb)
    games = na * games_per_match
    if n < 2:
        mean = math.nan
        if n:
            mean = statistics.fmean(a_margins) - statistics.fmean(b_margins)
        return verdict(settings, n, games, mean, (math.nan, math.nan), 0.0)
    ma = math.fsum(a_margins) / na
    mb = math.fsum(b_margins) / nb
    d = ma - mb
    sa = math.fsum((x - ma) ** 2 for x in a_margins) / (na - 1) / na
    sb = math.fsum((x - mb) ** 2 for x in b_margins) / (nb - 1) / nb
    var = sa + sb
    ml = sa * (na - 1) / na + sb * (nb - 1) / nb  # the maximum-likelihood variances
    llr = unpaired_llr(d, ml, n, settings.margin0, settings.margin1)
    if var > 0:
        df = var**2 / (sa**2 / (na - 1) + sb**2 / (nb - 1))
        half = t_quantile(0.975, df) * math.sqrt(var)
        interval = (d - half, d + half)
    else:
        interval = (d, d)
    return verdict(settings, n, games, d, interval, llr)


SEQUENCE_TUNED = 100
"""The pairs at which `sequence_interval` is narrowest (it is valid at every n)."""


def sequence_interval(
    differences: Sequence[float], level: float = 0.95, tuned: int = SEQUENCE_TUNED
) -> tuple[float, float]:
    """The mean of `differences` with a confidence sequence at `level`: an interval
    that holds with that probability at every n together, so also at the n where a
    sequential test stopped (the module says why). The half-width is Robbins' normal
    mixture, s sqrt((n r + 1) / (n^2 r) * 2 ln(sqrt(n r + 1) / (1 - level))), with s^2
    the unbiased variance widened by 1 + INFLATION / n and r chosen to make it narrowest
    near n = `tuned`. (nan, nan) below two differences."""
    n = len(differences)
    if n < 2:
        return (math.nan, math.nan)
    mean = math.fsum(differences) / n
    variance = math.fsum((x - mean) ** 2 for x in differences) / (n - 1) * (1 + INFLATION / n)
    tail = -2.0 * math.log(1.0 - level)
    r = (tail + math.log(tail + 1.0)) / tuned
    half = math.sqrt(
        variance * (n * r + 1) / (n * n * r) * 2.0 * math.log(math.sqrt(n * r + 1) / (1 - level))
    )
    return (mean - half, mean + half)


class RunningSums:
    """Running count, sum and sum of squares (a simulation reads the test after every
    pair without summing again)."""

    def __init__(self) -> None:
        self.n, self.total, self.squares = 0, 0.0, 0.0

    def add(self, x: float) -> None:
        self.n += 1
        self.total += x
        self.squares += x * x

    def mean_variance(self) -> tuple[float, float]:
        """Mean and the maximum-likelihood variance of the mean."""
        mean = self.total / self.n
        return mean, max(0.0, self.squares / self.n - mean * mean) / self.n
