"""The rating statistics on constructed cases whose answers are known by hand."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.bench.rating import games_needed, margin_orders
from arena.league.definition.config import Ratings
from arena.league.standings.ratings import GameOutcome, MatchOutcome, Rater, rating_updates
from arena.league.standings.separation import StopRule, place_order, stop_check
from arena.league.standings.stats import (
    head_to_head,
    match_margins,
    mean_interval,
    t_cdf,
    t_quantile,
)

NAMES = ["a", "b", "c", "d"]


def _match(
    idx: int, totals_by_game: list[list[int]], deals: list[list[list[int]]] = ()
) -> MatchOutcome:
    """A match whose game g gave entrant i totals_by_game[g][i] (deals[g][k][i] per deal)."""
    games = []
    for g, totals in enumerate(totals_by_game):
        game_deals = [dict(zip(NAMES, d, strict=True)) for d in deals[g]] if deals else []
        games.append(
            GameOutcome(
                g, dict(zip(NAMES, totals, strict=True)), dict.fromkeys(NAMES, 0), game_deals
            )
        )
    return MatchOutcome(idx, list(NAMES), games)


@pytest.mark.parametrize(
    ("df", "expected"),
    [(1, 12.7062), (2, 4.3027), (5, 2.5706), (10, 2.2281), (30, 2.0423), (120, 1.9799)],
)
def test_t_quantiles_match_the_printed_tables(df, expected) -> None:
    assert t_quantile(0.975, df) == pytest.approx(expected, abs=1e-4)
    assert t_quantile(0.025, df) == pytest.approx(-expected, abs=1e-4)


def test_t_cdf_of_one_degree_of_freedom_is_the_cauchy() -> None:
    for t in (-3.0, -0.5, 0.0, 1.0, 7.0):
        assert t_cdf(t, 1) == pytest.approx(0.5 + math.atan(t) / math.pi, abs=1e-10)


def test_mean_interval_by_hand() -> None:
    # 1..5: mean 3, sample variance 2.5, so half width t(0.975, 4) * sqrt(2.5 / 5).
    interval = mean_interval([1, 2, 3, 4, 5])
    half = 2.7764451 * math.sqrt(0.5)
    assert interval.mean == 3 and interval.n == 5
    assert interval.low == pytest.approx(3 - half, abs=1e-6)
    assert interval.high == pytest.approx(3 + half, abs=1e-6)
    assert interval.excludes(0) and interval.excludes(5) and not interval.excludes(2)
    assert mean_interval([4.0]).low is None and mean_interval([]).n == 0


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-1e4, 1e4), min_size=2, max_size=40), st.floats(-1e3, 1e3))
def test_interval_contains_the_mean_and_moves_with_a_shift(samples, shift) -> None:
    base = mean_interval(samples)
    moved = mean_interval([x + shift for x in samples])
    assert base.low <= base.mean <= base.high
    assert moved.low == pytest.approx(base.low + shift, abs=1e-6)
    assert moved.high - moved.low == pytest.approx(base.high - base.low, abs=1e-6)


def test_match_margins_and_head_to_head_by_hand() -> None:
    # Totals over the match: a 40, b 0, c -20, d -20; two games each.
    match = _match(0, [[10, 0, -10, 0], [30, 0, -10, -20]])
    margins = match_margins(match)
    assert margins["a"] == pytest.approx((40 - (0 - 20 - 20) / 3) / 2)
    assert margins["b"] == pytest.approx((0 - (40 - 20 - 20) / 3) / 2)
    assert sum(margins.values()) == pytest.approx(0)
    assert head_to_head(match, "a", "b") == 20
    assert head_to_head(match, "b", "a") == -20


def test_deal_feeding_sums_each_deal_over_the_rotations() -> None:
    deals = [[[5, 0, 0, -5], [0, 1, 0, 0]], [[-1, 0, 2, 0], [0, 0, 0, 9]]]
    match = _match(0, [[0, 0, 0, 0], [0, 0, 0, 0]], deals)
    updates = rating_updates(match, "deal")
    assert [u[1] for u in updates] == [
        {"a": 4, "b": 0, "c": 2, "d": -5},
        {"a": 0, "b": 1, "c": 0, "d": 9},
    ]
    assert len(rating_updates(match, "game")) == 2 and len(rating_updates(match, "match")) == 1


def test_games_needed_counts_from_where_the_share_stays_reached() -> None:
    # Four leagues over five matches; right after match m when the mark is True.
    correct = [
        [False, True, True, True, True],
        [False, False, True, True, True],
        [True, True, False, True, True],  # right early, wrong again, then settled
        [False, False, False, False, True],
    ]
    assert games_needed(correct, 0.75, 4) == 16  # 3 of 4 from match 4 on (match 2 dips)
    assert games_needed(correct, 1.0, 4) == 20
    assert games_needed([[False, False]], 0.5, 4) is None


def test_margin_order_follows_the_summed_margins() -> None:
    league = [_match(0, [[30, 20, 10, 0]]), _match(1, [[0, 30, 0, 0]])]
    assert margin_orders(league) == [("a", "b", "c", "d"), ("b", "a", "c", "d")]


def _rated(league: list[MatchOutcome]) -> Rater:
    rater = Rater(Ratings(), NAMES, "match", forfeit=1)
    for match in league:
        rater.apply(match)
    return rater


def test_stop_rule_stops_on_a_clear_order_and_not_on_noise() -> None:
    # a > b > c > d by 100 points a game in every match, with some noise on top.
    clear = [_match(i, [[300 + i % 3, 200 - i % 2, 100, 0]]) for i in range(16)]
    assert stop_check(clear[:4], _rated(clear[:4]), StopRule(min_matches=5)) is None
    assert stop_check(clear[:14], _rated(clear[:14]), StopRule()) is None  # 15 at least
    assert stop_check(clear, _rated(clear), StopRule()) == ("a", "b", "c", "d")
    # b and c swap places from match to match: never separated, however many matches.
    noisy = [_match(i, [[300, 100 + 50 * (i % 2), 125, 0]]) for i in range(12)]
    assert stop_check(noisy, _rated(noisy), StopRule()) is None


def test_stop_rule_needs_trueskill_and_the_margins_to_agree() -> None:
    league = [_match(i, [[300 + i, 200 + i % 2, 100, 0]]) for i in range(16)]
    rater = _rated(league)
    assert place_order(rater) == ("a", "b", "c", "d")
    assert stop_check(league, rater, StopRule()) == ("a", "b", "c", "d")
    rater.ratings["a"], rater.ratings["b"] = rater.ratings["b"], rater.ratings["a"]
    assert stop_check(league, rater, StopRule()) is None
