"""The shared sequential test (arena/league/standings/sprt.py), generalised to any two
margins: H0 "A is better by margin0" against H1 "by margin1".

The ladder's error rates at margins 0 and delta are checked in
tests/ladder/test_promotion.py; here, the properties that make the generalisation the
same test: moving both margins by c is moving every difference by -c, the ladder's
case is margin0 = 0, and the bounds are Wald's whatever the margins."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from arena.errors import ConfigError
from arena.ladder.promotion import PromotionSettings
from arena.ladder.promotion import sprt as promotion_sprt
from arena.league.standings.sprt import (
    INFLATION,
    SprtSettings,
    paired_llr,
    sequence_interval,
    sprt,
    sprt_unpaired,
)
from arena.league.standings.stats import mean_interval

GAMES = 8  # a duel's pair of Trix matches: both sides' four rotations

POINTS = st.floats(-500, 500, allow_nan=False).map(lambda x: round(x, 3))
DIFFERENCES = st.lists(POINTS, min_size=2, max_size=40)
MARGINS = st.tuples(POINTS, st.floats(0.5, 300).map(lambda x: round(x, 3)))  # (margin0, gap)
PROBABILITY = st.floats(0.001, 0.499)


@given(DIFFERENCES, MARGINS, st.floats(-300, 300).map(lambda x: round(x, 3)))
def test_moving_both_margins_is_moving_the_differences_the_other_way(
    xs: list[float], margins: tuple[float, float], shift: float
) -> None:
    assume(max(xs) - min(xs) > 0.01)  # no spread at all: a ratio of rounding errors
    low, gap = margins
    moved = paired_llr(xs, low + shift, low + gap + shift)
    against = paired_llr([x - shift for x in xs], low, low + gap)
    assert moved == pytest.approx(against, rel=1e-6, abs=1e-6)


@given(DIFFERENCES, st.floats(0.5, 300))
def test_the_ladders_case_is_margin0_zero(xs: list[float], delta: float) -> None:
    ladder = PromotionSettings(delta=delta, max_games=10**6)
    shared = SprtSettings(0.0, delta, max_games=10**6)
    assert promotion_sprt(xs, GAMES, ladder) == sprt(xs, GAMES, shared)


@given(DIFFERENCES, MARGINS)
def test_the_llr_is_walds_for_a_normal_mean_between_the_two_margins(
    xs: list[float], margins: tuple[float, float]
) -> None:
    low, gap = margins
    high = low + gap
    n = len(xs)
    mean = math.fsum(xs) / n
    variance = math.fsum((x - mean) ** 2 for x in xs) / (n - 1) * (1 + INFLATION / n)
    got = paired_llr(xs, low, high)
    if variance > 1e-9:
        # the normal log-likelihoods at the two means, the variance plugged in
        expected = math.fsum(((x - low) ** 2 - (x - high) ** 2) / (2 * variance) for x in xs)
        assert got == pytest.approx(expected, rel=1e-6, abs=1e-6)


@given(PROBABILITY, PROBABILITY, MARGINS)
def test_the_bounds_are_walds_whatever_the_margins(
    alpha: float, beta: float, margins: tuple[float, float]
) -> None:
    low, gap = margins
    s = SprtSettings(low, low + gap, alpha, beta)
    assert s.upper == pytest.approx(math.log((1 - beta) / alpha))
    assert s.lower == pytest.approx(math.log(beta / (1 - alpha)))
    verdict = sprt([1.0, 2.0, 3.0], GAMES, s)
    assert (verdict.lower, verdict.upper) == (s.lower, s.upper)


@given(MARGINS, st.integers(0, 2**32))
def test_a_clear_mean_at_either_margin_accepts_that_margin(
    margins: tuple[float, float], seed: int
) -> None:
    """Differences spread well below the gap between the margins: H1's mean accepts
    H1, H0's accepts H0, within a few dozen pairs."""
    low, gap = margins
    rng = random.Random(seed)
    settings = SprtSettings(low, low + gap, max_games=10**6)
    for centre, decision in ((low + gap, "accept"), (low, "reject")):
        xs = [centre + gap * 0.3 * rng.gauss(0, 1) for _ in range(40)]
        assert sprt(xs, GAMES, settings).decision == decision


def test_a_mean_between_the_margins_leans_to_the_nearer() -> None:
    s = SprtSettings(10.0, 30.0)
    near_h1 = [27.0, 29.0, 25.0, 28.0, 26.0]
    near_h0 = [13.0, 11.0, 15.0, 12.0, 14.0]
    assert paired_llr(near_h1, s.margin0, s.margin1) > 0 > paired_llr(near_h0, 10.0, 30.0)
    assert paired_llr([20.0, 21.0, 19.0], 10.0, 30.0) == 0.0  # the midpoint: no evidence


def test_games_count_as_the_caller_counts_them() -> None:
    settings = SprtSettings(max_games=24)
    xs = [5.0, -5.0, 3.0]
    assert sprt(xs, GAMES, settings).games == 24
    assert sprt(xs, GAMES, settings).decision == "undecided"
    assert sprt(xs[:2], GAMES, settings).decision == "continue"
    assert sprt_unpaired([1.0, 2.0, 3.0], [0.0, 1.0], 4, settings).games == 12


@pytest.mark.parametrize(
    "field, value, said",
    [
        ("margin1", 0.0, "margin1 must be a number of points a game above 0"),
        ("margin1", math.inf, "margin1 must be"),
        ("margin0", math.nan, "margin0 must be a number of points a game"),
        ("alpha", 0.5, "alpha must be a probability"),
        ("beta", 0, "beta must be a probability"),
        ("max_games", 0, "max_games must be a whole number of at least 1"),
        ("min_pairs", 1, "min_pairs must be a whole number of at least 2"),
        ("min_pairs", True, "min_pairs must be"),
    ],
)
def test_bad_settings_are_refused_naming_the_field(field: str, value: object, said: str) -> None:
    with pytest.raises(ConfigError, match=said):
        SprtSettings(**{field: value})  # type: ignore[arg-type]


def test_margin1_must_lie_above_margin0() -> None:
    with pytest.raises(ConfigError, match=r"margin1 must be .* above margin0 \(30\)"):
        SprtSettings(margin0=30.0, margin1=10.0)
    SprtSettings(margin0=-20.0, margin1=-5.0)  # both negative is a question too


# -- the interval shown beside a sequential verdict -------------------------------------


@given(DIFFERENCES)
def test_the_sequence_interval_holds_the_mean_and_is_wider_than_the_t_interval(
    xs: list[float],
) -> None:
    low, high = sequence_interval(xs)
    t = mean_interval(xs)
    assert low <= t.mean <= high
    assert low == pytest.approx(2 * t.mean - high, abs=1e-6)  # symmetric
    assert high - low >= (t.high - t.low) * (1 - 1e-9)


def test_the_sequence_interval_needs_two_differences() -> None:
    assert all(math.isnan(x) for x in sequence_interval([]) + sequence_interval([3.0]))


def _stopped(spread: float, rng: random.Random) -> tuple[str, list[float]]:
    """Differences of mean 0 fed to the test (margins 0 and 1) until it ends."""
    settings = SprtSettings(0.0, 1.0, max_games=250 * GAMES)
    xs: list[float] = []
    while True:
        xs.append(spread * rng.gauss(0, 1))
        verdict = sprt(xs, GAMES, settings)
        if verdict.decided:
            return verdict.decision, xs


@pytest.mark.parametrize("spread", [3.0, 6.0])
def test_where_a_test_of_no_difference_stops_the_sequence_interval_still_holds_0(
    spread: float,
) -> None:
    """The t interval read where a sequential test stops leans the way it stopped
    (it left 0 out of 6 to 9% of decided tests of a true difference of 0); the
    confidence sequence does not (0.05 to 0.9% over 2,000 seeds a spread)."""
    rng = random.Random(f"stopped/{spread}")
    seeds = 300 if spread == 3.0 else 120
    t_out = sequence_out = 0
    for _ in range(seeds):
        decision, xs = _stopped(spread, rng)
        if decision not in ("accept", "reject"):
            continue
        t = mean_interval(xs)
        low, high = sequence_interval(xs)
        t_out += not t.low <= 0 <= t.high
        sequence_out += not low <= 0 <= high
    assert sequence_out <= 0.02 * seeds, (sequence_out, t_out)
    assert t_out > sequence_out  # the lean the sequence answers is there to see
