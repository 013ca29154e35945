"""Promotion on evidence: does a candidate version beat its author's active version?

The ladder seats the candidate and the active version at two tables with the same
opponents in the same seats, dealt the same cards (the two matches of a promotion pair
share one seed), and reads the paired differences of their duplicate margins with the
sequential test both the ladder and `arena duel` use
(`arena.league.standings.sprt`, whose docstring says why this test): H0 "the
candidate is no better" (margin 0) against H1 "it is better by `delta`" points a game.
Accepting H1 promotes the candidate; accepting H0 retires it; at `max_games` of the
candidate's games it stays a candidate, undecided.

This module holds the ladder's side of it: the `[promotion]` settings, the test read
with them (`sprt`, `sprt_unpaired`, `paired_llr` in the ladder's terms), and a
simulation that plays the test with in-process bots of known strength (greedy with
probability p, `arena.bots.mixed`) in real seat-rotated matches (`games_to_decision`,
`bench_promotion`).
"""

from __future__ import annotations

import hashlib
import math
import multiprocessing
import random
import statistics
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from arena.bots.mixed import MixedPlayer, mixed_player
from arena.duel.tables import table_outcome
from arena.errors import ConfigError
from arena.games import get_game
from arena.league.standings import sprt as shared
from arena.league.standings.ratings import MatchOutcome
from arena.league.standings.sprt import (
    DECISIONS,
    INFLATION,
    RunningSums,
    SprtSettings,
    Verdict,
    check_settings,
    llr_from_sums,
    paired_difference,
    unpaired_llr,
    verdict,
)
from arena.league.standings.stats import match_margins
from arena.play.matches import play_match
from arena.play.referee import GameStart, Player

__all__ = [
    "DECISIONS",
    "INFLATION",
    "MODES",
    "PromotionSettings",
    "Verdict",
    "paired_difference",
    "pair_evidence",
    "paired_llr",
    "sprt",
    "sprt_unpaired",
]

MODES = ("auto", "manual")

# The bench's processes are spawned, not forked: a fork of a process with threads (a
# test's, gRPC's) may inherit a lock one of them holds and wait on it for ever.
_SPAWNED = multiprocessing.get_context("spawn")


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
        check_settings(self._margins(), "[promotion] ", {"margin1": "delta"})
        if self.mode not in MODES:
            raise ConfigError(f"[promotion] mode must be 'auto' or 'manual', not {self.mode!r}")

    def _margins(self) -> dict[str, Any]:
        return {
            "margin0": 0.0,
            "margin1": self.delta,
            "alpha": self.alpha,
            "beta": self.beta,
            "max_games": self.max_games,
            "min_pairs": self.min_pairs,
        }

    @property
    def test(self) -> SprtSettings:
        """The settings as the shared test reads them: H0 margin 0, H1 margin delta."""
        return SprtSettings(**self._margins())

    @property
    def lower(self) -> float:
        """Wald's lower bound: at or below it the candidate is rejected."""
        return self.test.lower

    @property
    def upper(self) -> float:
        """Wald's upper bound: at or above it the candidate is accepted."""
        return self.test.upper


def paired_llr(differences: Sequence[float], delta: float) -> float:
    """The log-likelihood ratio of "better by `delta`" to "no better" (the shared
    `paired_llr` with margins 0 and delta)."""
    return shared.paired_llr(differences, 0.0, delta)


def pair_evidence(first: MatchOutcome, second: MatchOutcome) -> tuple[str, str, float] | None:
    """One promotion pair's evidence from its two stored matches (the candidate's table
    first): (candidate, active version, paired difference); None when they are not a
    pair after all (a version left between its tables) or the difference is not a
    number. The run (arena/ladder/source.py) and the ladder site read it alike."""
    candidate = next((e for e in first.entrants if e not in second.entrants), None)
    active = next((e for e in second.entrants if e not in first.entrants), None)
    if candidate is None or active is None:
        return None
    try:
        diff = paired_difference(first, second, candidate, active)
    except ValueError:
        return None
    return (candidate, active, diff) if math.isfinite(diff) else None


def sprt(differences: Sequence[float], games_per_pair: int, settings: PromotionSettings) -> Verdict:
    """The verdict after `differences` (the candidate's margin minus the active
    version's, points a game, in the order played), each pair worth `games_per_pair` of
    the candidate's games. Read it after every pair: the test is sequential."""
    return shared.sprt(differences, games_per_pair, settings.test)


def sprt_unpaired(
    candidate_margins: Sequence[float],
    active_margins: Sequence[float],
    games_per_match: int,
    settings: PromotionSettings,
) -> Verdict:
    """The unpaired counterpart (the shared `sprt_unpaired`): each version's margins
    from its own tables, for measuring what the pairing saves."""
    return shared.sprt_unpaired(candidate_margins, active_margins, games_per_match, settings.test)


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
        return table_outcome(result, names, self.step)

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
        with ProcessPoolExecutor(processes, _SPAWNED) as pool:
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
    differences, mine, others = RunningSums(), RunningSums(), RunningSums()
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
            llr = llr_from_sums(n, differences.total, differences.squares, 0.0, settings.delta)
        else:
            mine.add(c + move)
            others.add(a)
            llr = 0.0
            if n >= 2:
                mc, vc = mine.mean_variance()
                ma, va = others.mean_variance()
                llr = unpaired_llr(mc - ma, vc + va, n, 0.0, settings.delta)
        quick = verdict(settings.test, n, n * games_per_pair, 0.0, (0.0, 0.0), llr)
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
        with ProcessPoolExecutor(min(processes, len(jobs)), _SPAWNED) as pool:
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
