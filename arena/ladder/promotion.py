"""Promotion on evidence: does a candidate version beat its author's active version?

The ladder seats the candidate and the active version at two tables with the same
opponents in the same seats, dealt the same cards (the two matches of a promotion pair
share one seed). Each table is a seat-rotated duplicate match, so each version's
duplicate margin (`arena.league.standings.stats.match_margins`) has already cancelled
most of the card luck; the difference of the two margins also cancels what is left of
the deal and who the opponents were. One pair of matches gives one number, the paired
difference in points a game, and pairs are independent of each other.

The test is a sequential probability ratio test of H0 "the mean difference is 0" (the
candidate is no better) against H1 "it is `delta`" (better by `delta` points a game),
read after every pair: accept (promote) when the log-likelihood ratio reaches
ln((1 - beta) / alpha), reject (retire the candidate) when it falls to
ln(beta / (1 - alpha)), Wald's bounds. Between them the test goes on, up to `max_games`
of the candidate's games, where it stops undecided.

Why this test. The differences' spread is not known in advance: it depends on the
game, the bots and the opponents (measured on Trix mixed bots: 100 to 140 points a
game for one pair of matches). The test is Wald's for a normal mean with the variance
estimated from the differences so far, as fishtest's and cutechess's SPRTs plug theirs
in:

    LLR = n * delta * (mean - delta / 2) / v,   v = s^2 * (1 + INFLATION / n)

with s^2 the differences' unbiased variance. It grows with the evidence however far
the mean lies beyond delta, so a candidate much better (or much worse) is decided in a
handful of pairs. Its weakness is the one the inflation answers: while the sample is
small, s^2 is often much too small, and the plain plug-in form promoted a candidate
that was not better 6 to 9% of the time for an alpha of 5% (constructed normal
differences, 3,000 seeds, delta from 0.16 to 1.5 of the spread). Widening the variance
by 1 + 10/n (and no decision before `min_pairs` pairs, default 5) kept both error rates
at or under 5% at every ratio measured, and decided a mean 4 spreads from 0 in 5 to 9
pairs (docs/ladder.md, "Promotion on evidence"). The generalized ratio, each hypothesis
at its own best variance ((n-1)/2 ln(mean(x^2) / mean((x - delta)^2))), keeps the rates
too, but its evidence per pair is bounded by about delta / spread whatever the mean:
on real ladder pairs a candidate 230 points a game better than its predecessor, its
interval [+186, +278] after 10 pairs, was still undecided.

`sprt_unpaired` is the same test without the pairing: the candidate's and the active
version's margins each from their own tables, against whoever the matchmaker drew,
on their own deals; the difference of the two means, with the variance of a difference
of independent means. It exists to measure what the pairing saves (`bench_promotion`).

`games_to_decision` and `bench_promotion` play the test with in-process bots of known
strength (greedy with probability p, `arena.bots.mixed`) in real seat-rotated matches.
"""

from __future__ import annotations

import hashlib
import math
import random
import statistics
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from arena.bots.mixed import MixedPlayer, mixed_player
from arena.errors import ConfigError
from arena.games import get_game
from arena.league.standings.ratings import GameOutcome, MatchOutcome
from arena.league.standings.stats import match_margins, mean_interval, t_quantile
from arena.play.matches import play_match
from arena.play.referee import GameStart, Player

DECISIONS = ("accept", "reject", "continue", "undecided")
MODES = ("auto", "manual")


@dataclass(frozen=True)
class PromotionSettings:
    """The ladder file's `[promotion]` table."""

    delta: float = 20.0  # points a game the candidate must be better by (H1); H0: not better (0)
    alpha: float = 0.05  # P(promote | not better)
    beta: float = 0.05  # P(retire | better by delta)
    max_games: int = 200  # the candidate's games in the test before it is left undecided
    mode: str = "auto"  # "auto" | "manual" (manual: the author decides; the verdict is shown)
    min_pairs: int = 5  # no decision before this many pairs: the variance needs them

    def __post_init__(self) -> None:
        def bad(what: str) -> ConfigError:
            return ConfigError(f"[promotion] {what}")

        if not (isinstance(self.delta, int | float) and math.isfinite(self.delta)) or not (
            self.delta > 0
        ):
            raise bad(f"delta must be a number of points a game above 0, not {self.delta!r}")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or not 0 < value < 0.5:
                raise bad(
                    f"{name} must be a probability above 0 and below 0.5 (say 0.05), not {value!r}"
                )
        for name, low in (("max_games", 1), ("min_pairs", 2)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise bad(f"{name} must be a whole number of at least {low}, not {value!r}")
        if self.mode not in MODES:
            raise bad(f"mode must be 'auto' or 'manual', not {self.mode!r}")

    @property
    def lower(self) -> float:
        """Wald's lower bound: at or below it the candidate is rejected."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Wald's upper bound: at or above it the candidate is accepted."""
        return math.log((1.0 - self.beta) / self.alpha)


@dataclass(frozen=True)
class Verdict:
    """Where the test stands: its decision and the evidence an author is shown."""

    decision: str  # "accept" | "reject" | "continue" | "undecided"
    pairs: int  # paired matches counted (unpaired: the fewer of the two sides' matches)
    games: int  # the candidate's games in them
    mean: float  # mean paired difference, points a game (nan with no pairs)
    low: float  # its 95% interval (Student t; Welch's when unpaired), nan below 2 pairs
    high: float
    llr: float  # the log-likelihood ratio of "better by delta" to "not better"
    lower: float  # reject at or below
    upper: float  # accept at or above

    @property
    def decided(self) -> bool:
        """Whether the test has ended (accepted, rejected or undecided at the cap)."""
        return self.decision != "continue"


def paired_difference(
    candidate_match: MatchOutcome, active_match: MatchOutcome, candidate: str, active: str
) -> float:
    """The candidate's duplicate margin per game at its table minus the active version's
    at its table: the two matches must seat the same opponents in the same places, with
    the candidate where the active version sits, and have as many games (the ladder deals
    them from one seed). Anything else is not a pair, and a ValueError (a bug of the
    caller, never a user's mistake)."""
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


def _verdict(
    settings: PromotionSettings,
    pairs: int,
    games: int,
    mean: float,
    interval: tuple[float, float],
    llr: float,
) -> Verdict:
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


def paired_llr(differences: Sequence[float], delta: float) -> float:
    """The log-likelihood ratio of mean `delta` to mean 0 for normal differences, the
    variance estimated from them and widened while they are few (`_profile_llr`)."""
    return _llr_from_sums(
        len(differences), math.fsum(differences), math.fsum(x * x for x in differences), delta
    )


def _llr_from_sums(n: int, total: float, squares: float, delta: float) -> float:
    """`paired_llr` from n, the sum and the sum of squares (so a simulation can read it
    after every pair without summing again)."""
    if n <= 1:
        return 0.0
    mean = total / n
    return _profile_llr(n, mean, max(0.0, squares / n - mean * mean), delta)


INFLATION = 10.0  # the variance widened by 1 + INFLATION / n while n is small


def _profile_llr(n: int, mean: float, variance: float, delta: float) -> float:
    """n * delta * (mean - delta/2) / v for n differences of mean `mean` and
    maximum-likelihood variance `variance`, v being the unbiased variance widened by
    1 + INFLATION / n (the module's docstring says why). +-inf when the differences do
    not vary at all and lie on one side of delta / 2; 0 with fewer than two."""
    if n <= 1:
        return 0.0
    centre = mean - delta / 2.0
    v = variance * n / (n - 1) * (1.0 + INFLATION / n)
    if v <= 0.0:
        return math.copysign(math.inf, centre) if centre else 0.0
    return n * delta * centre / v


def sprt(differences: Sequence[float], games_per_pair: int, settings: PromotionSettings) -> Verdict:
    """The verdict after `differences` (paired differences of duplicate margins, points a
    game, in the order played), each pair worth `games_per_pair` of the candidate's
    games. Read it after every pair: the test is sequential."""
    n = len(differences)
    games = n * games_per_pair
    interval = mean_interval(differences)
    mean = interval.mean if n else math.nan
    bounds = (
        (interval.low, interval.high)
        if interval.low is not None and interval.high is not None
        else (math.nan, math.nan)
    )
    return _verdict(settings, n, games, mean, bounds, paired_llr(differences, settings.delta))


def sprt_unpaired(
    candidate_margins: Sequence[float],
    active_margins: Sequence[float],
    games_per_match: int,
    settings: PromotionSettings,
) -> Verdict:
    """The unpaired counterpart: each version's margins (points a game, one per match)
    from independent tables. The difference of the means d has the variance
    var = vc/nc + va/na; the log-likelihood ratio is the paired test's for n = the fewer
    matches of the two sides and differences of mean d and variance n * var (for equal
    counts: as if the i-th matches of the two sides were a pair, which they are not), so
    the two tests differ only in the spread they meet. The interval is Welch's. `pairs`
    is that n (no decision before `min_pairs`); `games` the candidate's."""
    nc, na = len(candidate_margins), len(active_margins)
    n = min(nc, na)
    games = nc * games_per_match
    if n < 2:
        mean = math.nan
        if n:
            mean = statistics.fmean(candidate_margins) - statistics.fmean(active_margins)
        return _verdict(settings, n, games, mean, (math.nan, math.nan), 0.0)
    mc = math.fsum(candidate_margins) / nc
    ma = math.fsum(active_margins) / na
    d = mc - ma
    sc = math.fsum((x - mc) ** 2 for x in candidate_margins) / (nc - 1) / nc
    sa = math.fsum((x - ma) ** 2 for x in active_margins) / (na - 1) / na
    var = sc + sa
    ml = sc * (nc - 1) / nc + sa * (na - 1) / na  # the maximum-likelihood variances
    llr = _unpaired_llr(d, ml, n, settings.delta)
    if var > 0:
        df = var**2 / (sc**2 / (nc - 1) + sa**2 / (na - 1))
        half = t_quantile(0.975, df) * math.sqrt(var)
        interval = (d - half, d + half)
    else:
        interval = (d, d)
    return _verdict(settings, n, games, d, interval, llr)


def _unpaired_llr(d: float, var: float, n: int, delta: float) -> float:
    """The unpaired log-likelihood ratio from the difference of means `d`, its
    (maximum-likelihood) variance `var` and the pairs `n`: the paired formula for n
    differences of mean d and variance n * var."""
    return _profile_llr(n, d, n * var, delta)


class _Sums:
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


# -- simulation: the test played with bots of known strength -----------------------------

LADDER_ACTIVE = 0.9
"""The bench's ladder: the active version is the mixed bot of p = 0.9 ..."""
LADDER_OPPONENTS = (0.8, 0.85, 0.9, 0.95, 1.0)
"""... its opponents are drawn from these (three a table, no repeats) ..."""
LADDER_CANDIDATES = {20: 0.923, 50: 0.957}
"""... and a candidate better by 20 or 50 points a game has these p (measured over 100
deal seeds of the same ladder: p = 0.92, 0.95 and 1.0 came out +8, +46 and +88 points a
game against p = 0.9, a slope of about 870 points a game per unit of p;
docs/ladder.md, "Promotion on evidence")."""


def _rng(text: str) -> random.Random:
    """A generator seeded from text through sha256 (never `hash()`)."""
    return random.Random(int.from_bytes(hashlib.sha256(text.encode()).digest(), "big"))


class SaltedMixed(MixedPlayer):
    """An in-process mixed bot whose random moves come from its own stream: two versions
    of equal p are two programs, not one program twice (the mixed bot draws from the
    seed, the seat and p only, so equal p at the same seat would play identical
    games and a paired difference of exactly 0)."""

    def __init__(self, p: float, salt: str) -> None:
        super().__init__(p)
        self.salt = salt

    def start_game(self, start: GameStart) -> None:
        super().start_game(start)
        self._info["seed"] = f"{self.salt}/{start.seed}"


@dataclass(frozen=True)
class PairPlay:
    """What one step of a simulated test played: the candidate's and the active
    version's margins (points a game) and the candidate's games."""

    candidate: float
    active: float
    games: int


class Simulation:
    """A candidate of p `candidate_p` against an active version of p `active_p`, each
    step at tables of opponents drawn from `opponents_p` (seats - 1 of them, without
    repeats when the pool allows) by a generator seeded from `seed`. Paired: both
    versions meet the same opponents in the same seats on one deal seed. Unpaired: each
    draws its own opponents and plays its own deals."""

    def __init__(
        self,
        game: str,
        candidate_p: float,
        active_p: float,
        opponents_p: Sequence[float],
        *,
        paired: bool,
        seed: str,
        rules: Mapping[str, Any] | None = None,
    ) -> None:
        if not opponents_p:
            raise ValueError("opponents_p must hold at least one p")
        self.game = get_game(game)
        self.options = self.game.parse_options(dict(rules or {}))
        self.paired = paired
        self.seed = seed
        self.pool = list(opponents_p)
        self.rng = _rng(f"promotion/{seed}")
        self.candidate = SaltedMixed(candidate_p, "candidate")
        self.active = SaltedMixed(active_p, "active")
        self.step = 0

    def _draw(self) -> list[float]:
        others = self.game.seats - 1
        if len(self.pool) >= others:
            return self.rng.sample(self.pool, others)
        return [self.rng.choice(self.pool) for _ in range(others)]

    def _table(
        self, entrant: str, player: Player, opponents: Sequence[float], seed: str
    ) -> MatchOutcome:
        names = [entrant] + [f"house-{k}" for k in range(len(opponents))]
        players = [player] + [mixed_player(q) for q in opponents]
        result = play_match(self.game, players, names, seed, options=self.options)
        outcome = MatchOutcome(self.step, names)
        for rotation, (seating, played) in enumerate(
            zip(result.seatings, result.games, strict=True)
        ):
            by_seat = [names[b] for b in seating]
            totals = dict(zip(by_seat, played.totals, strict=True))
            outcome.games.append(GameOutcome(rotation, totals, dict.fromkeys(names, 0)))
        return outcome

    def play(self) -> PairPlay:
        """Play the next step: the candidate's match and the active version's."""
        i = self.step
        if self.paired:
            opponents = self._draw()
            deal = f"{self.seed}/{i}"
            c = self._table("candidate", self.candidate, opponents, deal)
            a = self._table("active", self.active, opponents, deal)
            difference = paired_difference(c, a, "candidate", "active")
            ours = match_margins(c)["candidate"]
            out = PairPlay(ours, ours - difference, len(c.games))
        else:
            c = self._table("candidate", self.candidate, self._draw(), f"{self.seed}/c{i}")
            a = self._table("active", self.active, self._draw(), f"{self.seed}/a{i}")
            out = PairPlay(match_margins(c)["candidate"], match_margins(a)["active"], len(c.games))
        self.step += 1
        return out


def play_test(
    game: str,
    candidate_p: float,
    active_p: float,
    opponents_p: Sequence[float],
    *,
    paired: bool,
    seed: str,
    settings: PromotionSettings,
    rules: Mapping[str, Any] | None = None,
) -> Verdict:
    """One promotion test played in real matches, read after every step, to its
    verdict (see `Simulation`)."""
    sim = Simulation(
        game, candidate_p, active_p, opponents_p, paired=paired, seed=seed, rules=rules
    )
    ours: list[float] = []
    theirs: list[float] = []
    while True:
        step = sim.play()
        ours.append(step.candidate)
        theirs.append(step.active)
        if paired:
            verdict = sprt([c - a for c, a in zip(ours, theirs, strict=True)], step.games, settings)
        else:
            verdict = sprt_unpaired(ours, theirs, step.games, settings)
        if verdict.decided:
            return verdict


def _play_one(job: tuple[Any, ...]) -> Verdict:
    game, candidate_p, active_p, opponents_p, paired, seed, settings, rules = job
    return play_test(
        game,
        candidate_p,
        active_p,
        opponents_p,
        paired=paired,
        seed=seed,
        settings=settings,
        rules=rules,
    )


def _count(verdicts: Sequence[Verdict]) -> dict[str, Any]:
    games = [v.games for v in verdicts]
    decided = [v.games for v in verdicts if v.decision in ("accept", "reject")]
    return {
        "seeds": len(verdicts),
        "accepted": sum(v.decision == "accept" for v in verdicts),
        "rejected": sum(v.decision == "reject" for v in verdicts),
        "undecided": sum(v.decision == "undecided" for v in verdicts),
        "games_mean": statistics.fmean(games) if games else math.nan,
        "games_median": statistics.median(games) if games else math.nan,
        "decided_games_mean": statistics.fmean(decided) if decided else math.nan,
        "games": games,
    }


def games_to_decision(
    game: str,
    candidate_p: float,
    active_p: float,
    opponents_p: Sequence[float],
    *,
    paired: bool,
    seeds: int,
    settings: PromotionSettings,
    processes: int = 1,
    rules: Mapping[str, Any] | None = None,
    label: str = "promotion-bench",
) -> dict[str, Any]:
    """Play the promotion test in real matches for seeds f"{label}-{k}", k < `seeds`,
    each to its verdict, and count: accepted, rejected, undecided; the candidate's
    games in each test (the cap for the undecided) with their mean and median, and the
    mean over the decided alone. The seeds do not depend on the p's, so conditions
    compared at equal `seeds` meet the same deals and opponents."""
    jobs = [
        (game, candidate_p, active_p, tuple(opponents_p), paired, f"{label}-{k}", settings, rules)
        for k in range(seeds)
    ]
    if processes > 1:
        with ProcessPoolExecutor(max_workers=processes) as pool:
            verdicts = list(pool.map(_play_one, jobs))
    else:
        verdicts = [_play_one(job) for job in jobs]
    return {
        "game": game,
        "candidate_p": candidate_p,
        "active_p": active_p,
        "opponents_p": list(opponents_p),
        "paired": paired,
        **_count(verdicts),
    }


# -- the bench: games to a decision, paired against unpaired ---------------------------


def _bank_job(job: tuple[float, str, int]) -> list[tuple[float, float, int]]:
    candidate_p, seed, pairs = job
    sim = Simulation("trix", candidate_p, LADDER_ACTIVE, LADDER_OPPONENTS, paired=True, seed=seed)
    return [(s.candidate, s.active, s.games) for s in (sim.play() for _ in range(pairs))]


def resampled_test(
    bank: Sequence[tuple[float, float]],
    shift: float,
    *,
    paired: bool,
    games_per_pair: int,
    settings: PromotionSettings,
    rng: random.Random,
) -> Verdict:
    """One test on pairs drawn with replacement from `bank` ((candidate margin, active
    margin) of real paired matches), the candidate's margins moved so that the bank's
    mean difference becomes `shift`: a candidate better by exactly `shift`, with the
    noise real games have. Paired: whole pairs are drawn. Unpaired: the candidate's and
    the active version's matches are drawn independently, from different pairs, so
    they share neither opponents nor deals (the pairing broken, nothing else changed)."""
    size = len(bank)
    move = shift - statistics.fmean(c - a for c, a in bank)
    ours: list[float] = []
    theirs: list[float] = []
    differences, mine, others = _Sums(), _Sums(), _Sums()
    while True:
        if paired:
            c, a = bank[rng.randrange(size)]
        else:
            c, a = bank[rng.randrange(size)][0], bank[rng.randrange(size)][1]
        ours.append(c + move)
        theirs.append(a)
        n = len(ours)
        if paired:
            differences.add(c + move - a)
            llr = _llr_from_sums(n, differences.total, differences.squares, settings.delta)
        else:
            mine.add(c + move)
            others.add(a)
            llr = 0.0
            if n >= 2:
                mc, vc = mine.mean_variance()
                ma, va = others.mean_variance()
                llr = _unpaired_llr(mc - ma, vc + va, n, settings.delta)
        quick = _verdict(settings, n, n * games_per_pair, 0.0, (0.0, 0.0), llr)
        if quick.decided:  # the full verdict, from the public functions
            if paired:
                diffs = [x - y for x, y in zip(ours, theirs, strict=True)]
                full = sprt(diffs, games_per_pair, settings)
            else:
                full = sprt_unpaired(ours, theirs, games_per_pair, settings)
            if full.decided:
                return full


def bench_promotion(
    seeds: int = 200,
    processes: int = 1,
    bank_pairs: int = 100,
    played_seeds: int = 0,
    cap: int = 4000,
) -> dict[str, Any]:
    """Games to a promotion decision for a candidate better by 20 and by 50 points a
    game, paired against unpaired, on one ladder of Trix mixed bots (`LADDER_*`).

    For each candidate it plays `bank_pairs` real paired steps (the candidate's and the
    active version's seat-rotated matches on one deal seed against the same drawn
    opponents), then runs `seeds` tests on draws from that bank (`resampled_test`),
    with the candidate's margins moved to be better by exactly 20 or 50, by exactly 0
    (the error rate alpha), and by delta (beta); with the ladder's default settings and
    with `max_games` lifted to `cap` (the games a decision really takes). With
    `played_seeds`, the same tests are also played whole in real matches (slow: a
    +20 test takes hundreds of games) at the default settings. Prints nothing."""
    defaults = PromotionSettings()
    lifted = PromotionSettings(max_games=cap)
    jobs = [(LADDER_CANDIDATES[gain], f"promotion-bank-{gain}", bank_pairs) for gain in (20, 50)]
    if processes > 1:
        with ProcessPoolExecutor(max_workers=min(processes, len(jobs))) as pool:
            banks = list(pool.map(_bank_job, jobs))
    else:
        banks = [_bank_job(job) for job in jobs]
    out: dict[str, Any] = {
        "game": "trix",
        "active_p": LADDER_ACTIVE,
        "opponents_p": list(LADDER_OPPONENTS),
        "bank_pairs": bank_pairs,
        "seeds": seeds,
        "settings": vars(defaults),
        "cap": cap,
        "candidates": {},
    }
    for gain, bank_rows in zip((20, 50), banks, strict=True):
        games_per_pair = bank_rows[0][2]
        bank = [(c, a) for c, a, _ in bank_rows]
        differences = [c - a for c, a in bank]
        ours = [c for c, _ in bank]
        theirs = [a for _, a in bank]
        unpaired_sd = math.sqrt(statistics.variance(ours) + statistics.variance(theirs))
        entry: dict[str, Any] = {
            "candidate_p": LADDER_CANDIDATES[gain],
            "measured_mean": statistics.fmean(differences),
            "paired_sd": statistics.stdev(differences),
            "unpaired_sd": unpaired_sd,
            "games_per_pair": games_per_pair,
        }
        for paired in (True, False):
            kind = "paired" if paired else "unpaired"
            for name, shift, settings in (
                ("default", float(gain), defaults),
                ("lifted", float(gain), lifted),
                ("null", 0.0, lifted),
                ("at_delta", defaults.delta, lifted),
            ):
                rng = _rng(f"promotion-resample/{gain}/{kind}/{name}")
                verdicts = [
                    resampled_test(
                        bank,
                        shift,
                        paired=paired,
                        games_per_pair=games_per_pair,
                        settings=settings,
                        rng=rng,
                    )
                    for _ in range(seeds)
                ]
                entry[f"{kind}_{name}"] = {
                    k: v for k, v in _count(verdicts).items() if k != "games"
                }
            if played_seeds:
                entry[f"{kind}_played"] = {
                    k: v
                    for k, v in games_to_decision(
                        "trix",
                        LADDER_CANDIDATES[gain],
                        LADDER_ACTIVE,
                        LADDER_OPPONENTS,
                        paired=paired,
                        seeds=played_seeds,
                        settings=defaults,
                        processes=processes,
                    ).items()
                    if k != "games"
                }
        out["candidates"][gain] = entry
    return out
